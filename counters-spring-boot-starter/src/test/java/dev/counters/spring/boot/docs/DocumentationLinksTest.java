package dev.counters.spring.boot.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the docs leads somewhere: its file exists, and its anchor is a heading of that file, named
 * as GitHub names headings' anchors.
 */
class DocumentationLinksTest {

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

    @Test
    void everyRelativeLinkAndAnchorResolves() {
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (Path file : Documentation.files()) {
            List<String> prose = Documentation.prose(file);
            for (int i = 0; i < prose.size(); i++) {
                Matcher link = LINK.matcher(prose.get(i));
                while (link.find()) {
                    links++;
                    String problem = problem(file, link.group(1));
                    if (problem != null) {
                        broken.add(Documentation.name(file) + ":" + (i + 1) + ": (" + link.group(1) + ") " + problem);
                    }
                }
            }
        }
        assertThat(links).as("links read").isGreaterThan(100);
        assertThat(broken).as("broken links").isEmpty();
    }

    @Test
    void theReadmeLinksEveryDocsPage() {
        String readme = String.join("\n", Documentation.prose(Documentation.ROOT.resolve("README.md")));
        assertThat(Documentation.files())
                .filteredOn(file -> file.getParent().endsWith("docs"))
                .allSatisfy(page -> assertThat(readme).contains("](docs/" + page.getFileName() + ")"));
    }

    @Test
    void anchorsAreNamedAsGitHubNamesThem() {
        assertThat(anchors(List.of(
                        "## Galera (multi-master MariaDB)",
                        "### Changing a counter's strategy",
                        "### `delta-log`",
                        "## Which DataSource",
                        "## Setup",
                        "```",
                        "## Setup",
                        "```",
                        "## Setup")))
                .containsExactlyInAnyOrder(
                        "galera-multi-master-mariadb",
                        "changing-a-counters-strategy",
                        "delta-log",
                        "which-datasource",
                        "setup",
                        "setup-1");
    }

    /** What is wrong with a link from a file, or null when nothing is. */
    private static String problem(Path file, String target) {
        if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
            return null; // https:, mailto:: not checked here
        }
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        Path linked = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
        if (!Files.exists(linked)) {
            return "no such file: " + Documentation.name(linked);
        }
        if (hash < 0) {
            return null;
        }
        String anchor = target.substring(hash + 1);
        if (!linked.toString().endsWith(".md")) {
            return "an anchor into a file that is not Markdown";
        }
        Set<String> anchors = anchors(Documentation.lines(linked));
        return anchors.contains(anchor)
                ? null
                : "no heading with anchor #" + anchor + " in " + Documentation.name(linked);
    }

    /** The anchors of a file's headings, as GitHub makes them: lower case, punctuation dropped, spaces to hyphens. */
    private static Set<String> anchors(List<String> lines) {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inCode = false;
        for (String line : lines) {
            if (line.strip().startsWith("```")) {
                inCode = !inCode;
                continue;
            }
            Matcher heading = HEADING.matcher(line);
            if (inCode || !heading.matches()) {
                continue;
            }
            String text = heading.group(1).replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
            String anchor = text.toLowerCase(Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N} _-]", "")
                    .replace(' ', '-');
            int count = seen.merge(anchor, 1, Integer::sum);
            anchors.add(count == 1 ? anchor : anchor + "-" + (count - 1));
        }
        return anchors;
    }
}
