package dev.counters.benchmarks;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * The anchor for bounded counters: a stock in Redis, sold by Redis's {@code INCREX … LBOUND} done by hand as a Lua
 * script ({@code EVALSHA}, and {@code EVAL} when the server answers {@code NOSCRIPT}), with {@code appendfsync always}
 * and the same delay per sync as the production-like databases. A script's effects are appended to the file, so what
 * it holds is the {@code INCRBY}. The total is the units sold: the stock minus the value left.
 */
final class RedisBoundedWorkload extends RedisWorkload implements SellOut.Stock {

    /** Adds ARGV[1] unless the value would go below ARGV[2]; nil when refused. */
    private static final String SCRIPT = """
            local v = tonumber(redis.call('GET', KEYS[1]))
            local d = tonumber(ARGV[1])
            if v + d < tonumber(ARGV[2]) then return false end
            return redis.call('INCRBY', KEYS[1], d)
            """;

    private static final String SHA = sha1(SCRIPT);
    private static final List<String> TAKE_ONE = List.of("-1", "0");

    private final long stock;

    private RedisBoundedWorkload(int counters, int connections, long stock) throws Exception {
        super(counters, connections, Persistence.ALWAYS, stock);
        this.stock = stock;
    }

    /** A connection per caller, as {@link RedisWorkload#opener}, and one for the sell-out's observer. */
    static SellOut.Opener opener() {
        return (setup, stock) -> new RedisBoundedWorkload(setup.counters(), setup.callers() + 1, stock);
    }

    @Override
    protected void change(Jedis redis, String key) throws Refused {
        Object left;
        try {
            left = redis.evalsha(SHA, List.of(key), TAKE_ONE);
        } catch (JedisNoScriptException e) { // the server's script cache is empty: send the script, once
            left = redis.eval(SCRIPT, List.of(key), TAKE_ONE);
        }
        if (left == null) {
            throw new Refused();
        }
    }

    @Override
    protected long counted(long stored) {
        return stock - stored;
    }

    private static String sha1(String script) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-1").digest(script.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
