package dev.counters.internal.strategy;

import dev.counters.BoundedIncrement;
import dev.counters.BoundedState;
import dev.counters.CounterBoundException;
import dev.counters.CounterContentionException;
import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.CounterStoreException;
import dev.counters.Hold;
import dev.counters.HoldStatus;
import dev.counters.IdempotencyKey;
import dev.counters.IdempotencyKeyReusedException;
import dev.counters.StoreUnavailableException;
import dev.counters.StrategyStatistics;
import dev.counters.TransientStoreException;
import dev.counters.internal.Retries;
import dev.counters.internal.Time;
import dev.counters.internal.strategy.EscrowAllowance.Mode;
import dev.counters.internal.strategy.EscrowAllowance.Side;
import dev.counters.observation.CountersObservationContext.Operation;
import dev.counters.spi.DeltaLog;
import dev.counters.spi.Escrow;
import dev.counters.spi.Escrow.Bounds;
import dev.counters.spi.Escrow.EscrowCell;
import dev.counters.spi.Escrow.EscrowState;
import dev.counters.spi.Holds;
import dev.counters.spi.Holds.KeyedOperation;
import dev.counters.spi.Holds.OperationState;
import dev.counters.strategy.BoundedSettings;
import io.github.resilience4j.retry.Retry;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counters kept within bounds, by escrow ({@link Escrow}): each node changes a busy counter within an allowance of
 * room it takes from the counter's pool row into a row of its own, combined per row as {@code node} does; a quiet
 * counter, and every counter near its bound, changes on the pool row. Every write of a row is guarded by its rooms, so
 * no committed state is ever beyond a bound, and a change is refused only when one consistent read of the whole
 * counter ({@link Escrow#state}) shows no room for it, once due holds are counted: never because room sits in another
 * node's allowance or an expired hold, which are collected first.
 *
 * <p>Keyed changes and holds ({@link Holds}) are one transaction each, the key's record with the change, repeated
 * under the same key by the keyed retry after an unknown outcome. Unkeyed changes are never repeated after one.
 *
 * <p>The node id and its claim are {@code node}'s ({@link NodeClaim}), shared with the service's {@code node} and
 * other {@code bounded} rules of the same id. A daemon thread gives idle allowances back and runs the sweep
 * ({@link EscrowSweep}); closing gives every allowance back.
 */
public final class BoundedStrategy extends CellStrategy implements Bounding {

    private static final Logger LOG = LoggerFactory.getLogger(BoundedStrategy.class);

    /** How long a change waits for the refill of its side another caller is making before it goes to the pool. */
    private static final long REFILL_WAIT_MILLIS = 1_000;
    /** How long closing waits for the writes in flight of one allowance. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final BoundedSettings settings;
    private final Bounds bounds;
    private final Escrow escrow;
    private final Holds holds;
    private final @Nullable DeltaLog deltaLog;
    private final String nodeId;
    private final String nodeCell;
    private final NodeClaim claim;
    private final Time time;
    private final Retry keyedRetry;
    private final StrategyContext context;
    private final ConcurrentHashMap<CounterName, EscrowAllowance> allowances = new ConcurrentHashMap<>();
    private final ScheduledExecutorService keeper;
    private final EscrowSweep sweep;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final @Nullable Binding binding;

    private final LongAdder refusals = new LongAdder();
    private final LongAdder refills = new LongAdder();
    private final LongAdder refilledUnits = new LongAdder();
    private final LongAdder poolChanges = new LongAdder();
    private final LongAdder givenBackUnits = new LongAdder();
    private final LongAdder contention = new LongAdder();
    final LongAdder expiredHolds = new LongAdder();
    final LongAdder strandedUnits = new LongAdder();

    public BoundedStrategy(StrategyContext context, BoundedSettings settings) {
        this(context, settings, null);
    }

    /**
     * How a rate limiter's windows are bound ({@code dev.counters.internal.ratelimit}): each counter by bounds of its
     * own, computed on its first use in this process, and warmed with the rate its key had in the window before, so
     * that a hot key takes allowances from the first change of a new window.
     */
    public interface Binding {

        /** The bounds to bind {@code name} with; empty when it is bound already and must be used as stored. */
        Optional<Bounds> bounds(CounterName name);

        /**
         * Whether a counter's first bind sets its bounds for good ({@link Escrow#bindIfAbsent}), its bounds computed
         * from what other counters held, which processes may read differently; otherwise a bind with other bounds
         * rebinds it, as a changed rule does.
         */
        boolean bindsOnce();

        /** The rate (units a second) to start {@code name}'s rate toward its maximum at. */
        double rate(CounterName name);
    }

    /** A strategy whose counters are bound by {@code binding}, not by the settings' bounds, which give only the sides. */
    @SuppressWarnings("FutureReturnValueIgnored") // the keeper's tasks catch their own failures; close stops it
    public BoundedStrategy(StrategyContext context, BoundedSettings settings, @Nullable Binding binding) {
        super(
                context,
                StrategyContext.<Object>transientFailures(10)
                        .retryExceptions(TransientStoreException.class, RoomTaken.class)
                        .build());
        this.context = context;
        this.settings = settings;
        this.binding = binding;
        this.bounds = new Bounds(settings.min(), settings.max());
        this.escrow = context.require(Escrow.class);
        this.holds = context.require(Holds.class);
        this.deltaLog = context.store().capability(DeltaLog.class).orElse(null);
        this.time = context.time();
        this.keyedRetry = context.retry(
                "keyed",
                StrategyContext.<Object>transientFailures(10)
                        .retryExceptions(CounterStoreException.class, RoomTaken.class)
                        .ignoreExceptions(StoreUnavailableException.class)
                        .build());
        this.nodeId = settings.nodeId() != null ? settings.nodeId() : "node-" + context.instanceId();
        this.nodeCell = Escrow.NODE_PREFIX + nodeId;
        this.claim = NodeClaim.acquire(context, nodeId, settings.leaseTtl(), retry);
        this.sweep = new EscrowSweep(context, this, nodeId);
        this.keeper = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = context.newThread("escrow", task);
            thread.setDaemon(true);
            return thread;
        });
        long idleCheck = Math.max(1, settings.giveBackAfter().toMillis() / 4);
        keeper.scheduleWithFixedDelay(this::giveBackIdle, idleCheck, idleCheck, TimeUnit.MILLISECONDS);
        long sweepEvery = settings.sweepInterval().toMillis();
        keeper.scheduleWithFixedDelay(sweep::runQuietly, sweepEvery, sweepEvery, TimeUnit.MILLISECONDS);
    }

    @Override
    public BoundedSettings settings() {
        return settings;
    }

    // ---- counting API ----

    @Override
    public void increment(CounterName name, long delta) {
        orThrow(name, delta, change(name, delta, false));
    }

    @Override
    public long incrementAndGet(CounterName name, long delta) {
        return orThrow(name, delta, change(name, delta, true)).value();
    }

    @Override
    public long increment(CounterName name, long delta, IdempotencyKey key, boolean needsValue) {
        KeyedOperation op = keyed(name, delta, null, key, needsValue);
        if (op.state() == OperationState.REFUSED) {
            long value = op.value().orElse(0);
            throw new CounterBoundException(name, delta, bound(delta), value, 0);
        }
        return needsValue ? valueOf(op, name, delta) : 0;
    }

    @Override
    KeyedIncrements.KeyedCellWrite keyedWrite(CounterName name, long delta) {
        throw new UnsupportedOperationException("bounded counters record their keys with their holds");
    }

    @Override
    public BoundedIncrement tryIncrement(
            CounterName name, long delta, @Nullable IdempotencyKey key, boolean needsValue) {
        if (key == null) {
            return change(name, delta, needsValue).answer();
        }
        KeyedOperation op = keyed(name, delta, null, key, needsValue);
        boolean applied = op.state() == OperationState.APPLIED;
        if (!needsValue) {
            return new BoundedIncrement(applied, delta, applied ? 0 : op.value().orElse(0), 0);
        }
        long value = applied ? valueOf(op, name, delta) : op.value().orElse(0);
        long remaining = CounterStrategy.readAfterTaken(name, delta, () -> remaining(readState(name), delta));
        return new BoundedIncrement(applied, delta, value, remaining);
    }

    @Override
    public Hold reserve(CounterName name, long delta, Duration ttl, IdempotencyKey key) {
        return toHold(keyed(name, delta, ttl, key, false), key);
    }

    @Override
    public Hold settle(CounterName name, IdempotencyKey key, HoldStatus to) {
        if (to != HoldStatus.CONFIRMED && to != HoldStatus.RELEASED) {
            throw new IllegalArgumentException("A hold is settled by confirming or releasing it, not " + to);
        }
        return Retries.write(keyedRetry, () -> toHold(settleOnce(name, key, to), key));
    }

    @Override
    public Optional<Hold> hold(CounterName name, IdempotencyKey key) {
        return retrying(() -> holds.operation(key.value()))
                .filter(op -> op.counter().equals(name) && op.expiresAt() != null)
                .map(op -> toHold(op, key));
    }

    @Override
    public BoundedState state(CounterName name) {
        EscrowState state = readState(name);
        Map<String, EscrowCell> cells = retrying(() -> escrow.escrowCells(name));
        EscrowCell pool = cells.getOrDefault(Escrow.POOL, new EscrowCell(0, null, null));
        Map<String, BoundedState.Allowance> nodes = new LinkedHashMap<>();
        cells.forEach((cell, rooms) -> {
            if (cell.startsWith(Escrow.NODE_PREFIX)) {
                nodes.put(cell.substring(Escrow.NODE_PREFIX.length()), allowance(rooms));
            }
        });
        return new BoundedState(
                name,
                state.value(),
                state.heldDown(),
                state.heldUp(),
                state.bounds().min(),
                state.bounds().max(),
                allowance(pool),
                nodes);
    }

    /** A counter is first used when first read, too: it reads its initial value. */
    @Override
    public long get(CounterName name) {
        retrying(() -> bound(name));
        return super.get(name);
    }

    @Override
    public Map<CounterName, Long> getAll(Collection<CounterName> names) {
        retrying(() -> names.forEach(this::bound));
        return super.getAll(names);
    }

    @Override
    public void delete(CounterName name) {
        allowances.remove(name);
        super.delete(name);
    }

    /**
     * The room toward the side of {@code delta} that this node's allowance of the counter holds here, while that side
     * escrows: a lower bound of the counter's room (the local room underestimates the node row's, one of the rows
     * whose rooms add up to the counter's). Empty while the side goes through the pool row. For a rate limiter's hot
     * window, whose answers need the room left but not the value.
     */
    public OptionalLong escrowedRoom(CounterName name, long delta) {
        EscrowAllowance allowance = allowances.get(name);
        if (allowance == null) {
            return OptionalLong.empty();
        }
        EscrowAllowance.Side side = allowance.side(delta);
        return side.mode == EscrowAllowance.Mode.ESCROW
                ? OptionalLong.of(Math.max(0, side.local.get()))
                : OptionalLong.empty();
    }

    /** The rate of changes toward the maximum of a counter this process uses, units a second now; 0 if unused. */
    public double rate(CounterName name) {
        EscrowAllowance allowance = allowances.get(name);
        return allowance == null ? 0 : allowance.up.rateAt(time.elapsedNanos());
    }

    /**
     * Forgets the counters that {@code ended} selects (a rate limiter's ended windows): their allowances are given back
     * by the keeper, which then drops them. A later use binds such a counter again.
     */
    public void forget(Predicate<CounterName> ended) {
        allowances.forEach((name, allowance) -> {
            if (ended.test(name)) {
                allowance.forgotten = true;
            }
        });
    }

    @Override
    public StrategyStatistics.Activity activity() {
        long held = 0;
        for (EscrowAllowance allowance : allowances.values()) {
            held += allowance.localUnits();
        }
        return new StrategyStatistics.Activity(
                0,
                retries(),
                contention.sum(),
                null,
                new StrategyStatistics.EscrowActivity(
                        refusals.sum(),
                        refills.sum(),
                        refilledUnits.sum(),
                        poolChanges.sum(),
                        givenBackUnits.sum(),
                        held,
                        expiredHolds.sum(),
                        strandedUnits.sum()));
    }

    // ---- unkeyed changes: allowance, pool, refusal (PLAN §2.4) ----

    /** The answer of a change, with the units held toward the bound, which a refusal reports. */
    private record Answer(BoundedIncrement answer, long held) {}

    private Answer change(CounterName name, long delta, boolean needsValue) {
        checkRange(name, delta);
        try {
            Answer answer = retrying(() -> changeOnce(name, delta, needsValue));
            if (!answer.answer().applied()) {
                refusals.increment();
            }
            return answer;
        } catch (RoomTaken e) {
            throw contention(name);
        }
    }

    /** The answer of a change that has no way to say no. */
    private BoundedIncrement orThrow(CounterName name, long delta, Answer answer) {
        if (!answer.answer().applied()) {
            throw new CounterBoundException(
                    name, delta, bound(delta), answer.answer().value(), answer.held());
        }
        return answer.answer();
    }

    private CounterContentionException contention(CounterName name) {
        contention.increment();
        return new CounterContentionException(name, retry.getRetryConfig().getMaxAttempts());
    }

    private Answer changeOnce(CounterName name, long delta, boolean needsValue) {
        EscrowAllowance allowance = bound(name);
        long units = Math.abs(delta);
        if (!bounded(delta)) {
            // Toward a missing bound (a restock of a stock without max): nothing to guard but the other side's room.
            Optional<BoundedIncrement> pooled = pool(name, delta, needsValue);
            if (pooled.isPresent()) {
                return new Answer(pooled.get(), 0);
            }
            allowances.remove(name, allowance); // deleted or rebound meanwhile: bind again
            throw RoomTaken.INSTANCE;
        }
        if (escrowOn()) {
            Optional<BoundedIncrement> fast = viaAllowance(name, allowance, delta, units, needsValue);
            if (fast.isPresent()) {
                return new Answer(fast.get(), 0);
            }
        }
        Optional<BoundedIncrement> pooled = pool(name, delta, needsValue);
        if (pooled.isPresent()) {
            return new Answer(pooled.get(), 0);
        }
        EscrowState state = snapshot(name, allowance);
        if (!fits(state, delta)) {
            return new Answer(
                    new BoundedIncrement(false, delta, state.value(), Math.max(0, toward(state, delta))),
                    delta < 0 ? state.heldDown() : state.heldUp());
        }
        collect(name, allowance, delta);
        pooled = pool(name, delta, needsValue);
        if (pooled.isPresent()) {
            return new Answer(pooled.get(), 0);
        }
        throw RoomTaken.INSTANCE;
    }

    /** A change through this node's row, refilling it when its side escrows; empty: go to the pool. */
    private Optional<BoundedIncrement> viaAllowance(
            CounterName name, EscrowAllowance allowance, long delta, long units, boolean needsValue) {
        if (!allowance.enter()) {
            return Optional.empty(); // being given back
        }
        try {
            long now = time.elapsedNanos();
            allowance.lastUseNanos = now;
            Side side = allowance.side(delta);
            double rate = side.observe(units, now);
            if (side.tryTake(units)) {
                Optional<BoundedIncrement> written = writeNode(name, allowance, side, delta, units, needsValue);
                if (written.isPresent()) {
                    return written;
                }
            }
            if (!refills(side, rate, now) || !refill(name, allowance, side, delta, units)) {
                return Optional.empty();
            }
            return writeNode(name, allowance, side, delta, units, needsValue);
        } finally {
            allowance.exit();
        }
    }

    /** Whether a change that found no local room refills its side, by the side's mode (PLAN §2.5). */
    private boolean refills(Side side, double rate, long now) {
        switch (side.mode) {
            case ESCROW:
                return true;
            case COLD:
                return rate >= settings.escrowAbove();
            default: // POOL: try to leave it at most once per five refill horizons
                long every = settings.refillHorizon().toNanos() * 5;
                long last = side.lastPoolTry;
                if (now - last < every) {
                    return false;
                }
                side.lastPoolTry = now;
                return true;
        }
    }

    /** Writes a change whose units were taken from the local room; empty if the row's room was gone. */
    private Optional<BoundedIncrement> writeNode(
            CounterName name, EscrowAllowance allowance, Side side, long delta, long units, boolean needsValue) {
        try {
            BoundedIncrement done;
            if (needsValue) {
                Optional<EscrowState> after = escrow.changeAndGet(name, nodeCell, delta, delta, -delta, time.steady());
                if (after.isEmpty()) {
                    throw AllowanceGone.INSTANCE;
                }
                done = applied(delta, after.get());
            } else {
                combiner(name, nodeCell).submit(delta, false);
                done = new BoundedIncrement(true, delta, 0, 0);
            }
            awayRoom(allowance, side, units);
            return Optional.of(done);
        } catch (AllowanceGone e) {
            side.local.set(0); // collected or reclaimed: an underestimate is harmless
            return Optional.empty();
        } catch (TransientStoreException e) {
            side.local.addAndGet(units); // surely not written: the units are still in the row
            throw e;
        }
    }

    /** A change toward one bound made room toward the other in the node's row: usable there. */
    private void awayRoom(EscrowAllowance allowance, Side side, long units) {
        Side away = allowance.other(side);
        if (away == allowance.up ? bounds.max() != null : bounds.min() != null) {
            away.local.addAndGet(units);
        }
    }

    /**
     * Refills the side from the pool, taking {@code units} for the caller; the away side's room above twice its target
     * rides back. On failure the side goes to pool mode and gives its room back.
     *
     * @return whether the caller's units were taken
     */
    private boolean refill(CounterName name, EscrowAllowance allowance, Side side, long delta, long units) {
        boolean locked;
        try {
            locked = side.refill.tryLock(REFILL_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        if (!locked) {
            return false;
        }
        try {
            if (side.tryTake(units)) {
                return true; // refilled by the caller we waited for
            }
            long take = Math.max(units, side.target(settings));
            Side away = allowance.other(side);
            long extra = away.local.get() - 2 * away.target(settings);
            long back = extra > 0 ? away.takeUpTo(extra) : 0;
            long toNode = delta < 0 ? take : -back;
            long upToNode = delta < 0 ? -back : take;
            allowance.hasRow = true;
            Optional<EscrowCell> pool = transfer(name, nodeCell, delta < 0 ? toNode : -back, upToNode);
            if (pool.isEmpty()) {
                away.local.addAndGet(back);
                enterPool(name, side, delta);
                return false;
            }
            refills.increment();
            refilledUnits.add(take);
            givenBackUnits.add(back);
            Long room = delta < 0 ? pool.get().roomDown() : pool.get().roomUp();
            long poolAfter = room == null ? Long.MAX_VALUE : room;
            side.poolAfter = poolAfter;
            side.local.addAndGet(take - units);
            long leave = (side.mode == Mode.POOL ? 16 : 8) * settings.minRefill();
            if (poolAfter < leave) {
                enterPool(name, side, delta); // near the bound: the last units are sold through the pool
            } else {
                side.mode = Mode.ESCROW;
            }
            return true;
        } finally {
            side.refill.unlock();
        }
    }

    /** Pool mode for a side: its local room goes back to the pool at once. */
    private void enterPool(CounterName name, Side side, long delta) {
        side.mode = Mode.POOL;
        side.lastPoolTry = time.elapsedNanos();
        giveBack(name, side, delta < 0);
    }

    /** Gives a side's local room back to the pool (a transfer that never changes the value). */
    private void giveBack(CounterName name, Side side, boolean down) {
        long units = side.local.getAndSet(0);
        if (units > 0
                && transfer(name, nodeCell, down ? -units : 0, down ? 0 : -units)
                        .isPresent()) {
            givenBackUnits.add(units);
        }
    }

    /** A transfer, observed; a failure is logged and reads as "nothing moved": a transfer never changes the value. */
    private Optional<EscrowCell> transfer(CounterName name, String cell, long downToNode, long upToNode) {
        try {
            return context.observe(Operation.TRANSFER, name, () -> escrow.transfer(name, cell, downToNode, upToNode));
        } catch (CounterOverflowException | IllegalArgumentException | IllegalStateException e) {
            throw e;
        } catch (RuntimeException e) {
            LOG.debug(
                    "A transfer of counter '{}' failed; it moved room only, the change goes on: {}",
                    name,
                    e.toString());
            return Optional.empty();
        }
    }

    /** A change on the pool row, combined; empty if the pool lacks the room for it. */
    private Optional<BoundedIncrement> pool(CounterName name, long delta, boolean needsValue) {
        if (needsValue) {
            return escrow.changeAndGet(name, Escrow.POOL, delta, delta, -delta, time.steady())
                    .map(state -> {
                        poolChanges.increment();
                        return applied(delta, state);
                    });
        }
        try {
            combiner(name, Escrow.POOL).submit(delta, false);
            poolChanges.increment();
            return Optional.of(new BoundedIncrement(true, delta, 0, 0));
        } catch (PoolFull e) {
            return Optional.empty();
        }
    }

    /** The refusal read; a counter deleted meanwhile is bound again by the next attempt. */
    private EscrowState snapshot(CounterName name, EscrowAllowance allowance) {
        Optional<EscrowState> state = escrow.state(name, time.steady());
        if (state.isEmpty()) {
            allowances.remove(name, allowance);
            throw RoomTaken.INSTANCE;
        }
        return state.get();
    }

    /**
     * Brings back the room toward {@code delta}'s bound that this node cannot reach: the counter's due holds expire,
     * and every node row's room (this node's included) goes back to the pool, each transfer guarded.
     */
    private void collect(CounterName name, EscrowAllowance allowance, long delta) {
        Instant now = time.steady();
        for (KeyedOperation due : holds.dueHolds(name, now, 100)) {
            expire(due, now);
        }
        Side side = allowance.side(delta);
        side.mode = Mode.POOL;
        side.lastPoolTry = time.elapsedNanos();
        side.local.set(0); // its row's room is collected below with the others'
        escrow.escrowCells(name).forEach((cell, rooms) -> {
            Long room = delta < 0 ? rooms.roomDown() : rooms.roomUp();
            if (cell.startsWith(Escrow.NODE_PREFIX) && room != null && room > 0) {
                transfer(name, cell, delta < 0 ? -room : 0, delta < 0 ? 0 : -room);
            }
        });
    }

    /** Expires a due hold on the pool; whether this call expired it. */
    boolean expire(KeyedOperation hold, Instant now) {
        Optional<KeyedOperation> after = holds.settle(
                hold.key(),
                OperationState.EXPIRED,
                Escrow.POOL,
                -hold.delta(),
                hold.delta() < 0 ? -hold.delta() : 0,
                hold.delta() > 0 ? hold.delta() : 0,
                now);
        boolean expired = after.isPresent() && after.get().appliedNow();
        if (expired) {
            expiredHolds.increment();
        }
        return expired;
    }

    // ---- keyed changes and holds (PLAN §2.4, §2.9) ----

    private KeyedOperation keyed(
            CounterName name, long delta, @Nullable Duration ttl, IdempotencyKey key, boolean needsValue) {
        checkRange(name, delta);
        KeyedOperation op;
        try {
            op = Retries.write(keyedRetry, () -> keyedOnce(name, delta, ttl, key, needsValue));
        } catch (RoomTaken e) {
            throw contention(name);
        }
        if (!op.counter().equals(name) || op.delta() != delta || (op.expiresAt() != null) != (ttl != null)) {
            throw new IdempotencyKeyReusedException(key, op.counter().value(), op.delta(), name.value(), delta);
        }
        return op;
    }

    private KeyedOperation keyedOnce(
            CounterName name, long delta, @Nullable Duration ttl, IdempotencyKey key, boolean needsValue) {
        EscrowAllowance allowance = bound(name);
        Instant now = time.steady();
        // Whole milliseconds, as stores keep them: the first answer and a repeat show the same hold.
        Instant expiresAt = ttl == null ? null : now.plus(ttl).truncatedTo(ChronoUnit.MILLIS);
        long units = Math.abs(delta);
        // A change moves both rooms; a hold takes the room toward its bound and gives nothing until confirmed.
        long roomDown = ttl == null ? delta : Math.min(delta, 0);
        long roomUp = ttl == null ? -delta : -Math.max(delta, 0);
        if (bounded(delta) && escrowOn() && allowance.enter()) {
            try {
                long nanos = time.elapsedNanos();
                allowance.lastUseNanos = nanos;
                Side side = allowance.side(delta);
                double rate = side.observe(units, nanos);
                if (side.tryTake(units)
                        || (refills(side, rate, nanos) && refill(name, allowance, side, delta, units))) {
                    Optional<KeyedOperation> op;
                    try {
                        op = holds.applyKeyed(
                                key.value(), name, delta, expiresAt, nodeCell, roomDown, roomUp, needsValue, now);
                    } catch (TransientStoreException e) {
                        side.local.addAndGet(units);
                        throw e;
                    }
                    if (op.isPresent()) {
                        if (!op.get().appliedNow()) {
                            side.local.addAndGet(units); // a repeat: nothing taken
                        } else if (ttl == null) {
                            awayRoom(allowance, side, units);
                        }
                        return op.get();
                    }
                    side.local.set(0);
                }
            } finally {
                allowance.exit();
            }
        }
        Optional<KeyedOperation> op =
                holds.applyKeyed(key.value(), name, delta, expiresAt, Escrow.POOL, roomDown, roomUp, needsValue, now);
        if (op.isPresent()) {
            return counted(op.get());
        }
        EscrowState state = snapshot(name, allowance);
        if (!bounded(delta) || fits(state, delta)) {
            if (bounded(delta)) {
                collect(name, allowance, delta);
            }
            op = holds.applyKeyed(key.value(), name, delta, expiresAt, Escrow.POOL, roomDown, roomUp, needsValue, now);
            if (op.isPresent()) {
                return counted(op.get());
            }
            throw RoomTaken.INSTANCE;
        }
        KeyedOperation refused = holds.recordRefusal(key.value(), name, delta, expiresAt, state.value(), now);
        if (refused.appliedNow()) {
            refusals.increment();
        }
        return refused;
    }

    private KeyedOperation counted(KeyedOperation op) {
        if (op.appliedNow()) {
            poolChanges.increment();
        }
        return op;
    }

    private KeyedOperation settleOnce(CounterName name, IdempotencyKey key, HoldStatus to) {
        KeyedOperation op = holds.operation(key.value())
                .orElseThrow(() -> new IllegalArgumentException("No hold of counter '" + name
                        + "' is recorded under key '" + key + "' (never reserved, or forgotten after the key"
                        + " retention)"));
        if (!op.counter().equals(name)) {
            throw new IllegalArgumentException(
                    "Key '" + key + "' holds units of counter '" + op.counter() + "', not of counter '" + name + "'");
        }
        if (op.expiresAt() == null) {
            throw new IllegalArgumentException(
                    "Key '" + key + "' was recorded for a change of counter '" + name + "', not for a hold");
        }
        if (op.state() != OperationState.HELD) {
            return op;
        }
        Instant now = time.steady();
        long delta = op.delta();
        if (to == HoldStatus.CONFIRMED && !now.isBefore(op.expiresAt())) {
            return expireOrLeave(op, now);
        }
        // On this node's row while its side escrows, so that a checkout's confirms do not queue on the pool; the row
        // exists then (it is retired only sealed), and the room it gains is usable here at once.
        EscrowAllowance allowance = bound(name);
        Side side = allowance.side(delta);
        boolean own = escrowOn() && side.mode == Mode.ESCROW && allowance.hasRow && allowance.enter();
        try {
            String cell = own ? nodeCell : Escrow.POOL;
            long units = Math.abs(delta);
            Optional<KeyedOperation> after;
            if (to == HoldStatus.CONFIRMED) {
                // Final: the room the hold kept from the other bound comes back.
                after = holds.settle(
                        key.value(), OperationState.CONFIRMED, cell, 0, Math.max(delta, 0), -Math.min(delta, 0), now);
                if (after.isPresent() && after.get().state() == OperationState.HELD) {
                    return expireOrLeave(op, now); // expired between the two reads
                }
                if (own && after.isPresent() && after.get().appliedNow()) {
                    awayRoom(allowance, side, units);
                }
            } else {
                after = holds.settle(
                        key.value(),
                        OperationState.RELEASED,
                        cell,
                        -delta,
                        -Math.min(delta, 0),
                        Math.max(delta, 0),
                        now);
                if (own && after.isPresent() && after.get().appliedNow()) {
                    side.local.addAndGet(units);
                }
            }
            return after.orElseThrow(() -> new IllegalArgumentException(
                    "The hold of counter '" + name + "' under key '" + key + "' was forgotten meanwhile"));
        } finally {
            if (own) {
                allowance.exit();
            }
        }
    }

    private KeyedOperation expireOrLeave(KeyedOperation hold, Instant now) {
        expire(hold, now);
        return holds.operation(hold.key()).orElse(hold);
    }

    // ---- binding, reads, helpers ----

    /** The counter's allowance, binding the counter on its first use in this process (PLAN §2.4 step 1, §1.3). */
    private EscrowAllowance bound(CounterName name) {
        EscrowAllowance known = allowances.get(name);
        if (known != null) {
            return known;
        }
        Optional<EscrowCell> own;
        if (binding == null) {
            checkFamily(name);
            own = escrow.bind(name, bounds, settings.initial(), nodeCell, time.steady());
        } else {
            Optional<Bounds> wanted = binding.bounds(name); // a window's name: never a counting counter's
            if (wanted.isEmpty()) {
                own = Optional.ofNullable(escrow.escrowCells(name).get(nodeCell));
            } else if (binding.bindsOnce()) {
                own = escrow.bindIfAbsent(name, wanted.get(), settings.initial(), nodeCell, time.steady());
            } else {
                own = escrow.bind(name, wanted.get(), settings.initial(), nodeCell, time.steady());
            }
        }
        EscrowAllowance fresh = new EscrowAllowance(name, time.elapsedNanos());
        EscrowAllowance prior = allowances.putIfAbsent(name, fresh);
        if (prior != null) {
            return prior;
        }
        if (binding != null) {
            fresh.up.warm(binding.rate(name), time.elapsedNanos());
        }
        // A node restarted under its id finds its allowance in its row.
        own.ifPresent(cell -> {
            fresh.hasRow = true;
            seed(fresh.down, cell.roomDown());
            seed(fresh.up, cell.roomUp());
        });
        return fresh;
    }

    private static void seed(Side side, @Nullable Long room) {
        if (room != null && room > 0) {
            side.local.set(room);
            side.mode = Mode.ESCROW;
        }
    }

    /** A bounded counter's data is only its {@code b:} cells: a counting strategy's cells would break its rooms. */
    private void checkFamily(CounterName name) {
        boolean foreign = store.cells(name).keySet().stream().anyMatch(cell -> !cell.startsWith("b:"))
                || (deltaLog != null && !deltaLog.unfoldedDeltas(name, 1).isEmpty());
        if (foreign) {
            throw new IllegalStateException("Counter '" + name + "' is stored by a counting strategy (cells or"
                    + " deltas), but rule '" + context.rule() + "' now gives it the bounded strategy, which keeps its"
                    + " value in rows with rooms to its bounds. Keep its strategy; or, to move it, read its value,"
                    + " delete it (CounterAdmin.delete) and start it under the bounded strategy with that initial"
                    + " value");
        }
    }

    private EscrowState readState(CounterName name) {
        return retrying(() -> {
            EscrowAllowance allowance = bound(name);
            return snapshot(name, allowance);
        });
    }

    private boolean escrowOn() {
        return settings.escrow() && !claim.lost();
    }

    /** Whether the counter has a bound in the direction of {@code delta}. */
    private boolean bounded(long delta) {
        return delta < 0 ? bounds.min() != null : bounds.max() != null;
    }

    private long bound(long delta) {
        Long bound = delta < 0 ? bounds.min() : bounds.max();
        return bound == null ? (delta < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : bound;
    }

    /** Whether the snapshot has room for the change, counting the due holds toward its bound as given back. */
    private static boolean fits(EscrowState state, long delta) {
        long room = toward(state, delta);
        long due = delta < 0 ? state.dueDown() : state.dueUp();
        long units = Math.abs(delta);
        return room >= units || (due > 0 && room + due >= units); // room + due: both well within range
    }

    private static long toward(EscrowState state, long delta) {
        Long room = delta < 0 ? state.roomDown() : state.roomUp();
        return room == null ? Long.MAX_VALUE : room;
    }

    private static long remaining(EscrowState state, long delta) {
        return Math.max(0, toward(state, delta));
    }

    private static BoundedIncrement applied(long delta, EscrowState after) {
        return new BoundedIncrement(true, delta, after.value(), remaining(after, delta));
    }

    private static BoundedState.Allowance allowance(EscrowCell cell) {
        return new BoundedState.Allowance(cell.roomDown(), cell.roomUp());
    }

    private long valueOf(KeyedOperation op, CounterName name, long delta) {
        return op.value().isPresent()
                ? op.value().getAsLong()
                : CounterStrategy.readAfterTaken(name, delta, () -> getExact(name));
    }

    private Hold toHold(KeyedOperation op, IdempotencyKey key) {
        if (op.expiresAt() == null) {
            throw new IllegalStateException("Key '" + key + "' names a change, not a hold");
        }
        return new Hold(op.counter(), key, op.delta(), op.expiresAt(), status(op.state()));
    }

    private static HoldStatus status(OperationState state) {
        switch (state) {
            case HELD:
                return HoldStatus.HELD;
            case CONFIRMED:
                return HoldStatus.CONFIRMED;
            case RELEASED:
                return HoldStatus.RELEASED;
            case EXPIRED:
                return HoldStatus.EXPIRED;
            default:
                return HoldStatus.REFUSED;
        }
    }

    /** Rooms are 64-bit: a delta of {@code Long.MIN_VALUE} has no opposite to add to the other side's room. */
    private static void checkRange(CounterName name, long delta) {
        if (delta == Long.MIN_VALUE) {
            throw new CounterOverflowException(name, delta);
        }
    }

    // ---- combined writes of the escrow rows ----

    @Override
    Combiner.Write writer(CounterName name, String cell) {
        boolean pool = cell.equals(Escrow.POOL);
        return batch -> {
            long sum = batch.takeQueued();
            if (!escrow.change(name, cell, sum, sum, -sum)) {
                throw pool ? new PoolFull() : AllowanceGone.INSTANCE;
            }
            return 0L;
        };
    }

    // ---- background: idle give-back, close ----

    /** Gives back the allowances unused for {@code give-back-after}: sealed, their writes awaited, then retired. */
    private void giveBackIdle() {
        try {
            long now = time.elapsedNanos();
            long idle = settings.giveBackAfter().toNanos();
            for (EscrowAllowance allowance : allowances.values()) {
                if (allowance.forgotten) {
                    if (!allowance.hasRow || retire(allowance, now + idle)) {
                        allowances.remove(allowance.name, allowance);
                    }
                } else if (allowance.hasRow && now - allowance.lastUseNanos >= idle) {
                    retire(allowance, now + idle);
                }
            }
        } catch (RuntimeException | Error e) { // a scheduled task that throws is never run again
            LOG.warn("Giving back idle allowances failed; it runs again: {}", e.toString());
        }
    }

    /** Folds this node's row of the counter into the pool, once no write of it is in flight. */
    private boolean retire(EscrowAllowance allowance, long deadlineNanos) {
        if (!allowance.seal(deadlineNanos, time::elapsedNanos)) {
            return false;
        }
        try {
            Optional<EscrowCell> moved = escrow.retire(allowance.name, nodeCell);
            allowance.hasRow = false;
            for (Side side : new Side[] {allowance.down, allowance.up}) {
                side.local.set(0);
                side.mode = Mode.COLD;
                side.poolAfter = Long.MAX_VALUE;
            }
            moved.ifPresent(cell -> givenBackUnits.add(units(cell.roomDown()) + units(cell.roomUp())));
            return true;
        } catch (RuntimeException e) {
            LOG.warn("Could not give back the allowance of counter '{}': {}", allowance.name, e.toString());
            return false;
        } finally {
            allowance.unseal();
        }
    }

    private static long units(@Nullable Long room) {
        return room == null ? 0 : Math.max(0, room);
    }

    /** Retires a dead node's row of the counter for the sweep; the room it held, or -1 if it had none. */
    long reclaim(CounterName name, String deadNodeId) {
        Optional<EscrowCell> moved = escrow.retire(name, Escrow.NODE_PREFIX + deadNodeId);
        long units =
                moved.map(cell -> units(cell.roomDown()) + units(cell.roomUp())).orElse(0L);
        strandedUnits.add(units);
        return units;
    }

    Holds holds() {
        return holds;
    }

    Escrow escrow() {
        return escrow;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        keeper.shutdownNow();
        try {
            keeper.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long deadline = time.elapsedNanos() + CLOSE_WAIT.toNanos();
        for (EscrowAllowance allowance : allowances.values()) {
            if (allowance.hasRow) {
                retire(allowance, deadline);
            }
        }
        claim.release(); // once: the claim counts the rules that still use it
    }

    // ---- signals between the steps of one attempt ----

    /** Room was seen but others took it: the attempt is repeated; when attempts run out, contention. */
    static final class RoomTaken extends RuntimeException {

        private static final long serialVersionUID = 1L;
        static final RoomTaken INSTANCE = new RoomTaken();

        private RoomTaken() {
            super("the room seen was taken by others", null, false, false);
        }
    }

    /** A node row refused a write: its room was collected or reclaimed. */
    private static final class AllowanceGone extends RuntimeException {

        private static final long serialVersionUID = 1L;
        static final AllowanceGone INSTANCE = new AllowanceGone();

        private AllowanceGone() {
            super("the allowance's room is gone", null, false, false);
        }
    }

    /** The pool refused a batch: each member is tried alone, and one refused alone goes to the refusal read. */
    private static final class PoolFull extends Combiner.SplitBatch {

        private static final long serialVersionUID = 1L;

        PoolFull() {
            super("the pool lacks the room");
        }
    }
}
