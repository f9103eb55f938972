package dev.counters.redis;

import dev.counters.CacheUnavailableException;
import dev.counters.CounterName;
import dev.counters.spi.TotalCache;
import io.lettuce.core.api.StatefulRedisConnection;
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
 *         .strategy("views.*", Strategies.sharded(ShardedSettings.defaults()
 *                 .withCachedTotalExpiry(Duration.ofSeconds(5)), totals))
 *         .build();
 * }</pre>
 *
 * <p>A total is a string {@code <prefix>total:<name>} (prefix {@value RedisMonotonicCache#DEFAULT_PREFIX} unless
 * set) with the expiry it was put with ({@code SET PX}); an increment adds to it in a script that checks that it
 * exists ({@code INCRBY}, which keeps the expiry), so that an increment never creates a total; one that would leave
 * the 64-bit range deletes it. A cached total is a read optimisation: it lags the store by what it missed (an
 * increment whose cache update failed or timed out, one applied twice by a client's resend after a reconnect), for
 * at most its expiry. Increments are stored whatever happens to Redis; when Redis fails, reads go to the store.
 *
 * <p>Every call waits at most the client's command timeout (Lettuce's default is 60 seconds: set something like
 * 500 ms), then throws {@link dev.counters.CacheUnavailableException}.
 */
public final class RedisTotalCache implements TotalCache {

    /** KEYS[1]; ARGV[1]: delta. Replies {}. */
    static final Script ADD = Script.of("add-if-present", """
            if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
            -- INCRBY keeps the expiry. An error (out of the 64-bit range, not a number) drops the total: the next
            -- read asks the store.
            local added = redis.pcall('INCRBY', KEYS[1], ARGV[1])
            if type(added) == 'table' and added.err then redis.call('DEL', KEYS[1]) end
            return {}
            """);

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
        String total = Calls.call(redis, "Read of the total of counter '" + name + "'", () -> redis.get(key(name)));
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
        List<@Nullable String> values = Calls.call(redis, "Read of the totals of counters " + list(ordered),
                () -> redis.mget(keys));
        for (int i = 0; i < ordered.size(); i++) {
            String total = values.get(i);
            if (total != null) {
                totals.put(ordered.get(i), parse(total, ordered.get(i)));
            }
        }
        return totals;
    }

    @Override
    public void put(CounterName name, long total, Duration expiry) {
        long millis = Math.max(1, expiry.toMillis());
        Calls.run(redis, "Caching the total of counter '" + name + "'",
                () -> redis.set(key(name), Long.toString(total), millis));
    }

    @Override
    public void addIfPresent(CounterName name, long delta) {
        Calls.run(redis, "Adding to the total of counter '" + name + "'",
                () -> redis.eval(ADD, key(name), Long.toString(delta)));
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
            throw new CacheUnavailableException("The total of counter '" + name + "' on Redis " + redis.endpoint()
                    + " is " + total + ", not a number: was its key written by something else?", e);
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
