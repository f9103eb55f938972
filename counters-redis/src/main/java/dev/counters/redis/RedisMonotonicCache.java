package dev.counters.redis;

import dev.counters.CacheUnavailableException;
import dev.counters.CounterName;
import dev.counters.spi.MonotonicCache;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The current values of {@code monotonic} counters on Redis, shared by every application node: all nodes count one
 * sequence, and a value handed out on one is never handed out on another.
 *
 * <pre>{@code
 * MonotonicCache cache = RedisMonotonicCache.spring(redisConnectionFactory).build();     // Spring Data Redis
 * MonotonicCache cache = RedisMonotonicCache.lettuce(redisClient.connect()).build();     // plain Lettuce
 * CounterService counters = CounterService.builder(store)
 *         .strategy("order-id", MonotonicSettings.defaults())
 *         .monotonicCache(cache)
 *         .build();
 * }</pre>
 *
 * <p>A counter is a hash {@code <prefix>monotonic:<name>} (prefix {@value #DEFAULT_PREFIX} unless set) with fields
 * {@code v}, the value, and {@code c}, the id of this copy of it: a random 63-bit number chosen whenever a value is
 * loaded. An increment is one {@code HINCRBY} inside a script that first checks that {@code v} exists, so an
 * increment never creates a value from nothing.
 *
 * <p><b>Cold loads.</b> When no value is cached, a loader reads the stored maximum from the database and puts it
 * here. Between its "absent" and its store the cache may lose the counter again (a flush, an eviction, a restart),
 * and another node may have loaded and counted meanwhile: a maximum read before that loss would then put the counter
 * back below values already handed out. So a loader first claims the absent value (field {@code l}, a token of its
 * own, with an expiry of {@link Builder#loadTimeout}), reads the database, and stores the value only if its claim is
 * still there; if it is gone, something was lost in between. Either way, and when another loader holds the claim,
 * {@link #tryLoad} answers at once: it never waits nor tries again. The {@code monotonic} strategy's retry
 * ({@code counters-monotonic}) does, with waits that add up to the load timeout, so that a loader that died (whose
 * claim expires) holds the others up no longer; then {@link CacheUnavailableException}. A value loaded from the
 * database is therefore never based on a maximum read before a loss it replaces.
 *
 * <p><b>What is safe:</b> losing keys in any way while the database keeps the maxima: eviction, {@code FLUSHALL},
 * {@code DEL}, a restart of a Redis without persistence, a new empty server. The next increment loads the maximum
 * again; with {@code chance-to-write} 1.0 no value is ever handed out twice. <b>What is not:</b> a Redis that comes
 * back with an <em>older</em> value than it had: a restart from an RDB snapshot or an append-only file that misses
 * the latest increments, or a failover to a replica that lagged. The counter then continues below values already
 * handed out, and hands them out again. Use an instance (or a database of keys) without persistence and without
 * replica failover for these keys; this class logs a warning once if the server it reaches persists its data.
 *
 * <p><b>Timeouts.</b> Every call waits at most the client's command timeout, then throws
 * {@link CacheUnavailableException} (nothing handed out; at worst the value moved past numbers nobody received, a
 * gap). Lettuce's default is 60 seconds; something like 500 ms suits a counter better
 * ({@code spring.data.redis.timeout} with Spring Boot, {@code RedisURI.setTimeout} with Lettuce). Lettuce may send
 * a command again after a reconnect: an increment applied twice skips a value, it never repeats one.
 */
public final class RedisMonotonicCache implements MonotonicCache {

    private static final Logger LOG = LoggerFactory.getLogger(RedisMonotonicCache.class);

    public static final String DEFAULT_PREFIX = "counters:";
    public static final Duration DEFAULT_LOAD_TIMEOUT = Duration.ofSeconds(10);

    /** KEYS[1]: the counter; ARGV[1]: delta. Replies {} if no value; else {v, c} read back as strings. */
    static final Script ADD = Script.of("add", """
            if redis.call('HEXISTS', KEYS[1], 'v') == 0 then return {} end
            -- Lua numbers are doubles: HINCRBY's reply would lose digits above 2^53, HMGET's strings do not.
            -- On overflow HINCRBY fails before writing, and the script stops with its error.
            redis.call('HINCRBY', KEYS[1], 'v', ARGV[1])
            return redis.call('HMGET', KEYS[1], 'v', 'c')
            """);

    /** KEYS[1]; ARGV[1]: the loader's token; ARGV[2]: the claim's expiry in ms. Replies {value, v}, {claimed}, {busy}. */
    static final Script CLAIM = Script.of("claim", """
            local v = redis.call('HGET', KEYS[1], 'v')
            if v then return {'value', v} end
            local l = redis.call('HGET', KEYS[1], 'l')
            -- a claim with this loader's own token is a claim the client sent twice (a resend after a reconnect)
            if l and l ~= ARGV[1] then return {'busy'} end
            redis.call('HSET', KEYS[1], 'l', ARGV[1])
            redis.call('PEXPIRE', KEYS[1], ARGV[2])
            return {'claimed'}
            """);

    /** KEYS[1]; ARGV[1]: token; ARGV[2]: the loaded value; ARGV[3]: the new copy's id. Replies {value, v} or {lost}. */
    static final Script STORE = Script.of("store", """
            local v = redis.call('HGET', KEYS[1], 'v')
            if v then return {'value', v} end
            if redis.call('HGET', KEYS[1], 'l') ~= ARGV[1] then return {'lost'} end
            redis.call('HSET', KEYS[1], 'v', ARGV[2], 'c', ARGV[3])
            redis.call('HDEL', KEYS[1], 'l')
            redis.call('PERSIST', KEYS[1])
            return {'value', ARGV[2]}
            """);

    /** KEYS[1]; ARGV[1]: token. Drops the claim if it is still this loader's (a hash left empty is deleted). */
    static final Script RELEASE = Script.of("release", """
            if redis.call('HGET', KEYS[1], 'l') == ARGV[1] then redis.call('HDEL', KEYS[1], 'l') end
            return {}
            """);

    private final RedisAccess redis;
    private final String prefix;
    private final Duration loadTimeout;
    private final RandomGenerator random;
    private final AtomicBoolean persistenceChecked = new AtomicBoolean();

    private RedisMonotonicCache(Builder builder) {
        this.redis = builder.redis;
        this.prefix = builder.prefix + "monotonic:";
        this.loadTimeout = builder.loadTimeout;
        this.random = builder.random;
    }

    /**
     * A cache on a Lettuce connection (a {@code StatefulRedisConnection} of strings, such as
     * {@code RedisClient.connect()} returns), with its command timeout. The caller keeps and closes it.
     */
    public static Builder lettuce(StatefulRedisConnection<String, String> connection) {
        return new Builder(new LettuceAccess(connection));
    }

    /**
     * A cache on a Spring Data Redis connection factory (the one Spring Boot configures), with its command timeout.
     * Named apart from {@link #lettuce}: an overload would make code without Spring on its class path fail to compile.
     */
    public static Builder spring(RedisConnectionFactory connectionFactory) {
        return new Builder(new SpringAccess(connectionFactory));
    }

    @Override
    public OptionalLong get(CounterName name) {
        String value = Calls.call(redis, "Read of counter '" + name + "'", () -> redis.hget(key(name), "v"));
        checkPersistenceOnce();
        return value == null ? OptionalLong.empty() : OptionalLong.of(parse(value, name));
    }

    @Override
    public Optional<Added> addAndGet(CounterName name, long delta) {
        List<@Nullable String> reply = Calls.call(
                redis, "Increment of counter '" + name + "'", () -> redis.eval(ADD, key(name), Long.toString(delta)));
        checkPersistenceOnce();
        return reply.isEmpty()
                ? Optional.empty()
                : Optional.of(new Added(parse(reply.get(0), name), parse(reply.get(1), name)));
    }

    @Override
    public boolean holds(CounterName name, long copy) {
        String held = Calls.call(redis, "Check of counter '" + name + "'", () -> redis.hget(key(name), "c"));
        return Long.toString(copy).equals(held);
    }

    /**
     * The claim-then-store protocol described on the class, tried once: at most three calls (claim, store or
     * release) and one read of the database. Empty when another loader holds the claim, or when the claim vanished
     * while the database was read (the value read may predate a loss); the caller tries again.
     */
    @Override
    public OptionalLong tryLoad(CounterName name, LongSupplier stored) {
        String key = key(name);
        String what = "Load of counter '" + name + "'";
        String token = Long.toString(random.nextLong() & Long.MAX_VALUE, 36);
        String claimMillis = Long.toString(Math.max(1, loadTimeout.toMillis()));
        List<@Nullable String> claim = Calls.call(redis, what, () -> redis.eval(CLAIM, key, token, claimMillis));
        checkPersistenceOnce();
        String outcome = String.valueOf(claim.get(0));
        if (outcome.equals("value")) {
            return OptionalLong.of(parse(claim.get(1), name));
        }
        if (!outcome.equals("claimed")) {
            return OptionalLong.empty(); // "busy": another loader holds the claim, until its value or its expiry
        }
        long value = read(stored, key, token, what);
        String copy = Long.toString(random.nextLong() & Long.MAX_VALUE);
        List<@Nullable String> kept =
                Calls.call(redis, what, () -> redis.eval(STORE, key, token, Long.toString(value), copy));
        return "value".equals(kept.get(0)) ? OptionalLong.of(parse(kept.get(1), name)) : OptionalLong.empty();
    }

    /** How long a loader's claim lives: a loader that died holds the others up no longer. */
    @Override
    public Duration loadTimeout() {
        return loadTimeout;
    }

    /** Reads the stored maximum; if that fails, gives the claim back so that other loaders need not wait it out. */
    private long read(LongSupplier stored, String key, String token, String what) {
        try {
            return stored.getAsLong();
        } catch (RuntimeException | Error e) {
            try {
                Calls.call(redis, what, () -> redis.eval(RELEASE, key, token));
            } catch (RuntimeException release) {
                e.addSuppressed(release); // the claim expires by itself
            }
            throw e;
        }
    }

    @Override
    public void remove(CounterName name) {
        Calls.run(redis, "Removal of counter '" + name + "'", () -> redis.del(key(name)));
    }

    String key(CounterName name) {
        return prefix + name.value();
    }

    private long parse(@Nullable String value, CounterName name) {
        try {
            return Long.parseLong(String.valueOf(value));
        } catch (NumberFormatException e) {
            throw new CacheUnavailableException(
                    "Counter '" + name + "' on Redis " + redis.endpoint() + " holds " + value
                            + " where a number was expected: was its key written by something else?",
                    e);
        }
    }

    /**
     * Once, after the first call that reached the server: whether the server keeps its data across restarts, which
     * is what could make values repeat. Any failure ends the check quietly.
     */
    private void checkPersistenceOnce() {
        if (!persistenceChecked.get() && persistenceChecked.compareAndSet(false, true)) {
            try {
                persistenceWarning(redis).ifPresent(LOG::warn);
            } catch (RuntimeException e) { // CONFIG may be renamed or disabled (managed services): nothing to tell
                LOG.debug("Could not read the persistence settings of Redis {}", redis.endpoint(), e);
            }
        }
    }

    /** The warning to log if the server snapshots (RDB) or logs (AOF) its data; empty if it does neither. */
    static Optional<String> persistenceWarning(RedisAccess redis) {
        String save = redis.config("save");
        String appendOnly = redis.config("appendonly");
        boolean snapshots = save != null && !save.isBlank();
        boolean log = "yes".equalsIgnoreCase(appendOnly);
        if (!snapshots && !log) {
            return Optional.empty();
        }
        return Optional.of("Redis " + redis.endpoint() + " persists its data ("
                + (snapshots ? "save '" + save + "'" : "")
                + (snapshots && log ? ", " : "") + (log ? "appendonly yes" : "") + "). If it restarts from a snapshot "
                + "or an append-only file older than the last increments of a monotonic counter, the counter comes back "
                + "lower and hands out values again. Keep monotonic counters on a Redis without persistence (save \"\", "
                + "appendonly no): a lost value is reloaded safely from the database, a stale one is not.");
    }

    /** Settings of a {@link RedisMonotonicCache}. */
    public static final class Builder {

        private final RedisAccess redis;
        private String prefix = DEFAULT_PREFIX;
        private Duration loadTimeout = DEFAULT_LOAD_TIMEOUT;
        private RandomGenerator random = new RandomGenerator() {
            @Override
            public long nextLong() {
                return ThreadLocalRandom.current().nextLong();
            }
        };

        private Builder(RedisAccess redis) {
            this.redis = redis;
        }

        /** What every key of this cache starts with; {@value RedisMonotonicCache#DEFAULT_PREFIX} by default. */
        public Builder keyPrefix(String keyPrefix) {
            this.prefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
            return this;
        }

        /**
         * The longest a cold load's read of the database may take (10 seconds by default): a loader's claim expires
         * after it, so that a loader that died holds up the others for no longer. The {@code monotonic} strategy's
         * retry spaces its attempts to cover it, then gives up.
         */
        public Builder loadTimeout(Duration loadTimeout) {
            if (loadTimeout.isNegative() || loadTimeout.isZero()) {
                throw new IllegalArgumentException("Redis load timeout must be positive, was " + loadTimeout);
            }
            this.loadTimeout = loadTimeout;
            return this;
        }

        /** Where copy ids and load tokens come from; a thread-local random by default. */
        public Builder random(RandomGenerator random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        public RedisMonotonicCache build() {
            return new RedisMonotonicCache(this);
        }
    }
}
