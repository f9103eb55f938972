package dev.counters.jdbc;

import static dev.counters.jdbc.RenderedStatement.marker;
import static org.jooq.impl.DSL.excluded;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.sum;

import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.spi.CounterStore.VersionedValue;
import dev.counters.spi.Escrow;
import dev.counters.spi.Escrow.EscrowCell;
import dev.counters.spi.Escrow.EscrowState;
import dev.counters.spi.IdempotentBatches;
import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
import java.util.Set;
import java.util.stream.IntStream;
import org.jooq.BatchBindStep;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.InsertOnDuplicateStep;
import org.jooq.InsertValuesStep4;
import org.jooq.Query;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.Record2;
import org.jooq.Record3;
import org.jooq.Record4;
import org.jooq.ResultQuery;
import org.jooq.Row3;
import org.jooq.SQLDialect;
import org.jooq.Select;
import org.jooq.SelectForUpdateStep;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of {@code counter_cells}: a counter is the sum of its cells and of its unfolded deltas
 * ({@code counter_deltas}), which every read of a value sums in the same statement, whichever strategy reads it.
 */
final class CellQueries {

    private final CounterTables t;

    // The statements of every increment, rendered once (values: 0 name, 1 cell, 2 delta or version, 3 new value).
    private final RenderedStatement upsert;
    private final RenderedStatement update;
    private final RenderedStatement total;
    private final RenderedStatement read;
    private final RenderedStatement compareAndSet;

    // Bounded counters' statements (values: 0 name, 1 cell, 2 value delta, 3 room-down delta, 4 room-up delta).
    private final RenderedStatement change;
    private final RenderedStatement changeReturning;
    private final RenderedStatement addUnguarded;
    private final RenderedStatement state;

    /** A batch in one statement, at {@code rows - 1}, for 1 to {@link #RENDERED_ROWS} rows (see {@link #unlessRecorded}). */
    private final List<RenderedStatement> unlessRecorded;

    private final BatchQueries batches;

    CellQueries(CounterTables tables, BatchQueries batches) {
        this.t = tables;
        this.batches = batches;
        this.unlessRecorded = IntStream.rangeClosed(1, RENDERED_ROWS)
                .mapToObj(rows -> new RenderedStatement(ctx -> unlessRecorded(ctx, rows, null)))
                .toList();
        this.upsert = new RenderedStatement(ctx -> ctx.insertInto(
                        t.cells, t.cellsName, t.cellsCell, t.cellsValue, t.cellsVersion)
                .values(marker(0, String.class), marker(1, String.class), marker(2, Long.class), inline(1L))
                .onConflict(t.cellsName, t.cellsCell)
                .doUpdate()
                .set(t.cellsValue, t.cellsValue.plus(marker(2, Long.class)))
                .set(t.cellsVersion, t.cellsVersion.plus(inline(1L))));
        this.update = new RenderedStatement(ctx -> ctx.update(t.cells)
                .set(t.cellsValue, t.cellsValue.plus(marker(2, Long.class)))
                .set(t.cellsVersion, t.cellsVersion.plus(inline(1L)))
                .where(t.cellsName.eq(marker(0, String.class)), t.cellsCell.eq(marker(1, String.class))));
        // One statement, so that a fold (which moves deltas into a cell in one transaction) is counted once.
        this.total = new RenderedStatement(ctx -> ctx.select(
                field(select(sum(t.cellsValue)).from(t.cells).where(t.cellsName.eq(marker(0, String.class)))),
                field(select(sum(t.deltasDelta))
                        .from(t.deltas)
                        .where(
                                t.deltasName.eq(marker(0, String.class)),
                                t.deltasFolded.eq(inline(DeltaQueries.UNFOLDED))))));
        this.read = new RenderedStatement(ctx -> ctx.select(t.cellsValue, t.cellsVersion)
                .from(t.cells)
                .where(t.cellsName.eq(marker(0, String.class)), t.cellsCell.eq(marker(1, String.class))));
        this.compareAndSet = new RenderedStatement(ctx -> ctx.update(t.cells)
                .set(t.cellsValue, marker(3, Long.class))
                .set(t.cellsVersion, t.cellsVersion.plus(inline(1L)))
                .where(
                        t.cellsName.eq(marker(0, String.class)),
                        t.cellsCell.eq(marker(1, String.class)),
                        t.cellsVersion.eq(marker(2, Long.class)),
                        t.cellsValue.eq(marker(4, Long.class))));
        this.change = new RenderedStatement(ctx -> ctx.update(t.cells)
                .set(escrowChange())
                .where(cellIs(), guard(t.cellsRoomDown, 3), guard(t.cellsRoomUp, 4)));
        this.changeReturning = new RenderedStatement(ctx -> ctx.update(t.cells)
                .set(escrowChange())
                .where(cellIs(), guard(t.cellsRoomDown, 3), guard(t.cellsRoomUp, 4))
                .returningResult(t.cellsValue, t.cellsRoomDown, t.cellsRoomUp));
        this.addUnguarded = new RenderedStatement(
                ctx -> ctx.update(t.cells).set(escrowChange()).where(cellIs()));
        this.state = new RenderedStatement(ctx -> ctx.select(stateFields()));
    }

    private Condition cellIs() {
        return t.cellsName.eq(marker(0, String.class)).and(t.cellsCell.eq(marker(1, String.class)));
    }

    private Map<Field<?>, Field<?>> escrowChange() {
        Map<Field<?>, Field<?>> set = new LinkedHashMap<>();
        set.put(t.cellsValue, t.cellsValue.plus(marker(2, Long.class)));
        set.put(t.cellsRoomDown, t.cellsRoomDown.plus(marker(3, Long.class)));
        set.put(t.cellsRoomUp, t.cellsRoomUp.plus(marker(4, Long.class)));
        set.put(t.cellsVersion, t.cellsVersion.plus(inline(1L)));
        return set;
    }

    /**
     * The guard of a room: one that shrinks must stay at or above 0, and a null room (no such bound) guards nothing.
     * A room that grows passes even below 0 (a bound a rebind moved past the value), so changes can bring it back.
     */
    private static Condition guard(Field<Long> room, int delta) {
        return room.isNull()
                .or(marker(delta, Long.class).ge(inline(0L)))
                .or(room.plus(marker(delta, Long.class)).ge(inline(0L)));
    }

    /**
     * A bounded counter's value, summed rooms, bounds and open holds, as scalar subqueries of one statement, so that
     * they are read from one state on every database (values: 0 name, 1 now in epoch milliseconds).
     */
    private List<Field<?>> stateFields() {
        Field<String> name = marker(0, String.class);
        Condition held = t.holdsName.eq(name).and(t.holdsState.eq(inline(HoldQueries.HELD)));
        Condition due = held.and(t.holdsExpiresAt.le(marker(1, Long.class)));
        Field<Long> down =
                DSL.when(t.holdsDelta.lt(inline(0L)), t.holdsDelta.neg()).otherwise(inline(0L));
        Field<Long> up = DSL.when(t.holdsDelta.gt(inline(0L)), t.holdsDelta).otherwise(inline(0L));
        return List.of(
                field(select(sum(t.cellsValue)).from(t.cells).where(t.cellsName.eq(name))),
                field(select(sum(t.cellsRoomDown)).from(t.cells).where(t.cellsName.eq(name))),
                field(select(sum(t.cellsRoomUp)).from(t.cells).where(t.cellsName.eq(name))),
                field(select(t.boundsMin).from(t.bounds).where(t.boundsName.eq(name))),
                field(select(t.boundsMax).from(t.bounds).where(t.boundsName.eq(name))),
                field(select(sum(down)).from(t.holds).where(held)),
                field(select(sum(up)).from(t.holds).where(held)),
                field(select(sum(down)).from(t.holds).where(due)),
                field(select(sum(up)).from(t.holds).where(due)));
    }

    /**
     * Adds {@code delta} to the cell, creating it: an update of its row, and an upsert (rendered by jOOQ for each
     * dialect) only when the update found none, a cell's first write. An upsert of an existing row costs the server
     * more than the update: MariaDB tries the insert and meets the duplicate key first, H2's {@code MERGE … USING} is
     * several times slower. Two first writes that race both find no row, and both upserts apply.
     */
    void add(DSLContext ctx, CounterName counter, String cell, long delta) {
        if (update.execute(ctx, counter.value(), cell, delta) == 1) {
            return;
        }
        upsert.execute(ctx, counter.value(), cell, delta);
    }

    /**
     * Adds each delta to its counter's cell, in the order given: multi-row upserts of up to {@link #ROWS_PER_STATEMENT}
     * rows, each one round trip whatever the driver does with JDBC batches (MySQL Connector/J, unless told to rewrite
     * them, sends a batch's statements one by one). Rendered per flush, not per increment. H2 runs in process, where a
     * JDBC batch costs no round trips, and its multi-row upsert (a {@code MERGE} over a union of rows) nests one level
     * per row: it gets a batch of one-row upserts.
     */
    void addAll(DSLContext ctx, String cell, List<Map.Entry<CounterName, Long>> deltas) {
        if (ctx.dialect() == SQLDialect.H2) {
            if (!deltas.isEmpty()) {
                BatchBindStep batch = ctx.batch(
                        upsertAll(ctx.insertInto(t.cells, t.cellsName, t.cellsCell, t.cellsValue, t.cellsVersion)
                                .values((String) null, null, null, null)));
                for (Map.Entry<CounterName, Long> entry : deltas) {
                    batch = batch.bind(entry.getKey().value(), cell, entry.getValue(), 1L);
                }
                batch.execute();
            }
            return;
        }
        for (int from = 0; from < deltas.size(); from += ROWS_PER_STATEMENT) {
            upsertAll(ctx, cell, deltas.subList(from, Math.min(deltas.size(), from + ROWS_PER_STATEMENT)))
                    .execute();
        }
    }

    /**
     * Whether {@link #addAllUnlessRecorded} can write these deltas in one statement: on PostgreSQL, which runs a
     * data-modifying WITH, and on MariaDB, which runs an anonymous block; within one statement's rows.
     */
    boolean addsUnlessRecordedInOneStatement(SQLDialect dialect, List<Map.Entry<CounterName, Long>> deltas) {
        SQLDialect family = dialect.family();
        return (family == SQLDialect.POSTGRES || family == SQLDialect.MARIADB)
                && !deltas.isEmpty()
                && deltas.size() <= ROWS_PER_STATEMENT;
    }

    /**
     * A batch in one statement, which commits on its own: the key recorded, and the deltas added to their cells only
     * if it was not recorded before. One round trip where a transaction driven by the client takes three on
     * PostgreSQL (the key, the cells, the commit) and five on MariaDB (with autocommit off and on again). A concurrent
     * attempt of the same key is waited for by the key's unique index, as in the transaction. Whether the deltas were
     * added. A batch of up to {@link #RENDERED_ROWS} counters (a flush of a few hot counters) runs a statement rendered
     * once for its number of rows; a bigger one is rendered for itself.
     */
    boolean addAllUnlessRecorded(
            DSLContext ctx, String key, Instant now, String cell, List<Map.Entry<CounterName, Long>> deltas) {
        Object[] values = new Object[3 + 2 * deltas.size()];
        values[0] = key;
        values[1] = now.toEpochMilli();
        values[2] = cell;
        for (int row = 0; row < deltas.size(); row++) {
            values[3 + 2 * row] = deltas.get(row).getKey().value();
            values[4 + 2 * row] = deltas.get(row).getValue();
        }
        boolean rendered = deltas.size() <= RENDERED_ROWS;
        if (ctx.dialect().family() != SQLDialect.MARIADB) {
            return (rendered
                            ? unlessRecorded.get(deltas.size() - 1).execute(ctx, values)
                            : unlessRecorded(ctx, deltas.size(), values).execute())
                    > 0;
        }
        String block = rendered
                ? unlessRecorded.get(deltas.size() - 1).inlined(ctx, values)
                : ctx.renderInlined(unlessRecorded(ctx, deltas.size(), values));
        return ctx.connectionResult(connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute(block);
                return true;
            } catch (SQLException e) {
                if (SqlFailures.isMySqlDuplicateKey(e)) {
                    return false; // the key's insert: an earlier attempt recorded it, with these very deltas
                }
                throw e;
            }
        });
    }

    /** Batches of up to this many counters run a statement rendered once for their number of rows. */
    static final int RENDERED_ROWS = 16;

    /**
     * A batch of {@code rows} counters in one statement ({@code values}: 0 key, 1 applied at in epoch milliseconds, 2
     * cell, then each row's name and delta; null for the markers of a statement rendered once).
     *
     * <ul>
     *   <li>PostgreSQL: the key's insert, answering a row only when it inserted, in a data-modifying WITH, and the
     *       cells' upsert selecting its rows only if it did.
     *   <li>MariaDB: the transaction as an anonymous block ({@code BEGIN NOT ATOMIC}), run by the server. The key's
     *       plain insert comes first, so a key recorded before fails it with a duplicate key, which rolls the block
     *       back; so does any other failure. The block's values are inlined (names and keys are letters, digits and
     *       {@code ._-:}), and it is sent as text: it cannot be prepared on the server, which a connection may be set
     *       to do.
     * </ul>
     */
    private Query unlessRecorded(DSLContext ctx, int rows, Object @Nullable [] values) {
        Field<String> key = value(values, 0, String.class);
        Field<Long> appliedAt = value(values, 1, Long.class);
        Field<String> cell = value(values, 2, String.class);
        if (ctx.dialect().family() == SQLDialect.MARIADB) {
            InsertValuesStep4<Record, String, String, Long, Long> upsert =
                    ctx.insertInto(t.cells, t.cellsName, t.cellsCell, t.cellsValue, t.cellsVersion);
            for (int row = 0; row < rows; row++) {
                upsert = upsert.values(
                        value(values, 3 + 2 * row, String.class),
                        cell,
                        value(values, 4 + 2 * row, Long.class),
                        inline(1L));
            }
            return DSL.query(
                    "begin not atomic declare exit handler for sqlexception begin rollback; resignal; end;"
                            + " start transaction; {0}; {1}; commit; end",
                    batches.insert(ctx, key, appliedAt), upsertAll(upsert));
        }
        List<Row3<String, String, Long>> rowsOfValues = new ArrayList<>(rows);
        for (int row = 0; row < rows; row++) {
            rowsOfValues.add(
                    DSL.row(value(values, 3 + 2 * row, String.class), cell, value(values, 4 + 2 * row, Long.class)));
        }
        @SuppressWarnings("unchecked")
        Table<Record3<String, String, Long>> table =
                DSL.values(rowsOfValues.toArray(Row3[]::new)).as("v", "n", "c", "d");
        Field<String> name = table.field("n", String.class);
        Field<String> cellName = table.field("c", String.class);
        Field<Long> delta = table.field("d", Long.class);
        return upsertAll(ctx.with("recorded")
                .as(batches.recording(key, appliedAt))
                .insertInto(t.cells, t.cellsName, t.cellsCell, t.cellsValue, t.cellsVersion)
                .select(select(name, cellName, delta, inline(1L))
                        // A row only if the key was inserted: "recorded" has one row then, else none. (A join, not
                        // EXISTS: the binary signatures of jOOQ's exists differ between 3.19 and 3.21.)
                        .from(table, DSL.table(DSL.name("recorded")))));
    }

    /** Value {@code index} of {@code values}, or its marker when there are none. */
    private static <T> Field<T> value(Object @Nullable [] values, int index, Class<T> type) {
        return values == null ? marker(index, type) : DSL.val(type.cast(values[index]), type);
    }

    /** The deltas added to their cells {@code cell}, in one statement. */
    private Query upsertAll(DSLContext ctx, String cell, List<Map.Entry<CounterName, Long>> deltas) {
        InsertValuesStep4<Record, String, String, Long, Long> rows =
                ctx.insertInto(t.cells, t.cellsName, t.cellsCell, t.cellsValue, t.cellsVersion);
        for (Map.Entry<CounterName, Long> entry : deltas) {
            rows = rows.values(entry.getKey().value(), cell, entry.getValue(), 1L);
        }
        return upsertAll(rows);
    }

    /** The rows' deltas added to their cells, created at the delta when new. */
    private Query upsertAll(InsertOnDuplicateStep<Record> rows) {
        return rows.onConflict(t.cellsName, t.cellsCell)
                .doUpdate()
                .set(t.cellsValue, t.cellsValue.plus(excluded(t.cellsValue)))
                .set(t.cellsVersion, t.cellsVersion.plus(inline(1L)));
    }

    /** Four values a row: within every supported database's limit of bound values per statement (PostgreSQL's 32,767). */
    static final int ROWS_PER_STATEMENT = 1_000;

    boolean exists(DSLContext ctx, CounterName counter, String cell) {
        return ctx.fetchExists(t.cells, t.cellsName.eq(counter.value()).and(t.cellsCell.eq(cell)));
    }

    /** Creates the cell at 0 unless it exists. */
    Query create(DSLContext ctx, CounterName counter, String cell) {
        return ctx.insertInto(t.cells, t.cellsName, t.cellsCell, t.cellsValue, t.cellsVersion)
                .values(counter.value(), cell, 0L, 1L)
                .onConflict(t.cellsName, t.cellsCell)
                .doNothing();
    }

    /** The counter's value: its cells and its unfolded deltas. */
    long total(DSLContext ctx, CounterName counter) {
        return total.query(
                ctx,
                rows -> {
                    rows.next();
                    BigDecimal cells = rows.getBigDecimal(1);
                    BigDecimal deltas = rows.getBigDecimal(2);
                    return toLong(counter, cells == null ? deltas : deltas == null ? cells : cells.add(deltas));
                },
                counter.value());
    }

    /**
     * The values of counters that have cells or unfolded deltas, cells and deltas summed in one query; at most a
     * thousand names, so that the statement stays bounded.
     */
    Map<CounterName, Long> totals(DSLContext ctx, Collection<CounterName> counters) {
        List<String> names = counters.stream().map(CounterName::value).toList();
        Table<Record2<String, Long>> parts = select(t.cellsName, t.cellsValue)
                .from(t.cells)
                .where(t.cellsName.in(names))
                .unionAll(select(t.deltasName, t.deltasDelta)
                        .from(t.deltas)
                        .where(t.deltasName.in(names), t.deltasFolded.eq(DeltaQueries.UNFOLDED)))
                .asTable("parts", "name", "part");
        Field<String> name = parts.field("name", String.class);
        Field<Long> part = parts.field("part", Long.class);
        return sums(ctx.select(name, sum(part)).from(parts).groupBy(name).fetch(), counters);
    }

    /**
     * {@link IdempotentBatches#getAllWithBatches}: the totals and which keys of {@code inFlight} are recorded, in one
     * statement, which reads one snapshot.
     */
    Map<CounterName, Long> totalsWithBatches(
            DSLContext ctx, Collection<CounterName> counters, Map<String, Map<CounterName, Long>> inFlight) {
        List<String> names = counters.stream().map(CounterName::value).toList();
        Field<Integer> counter = inline(0);
        Table<Record3<Integer, String, Long>> parts = select(counter, t.cellsName, t.cellsValue)
                .from(t.cells)
                .where(t.cellsName.in(names))
                .unionAll(select(counter, t.deltasName, t.deltasDelta)
                        .from(t.deltas)
                        .where(t.deltasName.in(names), t.deltasFolded.eq(DeltaQueries.UNFOLDED)))
                .unionAll(select(inline(1), t.batchesKey, inline(0L))
                        .from(t.batches)
                        .where(t.batchesKey.in(inFlight.keySet())))
                .asTable("parts", "kind", "name", "part");
        Field<Integer> kind = parts.field("kind", Integer.class);
        Field<String> name = parts.field("name", String.class);
        Field<Long> part = parts.field("part", Long.class);
        Map<String, BigDecimal> stored = new HashMap<>();
        Set<String> recorded = new HashSet<>();
        ctx.select(kind, name, sum(part)).from(parts).groupBy(kind, name).forEach(row -> {
            if (row.value1() == 0) {
                stored.put(row.value2(), row.value3());
            } else {
                recorded.add(row.value2());
            }
        });
        Map<CounterName, Long> totals = new HashMap<>();
        for (CounterName requested : counters) {
            BigDecimal total = stored.get(requested.value());
            if (total != null) {
                totals.put(requested, toLong(requested, total));
            }
        }
        return IdempotentBatches.withUnrecorded(counters, totals, recorded, inFlight);
    }

    /** The values of counters as their last folds left them: cells alone (delta-log's read-folded). */
    Map<CounterName, Long> foldedTotals(DSLContext ctx, Collection<CounterName> counters) {
        return sums(
                ctx.select(t.cellsName, sum(t.cellsValue))
                        .from(t.cells)
                        .where(t.cellsName.in(
                                counters.stream().map(CounterName::value).toList()))
                        .groupBy(t.cellsName)
                        .fetch(),
                counters);
    }

    Map<String, Long> cells(DSLContext ctx, CounterName counter) {
        return ctx.select(t.cellsCell, t.cellsValue)
                .from(t.cells)
                .where(t.cellsName.eq(counter.value()))
                .fetchMap(t.cellsCell, t.cellsValue);
    }

    Optional<VersionedValue> read(DSLContext ctx, CounterName counter, String cell) {
        return read.query(
                ctx,
                rows -> rows.next()
                        ? Optional.of(new VersionedValue(rows.getLong(1), rows.getLong(2)))
                        : Optional.empty(),
                counter.value(),
                cell);
    }

    boolean compareAndSet(
            DSLContext ctx, CounterName counter, String cell, @Nullable VersionedValue expected, long newValue) {
        if (expected == null) {
            return ctx.insertInto(t.cells, t.cellsName, t.cellsCell, t.cellsValue, t.cellsVersion)
                            .values(counter.value(), cell, newValue, 1L)
                            .onConflict(t.cellsName, t.cellsCell)
                            .doNothing()
                            .execute()
                    == 1;
        }
        return compareAndSet.execute(ctx, counter.value(), cell, expected.version(), newValue, expected.value()) == 1;
    }

    int delete(DSLContext ctx, CounterName counter) {
        return ctx.deleteFrom(t.cells).where(t.cellsName.eq(counter.value())).execute();
    }

    /** The cells of several counters with their versions. */
    Map<CounterName, Map<String, Long>> versions(DSLContext ctx, List<CounterName> counters) {
        Map<String, CounterName> byValue = new HashMap<>();
        counters.forEach(name -> byValue.put(name.value(), name));
        Map<CounterName, Map<String, Long>> versions = new HashMap<>();
        ctx.select(t.cellsName, t.cellsCell, t.cellsVersion)
                .from(t.cells)
                .where(t.cellsName.in(byValue.keySet()))
                .forEach(row -> versions.computeIfAbsent(byValue.get(row.value1()), name -> new HashMap<>())
                        .put(row.value2(), row.value3()));
        return versions;
    }

    /** The counter's cells with their versions, locked until the transaction ends. */
    Map<String, Long> versionsForUpdate(DSLContext ctx, CounterName counter) {
        Map<String, Long> versions = new HashMap<>();
        ctx.select(t.cellsCell, t.cellsVersion)
                .from(t.cells)
                .where(t.cellsName.eq(counter.value()))
                .forUpdate()
                .forEach(row -> versions.put(row.value1(), row.value2()));
        return versions;
    }

    /**
     * Deletes the counter's cells that are still at the versions given, and no other: the statement itself checks the
     * versions, since on a Galera cluster a locking read does not keep another node from writing a cell meanwhile.
     */
    int deleteAtVersions(DSLContext ctx, CounterName counter, Map<String, Long> cellVersions) {
        return ctx.deleteFrom(t.cells)
                .where(
                        t.cellsName.eq(counter.value()),
                        DSL.or(cellVersions.entrySet().stream()
                                .map(cell -> t.cellsCell.eq(cell.getKey()).and(t.cellsVersion.eq(cell.getValue())))
                                .toList()))
                .execute();
    }

    // ---- bounded counters ----

    /**
     * The guarded change of an escrow cell: adds to its value and rooms unless a shrinking room would go below 0;
     * whether the cell was written (false also when it is absent).
     */
    boolean change(DSLContext ctx, CounterName counter, String cell, long value, long roomDown, long roomUp) {
        return change.execute(ctx, counter.value(), cell, value, roomDown, roomUp) == 1;
    }

    /** As {@link #change}, returning the cell after it; PostgreSQL only ({@code UPDATE … RETURNING}). */
    Optional<EscrowCell> changeReturning(
            DSLContext ctx, CounterName counter, String cell, long value, long roomDown, long roomUp) {
        return changeReturning.query(
                ctx,
                rows -> rows.next() ? Optional.of(escrowCell(rows, 1)) : Optional.empty(),
                counter.value(),
                cell,
                value,
                roomDown,
                roomUp);
    }

    /** Adds to an escrow cell's value and rooms with no guard (rooms given back); whether the cell exists. */
    boolean addUnguarded(DSLContext ctx, CounterName counter, String cell, long value, long roomDown, long roomUp) {
        return addUnguarded.execute(ctx, counter.value(), cell, value, roomDown, roomUp) == 1;
    }

    /** Creates an escrow cell unless it exists; whether this call created it. */
    boolean createEscrowCell(
            DSLContext ctx,
            CounterName counter,
            String cell,
            long value,
            @Nullable Long roomDown,
            @Nullable Long roomUp) {
        return ctx.insertInto(
                                t.cells,
                                t.cellsName,
                                t.cellsCell,
                                t.cellsValue,
                                t.cellsVersion,
                                t.cellsRoomDown,
                                t.cellsRoomUp)
                        .values(counter.value(), cell, value, 1L, roomDown, roomUp)
                        .onConflict(t.cellsName, t.cellsCell)
                        .doNothing()
                        .execute()
                == 1;
    }

    /** Sets the rooms of the counter's node cells ({@code nodes}) or of its pool. */
    void setRooms(DSLContext ctx, CounterName counter, boolean nodes, @Nullable Long roomDown, @Nullable Long roomUp) {
        ctx.update(t.cells)
                .set(t.cellsRoomDown, roomDown)
                .set(t.cellsRoomUp, roomUp)
                .set(t.cellsVersion, t.cellsVersion.plus(inline(1L)))
                .where(
                        t.cellsName.eq(counter.value()),
                        nodes ? t.cellsCell.like(Escrow.NODE_PREFIX + "%") : t.cellsCell.eq(Escrow.POOL))
                .execute();
    }

    /** Sets the room toward the maximum of every escrow cell of the counter to 0 (a seal). */
    void closeRoomUp(DSLContext ctx, CounterName counter) {
        ctx.update(t.cells)
                .set(t.cellsRoomUp, 0L)
                .set(t.cellsVersion, t.cellsVersion.plus(inline(1L)))
                .where(t.cellsName.eq(counter.value()), t.cellsCell.like(ESCROW_CELLS))
                .execute();
    }

    Optional<EscrowCell> escrowCell(DSLContext ctx, CounterName counter, String cell) {
        return ctx.select(t.cellsValue, t.cellsRoomDown, t.cellsRoomUp)
                .from(t.cells)
                .where(t.cellsName.eq(counter.value()), t.cellsCell.eq(cell))
                .fetchOptional(row -> new EscrowCell(row.value1(), row.value2(), row.value3()));
    }

    /** The escrow cell, locked until the transaction ends. */
    Optional<EscrowCell> escrowCellForUpdate(DSLContext ctx, CounterName counter, String cell) {
        return ctx.select(t.cellsValue, t.cellsRoomDown, t.cellsRoomUp)
                .from(t.cells)
                .where(t.cellsName.eq(counter.value()), t.cellsCell.eq(cell))
                .forUpdate()
                .fetchOptional(row -> new EscrowCell(row.value1(), row.value2(), row.value3()));
    }

    /**
     * The counter's escrow cells (pool and nodes) by cell id, in cell order: node cells first, then the pool; with
     * {@code lock}, locked in that order until the transaction ends.
     */
    Map<String, EscrowCell> escrowCells(DSLContext ctx, CounterName counter, boolean lock) {
        SelectForUpdateStep<Record4<String, Long, Long, Long>> select = ctx.select(
                        t.cellsCell, t.cellsValue, t.cellsRoomDown, t.cellsRoomUp)
                .from(t.cells)
                .where(t.cellsName.eq(counter.value()), t.cellsCell.like(ESCROW_CELLS))
                .orderBy(t.cellsCell);
        Map<String, EscrowCell> cells = new LinkedHashMap<>();
        ResultQuery<Record4<String, Long, Long, Long>> query = lock ? select.forUpdate() : select;
        query.forEach(row -> cells.put(row.value1(), new EscrowCell(row.value2(), row.value3(), row.value4())));
        return cells;
    }

    /** Every escrow cell's id starts with {@code b:}, the pool's and the nodes'. */
    private static final String ESCROW_CELLS = "b:%";

    void deleteCell(DSLContext ctx, CounterName counter, String cell) {
        ctx.deleteFrom(t.cells)
                .where(t.cellsName.eq(counter.value()), t.cellsCell.eq(cell))
                .execute();
    }

    /** The bounded counter's state in one statement; empty if it has no bounds. */
    Optional<EscrowState> state(DSLContext ctx, CounterName counter, Instant now) {
        return state.query(
                ctx,
                rows -> {
                    rows.next();
                    Long min = nullableLong(rows, 4);
                    Long max = nullableLong(rows, 5);
                    if (min == null && max == null) {
                        return Optional.empty();
                    }
                    return Optional.of(new EscrowState(
                            toLong(counter, rows.getBigDecimal(1)),
                            new Escrow.Bounds(min, max),
                            nullableSum(counter, rows.getBigDecimal(2)),
                            nullableSum(counter, rows.getBigDecimal(3)),
                            toLong(counter, rows.getBigDecimal(6)),
                            toLong(counter, rows.getBigDecimal(7)),
                            toLong(counter, rows.getBigDecimal(8)),
                            toLong(counter, rows.getBigDecimal(9))));
                },
                counter.value(),
                now.toEpochMilli());
    }

    private static EscrowCell escrowCell(ResultSet rows, int first) throws SQLException {
        return new EscrowCell(rows.getLong(first), nullableLong(rows, first + 1), nullableLong(rows, first + 2));
    }

    private static @Nullable Long nullableLong(ResultSet rows, int column) throws SQLException {
        long value = rows.getLong(column);
        return rows.wasNull() ? null : value;
    }

    private static @Nullable Long nullableSum(CounterName counter, @Nullable BigDecimal sum) {
        return sum == null ? null : toLong(counter, sum);
    }

    Select<Record1<String>> names() {
        return select(t.cellsName).from(t.cells);
    }

    /** Sums per name, from rows of name and sum, keyed by the requested names. */
    static Map<CounterName, Long> sums(
            List<? extends Record2<String, BigDecimal>> rows, Collection<CounterName> requested) {
        Map<String, CounterName> byValue = new HashMap<>();
        requested.forEach(name -> byValue.put(name.value(), name));
        Map<CounterName, Long> totals = new HashMap<>();
        for (Record2<String, BigDecimal> row : rows) {
            CounterName name = Objects.requireNonNull(byValue.get(row.value1()), "a row of a name not asked for");
            totals.put(name, toLong(name, row.value2()));
        }
        return totals;
    }

    static long toLong(CounterName counter, @Nullable BigDecimal total) {
        if (total == null) {
            return 0;
        }
        try {
            return total.longValueExact();
        } catch (ArithmeticException e) {
            throw CounterOverflowException.ofTotal(counter);
        }
    }
}
