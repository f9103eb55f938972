package dev.counters.jdbc.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;

/**
 * A real PostgreSQL server (zonky's embedded binaries), started once per test JVM. {@code fsync} and
 * {@code synchronous_commit} are off to spare the tests a disk sync per commit; what a committed transaction
 * contains is unchanged, so exactness checks still hold.
 */
public final class EmbeddedPostgreSql {

    public static final String USER = "postgres";

    private static EmbeddedPostgreSql shared;

    private final EmbeddedPostgres postgres;

    private EmbeddedPostgreSql() throws IOException {
        postgres = EmbeddedPostgres.builder()
                .setServerConfig("fsync", "off")
                .setServerConfig("synchronous_commit", "off")
                .setServerConfig("full_page_writes", "off")
                .setServerConfig("max_connections", "300")
                .start();
    }

    public static synchronized EmbeddedPostgreSql shared() {
        if (shared == null) {
            try {
                shared = new EmbeddedPostgreSql();
            } catch (IOException e) {
                throw new IllegalStateException("Could not start the embedded PostgreSQL server", e);
            }
            EmbeddedPostgreSql started = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(started::stop));
        }
        return shared;
    }

    public String jdbcUrl() {
        return postgres.getJdbcUrl(USER, "postgres");
    }

    private void stop() {
        try {
            postgres.close();
        } catch (IOException e) {
            // the JVM is exiting
        }
    }
}
