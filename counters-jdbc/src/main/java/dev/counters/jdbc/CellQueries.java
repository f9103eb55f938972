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
import java.math.BigDecimal;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jooq.BatchBindStep;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.InsertValuesStep4;
import org.jooq.Query;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.Record2;
import org.jooq.SQLDialect;
import org.jooq.Select;
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

    CellQueries(CounterTables tables) {
        this.t = tables;
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
    }

    /**
     * Adds {@code delta} to the cell, creating it: one upsert, rendered by jOOQ for each dialect. On H2, whose upsert
     * is a {@code MERGE … USING} several times slower than an update, an existing cell is updated instead, and the
     * upsert runs only when the update found no row.
     */
    void add(DSLContext ctx, CounterName counter, String cell, long delta) {
        if (ctx.dialect() == SQLDialect.H2 && update.execute(ctx, counter.value(), cell, delta) == 1) {
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
            InsertValuesStep4<Record, String, String, Long, Long> insert =
                    ctx.insertInto(t.cells, t.cellsName, t.cellsCell, t.cellsValue, t.cellsVersion);
            for (Map.Entry<CounterName, Long> entry :
                    deltas.subList(from, Math.min(deltas.size(), from + ROWS_PER_STATEMENT))) {
                insert = insert.values(entry.getKey().value(), cell, entry.getValue(), 1L);
            }
            upsertAll(insert).execute();
        }
    }

    /** The rows' deltas added to their cells, created at the delta when new. */
    private Query upsertAll(InsertValuesStep4<Record, String, String, Long, Long> rows) {
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
