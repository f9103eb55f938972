package dev.counters.spi;

import dev.counters.CounterName;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * Operations of bounded counters under a caller's key ({@link Escrow}): changes made at most once, whose answer (made
 * or refused) a repeat gets back, and holds, which take a change until it is confirmed, released or expires. The
 * record of an operation is written in the transaction of its change. Kept apart from {@link IdempotencyKeys}: a key
 * names one operation of one of the two.
 *
 * <p>While a hold is open its change is in the cell it was made on, and its units are not in any room: confirming it
 * gives the room it took away from the other bound back (its change is final); releasing or expiring it undoes its
 * change and gives back the room it took. {@link Escrow#state} reports the open holds.
 */
public interface Holds {

    /**
     * In one transaction: records the operation under {@code key}, then makes the change of {@code cell}, as
     * {@link Escrow#change}; unless an operation is recorded under the key already, in which case it writes nothing
     * and returns that record. If the change's guard fails, or the cell is absent, nothing at all is written, the key
     * neither, and the result is empty.
     *
     * @param delta the change of the value
     * @param expiresAt null for a change ({@link OperationState#APPLIED}); the expiry of a hold
     *     ({@link OperationState#HELD})
     * @param needsValue whether to record (and return) the counter's value right after the change
     * @return the operation as recorded, with {@code appliedNow} true when this call made it
     */
    Optional<KeyedOperation> applyKeyed(
            String key,
            CounterName counter,
            long delta,
            @Nullable Instant expiresAt,
            String cell,
            long roomDownDelta,
            long roomUpDelta,
            boolean needsValue,
            Instant now);

    /**
     * Records that the operation under {@code key} was refused ({@link OperationState#REFUSED}), with the value that
     * refused it, unless an operation is recorded under the key already.
     *
     * @param expiresAt null for a change; for a hold, the expiry it would have had
     * @return the operation as recorded now: this refusal, or the earlier record
     */
    KeyedOperation recordRefusal(
            String key, CounterName counter, long delta, @Nullable Instant expiresAt, long seenValue, Instant now);

    /** The operation recorded under {@code key}, if any. */
    Optional<KeyedOperation> operation(String key);

    /**
     * In one transaction: moves the hold under {@code key} from {@link OperationState#HELD} to {@code to}
     * ({@code CONFIRMED}, {@code RELEASED} or {@code EXPIRED}) and makes the change that goes with it on {@code cell},
     * or on the pool when that cell is absent (adding to rooms, which no guard refuses). A hold that is not
     * {@code HELD} is left as it is, and so is a hold to be confirmed whose expiry is at or before {@code now}:
     * nothing is written.
     *
     * @return the operation as recorded after the call, with {@code appliedNow} true when this call moved it; empty if
     *     no operation is recorded under the key
     */
    Optional<KeyedOperation> settle(
            String key,
            OperationState to,
            String cell,
            long valueDelta,
            long roomDownDelta,
            long roomUpDelta,
            Instant now);

    /**
     * Open holds whose expiry is at or before {@code now}, of one counter or (null) of every counter, the earliest
     * expiry first, at most {@code limit}.
     */
    List<KeyedOperation> dueHolds(@Nullable CounterName counter, Instant now, int limit);

    /**
     * Forgets up to {@code limit} settled operations (every state but {@code HELD}) settled before
     * {@code settledBefore}, oldest first; returns how many. Open holds are never forgotten.
     */
    int pruneOperations(Instant settledBefore, int limit);

    /** Where an operation stands; the code is what a database stores. */
    enum OperationState {
        APPLIED(1),
        REFUSED(2),
        HELD(3),
        CONFIRMED(4),
        RELEASED(5),
        EXPIRED(6);

        private final int code;

        OperationState(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        public static OperationState ofCode(int code) {
            for (OperationState state : values()) {
                if (state.code == code) {
                    return state;
                }
            }
            throw new IllegalArgumentException("no operation state has the code " + code);
        }
    }

    /**
     * An operation as recorded under its key.
     *
     * @param delta the change of the value it made, or would have made
     * @param expiresAt the expiry of a hold (also of a refused one); null for a change
     * @param value the counter's value after it, when recorded; for a refusal, the value that refused it
     * @param appliedNow whether the call that returned it made it, or settled it
     */
    record KeyedOperation(
            String key,
            CounterName counter,
            long delta,
            OperationState state,
            @Nullable Instant expiresAt,
            OptionalLong value,
            boolean appliedNow) {}
}
