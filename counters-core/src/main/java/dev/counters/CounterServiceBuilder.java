package dev.counters;

import dev.counters.spi.CounterStore;
import dev.counters.strategy.CounterStrategy;
import dev.counters.strategy.Strategies;
import dev.counters.strategy.StrategyContext;
import dev.counters.strategy.StrategyFactory;
import dev.counters.strategy.UniqueIds;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * Builds a {@link CounterService}: a default strategy, and strategies for particular counters chosen by exact
 * name or by pattern. An exact name wins over a pattern; among patterns, the first one declared that matches
 * wins. A pattern is a counter name in which {@code *} stands for any run of characters and {@code ?} for one
 * character: {@code orders.*}.
 */
public final class CounterServiceBuilder {

    private final CounterStore store;
    private StrategyFactory defaultStrategy = Strategies.atomic();
    private final Map<String, StrategyFactory> rules = new LinkedHashMap<>();
    private Clock clock = Clock.systemUTC();
    private RandomGenerator random = PER_THREAD_RANDOM;
    private int maxCachedHandles = 10_000;
    private ThreadFactory threadFactory = Thread.ofPlatform().daemon().factory();

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

    /** The strategy of every counter no rule matches; {@link Strategies#atomic()} unless set. */
    public CounterServiceBuilder defaultStrategy(StrategyFactory strategy) {
        this.defaultStrategy = Objects.requireNonNull(strategy, "strategy");
        return this;
    }

    /** The strategy of the counters whose name is, or matches, {@code nameOrPattern}. */
    public CounterServiceBuilder strategy(String nameOrPattern, StrategyFactory strategy) {
        NameRules.add(rules, nameOrPattern, strategy, "A strategy");
        return this;
    }

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

    public CounterService build() {
        StrategyContext context = new StrategyContext(store, clock, random, UniqueIds.create(),
                threadFactory);
        List<DefaultCounterService.Route> created = new ArrayList<>();
        try {
            Map<String, DefaultCounterService.Route> routes = new LinkedHashMap<>();
            rules.forEach((nameOrPattern, factory) ->
                    routes.put(nameOrPattern, create(nameOrPattern, factory, context, created)));
            DefaultCounterService.Route fallback = create(StrategyStatistics.DEFAULT_RULE, defaultStrategy, context,
                    created);
            return new DefaultCounterService(NameRules.of(routes, fallback), created, store, maxCachedHandles);
        } catch (RuntimeException e) {
            created.forEach(route -> route.strategy().close());
            throw e;
        }
    }

    private static DefaultCounterService.Route create(String rule, StrategyFactory factory, StrategyContext context,
            List<DefaultCounterService.Route> created) {
        CounterStrategy strategy = Objects.requireNonNull(factory.create(context), "a StrategyFactory returned null");
        DefaultCounterService.Route route = new DefaultCounterService.Route(rule, strategy);
        created.add(route);
        return route;
    }
}
