package dev.counters.spring.boot.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The project's Markdown documentation as the tests read it: README.md, CONTRIBUTING.md and docs/*.md. Public for
 * {@code CounterRulesTest}, which maps the yaml blocks.
 */
public final class Documentation {

    /** The repository's root, from the module's directory, where Maven runs the tests. */
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static final Pattern FENCE = Pattern.compile("^(\\s*)```(\\S*)\\s*$");
    private static final Pattern COMMENT = Pattern.compile("^\\s*<!--\\s*(.*?)\\s*-->\\s*$");

    private Documentation() {}

    static List<Path> files() {
        List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CONTRIBUTING.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            files.addAll(docs.filter(file -> file.toString().endsWith(".md"))
                    .sorted()
                    .collect(Collectors.toList()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A file's path from the repository's root, as messages name it. */
    static String name(Path file) {
        return ROOT.relativize(file).toString();
    }

    /**
     * A fenced code block: its language, the HTML comment on the line before it (or null), its code without the
     * fence's indentation, and the line of its first line of code.
     */
    public record Block(Path file, int line, String language, String hint, String code) {

        public String where() {
            return name(file) + ":" + line;
        }
    }

    static List<Block> blocks(Path file) {
        List<String> lines = lines(file);
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i));
            if (!open.matches() || open.group(2).isEmpty()) {
                continue;
            }
            String indent = open.group(1);
            String hint = null;
            for (int j = i - 1; j >= 0; j--) {
                if (!lines.get(j).isBlank()) {
                    Matcher comment = COMMENT.matcher(lines.get(j));
                    hint = comment.matches() ? comment.group(1) : null;
                    break;
                }
            }
            StringBuilder code = new StringBuilder();
            int j = i + 1;
            for (; j < lines.size() && !lines.get(j).strip().equals("```"); j++) {
                String line = lines.get(j);
                code.append(line.startsWith(indent) ? line.substring(indent.length()) : line.strip())
                        .append('\n');
            }
            blocks.add(new Block(file, i + 2, open.group(2), hint, code.toString()));
            i = j;
        }
        return blocks;
    }

    public static List<Block> blocks(String language) {
        return files().stream()
                .flatMap(file -> blocks(file).stream())
                .filter(block -> block.language().equals(language))
                .collect(Collectors.toList());
    }

    /**
     * A file's prose: its lines outside code blocks, with inline code blanked out (so that neither links nor headings
     * are read from code), by line number from 1; code lines are empty.
     */
    static List<String> prose(Path file) {
        List<String> prose = new ArrayList<>();
        boolean inCode = false;
        for (String line : lines(file)) {
            if (line.strip().startsWith("```")) {
                inCode = !inCode;
                prose.add("");
            } else {
                prose.add(inCode ? "" : line.replaceAll("`[^`]*`", "``"));
            }
        }
        return prose;
    }
}
