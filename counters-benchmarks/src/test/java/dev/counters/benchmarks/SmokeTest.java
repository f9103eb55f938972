package dev.counters.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** CI's seconds-long run of the load driver: every workload runs, and every exact one ends exact. */
class SmokeTest {

    @Test
    void everyWorkloadRunsAndEndsExact() throws Exception {
        // smoke() leaves out the Redis workloads without a redis-server: the test fails instead of passing on less.
        assertThat(RedisWorkload.available())
                .as("redis-server is not on the PATH: the monotonic-redis workloads need "
                        + "Debian's redis-server package (./test installs it)")
                .isTrue();
        List<LoadResult> results = Benchmarks.smoke();

        assertThat(results)
                .extracting(LoadResult::workload)
                .contains(
                        "atomic",
                        "optimistic",
                        "sharded",
                        "node",
                        "node-2",
                        "node-4",
                        "buffered",
                        "buffered-durable",
                        "delta-log",
                        "monotonic",
                        "plain-update",
                        "jdbc-update",
                        "jdbc-insert",
                        "jdbc-cas",
                        "jpa-version",
                        "sequence-block",
                        "sequence-gapless",
                        "auto-increment",
                        "db-sequence",
                        "monotonic-redis-3",
                        "monotonic-redis-3-chance-0.01",
                        "bounded",
                        "bounded-4",
                        "bounded-pool",
                        "bounded-pool-4",
                        "guarded-update",
                        "guarded-update-4",
                        "redis-bounded-always");
        assertThat(results).allSatisfy(result -> {
            assertThat(result.correct()).as(result.line()).isTrue();
            assertThat(result.operations()).as(result.line()).isPositive();
            assertThat(result.statementsPerOperation()).as(result.line()).isGreaterThanOrEqualTo(0);
        });
        // The flush profile: buffered workloads' flushes in the window, taken from the strategy; none for the others.
        assertThat(results)
                .filteredOn(r -> r.workload().equals("buffered-durable"))
                .allSatisfy(result -> {
                    assertThat(result.flushes().count()).as(result.line()).isPositive();
                    assertThat(result.flushes().count()).as(result.line()).isLessThanOrEqualTo(result.operations() + 1);
                    assertThat(result.flushes().meanMicros()).as(result.line()).isPositive();
                });
        assertThat(results)
                .filteredOn(r -> r.workload().equals("atomic"))
                .isNotEmpty()
                .allSatisfy(result -> assertThat(result.flushes()).isEqualTo(Flushes.NONE));
    }

    @Test
    void theExactnessCheckCatchesALostIncrement() throws Exception {
        Workload.Kind losing = new Workload.Kind(
                "losing",
                "drops every 100th acknowledged increment",
                setup -> new PlainUpdateWorkload(setup.dataSource(), setup.counters()) {
                    private final java.util.concurrent.atomic.AtomicLong calls =
                            new java.util.concurrent.atomic.AtomicLong();

                    @Override
                    public void increment(int counter) throws Exception {
                        if (calls.incrementAndGet() % 100 != 0) {
                            super.increment(counter);
                        }
                    }
                });
        LoadResult result = LoadDriver.run(
                BenchDatabase.H2, losing, 2, 1, java.time.Duration.ofMillis(50), java.time.Duration.ofMillis(300));
        assertThat(result.operations()).isGreaterThan(100);
        assertThat(result.correct()).isFalse();
    }

    @Test
    void aSellOutSellsEveryUnitOnceAndLeavesNothing() throws Exception {
        List<SellOut.Result> results = Benchmarks.smokeSellOuts();

        assertThat(results)
                .extracting(SellOut.Result::workload)
                .containsExactly("bounded", "bounded-4", "guarded-update", "redis-bounded-always");
        assertThat(results).allSatisfy(result -> {
            assertThat(result.exact()).as(result.line()).isTrue();
            assertThat(result.sold()).as(result.line()).isEqualTo(Benchmarks.SMOKE_STOCK);
        });
    }

    @Test
    void theSellOutCatchesAStockSoldBelowZero() throws Exception {
        // The guard a shop gets wrong: v >= 0 lets the last unit go twice.
        class Overselling extends PlainUpdateWorkload implements SellOut.Stock {
            Overselling(Workload.Setup setup, long stock) throws Exception {
                super(List.of(setup.dataSource()), 1, new Rows(stock, "SET v = v - 1 WHERE id = ? AND v >= 0", -1));
            }
        }
        SellOut.Result result =
                SellOut.run(BenchDatabase.H2, new SellOut.Kind("overselling", "v >= 0", Overselling::new), 100, 4);

        assertThat(result.sold()).isEqualTo(101);
        assertThat(result.value()).isEqualTo(-1);
        assertThat(result.exact()).isFalse();
    }

    @Test
    void durationsAreReadInMillisecondsOrSeconds() {
        assertThat(Benchmarks.duration("250ms").toMillis()).isEqualTo(250);
        assertThat(Benchmarks.duration("1.5s").toMillis()).isEqualTo(1_500);
    }
}
