package dev.counters.jdbc;

import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.CounterStoreException;
import dev.counters.TransientStoreException;
import dev.counters.sequence.Reservation;
import dev.counters.spi.CounterStore;
import dev.counters.spi.DatabaseClock;
import dev.counters.spi.DeltaLog;
import dev.counters.spi.Escrow;
import dev.counters.spi.Failovers;
import dev.counters.spi.Holds;
import dev.counters.spi.IdempotencyKeys;
import dev.counters.spi.IdempotentBatches;
import dev.counters.spi.IdleCounters;
import dev.counters.spi.Leases;
import dev.counters.spi.Maxima;
import dev.counters.spi.Members;
import dev.counters.spi.RateLimits;
import dev.counters.spi.Sequences;
import dev.counters.spi.SessionLocks;
import dev.counters.spi.ShardCounts;
import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.Configuration;
import org.jooq.ConnectionProvider;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record1;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.jooq.impl.DataSourceConnectionProvider;
import org.jooq.impl.DefaultConnectionProvider;
import org.jooq.impl.DefaultTransactionProvider;
import org.jspecify.annotations.Nullable;

/**
 * A {@link CounterStore} on H2, MySQL, MariaDB (a Galera cluster too) or PostgreSQL, through jOOQ, offering every
 * capability (and {@link SessionLocks} on MySQL, MariaDB outside Galera, and PostgreSQL; {@link Failovers} on all but
 * H2).
 *
 * <pre>{@code
 * CounterStore store = JooqCounterStore.builder(dataSource).tablePrefix("app_").migrateSchema(true).build();
 * }</pre>
 *
 * <p>The dialect is detected from the connection (a MariaDB server reached through MySQL Connector/J is
 * recognised as MariaDB). Upserts are rendered by jOOQ for each dialect. Each method is one statement or one
 * transaction, tried once: a failure the database reports as rolled back (deadlock, serialization failure, lock wait
 * timeout, a lost race to insert a new row) becomes a {@link dev.counters.TransientStoreException}, which the
 * strategies retry; any other failure leaves a write's outcome unknown. This class composes the queries; the SQL of
 * each table lives in its query class ({@link CellQueries}, {@link DeltaQueries}, ...), and error translation in
 * {@link StatementRunner}.
 */
public final class JooqCounterStore
        implements CounterStore,
                Leases,
                IdempotentBatches,
                IdempotencyKeys,
                IdleCounters,
                DeltaLog,
                ShardCounts,
                Maxima,
                Sequences,
                Escrow,
                Holds,
                RateLimits,
                Members,
                DatabaseClock,
                Failovers {

    /** {@link Builder#failoverSkipAhead(long)} unless set. */
    static final long DEFAULT_FAILOVER_SKIP_AHEAD = 1_000_000;

    /** Names per statement in reads of many counters, so that no statement grows without bound. */
    private static final int MAX_NAMES_PER_QUERY = 1_000;

    private final StatementRunner runner;
    private final CounterTables tables;
    private final CellQueries cells;
    private final DeltaQueries deltas;
    private final BatchQueries batches;
    private final KeyQueries keys;
    private final LeaseQueries leases;
    private final MaximaQueries maxima;
    private final SequenceQueries sequences;
    private final BoundQueries bounds;
    private final AllowanceQueries allowances;
    private final HoldQueries holds;
    private final RateLimitQueries rateLimits;
    private final MemberQueries members;
    private final FailoverProtection protection;
    private final @Nullable CallerTransactions callerTransactions;
    /** What the provider of a caller's connection is wrapped in (see {@link ClientPreparedOnGalera}). */
    private final UnaryOperator<ConnectionProvider> callerConnections;

    private final Supplier<Optional<SessionLocks>> sessionLocks;
    private final IntSupplier sessionLockConnections;
    /** Whether the store's connections are on a Galera node (known once one was acquired). */
    private final BooleanSupplier galera;

    private JooqCounterStore(
            StatementRunner runner,
            CounterTables tables,
            FailoverProtection protection,
            @Nullable CallerTransactions callerTransactions,
            UnaryOperator<ConnectionProvider> callerConnections,
            Supplier<Optional<SessionLocks>> sessionLocks,
            IntSupplier sessionLockConnections,
            BooleanSupplier galera) {
        this.runner = runner;
        this.tables = tables;
        this.batches = new BatchQueries(tables);
        this.cells = new CellQueries(tables, batches);
        this.deltas = new DeltaQueries(tables);
        this.keys = new KeyQueries(tables);
        this.leases = new LeaseQueries(tables);
        this.maxima = new MaximaQueries(tables, protection);
        this.sequences = new SequenceQueries(tables, protection);
        this.bounds = new BoundQueries(tables);
        this.allowances = new AllowanceQueries(tables);
        this.holds = new HoldQueries(tables);
        this.rateLimits = new RateLimitQueries(tables);
        this.members = new MemberQueries(tables);
        this.protection = protection;
        this.callerTransactions = callerTransactions;
        this.callerConnections = callerConnections;
        this.sessionLocks = sessionLocks;
        this.sessionLockConnections = sessionLockConnections;
        this.galera = galera;
    }

    /** {@code store}'s queries (and the statements they rendered), run by {@code runner}. */
    private JooqCounterStore(StatementRunner runner, JooqCounterStore store) {
        this.runner = runner;
        this.tables = store.tables;
        this.cells = store.cells;
        this.deltas = store.deltas;
        this.batches = store.batches;
        this.keys = store.keys;
        this.leases = store.leases;
        this.maxima = store.maxima;
        this.sequences = store.sequences;
        this.bounds = store.bounds;
        this.allowances = store.allowances;
        this.holds = store.holds;
        this.rateLimits = store.rateLimits;
        this.members = store.members;
        this.protection = store.protection;
        this.callerTransactions = null;
        this.callerConnections = UnaryOperator.identity();
        this.sessionLocks = Optional::empty;
        this.sessionLockConnections = () -> 0;
        this.galera = store.galera;
    }

    /**
     * Starts building a store on a {@link DataSource}; the dialect is detected from it. The store's own writes never
     * join a caller's transaction: given Spring's {@code TransactionAwareDataSourceProxy}, the store uses its target
     * (see {@link Builder#callerTransactions} for the writes that may join).
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(Objects.requireNonNull(dataSource, "dataSource"), null);
    }

    /**
     * Starts building a store on an existing jOOQ {@link DSLContext}: its settings, dialect and connections. The store's
     * own writes never join a caller's transaction: it runs its transactions with jOOQ's own transaction provider, and
     * a Spring-managed context's {@code TransactionAwareDataSourceProxy} (Spring Boot's jOOQ auto-configuration makes
     * one) is replaced by its target. A context whose connections come from a {@code ConnectionProvider} of another
     * kind must hand out connections outside the caller's transaction. To join Spring transactions where that is safe,
     * see {@link Builder#callerTransactions}.
     */
    public static Builder builder(DSLContext dsl) {
        return new Builder(null, Objects.requireNonNull(dsl, "dsl"));
    }

    /**
     * Checks that the library's tables and their columns exist, as an application that applies the DDL itself should
     * at startup: a missing table would otherwise show only at the first write that needs it. Reads only.
     *
     * @throws SchemaNotInitializedException naming what is missing and where the DDL is
     */
    public void checkSchema() {
        List<String> missing = runner.run("check the schema", ctx -> SchemaMigrations.missing(ctx, tables));
        if (!missing.isEmpty()) {
            throw new SchemaNotInitializedException(missing, SchemaMigrations.location(dialect()));
        }
    }

    /** The dialect this store renders SQL for. */
    public SQLDialect dialect() {
        return runner.dialect();
    }

    /**
     * This store bound to the caller's transaction, found by the configured {@link CallerTransactions}: the same
     * queries, run by a {@link JoinedTransaction}.
     */
    @Override
    public Optional<CounterStore> callerTransaction() {
        if (runner.joinsCallerTransaction()) {
            return Optional.of(this);
        }
        Connection connection = callerTransactions == null ? null : callerTransactions.currentConnection();
        return connection == null
                ? Optional.empty()
                : Optional.of(new JooqCounterStore(
                        new JoinedTransaction(
                                runner, callerConnections.apply(new DefaultConnectionProvider(connection))),
                        this));
    }

    /**
     * The pooled connections the store keeps now for its session locks, one per lock held for as long as it is held:
     * one per node id a {@code node} rule claims on MySQL, MariaDB and PostgreSQL (none on H2, on a Galera cluster or
     * behind PgBouncer in transaction mode, where claims are leases). The pool must have room for at least one more.
     */
    public int sessionLockConnections() {
        return sessionLockConnections.getAsInt();
    }

    /**
     * Offers {@link SessionLocks} on MySQL, MariaDB (but not on a Galera cluster, where they are node-local) and
     * PostgreSQL, and {@link Failovers} on MySQL, MariaDB and PostgreSQL (H2 runs in-process: no primary to change),
     * besides the capabilities it implements.
     */
    @Override
    public <T> Optional<T> capability(Class<T> capability) {
        if (capability == SessionLocks.class) {
            return sessionLocks.get().map(capability::cast);
        }
        if (capability == Failovers.class && dialect().family() == SQLDialect.H2) {
            return Optional.empty();
        }
        return CounterStore.super.capability(capability);
    }

    // ---- failovers ----

    @Override
    public long skipAhead() {
        return protection.skipAhead;
    }

    @Override
    public Skips skips() {
        return protection.skips();
    }

    @Override
    public Durability durability() {
        return runner.run("durability", FailoverProtection::durability);
    }

    // ---- cells ----

    @Override
    public void add(CounterName counter, String cell, long delta) {
        createCell(counter, cell);
        runner.run("add", counter, delta, ctx -> {
            cells.add(ctx, counter, cell, delta);
            return null;
        });
    }

    @Override
    public long addAndGet(CounterName counter, String cell, long delta) {
        createCell(counter, cell);
        // Within one transaction the row lock taken by the write is held while we read, so the total includes
        // this delta and no later one on the same cell.
        return runner.transaction("addAndGet", counter, delta, ctx -> {
            cells.add(ctx, counter, cell, delta);
            return cells.total(ctx, counter);
        });
    }

    private void createCell(CounterName counter, String cell) {
        runner.createMissing(
                "add", counter, ctx -> cells.exists(ctx, counter, cell), ctx -> cells.create(ctx, counter, cell));
    }

    @Override
    public long get(CounterName counter) {
        return runner.run("get", counter, 0, ctx -> cells.total(ctx, counter));
    }

    @Override
    public Map<CounterName, Long> getAll(Collection<CounterName> counters) {
        return inChunks("getAll", counters, cells::totals);
    }

    @Override
    public Map<String, Long> cells(CounterName counter) {
        return runner.run("cells", counter, 0, ctx -> cells.cells(ctx, counter));
    }

    @Override
    public Optional<VersionedValue> read(CounterName counter, String cell) {
        return runner.run("read", counter, 0, ctx -> cells.read(ctx, counter, cell));
    }

    @Override
    public boolean compareAndSet(CounterName counter, String cell, @Nullable VersionedValue expected, long newValue) {
        try {
            return runner.run(
                    "compareAndSet", counter, 0, ctx -> cells.compareAndSet(ctx, counter, cell, expected, newValue));
        } catch (TransientStoreException e) {
            if (expected == null) {
                return false; // a concurrent first write of the cell won the race to create it: a conflict
            }
            throw e;
        }
    }

    @Override
    public boolean delete(CounterName counter) {
        return runner.transaction("delete", counter, 0, ctx -> {
            maxima.delete(ctx, counter);
            deleteEscrow(ctx, counter);
            return members.deleteAll(ctx, counter) + deltas.delete(ctx, counter) + cells.delete(ctx, counter) > 0;
        });
    }

    /** A bounded counter's operations, allowance registrations and bounds. */
    private void deleteEscrow(DSLContext ctx, CounterName counter) {
        holds.delete(ctx, counter);
        allowances.delete(ctx, counter);
        bounds.delete(ctx, counter);
    }

    @Override
    public List<CounterName> counterNames(String prefix, @Nullable CounterName after, int limit) {
        Table<Record1<String>> names =
                cells.names().union(deltas.names()).union(maxima.names()).asTable("names", "name");
        Field<String> name = Objects.requireNonNull(names.field("name", String.class), "the column named above");
        // Names hold letters, digits and . _ - : only; '_' is a wildcard of LIKE, so it is escaped.
        Condition matching = prefix.isEmpty()
                ? DSL.noCondition()
                : name.like(prefix.replace("!", "!!").replace("_", "!_").replace("%", "!%") + "%", '!');
        return runner.run(
                "counterNames",
                ctx -> ctx.select(name)
                        .from(names)
                        .where(matching, after == null ? DSL.noCondition() : name.gt(after.value()))
                        .orderBy(name)
                        .limit(limit)
                        .fetch(row -> CounterName.of(row.value1())));
    }

    // ---- idempotent batches ----

    @Override
    public AppliedBatch applyBatch(
            String key, String cell, Map<CounterName, Long> batch, Map<String, KeyedDelta> keyed, Instant now) {
        try {
            List<Map.Entry<CounterName, Long>> sorted = sorted(batch);
            // Not in a caller's transaction, which the statement would commit on MariaDB (and which commits the batch).
            if (keyed.isEmpty()
                    && !runner.joinsCallerTransaction()
                    && cells.addsUnlessRecordedInOneStatement(runner.dialect(), sorted)) {
                boolean applied = runner.run(
                        "applyBatch '" + key + "'",
                        null,
                        0,
                        ctx -> cells.addAllUnlessRecorded(ctx, key, now, cell, sorted));
                return applied ? new AppliedBatch(true, Map.of()) : AppliedBatch.NOT_APPLIED;
            }
            return runner.transaction("applyBatch '" + key + "'", null, 0, ctx -> {
                // The key first: a retry waits here for an attempt still in flight, and stops if it committed.
                if (!batches.record(ctx, key, now)) {
                    return AppliedBatch.NOT_APPLIED;
                }
                Map<CounterName, Long> sums = new HashMap<>(batch);
                Map<String, KeyedDelta> repeated = keyed.isEmpty() ? Map.of() : keys.recorded(ctx, keyed.keySet());
                Map<String, KeyedDelta> fresh = new HashMap<>();
                keyed.forEach((idempotencyKey, increment) -> {
                    if (repeated.containsKey(idempotencyKey)) {
                        sums.merge(increment.counter(), -increment.delta(), Long::sum); // applied before
                    } else {
                        fresh.put(idempotencyKey, increment);
                    }
                });
                keys.recordAll(ctx, fresh, now);
                cells.addAll(ctx, cell, sorted(sums));
                return new AppliedBatch(true, repeated);
            });
        } catch (CounterStoreException e) {
            throw overflowIn(sorted(batch), cell, e);
        }
    }

    @Override
    public Map<CounterName, Long> getAllWithBatches(
            Collection<CounterName> counters, Map<String, Map<CounterName, Long>> inFlight) {
        return inChunks("getAllWithBatches", counters, (ctx, chunk) -> cells.totalsWithBatches(ctx, chunk, inFlight));
    }

    /** Sorted by name, so that two nodes' batches lock rows in the same order and cannot deadlock each other. */
    private static List<Map.Entry<CounterName, Long>> sorted(Map<CounterName, Long> deltas) {
        List<Map.Entry<CounterName, Long>> sorted = new ArrayList<>(deltas.entrySet());
        sorted.removeIf(entry -> entry.getValue() == 0);
        sorted.sort(Map.Entry.comparingByKey());
        return sorted;
    }

    // ---- idle counters ----

    @Override
    public Map<CounterName, Map<String, Long>> cellVersions(Collection<CounterName> counters) {
        Map<CounterName, Map<String, Long>> versions = new HashMap<>();
        List<CounterName> names = List.copyOf(counters);
        for (int from = 0; from < names.size(); from += MAX_NAMES_PER_QUERY) {
            List<CounterName> chunk = names.subList(from, Math.min(names.size(), from + MAX_NAMES_PER_QUERY));
            versions.putAll(runner.run("cellVersions", chunk.get(0), 0, ctx -> cells.versions(ctx, chunk)));
        }
        return versions;
    }

    @Override
    public boolean deleteIfUnchanged(CounterName counter, Map<String, Long> cellVersions) {
        try {
            return deleteLocked(counter, cellVersions);
        } catch (ChangedMeanwhile e) {
            return false;
        }
    }

    private boolean deleteLocked(CounterName counter, Map<String, Long> cellVersions) {
        return runner.transaction("deleteIfUnchanged", counter, 0, ctx -> {
            if (deltas.hasUnfolded(ctx, counter)
                    || !cells.versionsForUpdate(ctx, counter).equals(cellVersions)) {
                return false;
            }
            // Only the cells seen, at the versions seen: one created or written meanwhile stays, and then none goes.
            if (cells.deleteAtVersions(ctx, counter, cellVersions) != cellVersions.size()) {
                throw new ChangedMeanwhile(); // rolls back what was deleted
            }
            if (cellVersions.containsKey(POOL)) { // a bounded counter: what it has besides its cells goes too
                deleteEscrow(ctx, counter);
            }
            return true;
        });
    }

    // ---- idempotency keys ----

    @Override
    public KeyedIncrement applyOnce(String key, CounterName counter, long delta, Instant now, KeyedWrite write) {
        return runner.transaction("increment under key '" + key + "'", counter, delta, ctx -> {
            // The key first: a repeat in flight elsewhere waits here for that attempt, and stops if it committed.
            if (!keys.record(ctx, key, counter, delta, now)) {
                return keys.read(ctx, key)
                        .orElseThrow(() -> new TransientStoreException(
                                "Key '" + key + "' was pruned between its insert and its read; nothing was written",
                                null));
            }
            OptionalLong value = write.apply(new JooqCounterStore(runner.within(ctx), this));
            if (value.isPresent()) {
                keys.setValue(ctx, key, value.getAsLong());
            }
            return new KeyedIncrement(counter, delta, value, true);
        });
    }

    @Override
    public int pruneKeys(Instant appliedBefore, int limit) {
        return runner.transaction("pruneKeys", null, 0, ctx -> keys.prune(ctx, appliedBefore, limit));
    }

    /**
     * After a failed batch: the database refused a value out of range, so nothing was written; name the counter
     * whose delta overflows its cell. Any other failure is thrown as it is: its outcome may be unknown, and a
     * diagnosis that fails too (the database gone) must not turn it into "surely not applied".
     */
    private RuntimeException overflowIn(
            List<Map.Entry<CounterName, Long>> deltas, String cell, CounterStoreException failure) {
        if (!SqlFailures.isOutOfRange(failure)) {
            return failure;
        }
        try {
            for (Map.Entry<CounterName, Long> entry : deltas) {
                long current =
                        read(entry.getKey(), cell).map(VersionedValue::value).orElse(0L);
                long delta = entry.getValue();
                long sum = current + delta;
                if (((current ^ sum) & (delta ^ sum)) < 0) {
                    CounterOverflowException overflow = new CounterOverflowException(entry.getKey(), delta);
                    overflow.initCause(failure);
                    return overflow;
                }
            }
        } catch (RuntimeException diagnosis) {
            failure.addSuppressed(diagnosis);
        }
        return failure;
    }

    @Override
    public int pruneBatchKeys(Instant appliedBefore) {
        return runner.run("pruneBatchKeys", ctx -> batches.prune(ctx, appliedBefore));
    }

    // ---- delta log ----

    @Override
    public OptionalLong appendDelta(CounterName counter, String deltaId, long delta, Instant now) {
        return runner.run("appendDelta", counter, delta, ctx -> deltas.append(ctx, counter, deltaId, delta, now));
    }

    @Override
    public Map<CounterName, Long> getFolded(Collection<CounterName> counters) {
        return inChunks("getFolded", counters, cells::foldedTotals);
    }

    @Override
    public Map<String, Long> unfoldedDeltas(CounterName counter, int limit) {
        return runner.run("unfoldedDeltas", counter, 0, ctx -> deltas.unfolded(ctx, counter, limit));
    }

    @Override
    public boolean foldDeltas(
            CounterName counter, String cell, Collection<String> deltaIds, long sum, Instant purgeBefore) {
        List<String> ids = List.copyOf(deltaIds);
        try {
            return runner.transaction("foldDeltas", counter, sum, ctx -> {
                int marked = 0;
                for (int from = 0; from < ids.size(); from += MAX_NAMES_PER_QUERY) {
                    marked += deltas.markFolded(
                            ctx, counter, ids.subList(from, Math.min(ids.size(), from + MAX_NAMES_PER_QUERY)));
                }
                if (marked != ids.size()) {
                    throw new ChangedMeanwhile(); // rolls back what was marked
                }
                if (sum != 0) {
                    cells.add(ctx, counter, cell, sum);
                }
                deltas.purgeFolded(ctx, counter, purgeBefore);
                return true;
            });
        } catch (ChangedMeanwhile e) {
            return false;
        }
    }

    /**
     * What the transaction meant to change was changed meanwhile (deltas folded by a concurrent recount, a cell to
     * delete written), or a guard refused it (a bounded counter's room): thrown to roll it back, so that it writes
     * nothing.
     */
    private static final class ChangedMeanwhile extends RuntimeException {

        private static final long serialVersionUID = 1L;

        ChangedMeanwhile() {
            super(null, null, false, false);
        }
    }

    // ---- bounded counters: escrow ----

    @Override
    public Optional<EscrowCell> bind(CounterName counter, Bounds wanted, long initial, String nodeCell, Instant now) {
        return bind(counter, wanted, initial, nodeCell, now, true);
    }

    @Override
    public Optional<EscrowCell> bindIfAbsent(
            CounterName counter, Bounds wanted, long initial, String nodeCell, Instant now) {
        return bind(counter, wanted, initial, nodeCell, now, false);
    }

    private Optional<EscrowCell> bind(
            CounterName counter, Bounds wanted, long initial, String nodeCell, Instant now, boolean rebind) {
        EscrowCell pool = new EscrowCell(
                initial, roomDown(counter, initial, wanted.min()), roomUp(counter, initial, wanted.max()));
        return runner.transaction("bind", counter, 0, ctx -> {
            // The bounds row first: it is the lock that orders binds and rebinds of the counter.
            Optional<BoundQueries.Stored> stored = bounds.readForUpdate(ctx, counter);
            if (stored.isEmpty()) {
                if (bounds.insert(ctx, counter, wanted, now)) {
                    cells.createEscrowCell(ctx, counter, POOL, pool.value(), pool.roomDown(), pool.roomUp());
                    return cells.escrowCell(ctx, counter, nodeCell);
                }
                stored = bounds.readForUpdate(ctx, counter); // bound meanwhile by another transaction
            }
            BoundQueries.Stored current = stored.orElseThrow(() -> new TransientStoreException(
                    "Counter '" + counter + "' was bound and deleted while this bind ran; nothing was written", null));
            if (rebind && !current.sealed() && !current.bounds().equals(wanted)) {
                rebind(ctx, counter, wanted, now);
            }
            return cells.escrowCell(ctx, counter, nodeCell);
        });
    }

    /**
     * Under the bounds row's lock: locks every escrow cell and the open holds ({@link #lockedTotals}), then gives every
     * room to the pool, which then holds the distance from the value to the new bounds.
     */
    private void rebind(DSLContext ctx, CounterName counter, Bounds wanted, Instant now) {
        Totals totals = lockedTotals(ctx, counter);
        // Each room as if the holds that take from it were released: I1 and I2 of the escrow invariants.
        Long roomDown = roomDown(
                counter, exact(counter, () -> Math.subtractExact(totals.value(), totals.heldUp())), wanted.min());
        Long roomUp =
                roomUp(counter, exact(counter, () -> Math.addExact(totals.value(), totals.heldDown())), wanted.max());
        cells.setRooms(ctx, counter, true, wanted.min() == null ? null : 0L, wanted.max() == null ? null : 0L);
        cells.setRooms(ctx, counter, false, roomDown, roomUp);
        bounds.update(ctx, counter, wanted, false, now);
    }

    /** A bounded counter's value and the units of its open holds toward each bound. */
    private record Totals(long value, long heldDown, long heldUp) {}

    /**
     * Locks every escrow cell (nodes, then the pool) and the open holds, and sums them. Locking reads, so that the sums
     * are of the rows as they are now, not of an older snapshot.
     */
    private Totals lockedTotals(DSLContext ctx, CounterName counter) {
        Map<String, EscrowCell> locked = cells.escrowCells(ctx, counter, true);
        if (!locked.containsKey(POOL)) {
            throw new IllegalStateException("Bounded counter '" + counter + "' has no pool cell");
        }
        long value = 0;
        for (EscrowCell cell : locked.values()) {
            long sum = value;
            value = exact(counter, () -> Math.addExact(sum, cell.value()));
        }
        long heldDown = 0;
        long heldUp = 0;
        for (long delta : holds.openDeltasForUpdate(ctx, counter)) {
            if (delta < 0) {
                long held = heldDown;
                heldDown = exact(counter, () -> Math.subtractExact(held, delta));
            } else {
                long held = heldUp;
                heldUp = exact(counter, () -> Math.addExact(held, delta));
            }
        }
        return new Totals(value, heldDown, heldUp);
    }

    @Override
    public boolean change(CounterName counter, String cell, long valueDelta, long roomDownDelta, long roomUpDelta) {
        return runner.run(
                "change",
                counter,
                firstNonZero(valueDelta, roomDownDelta, roomUpDelta),
                ctx -> cells.change(ctx, counter, cell, valueDelta, roomDownDelta, roomUpDelta));
    }

    @Override
    public Optional<EscrowState> changeAndGet(
            CounterName counter, String cell, long valueDelta, long roomDownDelta, long roomUpDelta, Instant now) {
        try {
            return runner.transaction(
                    "changeAndGet", counter, firstNonZero(valueDelta, roomDownDelta, roomUpDelta), ctx -> {
                        if (!cells.change(ctx, counter, cell, valueDelta, roomDownDelta, roomUpDelta)) {
                            throw new ChangedMeanwhile();
                        }
                        // Read after the update in the same transaction: the state includes the change.
                        return Optional.of(cells.state(ctx, counter, now).orElseThrow(ChangedMeanwhile::new));
                    });
        } catch (ChangedMeanwhile e) {
            return Optional.empty();
        }
    }

    /**
     * One transaction, the node cell first and the pool last, so that the pool's row lock is held only until the
     * commit. The pool after it comes from {@code UPDATE … RETURNING} on PostgreSQL; elsewhere from a plain read
     * before the updates, adjusted by the amounts moved: approximate, as another transfer may move the pool between
     * the read and the update, and only used to size refills.
     */
    @Override
    public Optional<EscrowCell> transfer(CounterName counter, String nodeCell, long downToNode, long upToNode) {
        String nodeId = nodeId(nodeCell);
        boolean returning = dialect().family() == SQLDialect.POSTGRES;
        try {
            return runner.transaction("transfer", counter, firstNonZero(downToNode, upToNode, 0), ctx -> {
                EscrowCell before = returning ? null : pool(ctx, counter);
                if (!cells.change(ctx, counter, nodeCell, 0, downToNode, upToNode)) {
                    // Absent, or its guard failed: a node cell that receives room is created, then written again.
                    EscrowCell pool = before != null ? before : pool(ctx, counter);
                    if ((downToNode <= 0 && upToNode <= 0)
                            || !cells.createEscrowCell(
                                    ctx,
                                    counter,
                                    nodeCell,
                                    0,
                                    pool.roomDown() == null ? null : 0L,
                                    pool.roomUp() == null ? null : 0L)) {
                        throw new ChangedMeanwhile();
                    }
                    allowances.register(ctx, nodeId, counter);
                    if (!cells.change(ctx, counter, nodeCell, 0, downToNode, upToNode)) {
                        throw new ChangedMeanwhile();
                    }
                }
                if (returning) {
                    return Optional.of(cells.changeReturning(ctx, counter, POOL, 0, -downToNode, -upToNode)
                            .orElseThrow(ChangedMeanwhile::new));
                }
                if (!cells.change(ctx, counter, POOL, 0, -downToNode, -upToNode)) {
                    throw new ChangedMeanwhile();
                }
                EscrowCell read = Objects.requireNonNull(before);
                return Optional.of(new EscrowCell(
                        read.value(),
                        read.roomDown() == null ? null : read.roomDown() - downToNode,
                        read.roomUp() == null ? null : read.roomUp() - upToNode));
            });
        } catch (ChangedMeanwhile e) {
            return Optional.empty();
        }
    }

    private EscrowCell pool(DSLContext ctx, CounterName counter) {
        return cells.escrowCell(ctx, counter, POOL).orElseThrow(ChangedMeanwhile::new);
    }

    @Override
    public Optional<EscrowCell> retire(CounterName counter, String nodeCell) {
        String nodeId = nodeId(nodeCell);
        return runner.transaction("retire", counter, 0, ctx -> {
            // The node cell, its registration, then the pool: the order of a transfer's locks.
            Optional<EscrowCell> node = cells.escrowCellForUpdate(ctx, counter, nodeCell);
            allowances.remove(ctx, nodeId, counter);
            if (node.isEmpty()) {
                return node;
            }
            EscrowCell held = node.get();
            if (!cells.addUnguarded(
                    ctx,
                    counter,
                    POOL,
                    held.value(),
                    held.roomDown() == null ? 0 : held.roomDown(),
                    held.roomUp() == null ? 0 : held.roomUp())) {
                throw new IllegalStateException("Bounded counter '" + counter + "' has no pool cell");
            }
            cells.deleteCell(ctx, counter, nodeCell);
            return node;
        });
    }

    /**
     * As a rebind, under the bounds row's lock, with every cell and open hold locked: the maximum becomes the value plus
     * what releasing the holds toward the minimum would add back, so the rooms toward it, all 0, still add up to the
     * distance. A change racing it waits for the cell's lock, and then meets a room of 0.
     */
    @Override
    public Optional<EscrowState> seal(CounterName counter, Instant now) {
        return runner.transaction("seal", counter, 0, ctx -> {
            Optional<BoundQueries.Stored> stored = bounds.readForUpdate(ctx, counter);
            if (stored.isEmpty()) {
                return Optional.empty();
            }
            Totals totals = lockedTotals(ctx, counter);
            long max = exact(counter, () -> Math.addExact(totals.value(), totals.heldDown()));
            cells.closeRoomUp(ctx, counter);
            bounds.update(ctx, counter, new Bounds(stored.get().bounds().min(), max), true, now);
            return cells.state(ctx, counter, now);
        });
    }

    /**
     * One statement, so one snapshot. On a Galera node it is a causal read, so that a restock committed through
     * another node before the call is seen: a refusal is decided by this read.
     */
    @Override
    public Optional<EscrowState> state(CounterName counter, Instant now) {
        SQLDialect family = dialect().family();
        if (family != SQLDialect.MARIADB && family != SQLDialect.MYSQL) {
            return runner.run("state", counter, 0, ctx -> cells.state(ctx, counter, now));
        }
        return runner.run("state", counter, 0, ctx -> causally(ctx, on -> cells.state(on, counter, now)));
    }

    /**
     * {@code read} on one connection; on a Galera node a causal read, which first applies what the cluster committed
     * before it began, so that a write committed through another node is seen.
     */
    private <T> T causally(DSLContext ctx, Function<DSLContext, T> read) {
        return ctx.connectionResult(connection -> {
            DSLContext on = DSL.using(ctx.configuration().derive(new DefaultConnectionProvider(connection)));
            // Asked with a connection in hand: acquiring the first one is what finds out.
            return galera.getAsBoolean()
                    ? ClientPreparedOnGalera.causalRead(connection, () -> read.apply(on))
                    : read.apply(on);
        });
    }

    @Override
    public Map<String, EscrowCell> escrowCells(CounterName counter) {
        return runner.run("escrowCells", counter, 0, ctx -> cells.escrowCells(ctx, counter, false));
    }

    @Override
    public List<CounterName> boundedNames(@Nullable CounterName after, int limit) {
        return runner.run("boundedNames", ctx -> bounds.names(ctx, after, limit));
    }

    @Override
    public List<NodeAllowance> allowances(@Nullable NodeAllowance after, int limit) {
        return runner.run("allowances", ctx -> allowances.page(ctx, after, limit));
    }

    private static String nodeId(String nodeCell) {
        if (!nodeCell.startsWith(NODE_PREFIX)) {
            throw new IllegalArgumentException("Not a node cell: '" + nodeCell + "'");
        }
        return nodeCell.substring(NODE_PREFIX.length());
    }

    /** The room from {@code value} down to {@code min}; null without a minimum. */
    private static @Nullable Long roomDown(CounterName counter, long value, @Nullable Long min) {
        if (min == null) {
            return null;
        }
        long bound = min;
        return exact(counter, () -> Math.subtractExact(value, bound));
    }

    /** The room from {@code value} up to {@code max}; null without a maximum. */
    private static @Nullable Long roomUp(CounterName counter, long value, @Nullable Long max) {
        if (max == null) {
            return null;
        }
        long bound = max;
        return exact(counter, () -> Math.subtractExact(bound, value));
    }

    /** The delta an out-of-range failure names: the value's, else a room's. */
    private static long firstNonZero(long value, long roomDown, long roomUp) {
        return value != 0 ? value : roomDown != 0 ? roomDown : roomUp;
    }

    /** Arithmetic on a counter's values and rooms, its overflow reported as the counter's. */
    private static long exact(CounterName counter, LongSupplier arithmetic) {
        try {
            return arithmetic.getAsLong();
        } catch (ArithmeticException e) {
            throw CounterOverflowException.ofTotal(counter);
        }
    }

    // ---- bounded counters: operations under keys ----

    @Override
    public Optional<KeyedOperation> applyKeyed(
            String key,
            CounterName counter,
            long delta,
            @Nullable Instant expiresAt,
            String cell,
            long roomDownDelta,
            long roomUpDelta,
            boolean needsValue,
            Instant now) {
        OperationState state = expiresAt == null ? OperationState.APPLIED : OperationState.HELD;
        try {
            return runner.transaction("change under key '" + key + "'", counter, delta, ctx -> {
                // The key first: a repeat in flight elsewhere waits here for that attempt, and stops if it committed.
                if (!holds.record(ctx, key, counter, delta, state, expiresAt, null, now)) {
                    return Optional.of(recorded(ctx, key));
                }
                if (!cells.change(ctx, counter, cell, delta, roomDownDelta, roomUpDelta)) {
                    throw new ChangedMeanwhile(); // rolls the key back too
                }
                OptionalLong value = OptionalLong.empty();
                if (needsValue) {
                    value = OptionalLong.of(cells.total(ctx, counter));
                    holds.setValue(ctx, key, value.getAsLong());
                }
                return Optional.of(new KeyedOperation(key, counter, delta, state, expiresAt, value, true));
            });
        } catch (ChangedMeanwhile e) {
            return Optional.empty();
        }
    }

    private KeyedOperation recorded(DSLContext ctx, String key) {
        return holds.read(ctx, key)
                .orElseThrow(() -> new TransientStoreException(
                        "Key '" + key + "' was pruned between its insert and its read; nothing was written", null));
    }

    @Override
    public KeyedOperation recordRefusal(
            String key, CounterName counter, long delta, @Nullable Instant expiresAt, long seenValue, Instant now) {
        return runner.transaction("refusal under key '" + key + "'", counter, 0, ctx -> {
            if (!holds.record(ctx, key, counter, delta, OperationState.REFUSED, expiresAt, seenValue, now)) {
                return recorded(ctx, key);
            }
            return new KeyedOperation(
                    key, counter, delta, OperationState.REFUSED, expiresAt, OptionalLong.of(seenValue), true);
        });
    }

    @Override
    public Optional<KeyedOperation> operation(String key) {
        return runner.run("operation under key '" + key + "'", ctx -> holds.read(ctx, key));
    }

    @Override
    public Optional<KeyedOperation> settle(
            String key,
            OperationState to,
            String cell,
            long valueDelta,
            long roomDownDelta,
            long roomUpDelta,
            Instant now) {
        return runner.transaction("settle under key '" + key + "'", null, 0, ctx -> {
            Optional<KeyedOperation> found = holds.readForUpdate(ctx, key);
            if (found.isEmpty()) {
                return found;
            }
            KeyedOperation hold = found.get();
            if (hold.state() != OperationState.HELD
                    || (to == OperationState.CONFIRMED
                            && hold.expiresAt() != null
                            && !hold.expiresAt().isAfter(now))) {
                return found;
            }
            // The transition checks the state itself: on Galera the locking read excludes only on its own node.
            if (!holds.settle(ctx, key, to, now)) {
                throw new TransientStoreException(
                        "The hold under key '" + key + "' was settled meanwhile; nothing was written", null);
            }
            if (!cells.addUnguarded(ctx, hold.counter(), cell, valueDelta, roomDownDelta, roomUpDelta)) {
                cells.addUnguarded(ctx, hold.counter(), POOL, valueDelta, roomDownDelta, roomUpDelta);
            }
            return Optional.of(
                    new KeyedOperation(key, hold.counter(), hold.delta(), to, hold.expiresAt(), hold.value(), true));
        });
    }

    @Override
    public List<KeyedOperation> dueHolds(@Nullable CounterName counter, Instant now, int limit) {
        return runner.run("dueHolds", ctx -> holds.due(ctx, counter, now, limit));
    }

    @Override
    public int pruneOperations(Instant settledBefore, int limit) {
        return runner.transaction("pruneOperations", null, 0, ctx -> holds.prune(ctx, settledBefore, limit));
    }

    // ---- rate limits ----

    /** The longest limiter name and key: the columns' width. */
    static final int MAX_RATE_KEY_LENGTH = 48;

    @Override
    public Gcra acquire(String limiter, String key, long costNanos, long burstNanos, long nowNanos) {
        checkRateKey(limiter, key);
        if (costNanos <= 0 || costNanos > burstNanos) {
            throw new IllegalArgumentException("A rate limit's cost must be more than 0 and at most its burst ("
                    + burstNanos + " ns), not " + costNanos + " ns");
        }
        if (nowNanos > Long.MAX_VALUE - burstNanos) {
            throw new IllegalArgumentException(
                    "A rate limit's burst of " + burstNanos + " ns after " + nowNanos + " ns leaves the 64-bit range");
        }
        return runner.run(
                "rate limit of key '" + key + "' of '" + limiter + "'",
                ctx -> rateLimits.acquire(ctx, limiter, key, costNanos, burstNanos, nowNanos));
    }

    /** A key that no decision could have stored is absent. */
    @Override
    public OptionalLong tat(String limiter, String key) {
        if (!storable(limiter) || !storable(key)) {
            return OptionalLong.empty();
        }
        return runner.run("tat of key '" + key + "' of '" + limiter + "'", ctx -> rateLimits.read(ctx, limiter, key));
    }

    @Override
    public boolean delete(String limiter, String key) {
        if (!storable(limiter) || !storable(key)) {
            return false;
        }
        return runner.run(
                "delete of key '" + key + "' of '" + limiter + "'", ctx -> rateLimits.delete(ctx, limiter, key));
    }

    @Override
    public int deleteIdle(long beforeNanos, int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must not be negative, not " + limit);
        }
        return runner.run("deleteIdle", ctx -> rateLimits.deleteIdle(ctx, beforeNanos, limit));
    }

    /** A limiter's name and a key fit their columns: 1 to 48 printable ASCII characters. */
    private static void checkRateKey(String limiter, String key) {
        checkStorable("limiter name", limiter);
        checkStorable("key", key);
    }

    private static void checkStorable(String what, String value) {
        if (!storable(value)) {
            throw new IllegalArgumentException("A rate limit's " + what + " must be 1 to " + MAX_RATE_KEY_LENGTH
                    + " printable ASCII characters, not '" + value + "'");
        }
    }

    private static boolean storable(String part) {
        return !part.isEmpty()
                && part.length() <= MAX_RATE_KEY_LENGTH
                && part.chars().allMatch(c -> c > ' ' && c < 127);
    }

    // ---- members ----

    /** The longest member: the column's width. */
    static final int MAX_MEMBER_LENGTH = 128;

    /**
     * One transaction of a handful of statements whatever the number of changes: a locking read of the rows of the
     * members named, sorted (so that two transactions lock them in one order), one delete and one plain insert that
     * bring each member's row to what its last change asks, then the cell's upsert by the net change. Whether each
     * change changed membership follows from the rows as found, replayed in order. A deadlock (concurrent first inserts
     * locking one gap on MySQL and MariaDB), a row inserted meanwhile or a row to delete found gone rolls it all back: a
     * {@link TransientStoreException}, safe to retry. So every row written is guarded by its own write, as Galera needs
     * (a locking read excludes only on its node), and a member left as it was was found so by a causal read.
     */
    @Override
    public List<Boolean> changeMembers(CounterName counter, String cell, List<MemberChange> changes) {
        Map<String, Boolean> wanted = new LinkedHashMap<>();
        for (MemberChange change : changes) {
            checkMember(change.member());
            wanted.put(change.member(), change.add());
        }
        if (changes.isEmpty()) {
            return List.of();
        }
        List<String> named = new ArrayList<>(wanted.keySet());
        named.sort(null);
        return runner.transaction("changeMembers", counter, 0, ctx -> {
            // Causal on Galera: a member found as asked gets no write, so what it says must be current.
            Set<String> present = causally(ctx, on -> members.lockPresent(on, counter, named));
            List<String> removed = new ArrayList<>();
            List<String> added = new ArrayList<>();
            for (String member : named) {
                boolean wantedIn = Objects.requireNonNull(wanted.get(member));
                if (wantedIn && !present.contains(member)) {
                    added.add(member);
                } else if (!wantedIn && present.contains(member)) {
                    removed.add(member);
                }
            }
            if (!removed.isEmpty() && members.delete(ctx, counter, removed) != removed.size()) {
                throw new TransientStoreException(
                        "Members of counter '" + counter + "' were removed meanwhile; nothing was written", null);
            }
            members.insert(ctx, counter, added);
            if (added.size() != removed.size()) {
                cells.add(ctx, counter, cell, added.size() - removed.size());
            }
            Set<String> state = new HashSet<>(present);
            List<Boolean> changed = new ArrayList<>(changes.size());
            for (MemberChange change : changes) {
                changed.add(change.add() ? state.add(change.member()) : state.remove(change.member()));
            }
            return List.copyOf(changed);
        });
    }

    /** A member that no change could have stored is not one. */
    @Override
    public boolean isMember(CounterName counter, String member) {
        return storableMember(member)
                && runner.run(
                        "isMember", counter, 0, ctx -> causally(ctx, on -> members.isMember(on, counter, member)));
    }

    @Override
    public List<String> members(CounterName counter, @Nullable String after, int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must not be negative, not " + limit);
        }
        return limit == 0
                ? List.of()
                : runner.run("members", counter, 0, ctx -> members.page(ctx, counter, after, limit));
    }

    private static void checkMember(String member) {
        if (!storableMember(member)) {
            throw new IllegalArgumentException("A member must be 1 to " + MAX_MEMBER_LENGTH
                    + " printable ASCII characters without spaces, not '" + member + "'");
        }
    }

    private static boolean storableMember(String member) {
        return !member.isEmpty()
                && member.length() <= MAX_MEMBER_LENGTH
                && member.chars().allMatch(c -> c >= '!' && c <= '~');
    }

    // ---- maxima ----

    @Override
    public OptionalInt shardCount(CounterName counter) {
        return runner.run("shardCount", counter, 0, ctx -> maxima.shardCount(ctx, counter));
    }

    @Override
    public int growShardCount(CounterName counter, int shards) {
        return runner.transaction("growShardCount", counter, 0, ctx -> maxima.growShardCount(ctx, counter, shards));
    }

    @Override
    public void raiseShard(CounterName counter, int shard, long value) {
        runner.run("raiseShard", counter, 0, ctx -> {
            maxima.raiseShard(ctx, counter, shard, value);
            return null;
        });
    }

    @Override
    public List<CounterName> maximumNames(@Nullable CounterName after, int limit) {
        return runner.run("maximumNames", ctx -> maxima.names(ctx, after, limit));
    }

    /**
     * The maximum; if a shard was written under another history than the database's, first moves every shard ahead
     * by {@link #skipAhead()} in a transaction (see {@link Failovers}).
     */
    @Override
    public OptionalLong maxOfShards(CounterName counter) {
        MaximaQueries.Max read = runner.run("maxOfShards", counter, 0, ctx -> maxima.maxOfShards(ctx, counter));
        if (!read.stale() || runner.joinsCallerTransaction()) {
            return read.max();
        }
        MaximaQueries.Skipped skipped =
                runner.transaction("maxOfShards", counter, 0, ctx -> maxima.skipStale(ctx, counter));
        protection.made(skipped.skip());
        return skipped.max();
    }

    // ---- sequences ----

    @Override
    public Reservation reserve(CounterName sequence, long count, long start, long increment, long maxValue) {
        runner.createMissing(
                "reserve",
                sequence,
                ctx -> sequences.exists(ctx, sequence),
                ctx -> sequences.create(ctx, sequence, start));
        // In a caller's transaction, on the row lock: the one statement would overwrite the caller's LAST_INSERT_ID().
        // There a row written under another history does not skip (see Failovers).
        boolean callers = runner.joinsCallerTransaction();
        if (!SequenceQueries.inOneStatement(dialect()) || callers) {
            return made(runner.transaction(
                    "reserve",
                    sequence,
                    0,
                    ctx -> sequences.reserve(ctx, sequence, count, start, increment, maxValue, !callers)));
        }
        return reserveInOneStatement(sequence, count, increment, maxValue).orElseGet(() -> {
            // A new sequence: its row first, in a statement of its own (the reservation is one update of that row).
            runner.run(
                    "create sequence",
                    sequence,
                    0,
                    ctx -> sequences.create(ctx, sequence, start).execute());
            return reserveInOneStatement(sequence, count, increment, maxValue)
                    .orElseThrow(() -> new TransientStoreException(
                            "Sequence '" + sequence + "' was deleted while a reservation created"
                                    + " it; nothing was reserved",
                            null));
        });
    }

    private Optional<Reservation> reserveInOneStatement(
            CounterName sequence, long count, long increment, long maxValue) {
        return runner.run(
                "reserve",
                sequence,
                0,
                ctx -> sequences.reserveInOneStatement(ctx, sequence, count, increment, maxValue));
    }

    /** The reservation, once the skip made before it in its transaction (if any) is counted and logged. */
    private Reservation made(SequenceQueries.Drawn drawn) {
        protection.made(drawn.skip());
        return drawn.reservation();
    }

    // ---- the database's clock ----

    @Override
    public Instant databaseTime() {
        return runner.run("databaseTime", leases::databaseTime);
    }

    // ---- leases ----

    @Override
    public boolean tryLease(String key, String owner, Instant expiresAt, Instant now) {
        return runner.run("tryLease '" + key + "'", ctx -> leases.tryLease(ctx, key, owner, expiresAt, now));
    }

    @Override
    public void releaseLease(String key, String owner) {
        runner.run("releaseLease '" + key + "'", ctx -> {
            leases.release(ctx, key, owner);
            return null;
        });
    }

    /** A read of many counters, a bounded number of names per statement. */
    private Map<CounterName, Long> inChunks(
            String operation,
            Collection<CounterName> counters,
            BiFunction<DSLContext, List<CounterName>, Map<CounterName, Long>> read) {
        Map<CounterName, Long> totals = new HashMap<>();
        List<CounterName> names = List.copyOf(counters);
        for (int from = 0; from < names.size(); from += MAX_NAMES_PER_QUERY) {
            List<CounterName> chunk = names.subList(from, Math.min(names.size(), from + MAX_NAMES_PER_QUERY));
            totals.putAll(runner.run(operation, chunk.get(0), 0, ctx -> read.apply(ctx, chunk)));
        }
        return totals;
    }

    /** Configures a {@link JooqCounterStore}. */
    public static final class Builder {

        private final @Nullable DataSource dataSource;
        private final @Nullable DSLContext dsl;
        private String tablePrefix = "";
        private @Nullable SQLDialect dialect;
        private boolean migrateSchema;
        private @Nullable CallerTransactions callerTransactions;
        private int poolSize;
        /** Values a drawn row skips after a change of history; see {@link #failoverSkipAhead(long)}. */
        private long failoverSkipAhead = DEFAULT_FAILOVER_SKIP_AHEAD;

        private Builder(@Nullable DataSource dataSource, @Nullable DSLContext dsl) {
            this.dataSource = dataSource;
            this.dsl = dsl;
        }

        /**
         * A prefix for the library's table names, for example {@code app_}: empty, or a letter followed by ASCII
         * letters, digits and {@code _}, at most 32 characters. Empty unless set.
         */
        public Builder tablePrefix(String tablePrefix) {
            this.tablePrefix = CounterTables.validatePrefix(tablePrefix);
            return this;
        }

        /** Overrides the detected dialect, for a database that speaks one of the supported dialects. */
        public Builder dialect(SQLDialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            Databases.migrationFolder(dialect); // fails fast on an unsupported dialect
            return this;
        }

        /**
         * Whether {@link #build()} applies the library's Flyway migrations first (off unless set). Off, the tables
         * must already exist; docs/databases.md shows their DDL.
         */
        public Builder migrateSchema(boolean migrateSchema) {
            this.migrateSchema = migrateSchema;
            return this;
        }

        /**
         * How to find the calling thread's transaction, so that the writes that may (atomic and optimistic
         * increments, gapless sequence numbers) take part in it; see {@link CounterStore#callerTransaction()}. Unless
         * set, every write runs in a transaction of its own.
         */
        public Builder callerTransactions(CallerTransactions callerTransactions) {
            this.callerTransactions = Objects.requireNonNull(callerTransactions, "callerTransactions");
            return this;
        }

        /**
         * Applies the library's Flyway migrations to this builder's database, with its table prefix and dialect, as
         * {@link #migrateSchema(boolean) migrateSchema(true)} makes {@link #build()} do, without building a store: for
         * a schema initializer that runs before the stores are built. The migrations keep a history table of their
         * own, so applying them again changes nothing.
         */
        public void migrate() {
            UnsupportedJooqVersionException.check();
            migrate(dsl != null ? withDetectedDialect(withOwnConnections(dsl)) : createContext());
        }

        private void migrate(DSLContext context) {
            SchemaMigrations.migrate(dataSourceOf(context), context.dialect(), tablePrefix);
        }

        /**
         * The most connections the pool under the store hands out (HikariCP's {@code maximumPoolSize}), when known: a
         * session lock (a {@code node} rule's claim on its node id), which keeps a connection for as long as it is
         * held, is then refused at once, with a message that says so, where it would leave the pool no connection for
         * the writes, which would otherwise each wait for the pool's timeout. Unknown unless set.
         */
        public Builder poolSize(int maximumPoolSize) {
            if (maximumPoolSize < 1) {
                throw new IllegalArgumentException("poolSize must be at least 1, not " + maximumPoolSize);
            }
            this.poolSize = maximumPoolSize;
            return this;
        }

        /**
         * How far a sequence (in its own steps) or a monotonic counter's maximum jumps ahead when it is next drawn
         * after a change of the database's primary that may have lost commits ({@link Failovers}): values repeat only
         * if the failover lost more than this. 1,000,000 unless set; 0 turns the protection off.
         */
        public Builder failoverSkipAhead(long values) {
            if (values < 0) {
                throw new IllegalArgumentException("failoverSkipAhead must be >= 0, not " + values);
            }
            this.failoverSkipAhead = values;
            return this;
        }

        /**
         * Builds the store.
         *
         * @throws UnsupportedJooqVersionException if the jOOQ on the class path is not 3.19 to 3.21
         */
        public JooqCounterStore build() {
            UnsupportedJooqVersionException.check(); // before jOOQ's API is used: another version may lack parts of it
            DSLContext context = dsl != null ? withDetectedDialect(withOwnConnections(dsl)) : createContext();
            if (migrateSchema) {
                migrate(context);
            }
            // On Galera, statements sent as text: there a conflict abort is never lost (ClientPreparedOnGalera).
            ConnectionProvider connections =
                    ClientPreparedOnGalera.of(context.configuration().connectionProvider(), context.dialect());
            // Knowing that no connection could be had lets a caller repeat the write: it surely did not happen.
            ConnectionProvider reachable = new ReachabilityAwareConnectionProvider(connections);
            // Transactions of the store's own, on its own connections (never a given context's Spring provider).
            context = DSL.using(
                    context.configuration().derive(reachable).derive(new DefaultTransactionProvider(reachable)));
            DatabaseSessionLocks locks = new DatabaseSessionLocks(
                    reachable,
                    context.dialect().family(),
                    tablePrefix,
                    poolSize,
                    dataSource != null ? dataSource.toString() : "of the DSLContext");
            return new JooqCounterStore(
                    new StatementRunner(context),
                    new CounterTables(tablePrefix),
                    new FailoverProtection(context.dialect(), failoverSkipAhead),
                    callerTransactions,
                    ClientPreparedOnGalera.forCallerConnections(connections),
                    DatabaseSessionLocks.of(context, locks),
                    locks::held,
                    ClientPreparedOnGalera.galera(connections));
        }

        private DSLContext createContext() {
            DataSource source = OwnConnections.of(Objects.requireNonNull(dataSource));
            SQLDialect detected = dialect != null ? dialect : Databases.detect(source);
            return DSL.using(source, detected, new Settings().withExecuteLogging(false));
        }

        /** The given context on connections of the store's own (see {@link OwnConnections}). */
        private static DSLContext withOwnConnections(DSLContext given) {
            ConnectionProvider provider = given.configuration().connectionProvider();
            ConnectionProvider own = OwnConnections.of(provider);
            return own == provider ? given : DSL.using(given.configuration().derive(own));
        }

        /**
         * The given context, rendering for the database it really talks to: a context configured elsewhere may say
         * MYSQL for a MariaDB server (MySQL's upsert syntax is not MariaDB's).
         */
        private DSLContext withDetectedDialect(DSLContext given) {
            SQLDialect actual = dialect != null
                    ? dialect
                    : given.connectionResult(connection -> Databases.detect(connection.getMetaData()));
            return actual == given.dialect()
                    ? given
                    : DSL.using(given.configuration().derive(actual));
        }

        private DataSource dataSourceOf(DSLContext context) {
            if (dataSource != null) {
                return OwnConnections.of(dataSource);
            }
            Configuration configuration = context.configuration();
            if (configuration.connectionProvider() instanceof DataSourceConnectionProvider provider) {
                return provider.dataSource();
            }
            throw new IllegalStateException("migrateSchema(true) needs a DataSource: build the store with "
                    + "builder(DataSource), or apply the migrations yourself");
        }
    }
}
