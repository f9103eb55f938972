package dev.counters.spring.boot.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.spring.boot.CountersEndpointProperties;
import dev.counters.spring.boot.CountersProperties;
import dev.counters.spring.boot.docs.Documentation.Block;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

/**
 * Every {@code java} block of the docs compiles against the library, and every {@code yaml} block binds to the
 * starter's properties, unknown keys failing, so that the docs cannot drift from the API. CONTRIBUTING.md
 * ("Snippets in the docs are tested") describes the convention: a block is the members of a class, unless an HTML
 * comment before it says {@code <!-- java: statements; Type field; ... -->} or {@code <!-- java: file -->}.
 */
class DocumentationSnippetsTest {

    /** What every snippet may use without importing it. */
    static final List<String> IMPORTS = List.of(
            "dev.counters.*",
            "dev.counters.strategy.*",
            "dev.counters.sequence.*",
            "dev.counters.spi.*",
            "dev.counters.jdbc.*",
            "dev.counters.redis.*",
            "dev.counters.spring.boot.*",
            "java.time.*",
            "java.util.*",
            "javax.sql.*",
            "org.springframework.beans.factory.annotation.*",
            "org.springframework.context.annotation.*",
            "org.springframework.boot.context.properties.*",
            "org.springframework.boot.jdbc.*");

    /** Where the build copies libraries that only snippets use (Spring Security), kept off the test classpath. */
    private static final Path SNIPPETS_CLASSPATH = Path.of("target", "documentation-snippets-classpath");

    /** The sources of counters-spring-boot-starter-test, whose test support the docs show. */
    private static final Path STARTER_TEST_SOURCES =
            Path.of("..", "counters-spring-boot-starter-test", "src", "main", "java");

    @Test
    void everyJavaSnippetCompiles(@TempDir Path classes) throws IOException {
        List<Block> blocks = Documentation.blocks("java");
        assertThat(blocks).as("java blocks").hasSizeGreaterThan(5);
        List<Snippet> snippets = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            snippets.add(new Snippet(i, blocks.get(i)));
        }
        assertThat(compile(snippets, classes)).as("compiler errors").isEmpty();
    }

    @Test
    void everyYamlSnippetBindsToTheStartersPropertiesWithoutAnUnknownKey() throws IOException {
        List<Block> blocks = Documentation.blocks("yaml");
        assertThat(blocks).as("yaml blocks").hasSizeGreaterThan(5);
        List<String> failures = new ArrayList<>();
        for (Block block : blocks) {
            try {
                bind(block);
            } catch (RuntimeException e) {
                failures.add(block.where() + ": " + causes(e));
            }
        }
        assertThat(failures).as("yaml blocks that do not bind").isEmpty();
    }

    /** The checks can fail: a snippet that calls what the API lacks, or a key the starter does not know. */
    @Test
    void aBrokenSnippetFailsNamingItsLine(@TempDir Path classes) throws IOException {
        Path readme = Documentation.ROOT.resolve("README.md");
        Block java = new Block(
                readme,
                10,
                "java",
                "java: statements; CounterService counters",
                "counters.increment(\"a\");\ncounters.incrementAndGot(\"a\", 1);\n");
        assertThat(compile(List.of(new Snippet(0, java)), classes))
                .singleElement()
                .asString()
                .startsWith("README.md:11: ")
                .contains("incrementAndGot");
        for (String yaml : List.of(
                "counters:\n  shardd:\n    shards: 16\n",
                "counters:\n  counters:\n    page-views:\n      strategy: sharded\n      shards: 16\n",
                "management:\n  endpoint:\n    counters:\n      show-value: always\n")) {
            Block block = new Block(readme, 1, "yaml", null, yaml);
            assertThatThrownBy(() -> bind(block)).as(yaml).isInstanceOf(BindException.class);
        }
    }

    /** Loads a block as Spring Boot loads application.yml, and binds what the starter reads of it, strictly. */
    static void bind(Block block) throws IOException {
        List<PropertySource<?>> sources = new YamlPropertySourceLoader()
                .load(block.where(), new ByteArrayResource(block.code().getBytes(StandardCharsets.UTF_8)));
        // The endpoint's access is Boot's own property of every endpoint, not one of CountersEndpointProperties.
        List<ConfigurationPropertySource> properties = new ArrayList<>();
        ConfigurationPropertySources.from(sources)
                .forEach(source -> properties.add(
                        source.filter(name -> !name.toString().equals("management.endpoint.counters.access"))));
        Binder binder = new Binder(properties);
        BindHandler strict = new NoUnboundElementsBindHandler(BindHandler.DEFAULT);
        binder.bind("counters", Bindable.of(CountersProperties.class), strict);
        binder.bind("management.endpoint.counters", Bindable.of(CountersEndpointProperties.class), strict);
    }

    /** Compiles the snippets in one run; returns the errors, each naming the doc's file and line. */
    static List<String> compile(List<Snippet> snippets, Path classes) throws IOException {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        // The test module's sources (@AutoConfigureCounters): it depends on the starter, so it is built after it.
        List<String> options = List.of(
                "-proc:none",
                "-d",
                classes.toString(),
                "-classpath",
                classpath(),
                "-sourcepath",
                STARTER_TEST_SOURCES.toString());
        boolean compiled = compiler.getTask(null, null, diagnostics, options, null, snippets)
                .call();
        List<String> errors = diagnostics.getDiagnostics().stream()
                .filter(diagnostic -> diagnostic.getKind() == Diagnostic.Kind.ERROR)
                .map(diagnostic -> ((Snippet) diagnostic.getSource()).describe(diagnostic))
                .collect(Collectors.toList());
        assertThat(compiled || !errors.isEmpty())
                .as("a failed compilation reports its errors")
                .isTrue();
        return errors;
    }

    private static String classpath() throws IOException {
        List<String> entries = new ArrayList<>(
                Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator)));
        try (Stream<Path> jars = Files.list(SNIPPETS_CLASSPATH)) {
            jars.map(Path::toString).sorted().forEach(entries::add);
        }
        return String.join(File.pathSeparator, entries);
    }

    private static String causes(Throwable e) {
        StringBuilder message = new StringBuilder();
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            message.append(message.length() == 0 ? "" : " <- ").append(cause.getMessage());
        }
        return message.toString();
    }

    /** A java block as a source file: in a package of its own, so that the names of snippets never collide. */
    static final class Snippet extends SimpleJavaFileObject {

        private final Block block;
        private final String source;
        private final int firstLine;

        Snippet(int index, Block block) {
            super(URI.create("string:///snippet" + index + "/Snippet.java"), Kind.SOURCE);
            this.block = block;
            String[] hint = block.hint() == null || !block.hint().startsWith("java:")
                    ? new String[] {"members"}
                    : block.hint().substring("java:".length()).split(";");
            String kind = hint[0].strip();
            StringBuilder header = new StringBuilder("package snippet" + index + ";\n");
            IMPORTS.forEach(name -> header.append("import ").append(name).append(";\n"));
            StringBuilder members = new StringBuilder();
            for (String item : Arrays.asList(hint).subList(1, hint.length)) {
                String declaration = item.strip();
                if (declaration.startsWith("import ")) {
                    header.append(declaration).append(";\n");
                } else if (!declaration.isEmpty()) {
                    members.append(declaration).append(declaration.endsWith("}") ? "\n" : ";\n");
                }
            }
            switch (kind) {
                case "file":
                    break;
                case "members":
                    header.append("class Snippet {\n").append(members);
                    break;
                case "statements":
                    header.append("class Snippet {\n").append(members).append("void snippet() throws Exception {\n");
                    break;
                default:
                    throw new IllegalArgumentException(block.where() + ": unknown kind of java block '" + kind
                            + "' (members, statements or file)");
            }
            // A file's declarations go after it, as top-level types.
            String footer = kind.equals("file") ? "\n" + members : kind.equals("members") ? "}\n" : "}\n}\n";
            this.firstLine = (int) header.chars().filter(c -> c == '\n').count() + 1;
            this.source = header + block.code() + footer;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return source;
        }

        String describe(Diagnostic<? extends JavaFileObject> diagnostic) {
            long line = diagnostic.getLineNumber() - firstLine + block.line();
            return Documentation.name(block.file()) + ":" + line + ": " + diagnostic.getMessage(null);
        }
    }
}
