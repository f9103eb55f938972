package dev.counters.benchmarks;

import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.redis.RedisMonotonicCache;
import dev.counters.strategy.MonotonicSettings;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

/**
 * {@code monotonic} with its current values on Redis ({@link RedisMonotonicCache}), run by several application
 * instances as several nodes would run it: each with its own pool, its own Lettuce client and its own cache, all on
 * one {@code redis-server} started here without persistence (as the cache asks). Each increment is
 * {@code incrementAndGet}, and every value handed out is logged.
 *
 * <p>A monotonic counter promises unique values, not a total equal to the increments (a failed increment may leave a
 * gap): {@link #totals()} answers the number of values handed out when none was handed out twice, none went backwards
 * for a caller, the cached value is at least the largest handed out and, at chance-to-write 1.0, so is the database's
 * maximum; otherwise -1. The driver's "exact" then means exactly that.
 */
final class MonotonicRedisWorkload implements Workload {

    /** What the cache documentation suggests for a counter, instead of Lettuce's 60 s. */
    private static final Duration TIMEOUT = Duration.ofMillis(500);

    private final RedisWorkload.Server server;
    private final List<RedisClient> clients = new ArrayList<>();
    private final JooqCounterStore store;
    private final MonotonicSettings settings;
    private final CounterService[] instances;
    private final String[] names;
    private final NumberLog[] values;
    private final AtomicInteger nextCaller = new AtomicInteger();
    private final ThreadLocal<CounterService> instance;

    private MonotonicRedisWorkload(Setup setup, MonotonicSettings settings, int instances) throws Exception {
        this.settings = settings;
        this.names = IntStream.range(0, setup.counters())
                .mapToObj(i -> "bench.c" + i)
                .toArray(String[]::new);
        this.values = IntStream.range(0, setup.counters())
                .mapToObj(i -> new NumberLog())
                .toArray(NumberLog[]::new);
        this.instances = new CounterService[instances];
        this.instance =
                ThreadLocal.withInitial(() -> this.instances[nextCaller.getAndIncrement() % this.instances.length]);
        this.server = RedisWorkload.Server.start(RedisWorkload.Persistence.NONE);
        try {
            String prefix = FreshTables.name("b") + "_";
            this.store = FreshTables.store(setup.dataSource(), prefix);
            int poolSize = Math.ceilDiv(setup.connections(), instances) + 2;
            for (int i = 0; i < instances; i++) {
                JooqCounterStore own =
                        i == 0 ? store : FreshTables.store(setup.pools().apply(poolSize), prefix);
                RedisMonotonicCache cache =
                        RedisMonotonicCache.lettuce(connect()).build();
                this.instances[i] = CounterService.builder(own)
                        .defaultStrategy(settings)
                        .monotonicCache(cache)
                        .build();
            }
        } catch (Exception | Error e) { // a redis-server left running would outlive this JVM
            clients.forEach(RedisClient::shutdown);
            server.stop();
            throw e;
        }
    }

    /** {@code instances} application instances on one Redis and one set of tables. */
    static Opener opener(MonotonicSettings settings, int instances) {
        return setup -> new MonotonicRedisWorkload(setup, settings, instances);
    }

    /** A client of its own, as another application node would have. */
    private StatefulRedisConnection<String, String> connect() {
        RedisClient client = RedisClient.create(RedisURI.builder()
                .withHost("127.0.0.1")
                .withPort(server.port())
                .withTimeout(TIMEOUT)
                .build());
        clients.add(client);
        return client.connect();
    }

    @Override
    public void increment(int counter) {
        values[counter].add(instance.get().incrementAndGet(names[counter], 1));
    }

    @Override
    public void close() {
        Arrays.stream(instances).forEach(CounterService::close);
    }

    @Override
    public long[] totals() throws Exception {
        long[] totals = new long[names.length];
        try {
            // The database's maximum as a restarted application reads it with an empty cache of its own.
            RedisMonotonicCache cached = RedisMonotonicCache.lettuce(connect()).build();
            try (CounterService database = CounterService.builder(store)
                    .defaultStrategy(MonotonicSettings.defaults())
                    .build()) {
                for (int i = 0; i < names.length; i++) {
                    NumberLog log = values[i];
                    long highest = log.highest();
                    long inCache = cached.get(CounterName.of(names[i])).orElse(Long.MIN_VALUE);
                    long stored = database.get(names[i]);
                    boolean right = log.uniqueAndIncreasing()
                            && inCache >= highest
                            && (settings.chanceToWrite() < 1.0 || stored >= highest);
                    if (names.length == 1 || !right) { // below 1.0, how far the database's maximum trails
                        Report.log(names[i] + ": " + log.count() + " values handed out, highest " + highest
                                + "; Redis at " + inCache + ", the database's maximum at " + stored);
                    }
                    totals[i] = right ? log.count() : -1;
                }
            }
        } finally {
            clients.forEach(RedisClient::shutdown);
            server.stop();
        }
        return totals;
    }
}
