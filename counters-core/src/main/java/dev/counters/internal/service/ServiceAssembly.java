package dev.counters.internal.service;

import dev.counters.CounterName;
import dev.counters.CounterRule;
import dev.counters.CounterService;
import dev.counters.RateLimitRule;
import dev.counters.StrategyStatistics;
import dev.counters.internal.NamePattern;
import dev.counters.internal.NameRules;
import dev.counters.internal.Observations;
import dev.counters.internal.Time;
import dev.counters.internal.UniqueIds;
import dev.counters.internal.ratelimit.RateLimiters;
import dev.counters.internal.strategy.CounterStrategy;
import dev.counters.internal.strategy.StrategyContext;
import dev.counters.internal.strategy.StrategyRegistry;
import dev.counters.spi.CounterStore;
import dev.counters.spi.IdleCounters;
import dev.counters.spi.Members;
import dev.counters.spi.MonotonicCache;
import dev.counters.spi.RateLimits;
import dev.counters.spi.TotalCache;
import dev.counters.strategy.StrategySettings;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.retry.RetryRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * Builds a service from what {@link dev.counters.CounterServiceBuilder} collected: a strategy per rule that sets
 * one, the windows and idle expiries, and the housekeeping that serves them.
 */
public final class ServiceAssembly {

    /** Everything the builder was given. */
    public record Plan(
            CounterStore store,
            StrategySettings defaultStrategy,
            Map<String, CounterRule> rules,
            Map<String, RateLimitRule> rateLimits,
            Clock clock,
            RandomGenerator random,
            ThreadFactory threadFactory,
            RetryRegistry retries,
            CircuitBreakerRegistry circuitBreakers,
            Observations observations,
            Duration keyRetention,
            int maxCachedHandles,
            @Nullable MonotonicCache monotonicCache,
            @Nullable TotalCache totalCache) {

        public Plan {
            rules = Collections.unmodifiableMap(new LinkedHashMap<>(rules)); // in order: the first pattern wins
            rateLimits = Collections.unmodifiableMap(new LinkedHashMap<>(rateLimits));
        }
    }

    private ServiceAssembly() {}

    /**
     * Builds the service, and each strategy with it.
     *
     * @throws IllegalStateException if a strategy needs a capability the store does not offer; or if an exact rule
     *     gives a counting strategy to a counter the store holds as monotonic, or the reverse
     */
    public static CounterService assemble(Plan plan) {
        return assemble(
                plan,
                (context, settings) ->
                        new StrategyRegistry(context, plan.monotonicCache(), plan.totalCache()).create(settings));
    }

    /** {@link #assemble(Plan)} with strategies from {@code strategies}: a seam for tests. */
    static CounterService assemble(
            Plan plan, BiFunction<StrategyContext, StrategySettings, CounterStrategy> strategies) {
        CounterStore store = plan.store();
        Time time = Time.of(plan.clock(), store);
        UniqueIds ids = UniqueIds.create();
        List<Route> created = new ArrayList<>();
        try {
            Map<String, Route> routes = new LinkedHashMap<>();
            Map<String, Windows> windowed = new LinkedHashMap<>();
            Map<String, Optional<Windows>> windowRules = new LinkedHashMap<>();
            Map<String, Duration> expiries = new LinkedHashMap<>();
            List<String> memberRules = new ArrayList<>();
            plan.rules().forEach((nameOrPattern, rule) -> {
                if (rule.settings() != null) {
                    routes.put(
                            nameOrPattern, route(plan, nameOrPattern, rule.settings(), time, ids, strategies, created));
                }
                if (rule.window() != null) {
                    windowed.put(nameOrPattern, new Windows(rule.window(), nameOrPattern));
                    windowRules.put(nameOrPattern, Optional.of(windowed.get(nameOrPattern)));
                }
                if (rule.expireAfterIdle() != null) {
                    expiries.put(nameOrPattern, rule.expireAfterIdle());
                }
                if (rule.members()) {
                    memberRules.add(nameOrPattern);
                }
            });
            Route fallback = route(
                    plan, StrategyStatistics.DEFAULT_RULE, plan.defaultStrategy(), time, ids, strategies, created);
            NameRules<Route> router = NameRules.of(routes, fallback);
            StrategyFamilies families = StrategyFamilies.of(store);
            routes.forEach((nameOrPattern, route) -> {
                if (!NamePattern.isPattern(nameOrPattern)) {
                    families.check(CounterName.of(nameOrPattern), route);
                }
            });
            NameRules<Optional<Windows>> windowSelection = NameRules.of(windowRules, Optional.empty());
            NameRules<Boolean> members = NameRules.of(marked(memberRules), false);
            checkMemberRules(store, memberRules, router, windowSelection, expiries);
            List<Housekeeping.Task> tasks = new ArrayList<>();
            if (!windowed.isEmpty()) {
                tasks.add(new WindowPurge(store, router, windowSelection, windowed));
            }
            if (!expiries.isEmpty()) {
                tasks.add(idleExpiry(store, router, windowSelection, expiries));
            }
            boolean upkeepNow = !tasks.isEmpty();
            // Idle GCRA keys are deleted once a GCRA limiter is made: until then there are none of this service's.
            store.capability(RateLimits.class).ifPresent(limits -> tasks.add(new RateLimitExpiry(limits)));
            // Ended windows of the window limiters, once one is made (the limiters are made below).
            AtomicReference<@Nullable RateLimiters> limiters = new AtomicReference<>();
            tasks.add(horizon -> {
                RateLimiters made = limiters.get();
                return made == null ? 0 : made.purgeWindows(horizon, WindowPurge.MAX_PER_RUN);
            });
            Housekeeping housekeeping =
                    Housekeeping.of(store, time, ids.instanceId(), plan.keyRetention(), tasks, plan.threadFactory());
            housekeeping.keepClock(); // before any increment: its timestamps are on the database's clock
            if (upkeepNow) {
                housekeeping.start(); // windows and idle counters are removed from the start
            }
            RateLimiters rateLimiters = new RateLimiters(
                    plan.rateLimits(), rule -> context(plan, rule, RATE_LIMITER, time, ids), housekeeping::start);
            limiters.set(rateLimiters);
            FailoverNotice.log(
                    store,
                    created.stream().map(route -> route.settings().name()).toList(),
                    !plan.rateLimits().isEmpty());
            return new DefaultCounterService(
                    router,
                    created,
                    store,
                    plan.maxCachedHandles(),
                    windowSelection,
                    members,
                    time,
                    housekeeping,
                    families,
                    plan.threadFactory(),
                    rateLimiters);
        } catch (RuntimeException e) {
            created.forEach(route -> route.strategy().close());
            throw e;
        }
    }

    private static IdleExpiry idleExpiry(
            CounterStore store,
            NameRules<Route> router,
            NameRules<Optional<Windows>> windowSelection,
            Map<String, Duration> expiries) {
        IdleCounters idle = store.capability(IdleCounters.class)
                .orElseThrow(() -> new IllegalStateException(
                        "expire-after-idle needs a store that offers " + IdleCounters.class.getName() + ", and "
                                + store.getClass().getName() + " does not"));
        expiries.keySet().forEach(nameOrPattern -> {
            if (!router.select(nameOrPattern).settings().mayExpire()) {
                throw new IllegalArgumentException("Counters '" + nameOrPattern + "' are "
                        + router.select(nameOrPattern).strategyName() + " and cannot expire after idling: a "
                        + router.select(nameOrPattern).strategyName() + " counter removed would hand out its values"
                        + " again");
            }
        });
        return new IdleExpiry(store, idle, router, windowSelection, expiries);
    }

    /**
     * Each rule that makes counters count members, against the other rules its name or pattern meets: a strategy that
     * counts members, no windows, no idle expiry; and a store that keeps members. The service checks each name again.
     */
    private static void checkMemberRules(
            CounterStore store,
            Collection<String> memberRules,
            NameRules<Route> router,
            NameRules<Optional<Windows>> windowSelection,
            Map<String, Duration> expiries) {
        if (memberRules.isEmpty()) {
            return;
        }
        if (store.capability(Members.class).isEmpty()) {
            throw new IllegalStateException("Membership counters need a store that offers " + Members.class.getName()
                    + ", and " + store.getClass().getName() + " does not (the JDBC and in-memory stores do)");
        }
        NameRules<Boolean> expiry = NameRules.of(marked(expiries.keySet()), false);
        // Both ways: an expiry's idle counters are deleted by name, and their members would stay.
        NameRules<Boolean> counting = NameRules.of(marked(memberRules), false);
        for (String nameOrPattern : expiries.keySet()) {
            if (counting.select(nameOrPattern)) {
                throw new IllegalArgumentException("Counters '" + nameOrPattern + "' expire after idling, and a rule"
                        + " makes them count members; a membership counter cannot expire after idling");
            }
        }
        for (String nameOrPattern : memberRules) {
            Route route = router.select(nameOrPattern);
            if (!route.settings().countsMembers()) {
                throw new IllegalArgumentException("Counters '" + nameOrPattern + "' count members, but take the "
                        + route.strategyName() + " strategy from "
                        + (route.rule().equals(StrategyStatistics.DEFAULT_RULE)
                                ? "the default strategy"
                                : "rule '" + route.rule() + "'")
                        + ", which cannot count them: give them the atomic, sharded or node strategy");
            }
            Optional<Windows> windows = windowSelection.select(nameOrPattern);
            if (windows.isPresent()) {
                throw new IllegalArgumentException("Counters '" + nameOrPattern + "' count members, and take windows"
                        + " from rule '" + windows.get().rule + "'; a membership counter has no windows");
            }
            if (expiry.select(nameOrPattern)) {
                throw new IllegalArgumentException("Counters '" + nameOrPattern + "' count members, and a rule gives"
                        + " them an idle expiry; a membership counter cannot expire after idling");
            }
        }
    }

    /** A rule of each name or pattern, for {@link NameRules} that only say whether one matches. */
    private static Map<String, Boolean> marked(Collection<String> namesOrPatterns) {
        Map<String, Boolean> marked = new LinkedHashMap<>();
        namesOrPatterns.forEach(nameOrPattern -> marked.put(nameOrPattern, true));
        return marked;
    }

    /** What the rate limiters' Resilience4j instances are named by: {@code counters-ratelimit[<rule>]}. */
    static final String RATE_LIMITER = "ratelimit";

    private static StrategyContext context(Plan plan, String rule, String strategy, Time time, UniqueIds ids) {
        return new StrategyContext(
                plan.store(),
                time,
                plan.random(),
                ids,
                plan.threadFactory(),
                plan.retries(),
                plan.circuitBreakers(),
                plan.observations(),
                rule,
                strategy);
    }

    private static Route route(
            Plan plan,
            String rule,
            StrategySettings settings,
            Time time,
            UniqueIds ids,
            BiFunction<StrategyContext, StrategySettings, CounterStrategy> strategies,
            List<Route> created) {
        StrategyContext context = context(plan, rule, settings.name(), time, ids);
        Route route = new Route(rule, settings, strategies.apply(context, settings));
        created.add(route);
        return route;
    }
}
