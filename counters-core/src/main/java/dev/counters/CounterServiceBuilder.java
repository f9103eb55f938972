package dev.counters;

import dev.counters.internal.NamePattern;
import dev.counters.internal.NameRules;
import dev.counters.internal.Observations;
import dev.counters.internal.Threads;
import dev.counters.internal.ratelimit.RateLimiters;
import dev.counters.internal.service.ServiceAssembly;
import dev.counters.observation.CountersObservationConvention;
import dev.counters.observation.DefaultCountersObservationConvention;
import dev.counters.spi.CounterStore;
import dev.counters.spi.MonotonicCache;
import dev.counters.spi.TotalCache;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.CacheChoice;
import dev.counters.strategy.StrategySettings;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.retry.RetryRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link CounterService}: a default strategy, and {@link CounterRule rules} for particular counters, chosen
 * by exact name or by pattern. An exact name wins over a pattern; among patterns, the first one declared that matches
 * wins. A pattern is a counter name in which {@code *} stands for any run of characters and {@code ?} for one
 * character: {@code orders.*}.
 *
 * <pre>{@code
 * CounterService counters = CounterService.builder(store)
 *         .strategy("views.*", ShardedSettings.defaults().withShards(16))
 *         .rule("api.calls.*", CounterRule.of(BufferedSettings.defaults())
 *                 .withWindow(WindowSettings.of(Duration.ofMinutes(1))))
 *         .build();
 * }</pre>
 */
public final class CounterServiceBuilder {

    private final CounterStore store;
    private StrategySettings defaultStrategy = AtomicSettings.defaults();
    private final Map<String, CounterRule> rules = new LinkedHashMap<>();
    private final Map<String, RateLimitRule> rateLimits = new LinkedHashMap<>();
    private @Nullable MonotonicCache monotonicCache;
    private @Nullable TotalCache totalCache;
    private Clock clock = Clock.systemUTC();
    private RandomGenerator random = PER_THREAD_RANDOM;
    private int maxCachedHandles = 10_000;
    private ThreadFactory threadFactory = Threads.daemon("counters-");
    private RetryRegistry retries = RetryRegistry.ofDefaults();
    private CircuitBreakerRegistry circuitBreakers = CircuitBreakerRegistry.ofDefaults();
    private ObservationRegistry observations = ObservationRegistry.NOOP;
    private CountersObservationConvention observationConvention = DefaultCountersObservationConvention.INSTANCE;
    private Duration keyRetention = DEFAULT_KEY_RETENTION;

    /** How long an idempotency key is remembered unless set: a day, like the idempotency keys of payment APIs. */
    public static final Duration DEFAULT_KEY_RETENTION = Duration.ofDays(1);

    /**
     * Looks up the calling thread's generator on every call. Keeping one {@code ThreadLocalRandom.current()} and using
     * it from other threads draws from their seeds, which start equal in every thread that never called
     * {@code current()} itself: the same numbers in every thread and every process.
     */
    private static final RandomGenerator PER_THREAD_RANDOM = new RandomGenerator() {
        @Override
        public long nextLong() {
            return ThreadLocalRandom.current().nextLong();
        }

        @Override
        public int nextInt(int bound) {
            return ThreadLocalRandom.current().nextInt(bound);
        }

        @Override
        public double nextDouble() {
            return ThreadLocalRandom.current().nextDouble();
        }
    };

    CounterServiceBuilder(CounterStore store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    /** The strategy of every counter no rule gives one; {@link AtomicSettings} unless set. */
    public CounterServiceBuilder defaultStrategy(StrategySettings strategy) {
        this.defaultStrategy = Objects.requireNonNull(strategy, "strategy");
        return this;
    }

    /** The strategy of the counters whose name is, or matches, {@code nameOrPattern}: a {@link CounterRule#of}. */
    public CounterServiceBuilder strategy(String nameOrPattern, StrategySettings strategy) {
        return rule(nameOrPattern, CounterRule.of(strategy));
    }

    /**
     * Gives the counters whose name is, or matches, {@code nameOrPattern} what {@code rule} sets. Each part (strategy,
     * windows, idle expiry) is set once per name or pattern; calls for the same one add parts.
     *
     * @throws IllegalArgumentException for a bad name or pattern, or a part already set for it
     */
    public CounterServiceBuilder rule(String nameOrPattern, CounterRule rule) {
        NamePattern.validate(nameOrPattern);
        Objects.requireNonNull(rule, "rule");
        rules.merge(nameOrPattern, rule, (set, added) -> set.merge(added, nameOrPattern));
        return this;
    }

    /**
     * Gives the rate limiters whose name is, or matches, {@code nameOrPattern} ({@link CounterService#rateLimiter})
     * their limit and what they do when the database fails. An exact name first, then the patterns in the order they
     * were declared.
     *
     * @throws IllegalArgumentException for a bad name or pattern, or one given a rule already
     */
    public CounterServiceBuilder rateLimit(String nameOrPattern, RateLimitRule rule) {
        RateLimiters.checkPattern(nameOrPattern);
        NameRules.add(rateLimits, nameOrPattern, rule, "A rate limit");
        return this;
    }

    /**
     * Gives the counters whose name is, or matches, {@code nameOrPattern} time windows (a {@link CounterRule#windowed}):
     * each increment lands in the window of its time, kept for the retention, and
     * {@link CounterService#windowed(String)} reads them by window. Which strategy stores the windows is chosen by the
     * strategy rules, as for any counter; it keeps its guarantees per window. A windowed counter's name is at most
     * {@value #MAX_WINDOWED_NAME} characters, and does not contain {@code :w:}.
     */
    public CounterServiceBuilder windows(String nameOrPattern, WindowSettings settings) {
        return rule(nameOrPattern, CounterRule.windowed(settings));
    }

    /**
     * Removes the counters whose name is, or matches, {@code nameOrPattern} once nobody wrote them for
     * {@code idle} (at least a minute; a {@link CounterRule#expiringAfterIdle}): in the background, one process at a
     * time, a thousand names per query. A removed counter reads 0, as one never written, and counts again from 0. It
     * costs the write path nothing (the expiry compares the cells' versions between its looks), and a counter written
     * while it is removed keeps that write. Monotonic counters never expire: their values would repeat. Off unless
     * set.
     */
    public CounterServiceBuilder expireAfterIdle(String nameOrPattern, Duration idle) {
        return rule(nameOrPattern, CounterRule.expiringAfterIdle(idle));
    }

    /**
     * The cache that {@code monotonic} counters share with the other nodes ({@code counters-redis} has one), unless
     * their settings choose {@link CacheChoice#LOCAL}. Without it they cache in this JVM, which is exact on one node
     * only.
     */
    public CounterServiceBuilder monotonicCache(MonotonicCache cache) {
        this.monotonicCache = Objects.requireNonNull(cache, "cache");
        return this;
    }

    /**
     * The cache of {@code sharded} totals shared with the other nodes ({@code counters-redis} has one), for settings
     * with a cached-total expiry, unless they choose {@link CacheChoice#LOCAL}. Without it totals are cached in this
     * JVM, where they see only this node's increments until they expire.
     */
    public CounterServiceBuilder totalCache(TotalCache cache) {
        this.totalCache = Objects.requireNonNull(cache, "cache");
        return this;
    }

    /** The longest name of a windowed counter: its windows' names add 19 characters. */
    public static final int MAX_WINDOWED_NAME = 109;

    /** The clock strategies use for intervals and expiry; the system UTC clock unless set. */
    public CounterServiceBuilder clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /**
     * The thread-safe source of randomness strategies use to spread load (shard choice); the calling thread's
     * {@link ThreadLocalRandom} unless set. Ids are never drawn from it, so a deterministic generator is safe.
     */
    public CounterServiceBuilder random(RandomGenerator random) {
        this.random = Objects.requireNonNull(random, "random");
        return this;
    }

    /**
     * How many counter handles the service keeps resolved (name validated, strategy chosen) for its name-based
     * methods; least recently used ones are dropped beyond it. 10,000 unless set.
     */
    public CounterServiceBuilder maxCachedHandles(int maxCachedHandles) {
        if (maxCachedHandles < 0) {
            throw new IllegalArgumentException("maxCachedHandles must be >= 0, was " + maxCachedHandles);
        }
        this.maxCachedHandles = maxCachedHandles;
        return this;
    }

    /**
     * Where strategies get their background threads (buffered flusher, delta-log recounter, node lease renewer);
     * daemon platform threads unless set. Virtual threads work too.
     */
    public CounterServiceBuilder threadFactory(ThreadFactory threadFactory) {
        this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
        return this;
    }

    /**
     * Where strategies get their Resilience4j retries: each strategy of the service retries in exactly one place,
     * through the instance named {@code counters-<strategy>} ({@code counters-<strategy>[<rule>]} for a rule's
     * strategy). An instance the registry already holds under that name is used as it is, so an application can
     * configure it; otherwise the strategy registers one with its own defaults. Share the application's registry to
     * see them in Resilience4j's metrics and endpoints. A registry of this service's own unless set.
     */
    public CounterServiceBuilder retryRegistry(RetryRegistry retries) {
        this.retries = Objects.requireNonNull(retries, "retries");
        return this;
    }

    /** Where the buffered strategy gets its circuit breaker, named and found like retries (see above). */
    public CounterServiceBuilder circuitBreakerRegistry(CircuitBreakerRegistry circuitBreakers) {
        this.circuitBreakers = Objects.requireNonNull(circuitBreakers, "circuitBreakers");
        return this;
    }

    /**
     * Where the strategies report their store operations as Micrometer observations: flushes
     * ({@code counters.store.flush}), recounts ({@code counters.store.recount}) and combined writes
     * ({@code counters.store.write}), tagged with the rule and the strategy. None unless set.
     */
    public CounterServiceBuilder observationRegistry(ObservationRegistry observations) {
        this.observations = Objects.requireNonNull(observations, "observations");
        return this;
    }

    /**
     * How the store operations' observations are named and tagged, to rename them or add tags (extend
     * {@link DefaultCountersObservationConvention} to keep its tags); {@link DefaultCountersObservationConvention}
     * unless set.
     */
    public CounterServiceBuilder observationConvention(CountersObservationConvention convention) {
        this.observationConvention = Objects.requireNonNull(convention, "convention");
        return this;
    }

    /**
     * How long an idempotency key is remembered ({@link CounterService#increment(String, long, IdempotencyKey)}): a
     * repeat within it writes nothing, one after it counts again. Make it longer than any caller repeats a call (a
     * message broker's redelivery window, a client's retry budget). Keys are forgotten in the background, by one
     * process at a time. A day unless set; at least a minute.
     */
    public CounterServiceBuilder keyRetention(Duration keyRetention) {
        this.keyRetention = checkKeyRetention(keyRetention);
        return this;
    }

    /**
     * Checks a key retention as {@link #keyRetention} does, for configuration checked before a builder exists (the
     * Spring Boot starter's).
     *
     * @return {@code keyRetention}
     * @throws IllegalArgumentException if shorter than a minute
     */
    public static Duration checkKeyRetention(Duration keyRetention) {
        Objects.requireNonNull(keyRetention, "keyRetention");
        if (keyRetention.compareTo(Duration.ofMinutes(1)) < 0) {
            throw new IllegalArgumentException("key retention must be at least 1 minute, was " + keyRetention);
        }
        return keyRetention;
    }

    /**
     * Builds the service, and each strategy with it.
     *
     * @throws IllegalStateException if a strategy needs a capability the store does not offer, or a shared cache the
     *     builder was not given; or if an exact rule gives a counting strategy to a counter the store holds as
     *     monotonic, or {@code monotonic} to one it holds counted: a counter cannot move between the two families
     *     (under a pattern or the default, such a counter is refused when it is first used)
     */
    public CounterService build() {
        return ServiceAssembly.assemble(new ServiceAssembly.Plan(
                store,
                defaultStrategy,
                rules,
                rateLimits,
                clock,
                random,
                threadFactory,
                retries,
                circuitBreakers,
                new Observations(observations, observationConvention),
                keyRetention,
                maxCachedHandles,
                monotonicCache,
                totalCache));
    }
}
