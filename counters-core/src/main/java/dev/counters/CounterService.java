package dev.counters;

import dev.counters.spi.CounterStore;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Counts things: the one entry point of the library.
 *
 * <p>Each counter is a named, signed 64-bit value that starts at 0. Which strategy turns its increments into
 * storage writes is chosen per name when the service is built (see {@link CounterServiceBuilder}); the
 * methods here behave the same whatever the strategy, within the guarantees the strategy documents.
 *
 * <p>Every method validates its arguments before anything is written: a bad name or delta is an
 * {@link IllegalArgumentException} naming the problem, an overflow past the 64-bit range a
 * {@link CounterOverflowException}, and in both cases the stored value is unchanged. A counter the store holds for
 * the other family of strategies ({@code monotonic}, or the counting ones) than its rule now gives it is refused by
 * every method with an {@link IllegalStateException} that names it and says what to do (see
 * {@link CounterServiceBuilder#build()}), and nothing is written.
 *
 * <p>Implementations are thread-safe.
 */
public interface CounterService extends AutoCloseable {

    /** Starts building a service whose strategies store their data in {@code store}. */
    static CounterServiceBuilder builder(CounterStore store) {
        return new CounterServiceBuilder(store);
    }

    /** Adds 1 to the counter. */
    default void increment(String name) {
        increment(name, 1);
    }

    /**
     * Adds {@code delta} (non-zero; negative only where the counter's strategy allows decrements).
     *
     * @throws IllegalArgumentException for an invalid name or delta
     * @throws CounterOverflowException if the value would leave the 64-bit range
     * @throws CountersException if the increment failed; see its documentation for whether the delta may have
     *     been applied
     */
    void increment(String name, long delta);

    /**
     * Adds {@code delta} at most once under the caller's {@code key} (see {@link IdempotencyKey}): repeating the call
     * with the same key, from any process and within the key retention, writes nothing more. Repeat a call that failed
     * with an unknown outcome ({@link CountersException#mayHaveBeenApplied()}) to settle it. The key is recorded in
     * the transaction of the write, for {@code atomic}, {@code optimistic}, {@code sharded}, {@code node} and
     * {@code delta-log}; {@code buffered} recognises a repeat in its buffer, and its flush one recorded before.
     *
     * @throws IllegalArgumentException for an invalid name, delta or key
     * @throws IdempotencyKeyReusedException if the key was recorded for another counter or delta; nothing is written
     * @throws IllegalStateException if the counter's strategy takes no keys ({@code monotonic})
     */
    void increment(String name, long delta, IdempotencyKey key);

    /**
     * Adds {@code delta} at most once under {@code key}, as {@link #increment(String, long, IdempotencyKey)}, and
     * returns the counter's value right after it. A repeat returns what the first call returned (the current value if
     * the first call was an {@code increment}, which recorded none).
     */
    long incrementAndGet(String name, long delta, IdempotencyKey key);

    /**
     * Adds {@code delta} and returns a future that completes when the increment is durable: at once for strategies
     * that write before returning, when the flush carrying it commits for {@code buffered} (many callers share one
     * commit). The future fails with the reason the increment could not be written. Its dependent stages never run
     * on a thread that holds the library's state ({@code buffered} completes it on a thread of its own).
     */
    CompletableFuture<Void> incrementDurably(String name, long delta);

    /** Adds {@code delta} and returns the counter's value right after it, including this delta. */
    long incrementAndGet(String name, long delta);

    /** The counter's current value; 0 for a counter never incremented. */
    long get(String name);

    /**
     * The counter's value read from storage now, bypassing whatever staleness its strategy is configured to allow
     * for {@link #get(String)} (a sharded counter's cached total, for example).
     */
    long getExact(String name);

    /** The values of several counters, in the iteration order of {@code names}; 0 for unknown ones. */
    Map<String, Long> get(Collection<String> names);

    /** Removes everything stored for the counter, so that it reads 0 again. */
    void delete(String name);

    /**
     * Adds {@code delta} to a bounded counter if its value stays within the bounds
     * ({@link dev.counters.strategy.BoundedSettings}); otherwise writes nothing and returns false, the normal "sold
     * out" or "over quota" answer. An {@link #increment(String, long)} of a bounded counter throws
     * {@link CounterBoundException} instead.
     *
     * @return whether the change was made
     * @throws IllegalArgumentException for an invalid name or delta
     * @throws IllegalStateException if the counter is not bounded; nothing is written
     * @throws CountersException if the change failed; see its documentation for whether it may have been applied
     */
    boolean tryIncrement(String name, long delta);

    /**
     * As {@link #tryIncrement(String, long)}, at most once under {@code key}: a repeat returns the first answer,
     * {@code false} included, and writes nothing.
     *
     * @throws IdempotencyKeyReusedException if the key was recorded for another counter, delta or operation
     */
    boolean tryIncrement(String name, long delta, IdempotencyKey key);

    /**
     * Holds {@code delta} of a bounded counter until it is confirmed, released, or {@code ttl} passes: the change is
     * applied to the value at once (a held item is not for sale), and goes back unless confirmed. A negative delta
     * holds units toward the minimum (stock), a positive one toward the maximum (a quota). The key names the hold: a
     * repeat returns it as it stands, and writes nothing.
     *
     * @param ttl how long the hold lasts unconfirmed: from 1 s to the counter's {@code max-hold-ttl}
     * @return the hold, {@link HoldStatus#REFUSED} (nothing held) when the change would leave the bounds
     * @throws IllegalArgumentException for an invalid name, delta, time to live or key
     * @throws IllegalStateException if the counter is not bounded
     * @throws IdempotencyKeyReusedException if the key was recorded for another counter, delta or operation
     */
    Hold reserve(String name, long delta, Duration ttl, IdempotencyKey key);

    /** Makes a hold final; see {@link BoundedCounter#confirm(IdempotencyKey)}. */
    Hold confirm(Hold hold);

    /** Gives a hold back; see {@link BoundedCounter#release(IdempotencyKey)}. */
    Hold release(Hold hold);

    /**
     * The bounded operations and reads of one counter.
     *
     * @throws IllegalStateException if the counter is not bounded
     */
    BoundedCounter bounded(String name);

    /**
     * The rate limiter of that name, with the limit of the first rate-limit rule it matches
     * ({@link CounterServiceBuilder#rateLimit}).
     *
     * @throws IllegalArgumentException for a bad name (at most 48 characters of a counter name, no {@code :})
     * @throws IllegalStateException if no rate-limit rule matches the name
     */
    RateLimiter rateLimiter(String name);

    /**
     * The rate limiter of that name with {@code limit}, failing as the first rate-limit rule it matches says (closed
     * if none): for limits written in code, an annotation's say.
     *
     * @throws IllegalArgumentException for a bad name, as {@link #rateLimiter(String)}
     * @throws IllegalStateException if the limiter has another limit already, from a rule of its exact name or an
     *     earlier call (a pattern's rule says only how its limiters fail)
     */
    RateLimiter rateLimiter(String name, RateLimit limit);

    /** The rate limiters made so far, in the order they were made: for metrics and the Actuator endpoint. */
    List<RateLimiter> rateLimiters();

    /**
     * The membership counter of that name: a set of members (the users who liked a post) and its count, changed
     * together. Its rule must count members ({@link CounterRule#countingMembers()}; in the starter,
     * {@code counters.counters."[post.*.likes]".members: true}). Its value ({@link #get(String)}) is its count; an
     * increment of it is refused.
     *
     * @throws IllegalArgumentException for a bad name
     * @throws IllegalStateException if no rule makes the counter count members
     */
    MembershipCounter members(String name);

    /** Operations for operators and tools: a counter's cells, growing a sharded counter's shards. */
    CounterAdmin admin();

    /** A handle on one counter: the name is validated and its strategy chosen once, here. */
    Counter counter(String name);

    /**
     * The windows of a windowed counter ({@link CounterServiceBuilder#windows}), for reads by window. For such a
     * counter, every other method of this service works on the window now under way: an increment lands in it,
     * {@link #get(String)} reads it, and {@link #delete(String)} removes every window.
     *
     * @throws IllegalStateException if no windows are configured for the counter
     */
    WindowedCounter windowed(String name);

    /**
     * Names of stored counters, in the database's order of names, starting after {@code after} (null: from the
     * first), at most {@code limit}: page through all of them by passing the last name of a page as the next
     * {@code after}. Counters held only in memory (buffered, not yet flushed) are not listed.
     */
    List<String> counterNames(@Nullable String after, int limit);

    /**
     * Writes what the strategies hold in memory: the future completes when every increment made before the call is
     * durable, or fails with the reason it could not be written. After {@link #close()}, it says whether closing wrote
     * everything.
     */
    CompletableFuture<Void> flush();

    /** The activity of each configured rule's strategy (the default one last): for metrics and health checks. */
    List<StrategyStatistics> statistics();

    /**
     * Releases the strategies' resources, every rule's at once. Buffered strategies write what they hold within their
     * shutdown timeout (side by side, so closing takes the longest timeout, not their sum), accept
     * no increment they will not write (an increment after the call is refused), and answer every future they handed
     * out.
     */
    @Override
    void close();
}
