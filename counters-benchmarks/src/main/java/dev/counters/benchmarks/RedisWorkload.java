package dev.counters.benchmarks;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;

/**
 * Redis {@code INCR} through Jedis, against a {@code redis-server} started here on a free loopback port with
 * persistence off: the in-memory ceiling that users weigh a database counter against. Skipped (with a note in the
 * report) when no {@code redis-server} binary is on the PATH.
 */
final class RedisWorkload implements Workload {

    private final Process server;
    private final JedisPool pool;
    private final int counters;

    private RedisWorkload(int counters) throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        this.server = new ProcessBuilder("redis-server", "--port", String.valueOf(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        JedisPoolConfig config = new JedisPoolConfig();
        config.setMaxTotal(64);
        this.pool = new JedisPool(config, "127.0.0.1", port);
        this.counters = counters;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (var redis = pool.getResource()) {
                redis.ping();
                break;
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    server.destroyForcibly();
                    throw e;
                }
                Thread.sleep(50);
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

    static Opener opener() {
        return (dataSource, database, counters) -> new RedisWorkload(counters);
    }

    @Override
    public void increment(int counter) {
        try (var redis = pool.getResource()) {
            redis.incr("bench:c" + counter);
        }
    }

    @Override
    public void close() {
    }

    @Override
    public long[] totals() throws IOException {
        long[] totals = new long[counters];
        try (var redis = pool.getResource()) {
            for (int i = 0; i < counters; i++) {
                String value = redis.get("bench:c" + i);
                totals[i] = value == null ? 0 : Long.parseLong(value);
            }
        } finally {
            pool.close();
            server.destroy();
        }
        return totals;
    }
}
