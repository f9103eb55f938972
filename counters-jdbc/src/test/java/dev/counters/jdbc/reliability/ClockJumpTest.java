package dev.counters.jdbc.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.NodeIdInUseException;
import dev.counters.contract.MutableClock;
import dev.counters.history.CounterChecker;
import dev.counters.history.History;
import dev.counters.history.UniqueDeltas;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.MySqlFaultProxy;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.ShardedSettings;
import dev.counters.strategy.StrategySettings;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The wall clock jumps, as NTP steps or a resumed VM make it do: flush windows, retention of idempotency keys and
 * delta ids, leases and cache expiry must stay safe. Strategies get a {@link MutableClock} the test moves by days,
 * forwards and back, while a proxy also cuts connections at commits.
 */
class ClockJumpTest {

    @Test
    @SuppressWarnings("try") // stops the workload inside the block, before the checks
    void flushesAndDeltaLogRetriesStayExactlyOnceWhileTheClockJumpsDaysEitherWay() throws Exception {
        String prefix = FaultyMariaDb.freshSchema();
        MutableClock clock = new MutableClock();
        long seed = ThreadLocalRandom.current().nextLong();
        History history = new History();
        List<String> counters = Workload.names("jump.", 32);
        try (MySqlFaultProxy proxy = FaultyMariaDb.proxy(seed);
                HikariDataSource pool = FaultyMariaDb.pool(proxy.port(), 8)) {
            JooqCounterStore store =
                    JooqCounterStore.builder(pool).tablePrefix(prefix).build();
            StrategySettings buffered = BufferedSettings.defaults().withFlushInterval(Duration.ofMillis(5));
            StrategySettings deltaLog = DeltaLogSettings.defaults().withRecountAtDeltas(20);
            try (CounterService service = CounterService.builder(store)
                            .clock(clock)
                            .strategy("jump.1*", deltaLog)
                            .strategy("jump.2*", deltaLog)
                            .defaultStrategy(buffered)
                            .build();
                    Workload workload = new Workload().pauseBetweenOperations(Duration.ofMillis(1))) {
                proxy.inject(0.1, 0.03, 0, 300);
                workload.increments(
                        service, history, counters, UniqueDeltas.between(new Random(seed), 1, 1L << 30, false), 4);
                long jumps = 0;
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
                while (System.nanoTime() < until) {
                    Thread.sleep(20);
                    // Up to 30 days either way: beyond the 7-day key retention and the 10-minute delta retention.
                    clock.advance(Duration.ofMinutes(ThreadLocalRandom.current().nextLong(-43_200, 43_200)));
                    jumps++;
                }
                workload.close();
                proxy.stopInjecting();
                // A clock set back by days must not stall flushing: the flush interval runs on elapsed time.
                clock.advance(Duration.ofDays(-60));
                assertThat(history.add(
                                counters.get(0),
                                1,
                                () -> service.incrementDurably(counters.get(0), 1)
                                        .orTimeout(10, TimeUnit.SECONDS)
                                        .join()))
                        .isEqualTo(History.Outcome.OK);
                ReliabilityReport.row(
                        "clock jumps",
                        "buffered and delta-log",
                        jumps + " jumps of up to 30 days either " + "way, " + proxy.injected() + " faults, "
                                + history.count(History.Outcome.OK) + " increments");
            }
            JooqCounterStore reader = FaultyMariaDb.storedAt(prefix);
            List<CounterChecker.Result> results =
                    CounterChecker.checkAll(history, counter -> JooqStores.total(reader, counter));
            assertThat(results)
                    .allSatisfy(result ->
                            assertThat(result.valid()).as(result.toString()).isTrue());
            assertThat(proxy.injected()).isPositive();
        }
    }

    @Test
    void aClockJumpGivesNobodyTheNodeIdOfALiveHolder() throws Exception {
        // On MariaDB the claim is a session lock: no clock decides when it ends. (A lease, as on H2, is taken over by
        // a clock past its TTL, and its former holder then refuses; the strategy contract tests that with a clock.)
        String prefix = FaultyMariaDb.freshSchema();
        JooqCounterStore store = FaultyMariaDb.storedAt(prefix);
        MutableClock clockA = new MutableClock();
        MutableClock clockB = new MutableClock();
        StrategySettings node = NodeSettings.defaults().withNodeId("shared").withLeaseTtl(Duration.ofSeconds(3));
        History history = new History();
        int refusedStarts = 0;
        try (CounterService a = CounterService.builder(store)
                .clock(clockA)
                .defaultStrategy(node)
                .build()) {
            history.add("n", 5, () -> a.increment("n", 5));
            for (Duration jump : List.of(Duration.ofHours(1), Duration.ofDays(30), Duration.ofDays(-60))) {
                clockB.advance(jump);
                assertThatThrownBy(() -> CounterService.builder(store)
                                .clock(clockB)
                                .defaultStrategy(node)
                                .build())
                        .isInstanceOf(NodeIdInUseException.class);
                refusedStarts++;
            }
            clockA.advance(Duration.ofDays(-1));
            // Past three of its claim checks (one a second), the holder still counts.
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3_500);
            while (System.nanoTime() < until) {
                assertThat(history.add("n", 11, () -> a.increment("n", 11))).isEqualTo(History.Outcome.OK);
                Thread.sleep(50);
            }
        }
        CounterChecker.Result result = CounterChecker.check(history, "n", store.get(CounterName.of("n")));
        ReliabilityReport.row(
                "clock jumps",
                "node claim",
                "clocks 1 h, 30 days ahead and 30 days back took nothing from"
                        + " a live holder (a session lock): " + refusedStarts
                        + " starts refused; the holder's clock set back a"
                        + " day, then " + (result.ok() - 1) + " more increments, all acknowledged; "
                        + (result.valid() ? "exact" : "VIOLATED"));
        assertThat(result.valid()).as(result.toString()).isTrue();
    }

    @Test
    void aClockSetBackDoesNotKeepACachedTotalPastItsExpiry() {
        String prefix = FaultyMariaDb.freshSchema();
        JooqCounterStore store = FaultyMariaDb.storedAt(prefix);
        MutableClock clock = new MutableClock();
        StrategySettings cached = ShardedSettings.defaults().withCachedTotalExpiry(Duration.ofSeconds(1));
        try (CounterService reader = CounterService.builder(store)
                        .clock(clock)
                        .defaultStrategy(cached)
                        .build();
                CounterService writer = CounterService.builder(store)
                        .defaultStrategy(ShardedSettings.defaults())
                        .build()) {
            writer.increment("cached", 10);
            assertThat(reader.get("cached")).isEqualTo(10);
            writer.increment("cached", 5); // another node: the reader's cache does not see it
            assertThat(reader.get("cached")).isEqualTo(10);
            clock.advance(Duration.ofHours(-1)); // NTP steps the clock back an hour, while the reads go on...
            assertThat(reader.get("cached")).isEqualTo(10);
            clock.advance(Duration.ofMillis(1_100)); // ...then 1.1 s pass: the cached total has expired
            assertThat(reader.get("cached")).isEqualTo(15);
        }
        ReliabilityReport.row(
                "clock jumps",
                "sharded cached total",
                "a clock set back 1 h: the cached total still " + "expired after its 1 s | ok");
    }
}
