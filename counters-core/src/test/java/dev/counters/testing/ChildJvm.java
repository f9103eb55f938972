package dev.counters.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Starts a {@code main} class of the test classpath in a separate JVM: a second application node. */
public final class ChildJvm {

    private final Process process;
    private final Path output;

    private ChildJvm(Process process, Path output) {
        this.process = process;
        this.output = output;
    }

    public static ChildJvm start(Class<?> mainClass, String... args) throws IOException {
        return start(java.util.Map.of(), mainClass, args);
    }

    /** A child JVM with {@code environment} added to this one's (LD_PRELOAD and FAKETIME for a shifted clock). */
    public static ChildJvm start(java.util.Map<String, String> environment, Class<?> mainClass, String... args)
            throws IOException {
        return start(classPath(), environment, mainClass, args);
    }

    /** The test class path, as entries: to start a child on a changed one (another version of a library). */
    public static List<String> classPath() {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        return List.of(classPath.split(java.io.File.pathSeparator));
    }

    /**
     * The test class path with {@code replacement} in place of the jars of the library {@code artifactId} (another
     * version of it: {@code jooq} matches jooq-3.19.39.jar, not jooq-codegen-3.19.39.jar).
     */
    public static List<String> classPathReplacing(String artifactId, Path replacement) {
        String jar = java.util.regex.Pattern.quote(artifactId) + "-\\d+(\\.\\d+)*\\.jar";
        List<String> replaced = new ArrayList<>();
        for (String entry : classPath()) {
            Path name = Path.of(entry).getFileName();
            boolean matches = name != null && name.toString().matches(jar);
            replaced.add(matches ? replacement.toAbsolutePath().toString() : entry);
        }
        if (!replaced.contains(replacement.toAbsolutePath().toString())) {
            throw new IllegalStateException(artifactId + " is not on the test class path: " + classPath());
        }
        return replaced;
    }

    /** A child JVM on {@code classPath} instead of this one's. */
    public static ChildJvm start(
            List<String> classPath, java.util.Map<String, String> environment, Class<?> mainClass, String... args)
            throws IOException {
        return start(String.join(java.io.File.pathSeparator, classPath), environment, mainClass, args);
    }

    private static ChildJvm start(
            String classPath, java.util.Map<String, String> environment, Class<?> mainClass, String... args)
            throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-cp", classPath, mainClass.getName()));
        command.addAll(List.of(args));
        Path output = Files.createTempFile("counters-child-", ".log");
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().putAll(environment);
        Process process = builder.start();
        return new ChildJvm(process, output);
    }

    /** Waits until the child has printed {@code text} (for example that it is ready to start). */
    public void awaitOutput(String text, long timeout, TimeUnit unit) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (!Files.readString(output).contains(text)) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError("Child JVM did not print '" + text + "':\n" + Files.readString(output));
            }
            Thread.sleep(20);
        }
    }

    /** Waits for the child to exit with status 0 and returns what it printed. */
    public String awaitSuccess(long timeout, TimeUnit unit) throws IOException, InterruptedException {
        if (!process.waitFor(timeout, unit)) {
            process.destroyForcibly();
            throw new AssertionError("Child JVM did not finish in time:\n" + Files.readString(output));
        }
        String printed = Files.readString(output);
        if (process.exitValue() != 0) {
            throw new AssertionError("Child JVM exited with " + process.exitValue() + ":\n" + printed);
        }
        return printed;
    }

    /** What the child printed so far. */
    public String output() throws IOException {
        return Files.readString(output);
    }

    public Process process() {
        return process;
    }
}
