package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import dev.counters.contract.Concurrently;
import dev.counters.jdbc.testing.ChildJvm;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Two JVM processes increment the same counter in the same database at the same time: the total is exact. */
class MultiProcessExactnessTest {

    private static final int THREADS = 8;
    private static final int PER_THREAD = 5_000;

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "POSTGRES"})
    void twoProcessesOnOneCounterAreExact(TestDatabase database) throws Exception {
        JooqStores stores = JooqStores.on(database);
        String counter = "shared.hot";
        ChildJvm child = ChildJvm.start(ChildIncrementer.class, database.jdbcUrl(), database.user(),
                database.password(), stores.prefix(), counter, String.valueOf(THREADS), String.valueOf(PER_THREAD));
        try (CounterService counters = CounterService.builder(stores.store()).build()) {
            child.awaitOutput("READY", 2, TimeUnit.MINUTES); // so that both processes really run at once
            Concurrently.run(THREADS, thread -> {
                for (int i = 0; i < PER_THREAD; i++) {
                    counters.increment(counter);
                }
            });
            String printed = child.awaitSuccess(5, TimeUnit.MINUTES);
            assertThat(printed).contains("ACKNOWLEDGED " + THREADS * PER_THREAD);
            assertThat(counters.get(counter)).isEqualTo(2L * THREADS * PER_THREAD);
        }
    }
}
