package dev.counters.spring.jpa;

import dev.counters.jdbc.testing.EmbeddedMariaDb;
import dev.counters.jdbc.testing.TestDatabase;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;

/** A database of the test class's own on a test server, and the application's properties for it. */
final class TestDatabases {

    /** Small blocks, so that the tests cross block boundaries; statements counted; inserts in batches of 50. */
    static final String[] PROPERTIES = {
        "counters.jdbc.initialize-schema=always",
        "counters.sequences.invoices.block-size=16",
        "counters.sequences.invoices.max-block-size=16",
        "spring.jpa.properties.hibernate.jdbc.batch_size=50",
        "spring.jpa.properties.hibernate.order_inserts=true",
        "spring.jpa.properties.hibernate.generate_statistics=true",
        "spring.jpa.open-in-view=false"
    };

    static final String DIALECT = "spring.jpa.database-platform";
    static final String METADATA = "spring.jpa.properties.hibernate.boot.allow_jdbc_metadata_access";

    /** What a second instance of the application copies from the first: its database. */
    static final String[] DATABASE_PROPERTIES = {
        "spring.datasource.url", "spring.datasource.username", "spring.datasource.password", DIALECT, METADATA
    };

    private TestDatabases() {}

    static void register(DynamicPropertyRegistry registry, TestDatabase database) {
        String url = fresh(database);
        registry.add("spring.datasource.url", () -> url);
        registry.add("spring.datasource.username", database::user);
        registry.add("spring.datasource.password", database::password);
        registry.add("spring.jpa.hibernate.ddl-auto", () -> "create");
        if (database == TestDatabase.MARIADB) {
            // Named, not detected: Connector/J's keyword metadata query fails on MariaDB, and detection needs it.
            registry.add(DIALECT, () -> "org.hibernate.dialect.MariaDBDialect");
            registry.add(METADATA, () -> "false");
        }
        for (String property : PROPERTIES) {
            int equals = property.indexOf('=');
            registry.add(property.substring(0, equals), () -> property.substring(equals + 1));
        }
    }

    /** A database nothing has touched yet. */
    private static String fresh(TestDatabase database) {
        String name = "jpa_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        switch (database) {
            case H2:
                return "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1";
            case MARIADB:
                new JdbcTemplate(database.dataSource()).execute("CREATE DATABASE " + name);
                return database.jdbcUrl().replaceFirst("/" + EmbeddedMariaDb.DATABASE + "\\?", "/" + name + "?");
            case POSTGRES:
                new JdbcTemplate(database.dataSource()).execute("CREATE DATABASE " + name);
                return database.jdbcUrl().replaceFirst("/postgres\\?", "/" + name + "?");
            default:
                throw new IllegalArgumentException(database.name());
        }
    }
}
