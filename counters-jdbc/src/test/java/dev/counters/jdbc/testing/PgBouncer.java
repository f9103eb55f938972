package dev.counters.jdbc.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real PgBouncer (Debian's {@code pgbouncer}, which {@code ./test} installs) in transaction pooling mode in front of
 * the embedded PostgreSQL: its own process, configured in a temporary directory, on a free port. As root it drops to
 * {@code nobody}, since PgBouncer refuses to run as root.
 */
public final class PgBouncer implements AutoCloseable {

    private static final Path BINARY = Path.of("/usr/sbin/pgbouncer");

    private final Process process;
    private final int port;
    private final Path directory;

    private PgBouncer(Process process, int port, Path directory) {
        this.process = process;
        this.port = port;
        this.directory = directory;
    }

    /** Starts one with {@code pool_mode = transaction}, at most {@code serverConnections} connections to PostgreSQL. */
    public static PgBouncer transactionMode(int serverConnections) {
        if (!Files.isExecutable(BINARY)) {
            throw new IllegalStateException(BINARY + " is missing: install Debian's pgbouncer (./test does)");
        }
        URI postgres = URI.create(EmbeddedPostgreSql.shared().jdbcUrl().substring("jdbc:".length()));
        try {
            Path directory = Files.createTempDirectory(
                    "counters-pgbouncer-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
            int port;
            try (ServerSocket socket = new ServerSocket(0)) {
                port = socket.getLocalPort();
            }
            Path config = directory.resolve("pgbouncer.ini");
            Files.writeString(
                    config,
                    String.join(
                            "\n",
                            "[databases]",
                            "postgres = host=" + postgres.getHost() + " port=" + postgres.getPort()
                                    + " dbname=postgres user=" + EmbeddedPostgreSql.USER,
                            "[pgbouncer]",
                            "listen_addr = 127.0.0.1",
                            "listen_port = " + port,
                            "unix_socket_dir =",
                            "auth_type = any",
                            "pool_mode = transaction",
                            "default_pool_size = " + serverConnections,
                            "max_client_conn = 200",
                            // pgjdbc sends it at startup; PgBouncer must let it through
                            "ignore_startup_parameters = extra_float_digits",
                            ""));
            List<String> command = new ArrayList<>(List.of(BINARY.toString(), "-q"));
            if ("root".equals(System.getProperty("user.name"))) {
                command.addAll(List.of("-u", "nobody"));
            }
            command.add(config.toString());
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(directory.resolve("pgbouncer.log").toFile())
                    .start();
            PgBouncer bouncer = new PgBouncer(process, port, directory);
            Runtime.getRuntime().addShutdownHook(new Thread(process::destroy)); // if the tests never get to close it
            bouncer.awaitListening();
            return bouncer;
        } catch (IOException e) {
            throw new IllegalStateException("Could not start pgbouncer", e);
        }
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    /** A pool through PgBouncer; {@code urlParameters} (such as {@code prepareThreshold=0}) go onto the URL. */
    public HikariDataSource newDataSource(int maxConnections, String urlParameters) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl() + (urlParameters.isEmpty() ? "" : "?" + urlParameters));
        config.setUsername(EmbeddedPostgreSql.USER);
        config.setMaximumPoolSize(maxConnections);
        config.setPoolName("counters-test-pgbouncer");
        return new HikariDataSource(config);
    }

    private void awaitListening() throws IOException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException e) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    close();
                    throw new IllegalStateException(
                            "pgbouncer did not start: " + Files.readString(directory.resolve("pgbouncer.log")), e);
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(interrupted);
                }
            }
        }
    }

    /** Stops the process and removes its directory. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder())
                    .forEach(file -> file.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind
        }
    }
}
