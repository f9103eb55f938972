package dev.counters.jdbc;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.unquotedName;

import java.util.List;
import java.util.regex.Pattern;
import org.jooq.Field;
import org.jooq.Name;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/**
 * The library's tables and columns as typed jOOQ objects, named with the configured prefix. Names are unquoted so
 * that each database folds them as it folded the DDL in the migrations; the prefix is therefore restricted to
 * characters every database accepts unquoted.
 */
final class CounterTables {

    static final int MAX_PREFIX_LENGTH = 32;
    private static final Pattern PREFIX = Pattern.compile("[A-Za-z][A-Za-z0-9_]*|");

    final String prefix;

    // counter_cells: a counter is the sum of its cells.
    final Table<Record> cells;
    final Field<String> cellsName;
    final Field<String> cellsCell;
    final Field<Long> cellsValue;
    final Field<Long> cellsVersion;

    CounterTables(String prefix) {
        this.prefix = validatePrefix(prefix);
        Name cellsTable = unquotedName(prefix + "counter_cells");
        this.cells = table(cellsTable);
        this.cellsName = field(unquotedName(cellsTable.last(), "counter_name"), SQLDataType.VARCHAR(128).notNull());
        this.cellsCell = field(unquotedName(cellsTable.last(), "cell"), SQLDataType.VARCHAR(64).notNull());
        this.cellsValue = field(unquotedName(cellsTable.last(), "cell_value"), SQLDataType.BIGINT.notNull());
        this.cellsVersion = field(unquotedName(cellsTable.last(), "version"), SQLDataType.BIGINT.notNull());
    }

    /** Every table with its columns, for the test that compares this holder with the migrated schema. */
    List<TableColumns> all() {
        return List.of(new TableColumns(cells, List.of(cellsName, cellsCell, cellsValue, cellsVersion)));
    }

    record TableColumns(Table<?> table, List<Field<?>> columns) {
    }

    static String validatePrefix(String prefix) {
        if (prefix == null) {
            throw new IllegalArgumentException("Table prefix must not be null (use \"\" for none)");
        }
        if (prefix.length() > MAX_PREFIX_LENGTH || !PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("Table prefix '" + prefix + "' is invalid: it must be empty, or start"
                    + " with a letter and contain only ASCII letters, digits and '_', at most " + MAX_PREFIX_LENGTH
                    + " characters");
        }
        return prefix;
    }
}
