package dev.counters.jdbc.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * What the clusters the tests start from Debian's packages ({@link GaleraCluster}, {@link PatroniCluster}) share:
 * ports, directories their servers' users can enter, helper commands, logs, processes.
 */
final class ServerProcesses {

    /**
     * The ports handed out: 20000-31999 unless the system property {@code counters.test.ports} narrows them (for
     * example {@code 20000-20999}, so that clusters of test runs sharing a machine stay apart).
     */
    private static final int FIRST_PORT;

    private static final int PORTS;

    static {
        String[] range =
                System.getProperty("counters.test.ports", "20000-31999").split("-");
        FIRST_PORT = Integer.parseInt(range[0].trim());
        PORTS = Integer.parseInt(range[1].trim()) - FIRST_PORT + 1;
        if (FIRST_PORT < 1024 || PORTS < 1 || FIRST_PORT + PORTS > 32768) {
            throw new IllegalArgumentException(
                    "counters.test.ports must be a range within 1024-32767, was " + String.join("-", range));
        }
    }

    /** Where the next port is looked for: from a random start per JVM. */
    private static final AtomicInteger NEXT_PORT =
            new AtomicInteger(FIRST_PORT + ThreadLocalRandom.current().nextInt(PORTS));

    private ServerProcesses() {}

    /**
     * A port that is free now and outside the range the kernel picks local ports of outgoing connections from (32768
     * and up). A server listens on some ports only at times (a Galera joiner's state transfer, a node killed and
     * restarted): a port from that range (what {@code new ServerSocket(0)} gives) was once taken meanwhile by a
     * client connection, and the server could not listen on it. Ports are never handed out twice in a JVM.
     */
    static int freePort() throws IOException {
        for (int tries = 0; tries < 2_000; tries++) {
            int port = FIRST_PORT + Math.floorMod(NEXT_PORT.getAndIncrement() - FIRST_PORT, PORTS);
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(false);
                socket.bind(new InetSocketAddress("127.0.0.1", port));
                return port;
            } catch (IOException taken) {
                // in use: the next one
            }
        }
        throw new IOException("No free port between " + FIRST_PORT + " and " + (FIRST_PORT + PORTS - 1));
    }

    /**
     * Fails, saying what is missing, unless this machine can run a cluster: the files of Debian's {@code packages}
     * installed, and root, to run the servers as {@code user}. The tests never skip for want of them: {@code ./test}
     * installs the packages.
     */
    static void requireInstalled(List<Path> files, String packages, String user, String cluster) {
        for (Path needed : files) {
            if (!Files.exists(needed)) {
                throw new IllegalStateException(
                        needed + " is missing: install Debian's " + packages + " (./test does, when they are absent)");
            }
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            throw new IllegalStateException("The " + cluster + " tests run as root: they start the servers as the "
                    + user + " user (sudo ./test)");
        }
    }

    /** A new temporary directory that {@code user} may enter. */
    static Path directoryFor(String user, String prefix) throws IOException {
        Path directory = Files.createTempDirectory(prefix);
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
        for (Path parent = directory.getParent(); parent != null; parent = parent.getParent()) {
            if (!Files.getPosixFilePermissions(parent).contains(PosixFilePermission.OTHERS_EXECUTE)) {
                delete(directory);
                throw new IllegalStateException("The " + user + " user cannot enter " + parent
                        + ": set java.io.tmpdir to a directory it can reach");
            }
        }
        return directory;
    }

    /** Runs a helper command to its end, its output appended to {@code log}; fails, with the log, unless it exits 0. */
    static void run(Path log, Duration timeout, String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " failed:\n" + tail(log));
        }
    }

    /** SIGKILL to {@code process} and every process it started; waits until it is gone. */
    static void kill(Process process) throws InterruptedException {
        List<ProcessHandle> helpers = process.descendants().toList();
        process.destroyForcibly();
        helpers.forEach(ProcessHandle::destroyForcibly);
        process.waitFor(30, TimeUnit.SECONDS);
    }

    static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    /** What {@code log} gained after {@code offset}. */
    static String recent(Path log, long offset) throws IOException {
        byte[] bytes = Files.readAllBytes(log);
        return new String(bytes, (int) offset, bytes.length - (int) offset, StandardCharsets.UTF_8);
    }

    /** The last 80 lines of {@code log}, for a failure's message. */
    static String tail(Path log) {
        try (Stream<String> lines = Files.lines(log, StandardCharsets.ISO_8859_1)) {
            List<String> all = lines.toList();
            return String.join("\n", all.subList(Math.max(0, all.size() - 80), all.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    static void delete(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // best effort: a temporary directory left behind
        }
    }

    /** Takes back a shutdown hook that kills a cluster's processes, once the cluster closed them itself. */
    static void removeShutdownHook(Thread killer) {
        try {
            Runtime.getRuntime().removeShutdownHook(killer);
        } catch (IllegalStateException e) {
            // the JVM is exiting, and the hook is running or has run
        }
    }
}
