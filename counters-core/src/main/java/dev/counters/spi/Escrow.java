package dev.counters.spi;

import dev.counters.CounterName;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Bounded counters by escrow: the {@code bounded} strategy. A bounded counter's cells are a pool cell ({@link #POOL})
 * and a cell per node holding an allowance ({@link #NODE_PREFIX} + node id), and each of them carries, beside its
 * value, its <em>rooms</em>: how far changes made through it may still move the counter toward its minimum
 * ({@code roomDown}) and toward its maximum ({@code roomUp}), null where the counter has no such bound. The counter's
 * value is the sum of its cell values, as for every counter ({@link CounterStore#get}).
 *
 * <p>The rooms over all the cells always add up to the distance from the value to each bound (open holds aside, see
 * {@link Holds}), and no room is ever negative: every write of a cell is one guarded statement that adds to its rooms
 * only if none of them goes below 0 ({@code room + x >= 0}; a null room stays null and guards nothing). So no
 * committed state of the database has the value beyond a bound. A transfer moves room between two cells in one
 * transaction and never changes the value.
 *
 * <p>Every method is one transaction and, as every store method, tried once.
 */
public interface Escrow {

    /** The pool cell: the room no node holds. */
    String POOL = "b:pool";

    /** The prefix of a node's cell; the node id follows. Every node cell sorts before {@link #POOL}. */
    String NODE_PREFIX = "b:n:";

    /**
     * Makes the counter bounded by {@code bounds}: records them and creates the pool cell with the value
     * {@code initial} and the rooms from it to the bounds, unless the counter is bounded already. Bounded by other
     * bounds, it rebinds it: the rooms of every cell are given to the pool, which then holds the distance from the
     * value (open holds aside, as above) to the new bounds. That distance is negative for a bound moved past the
     * value, and refuses every change toward that bound until the value moves back within it. Bounded by the same
     * bounds, or {@linkplain #seal sealed}, it writes nothing: no bind opens a seal again.
     *
     * @param nodeCell the calling node's cell
     * @return the calling node's cell, if it exists: a node restarted under the same id finds its allowance there
     */
    Optional<EscrowCell> bind(CounterName counter, Bounds bounds, long initial, String nodeCell, Instant now);

    /**
     * As {@link #bind}, but a counter bounded already is left as it is, whatever its bounds: for bounds its first bind
     * sets for good. A sliding window's slice is bound from what the slices before it admitted, which two processes
     * may read at different moments; a rebind by the second would move the maximum under what the first admitted.
     *
     * @return the calling node's cell, if it exists
     */
    Optional<EscrowCell> bindIfAbsent(CounterName counter, Bounds bounds, long initial, String nodeCell, Instant now);

    /**
     * Adds {@code valueDelta} to a cell's value and the room deltas to its rooms, if it exists and none of its rooms
     * would go below 0; otherwise writes nothing. Only a room that shrinks is checked: one that grows passes even while
     * below 0 (a bound a rebind moved past the value), so that changes can bring the value back within its bounds.
     *
     * @return whether the cell was written
     * @throws dev.counters.CounterOverflowException if the value or a room would leave the 64-bit range; nothing is
     *     written
     */
    boolean change(CounterName counter, String cell, long valueDelta, long roomDownDelta, long roomUpDelta);

    /**
     * As {@link #change}, then the counter's state read in the same transaction, so that it includes the change.
     *
     * @return the state, or empty if the cell was not written
     */
    Optional<EscrowState> changeAndGet(
            CounterName counter, String cell, long valueDelta, long roomDownDelta, long roomUpDelta, Instant now);

    /**
     * Moves room between a node's cell and the pool, in one transaction: {@code downToNode} of room toward the minimum
     * and {@code upToNode} toward the maximum go from the pool to the node, a negative amount from the node to the
     * pool. Both cells are guarded: if either lacks its part, or the node cell is absent and receives nothing, nothing
     * is written. A node cell that receives room and does not exist is created first, with the value 0 and a room of
     * 0 on each side where the pool has a room (null where it has none), and the node is registered as holding an
     * allowance of the counter ({@link #allowances}).
     *
     * @return the pool cell after the transfer (exact where the database returns it from the update, otherwise read
     *     just before it and adjusted by the amounts moved), or empty if nothing was moved
     */
    Optional<EscrowCell> transfer(CounterName counter, String nodeCell, long downToNode, long upToNode);

    /**
     * Folds a node's cell into the pool: adds its value and rooms to the pool cell's, then deletes it and the node's
     * registration, in one transaction.
     *
     * @return what the node cell held, or empty if it did not exist (then only the registration is deleted)
     */
    Optional<EscrowCell> retire(CounterName counter, String nodeCell);

    /**
     * The counter's value, bounds, summed rooms and held units, read in one statement, so from one consistent state.
     *
     * @param now holds whose expiry is at or before it count as due
     * @return the state, or empty if the counter is not bounded
     */
    Optional<EscrowState> state(CounterName counter, Instant now);

    /**
     * Ends the counter's rise, in one transaction: sets its maximum to its value plus the units of open holds toward
     * the minimum (which come back if released: {@link EscrowState#heldDown()}), and the room toward the maximum of
     * every cell to 0, so that every later change toward the maximum is refused and its
     * value is final that way (a sliding window's ended sub-window). The rooms still add up to the distance to each
     * bound. A counter with no maximum gets one. The counter stays sealed until it is deleted: {@link #bind} leaves it
     * as it is, and a later seal seals it again.
     *
     * @return the state after the seal, or empty if the counter is not bounded
     */
    Optional<EscrowState> seal(CounterName counter, Instant now);

    /** Every cell of the bounded counter, pool and nodes, by cell id. */
    Map<String, EscrowCell> escrowCells(CounterName counter);

    /**
     * Names of bounded counters, in the database's order of names, starting after {@code after} (null: from the
     * first), at most {@code limit}.
     */
    List<CounterName> boundedNames(@Nullable CounterName after, int limit);

    /**
     * The registered allowances, ordered by node id then counter name, starting after {@code after} (null: from the
     * first), at most {@code limit}: what the sweep checks when a node's claim on its id ends.
     */
    List<NodeAllowance> allowances(@Nullable NodeAllowance after, int limit);

    /** A counter's bounds; at least one is set. */
    record Bounds(@Nullable Long min, @Nullable Long max) {

        public Bounds {
            if (min == null && max == null) {
                throw new IllegalArgumentException("a bounded counter needs a min, a max or both");
            }
        }
    }

    /** One cell of a bounded counter: its value and its rooms toward each bound (null: no such bound). */
    record EscrowCell(
            long value, @Nullable Long roomDown, @Nullable Long roomUp) {}

    /**
     * A bounded counter's state in one consistent read.
     *
     * @param value the sum of its cells' values
     * @param roomDown the sum of its cells' rooms toward the minimum; null without a minimum
     * @param roomUp the sum of its cells' rooms toward the maximum; null without a maximum
     * @param heldDown the units of open holds toward the minimum (negative deltas)
     * @param heldUp the units of open holds toward the maximum (positive deltas)
     * @param dueDown the part of {@code heldDown} in holds whose expiry has passed
     * @param dueUp the part of {@code heldUp} in holds whose expiry has passed
     */
    record EscrowState(
            long value,
            Bounds bounds,
            @Nullable Long roomDown,
            @Nullable Long roomUp,
            long heldDown,
            long heldUp,
            long dueDown,
            long dueUp) {}

    /** A node registered as holding an allowance of a counter. */
    record NodeAllowance(String nodeId, CounterName counter) {}
}
