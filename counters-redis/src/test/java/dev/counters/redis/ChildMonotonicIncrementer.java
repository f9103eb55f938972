package dev.counters.redis;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CacheUnavailableException;
import dev.counters.Counter;
import dev.counters.CounterContentionException;
import dev.counters.CounterService;
import dev.counters.CounterServiceBuilder;
import dev.counters.contract.Concurrently;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.ChildPool;
import dev.counters.redis.testing.RedisClients;
import dev.counters.strategy.MonotonicSettings;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A process of the multi-process monotonic test: another application node on the same database and Redis. Its
 * threads increment the counters in turn until the stop file appears, and write every value they receive to a file
 * per thread and counter, as records of (nanoTime before the call, nanoTime after it, value): System.nanoTime is
 * the machine's monotonic clock, comparable across the processes of one host. A failure the library reports as not
 * applied (Redis down or too slow) is counted and tried again; anything else ends the process with an error.
 * Arguments: jdbcUrl user password tablePrefix redisPort threads counters (comma-separated name=chanceToWrite)
 * outputDirectory stopFile.
 */
public final class ChildMonotonicIncrementer {

    private ChildMonotonicIncrementer() {}

    private static CounterService service(
            HikariDataSource dataSource,
            String tablePrefix,
            RedisClients.Lettuce redis,
            String[] counterChances,
            String[] names) {
        RedisMonotonicCache cache =
                RedisMonotonicCache.lettuce(redis.connection()).build();
        CounterServiceBuilder builder = CounterService.builder(
                JooqCounterStore.builder(dataSource).tablePrefix(tablePrefix).build());
        for (int c = 0; c < counterChances.length; c++) {
            String[] nameAndChance = counterChances[c].split("=");
            names[c] = nameAndChance[0];
            builder.strategy(
                    names[c], MonotonicSettings.defaults().withChanceToWrite(Double.parseDouble(nameAndChance[1])));
        }
        return builder.monotonicCache(cache).build();
    }

    public static void main(String[] args) throws Exception {
        int redisPort = Integer.parseInt(args[4]);
        int threads = Integer.parseInt(args[5]);
        String[] counterChances = args[6].split(",");
        String[] names = new String[counterChances.length];
        Path out = Path.of(args[7]);
        Path stop = Path.of(args[8]);
        AtomicLong handedOut = new AtomicLong();
        AtomicLong unavailable = new AtomicLong();
        try (HikariDataSource dataSource = ChildPool.of(args, threads);
                RedisClients.Lettuce redis = RedisClients.lettuce("127.0.0.1", redisPort, RedisClients.TIMEOUT);
                CounterService counters = service(dataSource, args[3], redis, counterChances, names)) {
            System.out.println("READY");
            System.out.flush();
            Concurrently.run(threads, thread -> {
                DataOutputStream[] files = new DataOutputStream[names.length];
                Counter[] counter = new Counter[names.length];
                for (int c = 0; c < names.length; c++) {
                    counter[c] = counters.counter(names[c]);
                    files[c] = new DataOutputStream(new BufferedOutputStream(
                            new FileOutputStream(
                                    out.resolve(ProcessHandle.current().pid() + "-" + thread + "-" + names[c] + ".bin")
                                            .toFile()),
                            1 << 14));
                }
                try {
                    for (long i = 0; !Files.exists(stop); i++) {
                        int c = (int) (i % names.length);
                        long before = System.nanoTime();
                        try {
                            long value = counter[c].incrementAndGet(1);
                            long after = System.nanoTime();
                            files[c].writeLong(before);
                            files[c].writeLong(after);
                            files[c].writeLong(value);
                            handedOut.incrementAndGet();
                        } catch (CacheUnavailableException | CounterContentionException notApplied) {
                            unavailable.incrementAndGet();
                            Thread.sleep(20);
                        }
                    }
                } finally {
                    for (DataOutputStream file : files) {
                        file.close();
                    }
                }
            });
        }
        System.out.println("VALUES " + handedOut.get() + " UNAVAILABLE " + unavailable.get());
    }
}
