package dev.counters.jdbc;

import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.excluded;
import static org.jooq.impl.DSL.greatest;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.sum;
import static org.jooq.impl.DSL.val;

import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.CounterStoreException;
import dev.counters.StoreUnavailableException;
import dev.counters.TransientStoreException;
import dev.counters.spi.CounterStore;
import dev.counters.spi.DeltaBacklog;
import dev.counters.spi.Reservation;
import dev.counters.spi.Reservations;
import dev.counters.spi.SessionLocks;
import dev.counters.spi.VersionedValue;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.math.BigDecimal;
import java.sql.Connection;
import java.time.Duration;
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
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.Configuration;
import org.jooq.BatchBindStep;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Query;
import org.jooq.Record1;
import org.jooq.Table;
import org.jooq.Record2;
import org.jooq.SQLDialect;
import org.jooq.TransactionalCallable;
import org.jooq.exception.DataAccessException;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.jooq.impl.DataSourceConnectionProvider;
import org.jooq.impl.DefaultConnectionProvider;
import org.jspecify.annotations.Nullable;

/**
 * A {@link CounterStore} on H2, MySQL, MariaDB or PostgreSQL, through jOOQ.
 *
 * <pre>{@code
 * CounterStore store = JooqCounterStore.builder(dataSource).tablePrefix("app_").migrateSchema(true).build();
 * }</pre>
 *
 * <p>The dialect is detected from the connection (a MariaDB server reached through MySQL Connector/J is
 * recognised as MariaDB). Upserts are rendered by jOOQ for each dialect. A statement whose transaction the
 * database rolled back (deadlock, serialization failure, lock wait timeout, a lost race to insert a new row, as
 * happens with MySQL's gap locks on the first increment of a new counter) is retried with backoff; nothing else
 * is retried, because a write whose commit was in flight when the connection broke may have been applied.
 */
public final class JooqCounterStore implements CounterStore {

    private static final int MAX_NAMES_PER_QUERY = 1_000;
    private static final String PART = "part";
    private static final String NAME = "name";
    private static final short UNFOLDED = 0;
    private static final short FOLDED = 1;

    // A statement in a caller's transaction is tried once: the database may have rolled back the whole transaction.
    private static final Retry NO_RETRY = Retry.of("counters-store-caller-transaction",
            RetryConfig.custom().maxAttempts(1).build());

    private final DSLContext dsl;
    private final CounterTables tables;
    private final Retry retry;
    private final @Nullable CallerTransactions callerTransactions;
    /** Set on a store bound to a caller's transaction: the store with transactions of its own. */
    private final @Nullable JooqCounterStore independent;
    private final Optional<SessionLocks> sessionLocks;

    private JooqCounterStore(DSLContext dsl, CounterTables tables, Retry retry,
            @Nullable CallerTransactions callerTransactions, @Nullable JooqCounterStore independent,
            Optional<SessionLocks> sessionLocks) {
        this.dsl = dsl;
        this.tables = tables;
        this.retry = retry;
        this.callerTransactions = callerTransactions;
        this.independent = independent;
        this.sessionLocks = sessionLocks;
    }

    /** Starts building a store on a {@link DataSource}; the dialect is detected from it. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(Objects.requireNonNull(dataSource, "dataSource"), null);
    }

    /**
     * Starts building a store on an existing jOOQ {@link DSLContext}, which keeps its connection and transaction
     * handling (a Spring-managed one takes part in Spring transactions).
     */
    public static Builder builder(DSLContext dsl) {
        return new Builder(null, Objects.requireNonNull(dsl, "dsl"));
    }

    /** The retry of statements the database rolled back: its events feed metrics. */
    public Retry retry() {
        return retry;
    }

    /** The dialect this store renders SQL for. */
    public SQLDialect dialect() {
        return dsl.dialect();
    }

    @Override
    public Optional<CounterStore> callerTransaction() {
        if (independent != null) {
            return Optional.of(this);
        }
        Connection connection = callerTransactions == null ? null : callerTransactions.currentConnection();
        if (connection == null) {
            return Optional.empty();
        }
        DSLContext joined = DSL.using(dsl.configuration().derive(new DefaultConnectionProvider(connection)));
        return Optional.of(new JooqCounterStore(joined, tables, NO_RETRY, null, this, sessionLocks));
    }

    /** Offers {@link SessionLocks} on MySQL, MariaDB and PostgreSQL. */
    @Override
    public <T> Optional<T> capability(Class<T> capability) {
        return capability == SessionLocks.class ? sessionLocks.map(capability::cast) : CounterStore.super.capability(capability);
    }

    @Override
    public void add(CounterName counter, String cell, long delta) {
        createCellOutsideCallerTransaction(counter, cell);
        run("add", counter, delta, () -> upsert(dsl, counter, cell, delta));
    }

    @Override
    public long addAndGet(CounterName counter, String cell, long delta) {
        createCellOutsideCallerTransaction(counter, cell);
        // Within one transaction the row lock taken by the upsert is held while we read, so the total includes
        // this delta and no later one on the same cell.
        return run("addAndGet", counter, delta, () -> transaction(tx -> {
            upsert(tx.dsl(), counter, cell, delta);
            return total(tx.dsl(), counter);
        }));
    }

    @Override
    public long get(CounterName counter) {
        return run("get", counter, 0, () -> total(dsl, counter));
    }

    @Override
    public Map<CounterName, Long> getAll(Collection<CounterName> counters) {
        Map<CounterName, Long> totals = new HashMap<>();
        List<CounterName> names = List.copyOf(counters);
        for (int from = 0; from < names.size(); from += MAX_NAMES_PER_QUERY) {
            List<CounterName> chunk = names.subList(from, Math.min(names.size(), from + MAX_NAMES_PER_QUERY));
            List<String> values = chunk.stream().map(CounterName::value).toList();
            Map<String, CounterName> byValue = new HashMap<>();
            chunk.forEach(name -> byValue.put(name.value(), name));
            run("getAll", chunk.get(0), 0, () -> {
                Table<Record2<String, Long>> parts = select(tables.cellsName.as(NAME), tables.cellsValue.as(PART))
                        .from(tables.cells).where(tables.cellsName.in(values))
                        .unionAll(select(tables.deltasName.as(NAME), tables.deltasDelta.as(PART))
                                .from(tables.deltas)
                                .where(tables.deltasName.in(values), tables.deltasFolded.eq(UNFOLDED)))
                        .asTable("parts");
                Field<String> partName = parts.field(NAME, String.class);
                for (Record2<String, BigDecimal> row : dsl.select(partName, sum(parts.field(PART, Long.class)))
                        .from(parts)
                        .groupBy(partName)
                        .fetch()) {
                    CounterName name = byValue.get(row.value1());
                    totals.put(name, toLong(name, row.value2()));
                }
                return null;
            });
        }
        return totals;
    }

    @Override
    public boolean delete(CounterName counter) {
        return run("delete", counter, 0, () -> transaction(tx -> {
            tx.dsl().deleteFrom(tables.shards).where(tables.shardsName.eq(counter.value())).execute();
            tx.dsl().deleteFrom(tables.maxShards).where(tables.maxShardsName.eq(counter.value())).execute();
            int deltas = tx.dsl().deleteFrom(tables.deltas).where(tables.deltasName.eq(counter.value())).execute();
            return tx.dsl().deleteFrom(tables.cells).where(tables.cellsName.eq(counter.value())).execute()
                    + deltas > 0;
        }));
    }

    @Override
    public List<CounterName> counterNames(@Nullable CounterName after, int limit) {
        String from = after == null ? null : after.value();
        Table<Record1<String>> names = select(tables.cellsName.as(NAME)).from(tables.cells)
                .union(select(tables.deltasName.as(NAME)).from(tables.deltas))
                .union(select(tables.maxShardsName.as(NAME)).from(tables.maxShards))
                .asTable("names");
        Field<String> name = names.field(NAME, String.class);
        return runUnnamed("counterNames", () -> dsl.select(name).from(names)
                .where(from == null ? DSL.noCondition() : name.gt(from))
                .orderBy(name)
                .limit(limit)
                .fetch(row -> CounterName.of(row.value1())));
    }

    @Override
    public Map<String, Long> cells(CounterName counter) {
        return run("cells", counter, 0, () -> dsl.select(tables.cellsCell, tables.cellsValue)
                .from(tables.cells)
                .where(tables.cellsName.eq(counter.value()))
                .fetchMap(tables.cellsCell, tables.cellsValue));
    }

    @Override
    public Optional<VersionedValue> read(CounterName counter, String cell) {
        return run("read", counter, 0, () -> dsl.select(tables.cellsValue, tables.cellsVersion)
                .from(tables.cells)
                .where(tables.cellsName.eq(counter.value()), tables.cellsCell.eq(cell))
                .fetchOptional(row -> new VersionedValue(row.value1(), row.value2())));
    }

    @Override
    public boolean compareAndSet(CounterName counter, String cell, long expectedVersion, long newValue) {
        return run("compareAndSet", counter, 0, () -> {
            if (expectedVersion == 0) {
                return dsl.insertInto(tables.cells, tables.cellsName, tables.cellsCell, tables.cellsValue,
                                tables.cellsVersion)
                        .values(counter.value(), cell, newValue, 1L)
                        .onConflict(tables.cellsName, tables.cellsCell)
                        .doNothing()
                        .execute() == 1;
            }
            return dsl.update(tables.cells)
                    .set(tables.cellsValue, newValue)
                    .set(tables.cellsVersion, tables.cellsVersion.plus(1))
                    .where(tables.cellsName.eq(counter.value()), tables.cellsCell.eq(cell),
                            tables.cellsVersion.eq(expectedVersion))
                    .execute() == 1;
        });
    }

    @Override
    public OptionalInt shardCount(CounterName counter) {
        return run("shardCount", counter, 0, () -> dsl.select(tables.shardsCount)
                .from(tables.shards)
                .where(tables.shardsName.eq(counter.value()))
                .fetchOptional(tables.shardsCount)
                .map(OptionalInt::of)
                .orElse(OptionalInt.empty()));
    }

    @Override
    public int growShardCount(CounterName counter, int shards) {
        return run("growShardCount", counter, 0, () -> transaction(tx -> {
            tx.dsl().insertInto(tables.shards, tables.shardsName, tables.shardsCount)
                    .values(counter.value(), shards)
                    .onConflict(tables.shardsName)
                    .doUpdate()
                    .set(tables.shardsCount, greatest(tables.shardsCount, val(shards)))
                    .execute();
            return tx.dsl().select(tables.shardsCount).from(tables.shards)
                    .where(tables.shardsName.eq(counter.value()))
                    .fetchSingle(tables.shardsCount);
        }));
    }

    @Override
    public boolean applyBatch(String key, String cell, Map<CounterName, Long> deltas, Instant now) {
        // Sorted, so that two nodes' batches lock rows in the same order and cannot deadlock each other.
        List<Map.Entry<CounterName, Long>> sorted = new ArrayList<>(deltas.entrySet());
        sorted.sort(Map.Entry.comparingByKey());
        try {
            return runUnnamed("applyBatch '" + key + "'", () -> transaction(tx -> {
                // The key first: a retry waits here for an attempt still in flight, and stops if it committed.
                if (tx.dsl().insertInto(tables.batches, tables.batchesKey, tables.batchesAppliedAt)
                        .values(key, now.toEpochMilli())
                        .onConflict(tables.batchesKey)
                        .doNothing()
                        .execute() == 0) {
                    return false;
                }
                if (!sorted.isEmpty()) {
                    BatchBindStep batch = tx.dsl().batch(tx.dsl()
                            .insertInto(tables.cells, tables.cellsName, tables.cellsCell, tables.cellsValue,
                                    tables.cellsVersion)
                            .values((String) null, null, null, null)
                            .onConflict(tables.cellsName, tables.cellsCell)
                            .doUpdate()
                            .set(tables.cellsValue, tables.cellsValue.plus(excluded(tables.cellsValue)))
                            .set(tables.cellsVersion, tables.cellsVersion.plus(inline(1L))));
                    for (Map.Entry<CounterName, Long> entry : sorted) {
                        batch = batch.bind(entry.getKey().value(), cell, entry.getValue(), 1L);
                    }
                    batch.execute();
                }
                return true;
            }));
        } catch (CounterStoreException e) {
            throw overflowIn(sorted, cell, e);
        }
    }

    /**
     * After a failed batch: the database refused a value out of range, so nothing was written; name the counter
     * whose delta overflows its cell. Any other failure is thrown as it is: its outcome may be unknown, and a
     * diagnosis that fails too (the database gone) must not turn it into "surely not applied".
     */
    private RuntimeException overflowIn(List<Map.Entry<CounterName, Long>> deltas, String cell,
            CounterStoreException failure) {
        if (!SqlFailures.isOutOfRange(failure)) {
            return failure;
        }
        try {
            for (Map.Entry<CounterName, Long> entry : deltas) {
                long current = read(entry.getKey(), cell).map(VersionedValue::value).orElse(0L);
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
        return runUnnamed("pruneBatchKeys", () -> dsl.deleteFrom(tables.batches)
                .where(tables.batchesAppliedAt.lt(appliedBefore.toEpochMilli()))
                .execute());
    }

    @Override
    public OptionalLong appendDelta(CounterName counter, String deltaId, long delta, Instant now) {
        return run("appendDelta", counter, delta, () -> {
            while (true) {
                if (dsl.insertInto(tables.deltas, tables.deltasName, tables.deltasId, tables.deltasDelta,
                                tables.deltasAppendedAt, tables.deltasFolded)
                        .values(counter.value(), deltaId, delta, now.toEpochMilli(), UNFOLDED)
                        .onConflict(tables.deltasName, tables.deltasId)
                        .doNothing()
                        .execute() == 1) {
                    return OptionalLong.empty();
                }
                Long stored = dsl.select(tables.deltasDelta).from(tables.deltas)
                        .where(tables.deltasName.eq(counter.value()), tables.deltasId.eq(deltaId))
                        .fetchOne(tables.deltasDelta);
                if (stored != null) {
                    return OptionalLong.of(stored);
                }
                // Purged between the two statements: an old folded delta, so not a retry of ours. Insert again.
            }
        });
    }

    @Override
    public long getFolded(CounterName counter) {
        return run("getFolded", counter, 0, () -> toLong(counter, dsl.select(sum(tables.cellsValue))
                .from(tables.cells)
                .where(tables.cellsName.eq(counter.value()))
                .fetchOne(0, BigDecimal.class)));
    }

    @Override
    public DeltaBacklog deltaBacklog(CounterName counter) {
        return run("deltaBacklog", counter, 0, () -> dsl.select(count(), min(tables.deltasAppendedAt))
                .from(tables.deltas)
                .where(tables.deltasName.eq(counter.value()), tables.deltasFolded.eq(UNFOLDED))
                .fetchOne(row -> row.value1() == 0 ? DeltaBacklog.EMPTY
                        : new DeltaBacklog(row.value1(), Instant.ofEpochMilli(row.value2()))));
    }

    @Override
    public int foldDeltas(CounterName counter, String cell, Instant purgeBefore) {
        return run("foldDeltas", counter, 0, () -> transaction(tx -> {
            // Locks exactly the deltas this fold moves; deltas appended meanwhile wait for the next fold.
            Map<String, Long> folded = tx.dsl().select(tables.deltasId, tables.deltasDelta)
                    .from(tables.deltas)
                    .where(tables.deltasName.eq(counter.value()), tables.deltasFolded.eq(UNFOLDED))
                    .forUpdate()
                    .fetchMap(tables.deltasId, tables.deltasDelta);
            if (!folded.isEmpty()) {
                long sum = 0;
                for (long delta : folded.values()) {
                    sum = Math.addExact(sum, delta);
                }
                upsert(tx.dsl(), counter, cell, sum);
                List<String> ids = new ArrayList<>(folded.keySet());
                for (int from = 0; from < ids.size(); from += MAX_NAMES_PER_QUERY) {
                    tx.dsl().update(tables.deltas)
                            .set(tables.deltasFolded, FOLDED)
                            .where(tables.deltasName.eq(counter.value()))
                            .and(tables.deltasId.in(ids.subList(from, Math.min(ids.size(), from + MAX_NAMES_PER_QUERY))))
                            .execute();
                }
            }
            // Folded deltas are kept a while as tombstones, so that a late retry of their append is recognised.
            tx.dsl().deleteFrom(tables.deltas)
                    .where(tables.deltasName.eq(counter.value()), tables.deltasFolded.eq(FOLDED),
                            tables.deltasAppendedAt.lt(purgeBefore.toEpochMilli()))
                    .execute();
            return folded.size();
        }));
    }

    @Override
    public void raiseShard(CounterName counter, int shard, long value) {
        run("raiseShard", counter, 0, () -> dsl.insertInto(tables.maxShards, tables.maxShardsName,
                        tables.maxShardsShard, tables.maxShardsValue)
                .values(counter.value(), shard, value)
                .onConflict(tables.maxShardsName, tables.maxShardsShard)
                .doUpdate()
                .set(tables.maxShardsValue, greatest(tables.maxShardsValue, val(value)))
                .execute());
    }

    @Override
    public OptionalLong maxOfShards(CounterName counter) {
        return run("maxOfShards", counter, 0, () -> {
            Long max = dsl.select(DSL.max(tables.maxShardsValue))
                    .from(tables.maxShards)
                    .where(tables.maxShardsName.eq(counter.value()))
                    .fetchOne(0, Long.class);
            return max == null ? OptionalLong.empty() : OptionalLong.of(max);
        });
    }

    @Override
    public Reservation reserve(CounterName sequence, long count, long start, long increment, long maxValue) {
        createOutsideCallerTransaction("reserve", sequence, tables.sequences,
                tables.sequencesName.eq(sequence.value()),
                ctx -> ctx.insertInto(tables.sequences, tables.sequencesName, tables.sequencesNext)
                        .values(sequence.value(), start)
                        .onConflict(tables.sequencesName)
                        .doNothing());
        return run("reserve", sequence, 0, () -> transaction(tx -> {
            Long next = tx.dsl().select(tables.sequencesNext).from(tables.sequences)
                    .where(tables.sequencesName.eq(sequence.value()))
                    .forUpdate()
                    .fetchOne(tables.sequencesNext);
            if (next == null) {
                // Two nodes creating the sequence at once: one insert fails (a deadlock or unique violation),
                // its transaction is rolled back, and its retry finds the row.
                tx.dsl().insertInto(tables.sequences, tables.sequencesName, tables.sequencesNext)
                        .values(sequence.value(), start)
                        .execute();
                next = start;
            }
            Reservation reservation = Reservations.of(sequence, next, count, increment, maxValue);
            tx.dsl().update(tables.sequences)
                    .set(tables.sequencesNext, Reservations.after(reservation))
                    .where(tables.sequencesName.eq(sequence.value()))
                    .execute();
            return reservation;
        }));
    }

    @Override
    public boolean deleteSequence(CounterName sequence) {
        return run("deleteSequence", sequence, 0, () -> dsl.deleteFrom(tables.sequences)
                .where(tables.sequencesName.eq(sequence.value()))
                .execute() > 0);
    }

    @Override
    public boolean tryLease(String key, String owner, Instant expiresAt, Instant now) {
        return runUnnamed("tryLease '" + key + "'", () -> {
            if (dsl.insertInto(tables.leases, tables.leasesKey, tables.leasesOwner, tables.leasesExpiresAt)
                    .values(key, owner, expiresAt.toEpochMilli())
                    .onConflict(tables.leasesKey)
                    .doNothing()
                    .execute() == 1) {
                return true;
            }
            return dsl.update(tables.leases)
                    .set(tables.leasesOwner, owner)
                    .set(tables.leasesExpiresAt, expiresAt.toEpochMilli())
                    .where(tables.leasesKey.eq(key))
                    .and(tables.leasesOwner.eq(owner).or(tables.leasesExpiresAt.le(now.toEpochMilli())))
                    .execute() == 1;
        });
    }

    @Override
    public void releaseLease(String key, String owner) {
        runUnnamed("releaseLease '" + key + "'", () -> dsl.deleteFrom(tables.leases)
                .where(tables.leasesKey.eq(key), tables.leasesOwner.eq(owner))
                .execute());
    }

    private void createCellOutsideCallerTransaction(CounterName counter, String cell) {
        createOutsideCallerTransaction("add", counter, tables.cells,
                tables.cellsName.eq(counter.value()).and(tables.cellsCell.eq(cell)),
                ctx -> ctx.insertInto(tables.cells, tables.cellsName, tables.cellsCell, tables.cellsValue,
                                tables.cellsVersion)
                        .values(counter.value(), cell, 0L, 1L)
                        .onConflict(tables.cellsName, tables.cellsCell)
                        .doNothing());
    }

    /**
     * In a caller's transaction, a missing row (a counter's cell, a sequence) is first created in a transaction of
     * its own, by a plain read and an insert that ignores conflicts. Inserted in the caller's transaction, two callers
     * creating the same row would race (one fails, or deadlocks under MySQL's gap locks), and the first would block
     * every other until it ends.
     */
    private void createOutsideCallerTransaction(String operation, CounterName counter, Table<?> table,
            Condition exists, Function<DSLContext, Query> insert) {
        JooqCounterStore own = independent;
        if (own != null && !run(operation, counter, 0, () -> dsl.fetchExists(table, exists))) {
            own.run(operation, counter, 0, () -> insert.apply(own.dsl).execute());
        }
    }

    private void upsert(DSLContext ctx, CounterName counter, String cell, long delta) {
        ctx.insertInto(tables.cells, tables.cellsName, tables.cellsCell, tables.cellsValue, tables.cellsVersion)
                .values(counter.value(), cell, delta, 1L)
                .onConflict(tables.cellsName, tables.cellsCell)
                .doUpdate()
                .set(tables.cellsValue, tables.cellsValue.plus(delta))
                .set(tables.cellsVersion, tables.cellsVersion.plus(1))
                .execute();
    }

    /** The sum of the counter's cells and unfolded deltas, in one query. */
    private long total(DSLContext ctx, CounterName counter) {
        Table<Record1<Long>> parts = select(tables.cellsValue.as(PART)).from(tables.cells)
                .where(tables.cellsName.eq(counter.value()))
                .unionAll(select(tables.deltasDelta.as(PART)).from(tables.deltas)
                        .where(tables.deltasName.eq(counter.value()), tables.deltasFolded.eq(UNFOLDED)))
                .asTable("parts");
        return toLong(counter, ctx.select(sum(parts.field(PART, Long.class))).from(parts).fetchOne(0, BigDecimal.class));
    }

    private static long toLong(CounterName counter, @Nullable BigDecimal total) {
        if (total == null) {
            return 0;
        }
        try {
            return total.longValueExact();
        } catch (ArithmeticException e) {
            throw new ArithmeticException("The total of counter '" + counter + "' (" + total
                    + ") is outside the 64-bit range");
        }
    }

    /** Runs work in a transaction: a new one, or on a store bound to a caller's transaction, that one. */
    private <T> T transaction(TransactionalCallable<T> work) {
        if (independent == null) {
            return dsl.transactionResult(work);
        }
        try {
            return work.run(dsl.configuration());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new DataAccessException(e.getMessage(), e);
        }
    }

    /** Runs one store operation, retrying it only while the database reports it rolled back. */
    private <T> T run(String operation, CounterName counter, long delta, Supplier<T> action) {
        return Retry.decorateSupplier(retry, () -> {
            try {
                return action.get();
            } catch (RuntimeException e) {
                throw SqlFailures.translate(e, operation, counter, delta);
            }
        }).get();
    }

    private <T> T runUnnamed(String operation, Supplier<T> action) {
        return Retry.decorateSupplier(retry, () -> {
            try {
                return action.get();
            } catch (RuntimeException e) {
                throw SqlFailures.translate(e, operation);
            }
        }).get();
    }

    private void run(String operation, CounterName counter, long delta, Runnable action) {
        run(operation, counter, delta, () -> {
            action.run();
            return null;
        });
    }

    /** Configures a {@link JooqCounterStore}. */
    public static final class Builder {

        private final @Nullable DataSource dataSource;
        private final @Nullable DSLContext dsl;
        private String tablePrefix = "";
        private @Nullable SQLDialect dialect;
        private boolean migrateSchema;
        private @Nullable CallerTransactions callerTransactions;
        private RetryConfig retryConfig = RetryConfig.custom()
                .maxAttempts(10)
                .intervalFunction(IntervalFunction.ofExponentialRandomBackoff(Duration.ofMillis(5), 2.0, 0.5,
                        Duration.ofMillis(500)))
                .retryExceptions(TransientStoreException.class)
                .ignoreExceptions(StoreUnavailableException.class) // it already waited the pool's timeout
                .build();

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
         * must already exist; the README shows their DDL.
         */
        public Builder migrateSchema(boolean migrateSchema) {
            this.migrateSchema = migrateSchema;
            return this;
        }

        /**
         * How statements the database rolled back are retried (Resilience4j). Only {@link TransientStoreException}
         * may be retried: a retry configuration that retries anything else would repeat writes that may have been
         * applied. Unless set: up to 10 attempts, exponential backoff with jitter from 5 ms to 500 ms.
         */
        public Builder retry(RetryConfig retryConfig) {
            this.retryConfig = Objects.requireNonNull(retryConfig, "retryConfig");
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

        public JooqCounterStore build() {
            DSLContext context = dsl != null ? withDetectedDialect(dsl) : createContext();
            if (migrateSchema) {
                SchemaMigrations.migrate(dataSourceOf(context), context.dialect(), tablePrefix);
            }
            // Knowing that no connection could be had lets a caller repeat the write: it surely did not happen.
            context = DSL.using(context.configuration().derive(
                    new ReachabilityAwareConnectionProvider(context.configuration().connectionProvider())));
            return new JooqCounterStore(context, new CounterTables(tablePrefix),
                    Retry.of("counters-store-" + tablePrefix, retryConfig), callerTransactions, null,
                    DatabaseSessionLocks.of(context, tablePrefix));
        }

        private DSLContext createContext() {
            DataSource source = Objects.requireNonNull(dataSource);
            SQLDialect detected = dialect != null ? dialect : Databases.detect(source);
            return DSL.using(source, detected, new Settings().withExecuteLogging(false));
        }

        /**
         * The given context, rendering for the database it really talks to: a context configured elsewhere may say
         * MYSQL for a MariaDB server (MySQL's upsert syntax is not MariaDB's).
         */
        private DSLContext withDetectedDialect(DSLContext given) {
            SQLDialect actual = dialect != null ? dialect
                    : given.connectionResult(connection -> Databases.detect(connection.getMetaData()));
            return actual == given.dialect() ? given : DSL.using(given.configuration().derive(actual));
        }

        private DataSource dataSourceOf(DSLContext context) {
            if (dataSource != null) {
                return dataSource;
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
