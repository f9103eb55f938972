package dev.counters.jdbc;

import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.CounterStoreException;
import dev.counters.TransientStoreException;
import dev.counters.sequence.Reservation;
import dev.counters.spi.CounterStore;
import dev.counters.spi.DatabaseClock;
import dev.counters.spi.DeltaLog;
import dev.counters.spi.IdempotencyKeys;
import dev.counters.spi.IdempotentBatches;
import dev.counters.spi.IdleCounters;
import dev.counters.spi.Leases;
import dev.counters.spi.Maxima;
import dev.counters.spi.Sequences;
import dev.counters.spi.SessionLocks;
import dev.counters.spi.ShardCounts;
import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.BiFunction;
import java.util.function.IntSupplier;
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
 * capability (and {@link SessionLocks} on MySQL, MariaDB outside Galera, and PostgreSQL).
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
                DatabaseClock {

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
    private final @Nullable CallerTransactions callerTransactions;
    /** What the provider of a caller's connection is wrapped in (see {@link ClientPreparedOnGalera}). */
    private final UnaryOperator<ConnectionProvider> callerConnections;

    private final Supplier<Optional<SessionLocks>> sessionLocks;
    private final IntSupplier sessionLockConnections;

    private JooqCounterStore(
            StatementRunner runner,
            CounterTables tables,
            @Nullable CallerTransactions callerTransactions,
            UnaryOperator<ConnectionProvider> callerConnections,
            Supplier<Optional<SessionLocks>> sessionLocks,
            IntSupplier sessionLockConnections) {
        this.runner = runner;
        this.tables = tables;
        this.cells = new CellQueries(tables);
        this.deltas = new DeltaQueries(tables);
        this.batches = new BatchQueries(tables);
        this.keys = new KeyQueries(tables);
        this.leases = new LeaseQueries(tables);
        this.maxima = new MaximaQueries(tables);
        this.sequences = new SequenceQueries(tables);
        this.callerTransactions = callerTransactions;
        this.callerConnections = callerConnections;
        this.sessionLocks = sessionLocks;
        this.sessionLockConnections = sessionLockConnections;
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
        this.callerTransactions = null;
        this.callerConnections = UnaryOperator.identity();
        this.sessionLocks = Optional::empty;
        this.sessionLockConnections = () -> 0;
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
     * PostgreSQL, besides the capabilities it implements.
     */
    @Override
    public <T> Optional<T> capability(Class<T> capability) {
        return capability == SessionLocks.class
                ? sessionLocks.get().map(capability::cast)
                : CounterStore.super.capability(capability);
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
        // Within one transaction the row lock taken by the upsert is held while we read, so the total includes
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
            return deltas.delete(ctx, counter) + cells.delete(ctx, counter) > 0;
        });
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
     * delete written): thrown to roll it back, so that it writes nothing.
     */
    private static final class ChangedMeanwhile extends RuntimeException {

        private static final long serialVersionUID = 1L;

        ChangedMeanwhile() {
            super(null, null, false, false);
        }
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

    @Override
    public OptionalLong maxOfShards(CounterName counter) {
        return runner.run("maxOfShards", counter, 0, ctx -> maxima.maxOfShards(ctx, counter));
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
        if (!SequenceQueries.inOneStatement(dialect()) || runner.joinsCallerTransaction()) {
            return runner.transaction(
                    "reserve", sequence, 0, ctx -> sequences.reserve(ctx, sequence, count, start, increment, maxValue));
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
                    callerTransactions,
                    ClientPreparedOnGalera.forCallerConnections(connections),
                    DatabaseSessionLocks.of(context, locks),
                    locks::held);
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
