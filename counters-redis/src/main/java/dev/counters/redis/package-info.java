/**
 * A cache shared by every application node, on Redis (through Lettuce or Spring Data Redis):
 * {@link dev.counters.redis.RedisMonotonicCache} for the current values of {@code monotonic} counters, which makes
 * one sequence across nodes, and {@link dev.counters.redis.RedisTotalCache} for the cached totals of {@code sharded}
 * ones, which every node's increments move.
 *
 * <p>The database stays the source of truth; Redis holds what can be rebuilt from it. Keys may be lost at any time
 * (evicted, flushed, a restart without persistence): monotonic counters reload the stored maximum, totals are read
 * from the store again. What a monotonic counter cannot survive is a Redis that comes back holding an older value
 * than it had (restored from a snapshot or an append-only file, a failover to a lagging replica): it would hand out
 * values again. Run these keys on a Redis without persistence; {@code RedisMonotonicCache} warns once when the server
 * it reaches persists its data.
 *
 * <p>Each operation is one round trip, atomic on the server (a small Lua script where it reads and writes), and
 * waits at most the client's command timeout before failing with {@link dev.counters.CacheUnavailableException}:
 * set it short (500 ms, say; Lettuce's default is 60 seconds). Tested on a single Redis server.
 */
@NullMarked
package dev.counters.redis;

import org.jspecify.annotations.NullMarked;
