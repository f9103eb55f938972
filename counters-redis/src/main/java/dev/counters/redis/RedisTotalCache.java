package dev.counters.redis;

import dev.counters.CacheUnavailableException;
import dev.counters.CounterName;
import dev.counters.spi.TotalCache;
import io.lettuce.core.api.StatefulRedisConnection;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The cached totals of {@code sharded} counters on Redis, shared by every application node: an increment on one node
 * moves the total that all of them read, where a total cached in each JVM sees only its own node's increments until
 * it expires.
 *
 * <pre>{@code
 * TotalCache totals = RedisTotalCache.spring(redisConnectionFactory).build();
 * CounterService counters = CounterService.builder(store)
 *         .strategy("views.*", ShardedSettings.defaults().withCachedTotalExpiry(Duration.ofSeconds(5)))
 *         .totalCache(totals)
 *         .build();
 * }</pre>
 *
 * <p>A total is a hash {@code <prefix>total:<name>} (prefix {@value RedisMonotonicCache#DEFAULT_PREFIX} unless set)
 * of its value {@code v} and its load id {@code id} (a random 64-bit number the loading node drew), with the expiry
 * it was put with. An increment adds to it in a script that checks that the total is the load the increment knew of
 * before its write began ({@code HINCRBY}, which keeps the expiry), so that an increment never creates a total, nor
 * adds to a total loaded on any node after its commit (which may hold it already); one that would leave the 64-bit
 * range deletes it. A cached total is a read optimisation: it lags the store by what it missed (an increment whose
 * cache update failed or timed out, or that knew of no load, or of an older one), for at most its expiry. One
 * exception: Lettuce resends a command whose reply a dropped connection lost, so an addition can be applied twice;
 * the total is then above the store by that increment until it expires. Increments are stored whatever happens to
 * Redis; when Redis fails, reads go to the store.
 *
 * <p>Every call waits at most the client's command timeout (Lettuce's default is 60 seconds: set something like
 * 500 ms), then throws {@link dev.counters.CacheUnavailableException}.
 */
public final class RedisTotalCache implements TotalCache {

    /** KEYS[1]; ARGV[1]: the total, ARGV[2]: its load id, ARGV[3]: its expiry in milliseconds. Replies {}. */
    static final Script PUT = Script.of("put-total", """
            redis.call('DEL', KEYS[1])
            redis.call('HSET', KEYS[1], 'v', ARGV[1], 'id', ARGV[2])
            redis.call('PEXPIRE', KEYS[1], ARGV[3])
            return {}
            """);

    /**
     * KEYS[1]; ARGV[1]: delta, ARGV[2]: the load id the increment knew of. Replies {} if no total is cached, else
     * {load id of the total cached}, which was added to only if it is ARGV[2].
     */
    static final Script ADD = Script.of("add-if-loaded", """
            local id = redis.call('HGET', KEYS[1], 'id')
            if not id then return {} end
            if id ~= ARGV[2] then return {id} end
            -- HINCRBY keeps the expiry. An error (out of the 64-bit range, not a number) drops the total: the next
            -- read asks the store.
            local added = redis.pcall('HINCRBY', KEYS[1], 'v', ARGV[1])
            if type(added) == 'table' and added.err then
                redis.call('DEL', KEYS[1])
                return {}
            end
            return {id}
            """);

    /** KEYS: the totals' keys. Replies each one's value, nil for those absent. */
    static final Script GET_ALL = Script.of("get-totals", """
            local totals = {}
            for i, key in ipairs(KEYS) do totals[i] = redis.call('HGET', key, 'v') end
            return totals
            """);

    private final SecureRandom loadIds = new SecureRandom();
    private final RedisAccess redis;
    private final String prefix;

    private RedisTotalCache(RedisAccess redis, String prefix) {
        this.redis = redis;
        this.prefix = prefix + "total:";
    }

    /** A cache on a Lettuce connection of strings, with its command timeout. The caller keeps and closes it. */
    public static Builder lettuce(StatefulRedisConnection<String, String> connection) {
        return new Builder(new LettuceAccess(connection));
    }

    /** A cache on a Spring Data Redis connection factory, with its command timeout. */
    public static Builder spring(RedisConnectionFactory connectionFactory) {
        return new Builder(new SpringAccess(connectionFactory));
    }

    @Override
    public OptionalLong get(CounterName name) {
        String total =
                Calls.call(redis, "Read of the total of counter '" + name + "'", () -> redis.hget(key(name), "v"));
        return total == null ? OptionalLong.empty() : OptionalLong.of(parse(total, name));
    }

    @Override
    public Map<CounterName, Long> getAll(Collection<CounterName> names) {
        Map<CounterName, Long> totals = new LinkedHashMap<>();
        if (names.isEmpty()) {
            return totals;
        }
        List<CounterName> ordered = new ArrayList<>(names);
        List<String> keys = ordered.stream().map(this::key).toList();
        List<@Nullable String> values =
                Calls.call(redis, "Read of the totals of counters " + list(ordered), () -> redis.eval(GET_ALL, keys));
        for (int i = 0; i < ordered.size(); i++) {
            String total = values.get(i);
            if (total != null) {
                totals.put(ordered.get(i), parse(total, ordered.get(i)));
            }
        }
        return totals;
    }

    @Override
    public long put(CounterName name, long total, Duration expiry) {
        long loadId = loadIds.nextLong();
        while (loadId == 0) {
            loadId = loadIds.nextLong();
        }
        String id = Long.toString(loadId);
        long millis = Math.max(1, expiry.toMillis());
        Calls.run(
                redis,
                "Caching the total of counter '" + name + "'",
                () -> redis.eval(PUT, key(name), Long.toString(total), id, Long.toString(millis)));
        return loadId;
    }

    @Override
    public OptionalLong addIfLoaded(CounterName name, long delta, long loadId) {
        List<@Nullable String> cached = Calls.call(
                redis,
                "Adding to the total of counter '" + name + "'",
                () -> redis.eval(ADD, key(name), Long.toString(delta), Long.toString(loadId)));
        String id = cached.isEmpty() ? null : cached.get(0);
        return id == null ? OptionalLong.empty() : OptionalLong.of(parse(id, name));
    }

    @Override
    public void remove(CounterName name) {
        Calls.run(redis, "Removal of the total of counter '" + name + "'", () -> redis.del(key(name)));
    }

    String key(CounterName name) {
        return prefix + name.value();
    }

    private long parse(String total, CounterName name) {
        try {
            return Long.parseLong(total);
        } catch (NumberFormatException e) {
            throw new CacheUnavailableException(
                    "The total of counter '" + name + "' on Redis " + redis.endpoint() + " is " + total
                            + ", not a number: was its key written by something else?",
                    e);
        }
    }

    private static String list(List<CounterName> names) {
        String shown = names.stream().limit(3).map(name -> "'" + name + "'").collect(Collectors.joining(", "));
        return names.size() > 3 ? shown + " and " + (names.size() - 3) + " more" : shown;
    }

    /** Settings of a {@link RedisTotalCache}. */
    public static final class Builder {

        private final RedisAccess redis;
        private String prefix = RedisMonotonicCache.DEFAULT_PREFIX;

        private Builder(RedisAccess redis) {
            this.redis = redis;
        }

        /** What every key of this cache starts with; {@value RedisMonotonicCache#DEFAULT_PREFIX} by default. */
        public Builder keyPrefix(String keyPrefix) {
            this.prefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
            return this;
        }

        public RedisTotalCache build() {
            return new RedisTotalCache(redis, prefix);
        }
    }
}
