package dev.counters.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.testing.Admissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * CI's seconds-long run of the rate-limit report's limiters on the test servers: each decides, keeps within its
 * bound at its limit, in one process and in two with one killed; and the bound check catches a limiter that admits
 * too much.
 */
class RateLimitSmokeTest {

    private static final RateLimitWorkload.Limit LIMIT = new RateLimitWorkload.Limit(20, Duration.ofSeconds(1));

    static List<Arguments> limitersOnDatabases() {
        List<Arguments> all = new ArrayList<>();
        for (BenchDatabase database : List.of(BenchDatabase.MARIADB, BenchDatabase.POSTGRES)) {
            for (RateLimitWorkload.Kind kind : RateLimitReport.kinds()) {
                all.add(Arguments.of(database, kind.name()));
            }
        }
        return all;
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("limitersOnDatabases")
    void everyLimiterKeepsWithinItsBoundAtItsLimit(BenchDatabase database, String limiter) throws Exception {
        RateLimitDriver.Result result = RateLimitDriver.run(
                database,
                RateLimitReport.kind(limiter),
                RateLimitReport.LIMITED,
                LIMIT,
                4,
                1,
                Duration.ofMillis(100),
                Duration.ofMillis(1_500));

        assertThat(result.errors()).as(result.line()).isZero();
        assertThat(result.admitted()).as(result.line()).isPositive();
        assertThat(result.refused()).as(result.line()).isPositive();
        assertThat(result.most()).as(result.line()).isLessThanOrEqualTo(result.bound());
        if (RateLimitReport.kind(limiter).fixedWindow()) {
            // A fixed window admits its permits within microseconds of its start, inside the clock tolerance of its
            // edge, so no window may certainly hold an admission (most = 0). Bound the whole run instead: it touches
            // at most the windows its span, widened by the tolerance on each side, reaches.
            double period = LIMIT.period().toNanos() / 1e9;
            double tolerance = 2 * Admissions.CLOCK_TOLERANCE_MICROS / 1e6;
            long windows = (long) Math.floor((result.seconds() + tolerance) / period) + 2;
            assertThat(result.admitted()).as(result.line()).isLessThanOrEqualTo(LIMIT.permits() * windows);
        } else {
            assertThat(result.most()).as(result.line()).isPositive();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"gcra", "bucket4j"})
    void decidesOnManyKeys(String limiter) throws Exception {
        RateLimitDriver.Result result = RateLimitDriver.run(
                BenchDatabase.POSTGRES,
                RateLimitReport.kind(limiter),
                RateLimitReport.SPREAD,
                RateLimitReport.UNREFUSED,
                4,
                100,
                Duration.ofMillis(100),
                Duration.ofMillis(300));

        assertThat(result.errors()).as(result.line()).isZero();
        assertThat(result.decisions()).as(result.line()).isPositive().isEqualTo(result.admitted());
    }

    @ParameterizedTest
    @ValueSource(strings = {"gcra", "bucket4j"})
    void twoProcessesOneKilledKeepWithinTheBound(String limiter) throws Exception {
        RateLimitDriver.Result result = RateLimitProcesses.run(
                BenchDatabase.MARIADB, RateLimitReport.kind(limiter), LIMIT, 2, 2, Duration.ofSeconds(3));

        assertThat(result.errors()).as(result.line()).isZero();
        assertThat(result.admitted()).as(result.line()).isGreaterThan(LIMIT.permits());
        assertThat(result.most()).as(result.line()).isLessThanOrEqualTo(result.bound());
    }

    @Test
    void theBoundCheckCatchesALimiterThatAdmitsTooMuch() throws Exception {
        RateLimitWorkload.Kind everything = new RateLimitWorkload.Kind(
                "everything",
                "admits every call",
                false,
                (dataSource, database, limit, tables, create) -> new RateLimitWorkload() {
                    @Override
                    public boolean tryAcquire(String key) throws InterruptedException {
                        Thread.sleep(1); // a few hundred admissions a second: far over the limit
                        return true;
                    }

                    @Override
                    public void close() {}
                });
        RateLimitDriver.Result result = RateLimitDriver.run(
                BenchDatabase.H2,
                everything,
                RateLimitReport.LIMITED,
                LIMIT,
                2,
                1,
                Duration.ofMillis(50),
                Duration.ofMillis(300));

        assertThat(result.most()).as(result.line()).isGreaterThan(result.bound());
        assertThat(result.overAdmitted()).isEqualTo(result.most() - result.bound());
    }
}
