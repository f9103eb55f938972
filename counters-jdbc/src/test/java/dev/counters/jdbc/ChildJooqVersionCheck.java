package dev.counters.jdbc;

import dev.counters.CounterService;
import org.h2.jdbcx.JdbcDataSource;

/**
 * The child JVM of {@link JooqVersionCheckTest}: builds a store on an in-memory H2 database with whatever jOOQ is on
 * its class path, counts to 2 and prints the value, or prints the failure and exits with 3.
 */
public final class ChildJooqVersionCheck {

    private ChildJooqVersionCheck() {}

    public static void main(String[] args) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:version-check;DB_CLOSE_DELAY=-1");
        try (CounterService counters = CounterService.builder(
                        JooqCounterStore.builder(dataSource).migrateSchema(true).build())
                .build()) {
            counters.increment("checked");
            counters.increment("checked");
            System.out.println("COUNTED " + counters.get("checked"));
        } catch (UnsupportedJooqVersionException e) {
            System.out.println("FAILED " + e.getMessage() + " FOUND " + e.found());
            System.exit(3);
        }
    }
}
