package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.spi.DatabaseClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The database's clock, as every database tells it: in UTC, whatever the session's time zone. */
class DatabaseTimeTest {

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void theDatabasesClockIsReadInUtc(TestDatabase database) {
        JooqCounterStore store = JooqStores.shared(database).store();
        assertThat(store.capability(DatabaseClock.class)).containsSame(store);
        Instant before = Instant.now();
        Instant read = store.databaseTime();
        Instant after = Instant.now();
        // The servers run on this host's clock; a zone mix-up would be off by hours.
        assertThat(read).isBetween(before.minus(Duration.ofSeconds(2)), after.plus(Duration.ofSeconds(2)));
    }
}
