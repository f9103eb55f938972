package dev.counters.spring.boot;

import dev.counters.CounterService;
import dev.counters.RateDecision;
import dev.counters.RateLimiter;
import dev.counters.StrategyStatistics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Meters for every configured rule, tagged {@code rule} (the exact name or pattern from configuration, or
 * {@code (default)}) and {@code strategy}: the configuration bounds their number, where counter names would not.
 * They read {@link CounterService#statistics()} when the registry asks, so counting costs nothing extra. Rate
 * limiters' decisions are counted per limiter and outcome, never per key; a limiter made after startup gets its meters
 * when the registry next reads {@code counters.ratelimit.limiters} (at its next publication or scrape). The rules
 * whose counters count members ({@code members: true}) count their changes by outcome, never per counter or member.
 */
final class CountersMetrics implements MeterBinder {

    private final CounterService counters;

    /** The rules whose counters count members. */
    private final Set<String> memberRules;

    /** The registries bound, to register the meters of limiters made later. */
    private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

    /** How many limiters have their meters. */
    private int boundLimiters;

    CountersMetrics(CounterService counters, Set<String> memberRules) {
        this.counters = counters;
        this.memberRules = Set.copyOf(memberRules);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (StrategyStatistics initial : counters.statistics()) {
            String rule = initial.rule();
            Tags tags = Tags.of("rule", rule, "strategy", initial.strategy());
            count(registry, "counters.increments", "Increments accepted", tags, rule, s -> s.increments());
            count(
                    registry,
                    "counters.conflicts",
                    "Compare-and-set attempts that found a newer version",
                    tags,
                    rule,
                    s -> s.activity().conflicts());
            count(
                    registry,
                    "counters.retries",
                    "Attempts repeated after a conflict or a failure",
                    tags,
                    rule,
                    s -> s.activity().retries());
            count(
                    registry,
                    "counters.contention.failures",
                    "Increments refused after every attempt conflicted",
                    tags,
                    rule,
                    s -> s.activity().contentionFailures());
            if (initial.activity().buffer() != null) {
                bindBuffer(registry, tags, rule);
            }
            if (initial.activity().escrow() != null) {
                bindEscrow(registry, tags, rule);
            }
            if (memberRules.contains(rule)) {
                bindMembers(registry, tags, rule);
            }
        }
        registries.add(registry);
        Gauge.builder("counters.ratelimit.limiters", this, CountersMetrics::limiters)
                .description("Rate limiters made so far")
                .register(registry);
        bindLimiters(counters.rateLimiters(), List.of(registry));
    }

    /** The number of limiters, after registering the meters of any made since the last read. */
    private synchronized double limiters() {
        List<RateLimiter> limiters = counters.rateLimiters();
        if (limiters.size() > boundLimiters) {
            bindLimiters(limiters, registries);
            boundLimiters = limiters.size();
        }
        return limiters.size();
    }

    /** A meter per limiter and outcome; one registered twice is the same meter. */
    private static void bindLimiters(List<RateLimiter> limiters, List<MeterRegistry> registries) {
        for (MeterRegistry registry : registries) {
            for (RateLimiter limiter : limiters) {
                for (RateDecision.Outcome outcome : RateDecision.Outcome.values()) {
                    FunctionCounter.builder("counters.ratelimit.decisions", limiter, each -> each.decisions(outcome))
                            .description("Rate limiters' decisions, by outcome")
                            .tags(Tags.of("limiter", limiter.name(), "outcome", RateLimitRules.configName(outcome)))
                            .register(registry);
                }
            }
        }
    }

    private void bindBuffer(MeterRegistry registry, Tags tags, String rule) {
        count(
                registry,
                "counters.flushes",
                "Flushes of buffered increments",
                tags.and("outcome", "success"),
                rule,
                s -> buffer(s).flushes());
        count(
                registry,
                "counters.flushes",
                "Flushes of buffered increments",
                tags.and("outcome", "failure"),
                rule,
                s -> buffer(s).failedFlushes());
        FunctionTimer.builder(
                        "counters.flush",
                        counters,
                        c -> {
                            StrategyStatistics.BufferActivity buffer = buffer(statistics(c, rule));
                            return buffer.flushes() + buffer.failedFlushes();
                        },
                        c -> buffer(statistics(c, rule)).flushTime().toNanos(),
                        TimeUnit.NANOSECONDS)
                .description("Time spent in flush attempts")
                .tags(tags)
                .register(registry);
        TimeGauge.builder(
                        "counters.flush.lag",
                        counters,
                        TimeUnit.NANOSECONDS,
                        c -> buffer(statistics(c, rule)).flushLag().toNanos())
                .description("How long the oldest unwritten increment may have waited")
                .tags(tags)
                .register(registry);
        gauge(
                registry,
                "counters.pending.counters",
                "Counters holding unwritten increments",
                tags,
                rule,
                s -> buffer(s).pendingCounters());
        gauge(
                registry,
                "counters.pending.increments",
                "Increments made since the last flush started",
                tags,
                rule,
                s -> buffer(s).pendingIncrements());
        gauge(
                registry,
                "counters.pending.counters.limit",
                "The bound on counters holding unwritten increments",
                tags,
                rule,
                s -> buffer(s).maxPendingCounters());
    }

    private void bindMembers(MeterRegistry registry, Tags tags, String rule) {
        String description = "Adds and removes of members: added, removed, or unchanged (the member was as asked)";
        count(
                registry,
                "counters.members.changes",
                description,
                tags.and("outcome", "added"),
                rule,
                s -> s.membersAdded());
        count(
                registry,
                "counters.members.changes",
                description,
                tags.and("outcome", "removed"),
                rule,
                s -> s.membersRemoved());
        count(
                registry,
                "counters.members.changes",
                description,
                tags.and("outcome", "unchanged"),
                rule,
                s -> s.membersUnchanged());
    }

    private void bindEscrow(MeterRegistry registry, Tags tags, String rule) {
        count(
                registry,
                "counters.bounded.refusals",
                "Changes and holds refused because they would have left the bounds",
                tags,
                rule,
                s -> escrow(s).refusals());
        count(
                registry,
                "counters.bounded.refills",
                "Transfers of room from the pool row into this node's allowances",
                tags,
                rule,
                s -> escrow(s).refills());
        count(
                registry,
                "counters.bounded.refilled.units",
                "Units moved into this node's allowances",
                tags,
                rule,
                s -> escrow(s).refilledUnits());
        count(
                registry,
                "counters.bounded.pool.changes",
                "Changes written to the shared pool row",
                tags,
                rule,
                s -> escrow(s).poolChanges());
        count(
                registry,
                "counters.bounded.given.back.units",
                "Units this node gave back to the pool",
                tags,
                rule,
                s -> escrow(s).givenBackUnits());
        count(
                registry,
                "counters.bounded.expired.holds",
                "Reservations that expired unconfirmed and went back",
                tags,
                rule,
                s -> escrow(s).expiredHolds());
        count(
                registry,
                "counters.bounded.stranded.units",
                "Units found in the allowances of nodes that died, and given back to the pool",
                tags,
                rule,
                s -> escrow(s).strandedUnits());
        gauge(
                registry,
                "counters.bounded.allowance.units",
                "Room this node holds in its allowances",
                tags,
                rule,
                s -> escrow(s).allowanceUnits());
    }

    private void count(
            MeterRegistry registry,
            String name,
            String description,
            Tags tags,
            String rule,
            ToDoubleFunction<StrategyStatistics> value) {
        FunctionCounter.builder(name, counters, c -> value.applyAsDouble(statistics(c, rule)))
                .description(description)
                .tags(tags)
                .register(registry);
    }

    private void gauge(
            MeterRegistry registry,
            String name,
            String description,
            Tags tags,
            String rule,
            ToDoubleFunction<StrategyStatistics> value) {
        Gauge.builder(name, counters, c -> value.applyAsDouble(statistics(c, rule)))
                .description(description)
                .tags(tags)
                .register(registry);
    }

    private static StrategyStatistics statistics(CounterService counters, String rule) {
        for (StrategyStatistics statistics : counters.statistics()) {
            if (statistics.rule().equals(rule)) {
                return statistics;
            }
        }
        throw new IllegalStateException("No strategy for rule " + rule);
    }

    private static StrategyStatistics.EscrowActivity escrow(StrategyStatistics statistics) {
        StrategyStatistics.EscrowActivity escrow = statistics.activity().escrow();
        if (escrow == null) {
            throw new IllegalStateException("Not a bounded strategy");
        }
        return escrow;
    }

    private static StrategyStatistics.BufferActivity buffer(StrategyStatistics statistics) {
        StrategyStatistics.BufferActivity buffer = statistics.activity().buffer();
        if (buffer == null) {
            throw new IllegalStateException("Not a buffered strategy");
        }
        return buffer;
    }
}
