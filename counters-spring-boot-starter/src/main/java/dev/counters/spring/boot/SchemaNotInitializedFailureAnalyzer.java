package dev.counters.spring.boot;

import dev.counters.jdbc.SchemaNotInitializedException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

/** Startup failed because the counters tables are missing: names the property that creates them, and the DDL. */
final class SchemaNotInitializedFailureAnalyzer extends AbstractFailureAnalyzer<SchemaNotInitializedException> {

    private final Environment environment;

    SchemaNotInitializedFailureAnalyzer(Environment environment) {
        this.environment = environment;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, SchemaNotInitializedException cause) {
        String setting = environment.getProperty("counters.jdbc.initialize-schema", "embedded");
        String why = setting.equalsIgnoreCase("embedded")
                ? "counters.jdbc.initialize-schema is 'embedded' (the default): counters creates its tables only in"
                        + " an embedded database (H2, HSQLDB, Derby), and this DataSource is not one."
                : "counters.jdbc.initialize-schema is '" + setting + "': counters does not create its tables.";
        return new FailureAnalysis(
                "The counters tables are missing from the database: " + String.join(", ", cause.missing()) + ".\n\n"
                        + why,
                "Either let counters create and upgrade its tables at startup, with Flyway and a history table of"
                        + " its own:\n\n    counters.jdbc.initialize-schema: always\n\nor create them with your own"
                        + " migrations from the DDL in " + cause.ddlLocation() + " (one file per schema version;"
                        + " apply new ones when you upgrade counters), and set counters.jdbc.initialize-schema to"
                        + " never.",
                cause);
    }
}
