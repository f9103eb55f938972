package dev.counters.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.Function;
import org.jooq.DSLContext;
import org.jooq.Param;
import org.jooq.Query;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * A statement of the hot path, rendered by jOOQ once per dialect and then run through plain JDBC with its values
 * bound: rendering a jOOQ query on every increment cost more than the database round trip on H2. jOOQ still writes
 * the SQL for each dialect (upserts differ); this only keeps what it wrote.
 *
 * <p>The prototype query is built with {@link #marker(int, Class)} values in place of the real ones; the order in which
 * jOOQ binds them tells which value goes to which placeholder, whatever the dialect's syntax does with them.
 */
final class RenderedStatement {

    /** Reads the result of a query. */
    @FunctionalInterface
    interface Reader<T> {
        T read(ResultSet rows) throws SQLException;
    }

    /** {@code deadline}: seconds after which the client cancels it (0 for none, or bound by the server). */
    @SuppressWarnings("ArrayRecordComponent") // never compared or hashed; an int[] for the bind loop
    private record Rendered(SQLDialect dialect, String sql, int[] slots, int deadline) {}

    /** The text around the values of a statement with its values inlined: {@code parts[i]} comes before value i. */
    @SuppressWarnings("ArrayRecordComponent") // never compared or hashed
    private record Inlined(SQLDialect dialect, String[] parts, int[] slots) {}

    private final Function<DSLContext, Query> prototype;
    /** How long the statement may run, in seconds; 0 for no bound. */
    private final int timeoutSeconds;
    /** Null until the first statement renders it. */
    private volatile @Nullable Rendered rendered;
    /** Null until the first {@link #inlined} renders it. */
    private volatile @Nullable Inlined inlined;

    /** {@code prototype} builds the query with {@code marker(0)}, {@code marker(1)}, ... for the values. */
    RenderedStatement(Function<DSLContext, Query> prototype) {
        this(prototype, 0);
    }

    /**
     * As {@link #RenderedStatement(Function)}, the statement ended after running {@code timeoutSeconds}: by MariaDB
     * itself ({@code SET STATEMENT max_statement_time=N FOR}, free for the client), elsewhere cancelled by
     * {@link StatementDeadlines}. Not the driver's query timeout: Connector/J and pgjdbc arm a timer task for every
     * execution, which cost a quarter of a MariaDB append's client CPU and two fifths of a PostgreSQL one's. Either
     * way the statement fails with an outcome left unknown.
     */
    RenderedStatement(Function<DSLContext, Query> prototype, int timeoutSeconds) {
        this.prototype = prototype;
        this.timeoutSeconds = timeoutSeconds;
    }

    /** The stand-in for value {@code index}: a number no real value takes, bound as a parameter. */
    static <T> Param<T> marker(int index, Class<T> type) {
        Object value = type == String.class ? "\u0000marker-" + index : (Object) (Long.MIN_VALUE + 1000 + index);
        return DSL.val(type.cast(value), type);
    }

    int execute(DSLContext ctx, Object... values) {
        return run(ctx, values, false, PreparedStatement::executeUpdate);
    }

    <T> T query(DSLContext ctx, Reader<T> reader, Object... values) {
        return run(ctx, values, false, statement -> {
            try (ResultSet rows = statement.executeQuery()) {
                return reader.read(rows);
            }
        });
    }

    /**
     * Runs an update of at most one row and answers the id its reply carries, as a signed 64-bit value (MySQL,
     * MariaDB: what {@code LAST_INSERT_ID(expr)} set in it), or empty if it wrote no row. A reply carries no id for
     * 0, which this answers as 0.
     */
    OptionalLong updateReturningId(DSLContext ctx, Object... values) {
        return run(ctx, values, true, statement -> {
            if (statement.executeUpdate() == 0) {
                return OptionalLong.empty();
            }
            try (ResultSet keys = statement.getGeneratedKeys()) {
                return OptionalLong.of(keys.next() ? Long.parseUnsignedLong(keys.getString(1)) : 0L);
            }
        });
    }

    private interface Execution<T> {
        T run(PreparedStatement statement) throws SQLException;
    }

    private <T> T run(DSLContext ctx, Object[] values, boolean keys, Execution<T> execution) {
        Rendered statement = render(ctx);
        return ctx.connectionResult(connection -> {
            try (PreparedStatement prepared = keys
                    ? connection.prepareStatement(statement.sql(), Statement.RETURN_GENERATED_KEYS)
                    : connection.prepareStatement(statement.sql())) {
                for (int i = 0; i < statement.slots().length; i++) {
                    prepared.setObject(i + 1, values[statement.slots()[i]]);
                }
                return statement.deadline() > 0
                        ? StatementDeadlines.run(prepared, statement.deadline(), () -> execution.run(prepared))
                        : execution.run(prepared);
            }
        });
    }

    private Rendered render(DSLContext ctx) {
        Rendered current = rendered;
        if (current != null && current.dialect() == ctx.dialect()) {
            return current;
        }
        Query query = prototype.apply(ctx);
        List<Object> binds = ctx.extractBindValues(query);
        int[] slots = new int[binds.size()];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = slotOf(binds.get(i));
        }
        String sql = ctx.render(query);
        boolean serverBound = timeoutSeconds > 0 && ctx.dialect() == SQLDialect.MARIADB;
        current = serverBound
                ? new Rendered(
                        ctx.dialect(), "SET STATEMENT max_statement_time=" + timeoutSeconds + " FOR " + sql, slots, 0)
                : new Rendered(ctx.dialect(), sql, slots, timeoutSeconds);
        rendered = current;
        return current;
    }

    /**
     * The statement as text with the values inlined, for SQL a server cannot prepare (MariaDB's anonymous blocks), in
     * MySQL's and MariaDB's quoting: a string between quotes with {@code '} and {@code \} doubled, a number as it
     * is. jOOQ renders the text once per dialect, with the markers inlined, which are then found in it.
     */
    String inlined(DSLContext ctx, Object... values) {
        Inlined current = inlined;
        if (current == null || current.dialect() != ctx.dialect()) {
            current = renderInlined(ctx);
            inlined = current;
        }
        StringBuilder text = new StringBuilder(current.parts()[0]);
        for (int i = 0; i < current.slots().length; i++) {
            Object value = values[current.slots()[i]];
            if (value instanceof String string) {
                text.append('\'')
                        .append(string.replace("\\", "\\\\").replace("'", "''"))
                        .append('\'');
            } else {
                text.append((long) (Long) value);
            }
            text.append(current.parts()[i + 1]);
        }
        return text.toString();
    }

    private Inlined renderInlined(DSLContext ctx) {
        Query query = prototype.apply(ctx);
        String sql = ctx.renderInlined(query);
        List<Object> binds = ctx.extractBindValues(query);
        // Each marker's literal, found where it stands, in the order of the text.
        Map<Object, String> literals = new HashMap<>();
        TreeMap<Integer, Map.Entry<Object, String>> markers = new TreeMap<>();
        for (Object bound : binds) {
            String literal = literals.computeIfAbsent(bound, marker -> ctx.renderInlined(DSL.inline(marker)));
            for (int at = sql.indexOf(literal); at >= 0; at = sql.indexOf(literal, at + literal.length())) {
                markers.put(at, Map.entry(bound, literal));
            }
        }
        if (markers.size() != binds.size()) {
            throw new IllegalStateException("The inlined statement holds " + markers.size() + " markers where "
                    + binds.size() + " are bound: " + sql);
        }
        List<String> parts = new ArrayList<>();
        int[] slots = new int[markers.size()];
        int from = 0;
        int slot = 0;
        for (Map.Entry<Integer, Map.Entry<Object, String>> marker : markers.entrySet()) {
            parts.add(sql.substring(from, marker.getKey()));
            slots[slot++] = slotOf(marker.getValue().getKey());
            from = marker.getKey() + marker.getValue().getValue().length();
        }
        parts.add(sql.substring(from));
        return new Inlined(ctx.dialect(), parts.toArray(String[]::new), slots);
    }

    private static int slotOf(Object bound) {
        if (bound instanceof String marker && marker.startsWith("\u0000marker-")) {
            return Integer.parseInt(marker.substring("\u0000marker-".length()));
        }
        if (bound instanceof Long marker && marker >= Long.MIN_VALUE + 1000 && marker < Long.MIN_VALUE + 1100) {
            return (int) (marker - (Long.MIN_VALUE + 1000));
        }
        throw new IllegalStateException("A rendered statement binds a value that is not a marker: " + bound);
    }
}
