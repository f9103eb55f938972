package dev.counters.internal.ratelimit;

import dev.counters.CounterName;
import dev.counters.RateLimit;
import dev.counters.RateLimitRule;
import dev.counters.RateLimiter;
import dev.counters.StrategyStatistics;
import dev.counters.internal.NameRules;
import dev.counters.internal.strategy.StrategyContext;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * The service's rate limiters: one per name, with the limit of the first rule its name matches (an exact name first,
 * then the patterns in declared order) or of the call that made it. GCRA limiters decide here ({@link GcraLimiter});
 * windows by {@link WindowLimiter}.
 */
public final class RateLimiters implements AutoCloseable {

    /** The longest limiter name: its keys' storage names (at most 44 characters) follow it in a window's name. */
    public static final int MAX_NAME = 48;

    /** A rule and the name or pattern it was given for, which names the limiters' Resilience4j instances. */
    private record Rule(String nameOrPattern, RateLimitRule rule) {}

    private final NameRules<Optional<Rule>> rules;
    private final Function<String, StrategyContext> contexts;
    private final Runnable gcraStarted;
    private final Map<String, StoreRateLimiter> limiters = new ConcurrentHashMap<>();
    private final List<RateLimiter> made = new CopyOnWriteArrayList<>();

    /**
     * @param contexts the context of the limiters of a rule (by its name or pattern, or the default rule's name): its
     *     store, time and Resilience4j registries
     * @param gcraStarted run when a GCRA limiter is made: its idle keys are then to be deleted
     */
    public RateLimiters(
            Map<String, RateLimitRule> rules, Function<String, StrategyContext> contexts, Runnable gcraStarted) {
        Map<String, Optional<Rule>> routes = new LinkedHashMap<>();
        rules.forEach((nameOrPattern, rule) -> routes.put(nameOrPattern, Optional.of(new Rule(nameOrPattern, rule))));
        this.rules = NameRules.of(routes, Optional.empty());
        this.contexts = Objects.requireNonNull(contexts, "contexts");
        this.gcraStarted = Objects.requireNonNull(gcraStarted, "gcraStarted");
    }

    /**
     * Checks a limiter's name: a counter name of at most {@value #MAX_NAME} characters, without {@code :}, which
     * separates the name from the keys in the names the limiter stores.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static void checkName(String name) {
        CounterName.of(name, "Rate limiter name");
        checkPattern(name);
    }

    /** Checks a rule's name or pattern of limiters, as {@link #checkName}, allowing the wildcards. */
    public static void checkPattern(String nameOrPattern) {
        CounterName.validatePattern(nameOrPattern);
        if (nameOrPattern.length() > MAX_NAME) {
            throw new IllegalArgumentException("A rate limiter's name is at most " + MAX_NAME + " characters, '"
                    + nameOrPattern + "' has " + nameOrPattern.length());
        }
        if (nameOrPattern.indexOf(':') >= 0) {
            throw new IllegalArgumentException("A rate limiter's name has no ':', '" + nameOrPattern + "' has one");
        }
    }

    /**
     * The limiter of that name, with its rule's limit.
     *
     * @throws IllegalStateException if no rule matches, or the limiter has another limit already
     */
    public RateLimiter get(String name) {
        checkName(name);
        Rule rule = rules.select(name)
                .orElseThrow(() -> new IllegalStateException("No rate-limit rule matches '" + name
                        + "': give it one (CounterServiceBuilder.rateLimit, or counters.rate-limits with Spring Boot),"
                        + " or give its limit (CounterService.rateLimiter(name, limit))"));
        return limiter(name, rule, rule.rule().limit());
    }

    /**
     * The limiter of that name with {@code limit}, failing as its rule says (closed without one). A rule of that exact
     * name sets the limit too; a pattern's only how its limiters fail.
     *
     * @throws IllegalStateException if the limiter has another limit already, or its exact rule another
     */
    public RateLimiter get(String name, RateLimit limit) {
        checkName(name);
        Objects.requireNonNull(limit, "limit");
        Rule rule =
                rules.select(name).orElseGet(() -> new Rule(StrategyStatistics.DEFAULT_RULE, RateLimitRule.of(limit)));
        if (rule.nameOrPattern().equals(name) && !rule.rule().limit().equals(limit)) {
            throw new IllegalStateException("Rate limiter '" + name + "' has the limit "
                    + rule.rule().limit() + " from its rule, not " + limit + ": one name, one limit");
        }
        return limiter(name, rule, limit);
    }

    /** The limiters made so far, in the order they were made. */
    public List<RateLimiter> all() {
        return List.copyOf(made);
    }

    private RateLimiter limiter(String name, Rule rule, RateLimit limit) {
        StoreRateLimiter limiter = limiters.get(name);
        if (limiter == null) {
            synchronized (this) { // one limiter per name, listed in the order made
                limiter = limiters.get(name);
                if (limiter == null) {
                    limiter = create(name, rule, limit);
                    limiters.put(name, limiter);
                    made.add(limiter);
                }
            }
        }
        if (!limiter.limit().equals(limit)) {
            throw new IllegalStateException("Rate limiter '" + name + "' has the limit " + limiter.limit()
                    + " already, not " + limit + ": one name, one limit");
        }
        return limiter;
    }

    private StoreRateLimiter create(String name, Rule rule, RateLimit limit) {
        StrategyContext context = contexts.apply(rule.nameOrPattern());
        KeyLimiter algorithm;
        if (limit.algorithm() == RateLimit.Algorithm.GCRA) {
            algorithm = new GcraLimiter(context, name, limit);
            gcraStarted.run();
        } else {
            algorithm = WindowLimiter.create(context, name, limit);
            gcraStarted.run(); // its ended windows are to be deleted
        }
        RateLimitRule own = new RateLimitRule(
                limit, rule.rule().onStoreFailure(), rule.rule().failOpenPermits());
        return new StoreRateLimiter(name, own, algorithm, context.time());
    }

    /**
     * Deletes the ended windows of the window limiters made here ({@link WindowLimiter#purge}), at most
     * {@code budget}, for {@code Housekeeping}; how many.
     */
    public int purgeWindows(Instant horizon, int budget) {
        int removed = 0;
        for (StoreRateLimiter limiter : limiters.values()) {
            removed += WindowLimiter.purge(limiter.algorithm(), horizon, budget - removed);
            if (removed >= budget) {
                break;
            }
        }
        return removed;
    }

    @Override
    public void close() {
        List<RuntimeException> failures = new ArrayList<>();
        for (StoreRateLimiter limiter : limiters.values()) {
            try {
                limiter.close();
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        if (!failures.isEmpty()) {
            failures.subList(1, failures.size()).forEach(failures.get(0)::addSuppressed);
            throw failures.get(0);
        }
    }
}
