package dev.counters.benchmarks;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;

/**
 * Redis {@code INCR} through Jedis, against a {@code redis-server} started here on a free loopback port: the figure
 * users weigh a database counter against. Three settings:
 * <ul>
 *   <li>{@link Persistence#NONE}: in memory only, the ceiling;
 *   <li>{@link Persistence#ALWAYS}: append-only file with {@code appendfsync always}, durable as a database commit,
 *       with the same delay per disk sync as the production-like databases ({@link DurableServers});
 *   <li>{@link Persistence#EVERYSEC}: {@code appendfsync everysec}, Redis's usual setting (a crash loses up to a
 *       second of increments), same delay.
 * </ul>
 * Not offered when no {@code redis-server} binary is on the PATH (Debian: {@code apt-get install redis-server}).
 */
class RedisWorkload implements Workload {

    enum Persistence {
        NONE,
        ALWAYS,
        EVERYSEC
    }

    private final Server server;
    private final JedisPool pool;
    private final int counters;

    /** A server of its own with every counter at {@code initial}. */
    RedisWorkload(int counters, int connections, Persistence persistence, long initial) throws Exception {
        this.server = Server.start(persistence);
        JedisPoolConfig config = new JedisPoolConfig();
        config.setMaxTotal(connections);
        this.pool = new JedisPool(config, "127.0.0.1", server.port());
        this.counters = counters;
        try (var redis = pool.getResource()) {
            for (int i = 0; i < counters; i++) {
                redis.set(key(i), String.valueOf(initial));
            }
        } catch (RuntimeException e) { // a redis-server left running would outlive this JVM
            pool.close();
            server.stop();
            throw e;
        }
    }

    /** A {@code redis-server} on a free loopback port with a directory of its own, answering when returned. */
    record Server(Process process, int port, Path directory) {

        static Server start(Persistence persistence) throws Exception {
            int port;
            try (ServerSocket socket = new ServerSocket(0)) {
                port = socket.getLocalPort();
            }
            Path directory = Files.createTempDirectory("counters-redis-");
            List<String> command = new ArrayList<>(List.of(
                    "redis-server",
                    "--port",
                    String.valueOf(port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--dir",
                    directory.toString()));
            command.addAll(
                    switch (persistence) {
                        case NONE -> List.of("--appendonly", "no");
                        case ALWAYS -> List.of("--appendonly", "yes", "--appendfsync", "always");
                        case EVERYSEC -> List.of("--appendonly", "yes", "--appendfsync", "everysec");
                    });
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD);
            if (persistence != Persistence.NONE) {
                builder.environment().putAll(DurableServers.syncDelay());
            }
            Server server = new Server(builder.start(), port, directory);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (true) {
                try (var redis = new Jedis("127.0.0.1", port)) {
                    redis.ping();
                    return server;
                } catch (RuntimeException e) {
                    if (System.nanoTime() > deadline) {
                        server.stop();
                        throw e;
                    }
                    Thread.sleep(50);
                }
            }
        }

        /** Stops the server and deletes its directory. */
        void stop() throws IOException, InterruptedException {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            try (var files = Files.walk(directory)) {
                files.sorted(java.util.Comparator.reverseOrder())
                        .forEach(file -> file.toFile().delete());
            }
        }
    }

    /** Whether a {@code redis-server} binary is on the PATH. */
    static boolean available() {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String directory : path.split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(directory, "redis-server"))) {
                return true;
            }
        }
        return false;
    }

    static Opener opener(Persistence persistence) {
        // A connection per caller: Redis connections are cheap, and the pool's waits would cost Redis, not the callers.
        return setup -> new RedisWorkload(setup.counters(), setup.callers(), persistence, 0);
    }

    private static String key(int counter) {
        return "bench:c" + counter;
    }

    @Override
    public void increment(int counter) throws Refused {
        try (var redis = pool.getResource()) {
            change(redis, key(counter));
        }
    }

    /** One change of the counter stored under {@code key}: {@code INCR}. */
    protected void change(Jedis redis, String key) throws Refused {
        redis.incr(key);
    }

    /** The changes a stored value counts, for the exactness check: the value itself, for {@code INCR}. */
    protected long counted(long stored) {
        return stored;
    }

    /** The value stored now. */
    public long value(int counter) {
        try (var redis = pool.getResource()) {
            return Long.parseLong(redis.get(key(counter)));
        }
    }

    @Override
    public void close() {}

    @Override
    public long[] totals() throws IOException, InterruptedException {
        long[] totals = new long[counters];
        try (var redis = pool.getResource()) {
            for (int i = 0; i < counters; i++) {
                totals[i] = counted(Long.parseLong(redis.get(key(i))));
            }
        } finally {
            pool.close();
            server.stop();
        }
        return totals;
    }
}
