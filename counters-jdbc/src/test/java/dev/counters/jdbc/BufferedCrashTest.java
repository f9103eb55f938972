package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterName;
import dev.counters.jdbc.testing.ChildJvm;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A process using the buffered strategy is killed with SIGKILL mid-run: what is stored lies between the increments
 * acknowledged as durable and the increments attempted, so it lost at most what was pending since its last
 * acknowledged flush.
 */
class BufferedCrashTest {

    @Test
    void aKilledProcessLosesAtMostWhatWasPendingSinceItsLastAcknowledgedFlush() throws Exception {
        TestDatabase database = TestDatabase.MARIADB;
        JooqStores stores = JooqStores.shared(database);
        String counter = "crash" + System.nanoTime();
        ChildJvm child = ChildJvm.start(ChildBufferedIncrementer.class, database.jdbcUrl(), database.user(),
                database.password(), stores.prefix(), counter);
        child.awaitOutput("DURABLE 20000", 2, TimeUnit.MINUTES);
        Thread.sleep(ThreadLocalRandom.current().nextInt(50, 500));
        child.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL: no shutdown hook runs

        Matcher durable = Pattern.compile("DURABLE (\\d+)").matcher(child.output());
        long acknowledged = 0;
        while (durable.find()) {
            acknowledged = Long.parseLong(durable.group(1));
        }
        long stored = stores.store().get(CounterName.of(counter));
        // After the last acknowledgement the child made at most 999 plain increments and one durable one.
        assertThat(stored).isBetween(acknowledged, acknowledged + 1_000);
        System.out.printf("killed after %d durable increments; %d stored%n", acknowledged, stored);
    }
}
