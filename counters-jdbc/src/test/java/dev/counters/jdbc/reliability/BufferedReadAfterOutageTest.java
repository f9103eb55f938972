package dev.counters.jdbc.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterService;
import dev.counters.CountersException;
import dev.counters.IdempotencyKey;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.MariaDbProcess;
import dev.counters.strategy.BufferedSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 31, item 2: a buffered {@code incrementAndGet} takes the delta into the buffer, then reads. With the MariaDB
 * server stopped the read fails; the caller must never hear "not applied" of a delta the buffer took, since a caller
 * who believes it repeats the call and counts again. Every call is stored once the server is back.
 */
class BufferedReadAfterOutageTest {

    private final MariaDbProcess server = FaultyMariaDb.server();

    @Test
    void incrementAndGetDuringAnOutageNeverSaysNotAppliedOfABufferedDelta() throws Exception {
        String prefix = FaultyMariaDb.freshSchema();
        int calls = 10;
        List<String> answers = new ArrayList<>();
        try (HikariDataSource pool = FaultyMariaDb.pool(server.port(), 4)) {
            JooqCounterStore store =
                    JooqCounterStore.builder(pool).tablePrefix(prefix).build();
            BufferedSettings hourly = BufferedSettings.defaults().withFlushInterval(Duration.ofHours(1));
            try (CounterService counters =
                    CounterService.builder(store).defaultStrategy(hourly).build()) {
                counters.incrementDurably("likes.1", 1).get(30, TimeUnit.SECONDS);
                server.kill();
                try {
                    for (int i = 0; i < calls; i++) {
                        try {
                            long value = i % 2 == 0
                                    ? counters.incrementAndGet("likes.1", 1)
                                    : counters.incrementAndGet("likes.1", 1, IdempotencyKey.of("like-" + i));
                            answers.add("value " + value);
                        } catch (CountersException e) {
                            answers.add(e.getClass().getSimpleName() + ", mayHaveBeenApplied " + e.mayHaveBeenApplied()
                                    + ": " + e.getMessage());
                        }
                    }
                } finally {
                    server.restart();
                }
                assertThat(answers)
                        .as("a caller who believes 'not applied' repeats the call and counts again")
                        .noneMatch(answer -> answer.contains("mayHaveBeenApplied false"));
                counters.flush().get(60, TimeUnit.SECONDS);
                assertThat(counters.getExact("likes.1"))
                        .as("every call was taken, once")
                        .isEqualTo(1 + calls);
            }
        }
        ReliabilityReport.row(
                "server stopped",
                "buffered incrementAndGet",
                calls + " calls with the server down: "
                        + answers.stream().filter(a -> a.startsWith("value")).count()
                        + " returned a value, the rest 'may have been applied'; " + (1 + calls)
                        + " stored after the restart, as due");
    }
}
