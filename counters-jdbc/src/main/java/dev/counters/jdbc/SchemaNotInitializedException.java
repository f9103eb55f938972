package dev.counters.jdbc;

import dev.counters.CountersException;
import java.util.List;

/**
 * The database lacks tables or columns of the library's schema: its migrations were not applied, or not all of them
 * (after an upgrade, by an application that manages the DDL itself). Nothing was written.
 */
public class SchemaNotInitializedException extends CountersException {

    private static final long serialVersionUID = 1L;

    private final List<String> missing;
    private final String ddlLocation;

    SchemaNotInitializedException(List<String> missing, String ddlLocation) {
        super(
                "The counters schema is not in the database: missing " + String.join(", ", missing) + ". Let the"
                        + " store apply its migrations (JooqCounterStore.Builder.migrateSchema(true)), or apply the DDL in "
                        + ddlLocation + " with your own migrations",
                null);
        this.missing = List.copyOf(missing);
        this.ddlLocation = ddlLocation;
    }

    /** The missing tables ({@code counter_cells}) and columns of existing tables ({@code counter_cells.version}). */
    public List<String> missing() {
        return missing;
    }

    /** Where the library's migrations for this database are, as a {@code classpath:} location. */
    public String ddlLocation() {
        return ddlLocation;
    }
}
