package dev.counters.jdbc.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A real PostgreSQL cluster managed by Patroni, on loopback, from Debian's {@code patroni}, {@code etcd-server} and
 * {@code postgresql-15}: one etcd member and (by default) three PostgreSQL 15 nodes, each run by its own Patroni, in a
 * temporary directory, as the {@code postgres} user ({@code runuser}: PostgreSQL refuses to run as root, and CI runs
 * as root). Debian's own {@code postgresql@15-main} cluster and etcd service are never started or used.
 *
 * <p>A test can {@link #kill} a node with SIGKILL, its postmaster and its Patroni, so that it stays down until
 * {@link #restart}ed (a killed primary comes back as a standby, by {@code pg_rewind}); Patroni promotes a standby once
 * the leader key expires ({@value #TTL_SECONDS} s). {@link #switchover} hands the primary over with
 * {@code patronictl}. Applications connect through pgJDBC's multi-host URL ({@link #jdbcUrl()}), which finds the
 * primary by itself.
 *
 * <p>Failure detection is short, as a test needs it: {@code ttl} {@value #TTL_SECONDS} s, {@code loop_wait} 1 s,
 * {@code retry_timeout} 4 s (Patroni wants {@code loop_wait + 2 × retry_timeout ≤ ttl}, or a slow etcd demotes the
 * primary). {@code fsync} stays on: a commit acknowledged by the primary is on its disk, and in synchronous mode on a
 * standby's.
 */
public final class PatroniCluster implements AutoCloseable {

    public static final String DATABASE = "counters";
    /** The application's user, not a superuser, as in production; its password is {@link #PASSWORD}. */
    public static final String USER = "counters";

    public static final String PASSWORD = "counters-secret";
    public static final int TTL_SECONDS = 10;

    private static final Path BIN = Path.of("/usr/lib/postgresql/15/bin");
    private static final Path PATRONI = Path.of("/usr/bin/patroni");
    private static final Path PATRONICTL = Path.of("/usr/bin/patronictl");
    private static final Path ETCD = Path.of("/usr/bin/etcd");
    private static final Path RUNUSER = Path.of("/usr/sbin/runuser");
    /** A start, a restart or a rejoin on 2 shared cores can take most of it. */
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    /** A failover: the leader key expires ({@value #TTL_SECONDS} s), then a standby is promoted. */
    private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(60);

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    private final Path directory;
    private final boolean synchronousMode;
    private final long maximumLagOnFailover;
    private final Map<String, String> parameters;
    private final int etcdPort;
    private final int etcdPeerPort;
    private final List<Node> nodes = new ArrayList<>();
    private final Thread killer = new Thread(this::killAll);
    private volatile @Nullable Process etcd;
    private volatile boolean keepLogs;

    /** One PostgreSQL node and its Patroni. */
    public static final class Node {
        private final int index;
        private final Path directory;
        private final int port;
        private final int restPort;
        private volatile @Nullable Process patroni;

        private Node(int index, Path directory, int port, int restPort) {
            this.index = index;
            this.directory = directory;
            this.port = port;
            this.restPort = restPort;
        }

        public int index() {
            return index;
        }

        /** Its member name in Patroni: {@code node0}, {@code node1}, ... */
        public String name() {
            return "node" + index;
        }

        /** PostgreSQL's port. */
        public int port() {
            return port;
        }

        /** Patroni's REST API. */
        public int restPort() {
            return restPort;
        }

        /** Patroni's output; PostgreSQL's own log is {@code postgresql.log} beside it. */
        public Path log() {
            return directory.resolve("patroni.log");
        }

        Path data() {
            return directory.resolve("data");
        }

        Path config() {
            return directory.resolve("patroni.yml");
        }

        /** Whether its Patroni runs (it was started and not killed). */
        public boolean running() {
            Process process = patroni;
            return process != null && process.isAlive();
        }

        /** The Patroni process (started by {@code runuser}), while it runs. */
        public OptionalLong patroniPid() {
            Process process = patroni;
            if (process == null || !process.isAlive()) {
                return OptionalLong.empty();
            }
            return process.children().mapToLong(ProcessHandle::pid).findFirst();
        }

        /**
         * PostgreSQL's postmaster, while it runs (Patroni starts it detached: it outlives its Patroni). Its backends,
         * the walreceiver of a standby among them, are its children ({@link ProcessHandle#children()}).
         */
        public Optional<ProcessHandle> postmaster() {
            try {
                List<String> lines = Files.readAllLines(data().resolve("postmaster.pid"));
                return ProcessHandle.of(Long.parseLong(lines.get(0).trim()))
                        .filter(ProcessHandle::isAlive)
                        .filter(handle -> handle.info()
                                .command()
                                .map(command -> command.endsWith("/postgres"))
                                .orElse(false));
            } catch (IOException | RuntimeException e) {
                return Optional.empty(); // not started yet, or stopped
            }
        }

        public OptionalLong postmasterPid() {
            return postmaster().map(handle -> OptionalLong.of(handle.pid())).orElse(OptionalLong.empty());
        }

        @Override
        public String toString() {
            return name();
        }
    }

    /** What a test chooses of the cluster; the rest is fixed here. */
    public static final class Builder {
        private int nodes = 3;
        private boolean synchronousMode;
        private long maximumLagOnFailover = 1L << 20;
        private final Map<String, String> parameters = new LinkedHashMap<>();

        private Builder() {}

        public Builder nodes(int nodes) {
            if (nodes < 1) {
                throw new IllegalArgumentException("nodes: " + nodes);
            }
            this.nodes = nodes;
            return this;
        }

        /**
         * Patroni's {@code synchronous_mode}: a standby is named in {@code synchronous_standby_names}, and only it may
         * be promoted. Off by default (asynchronous standbys, Patroni's default).
         */
        public Builder synchronousMode(boolean synchronousMode) {
            this.synchronousMode = synchronousMode;
            return this;
        }

        /** How far behind (bytes of WAL) a standby may be and still be promoted; Patroni's default is 1 MB. */
        public Builder maximumLagOnFailover(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("maximum_lag_on_failover: " + bytes);
            }
            this.maximumLagOnFailover = bytes;
            return this;
        }

        /**
         * A PostgreSQL parameter for every node (Patroni's dynamic configuration), in place of the default here if
         * there is one: {@code synchronous_commit}, {@code recovery_min_apply_delay}, ...
         */
        public Builder parameter(String name, String value) {
            parameters.put(name, value);
            return this;
        }

        /** Starts etcd and the nodes, and waits until there is a primary and every standby streams from it. */
        public PatroniCluster start() {
            return PatroniCluster.start(this);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    private PatroniCluster(Path directory, Builder options) throws IOException {
        this.directory = directory;
        this.synchronousMode = options.synchronousMode;
        this.maximumLagOnFailover = options.maximumLagOnFailover;
        this.parameters = new LinkedHashMap<>(options.parameters);
        this.etcdPort = ServerProcesses.freePort();
        this.etcdPeerPort = ServerProcesses.freePort();
        for (int i = 0; i < options.nodes; i++) {
            nodes.add(
                    new Node(i, directory.resolve("node" + i), ServerProcesses.freePort(), ServerProcesses.freePort()));
        }
    }

    private static PatroniCluster start(Builder options) {
        ServerProcesses.requireInstalled(
                List.of(PATRONI, PATRONICTL, ETCD, BIN.resolve("postgres"), BIN.resolve("pg_rewind"), RUNUSER),
                "patroni, etcd-server and postgresql-15",
                "postgres",
                "Patroni");
        long started = System.nanoTime();
        PatroniCluster cluster = null;
        try {
            cluster = new PatroniCluster(ServerProcesses.directoryFor("postgres", "counters-patroni-"), options);
            Runtime.getRuntime().addShutdownHook(cluster.killer);
            for (Node node : cluster.nodes) {
                Files.createDirectories(node.directory);
                Files.writeString(node.config(), cluster.config(node));
            }
            ServerProcesses.run(
                    cluster.directory.resolve("chown.log"),
                    TIMEOUT,
                    "chown",
                    "-R",
                    "postgres:postgres",
                    cluster.directory.toString());
            cluster.startEtcd();
            for (Node node : cluster.nodes) {
                cluster.launch(node);
            }
            Node primary = cluster.awaitPrimary(null, TIMEOUT);
            cluster.createDatabase(primary);
            cluster.awaitStreaming();
            System.out.printf(
                    "Patroni cluster of %d nodes (%s mode) streaming in %d ms, primary %s%n",
                    options.nodes,
                    options.synchronousMode ? "synchronous" : "asynchronous",
                    ServerProcesses.millisSince(started),
                    primary);
            return cluster;
        } catch (Exception e) {
            if (cluster != null) {
                cluster.keepLogs = true;
                cluster.close();
            }
            throw new IllegalStateException("Could not start a Patroni cluster of " + options.nodes + " nodes", e);
        }
    }

    /** Patroni's configuration of {@code node}: the cluster's dynamic configuration (used by the first node only). */
    private String config(Node node) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("wal_level", "replica");
        settings.put("hot_standby", "on");
        settings.put("wal_log_hints", "on"); // pg_rewind
        settings.put("max_connections", "200");
        settings.put("shared_buffers", "32MB");
        settings.put("max_wal_senders", "10");
        settings.put("max_replication_slots", "10");
        settings.put("wal_keep_size", "128MB");
        // A standby's base backup asks for a fast checkpoint (below) but waits for a spread one in progress, and a
        // spread checkpoint takes most of checkpoint_timeout (a standby once took 93 s to start).
        settings.put("checkpoint_timeout", "30s");
        settings.putAll(parameters); // the test's, in place of these
        String peers = "127.0.0.1:" + etcdPort;
        String address = "127.0.0.1:";
        StringBuilder yaml = new StringBuilder();
        yaml.append("scope: counters\n")
                .append("name: ")
                .append(node.name())
                .append('\n')
                .append("restapi:\n  listen: ")
                .append(address)
                .append(node.restPort)
                .append("\n  connect_address: ")
                .append(address)
                .append(node.restPort)
                .append('\n')
                .append("etcd3:\n  hosts: ")
                .append(peers)
                .append('\n')
                .append("bootstrap:\n  dcs:\n")
                .append("    ttl: ")
                .append(TTL_SECONDS)
                .append("\n    loop_wait: 1\n    retry_timeout: 4\n")
                .append("    maximum_lag_on_failover: ")
                .append(maximumLagOnFailover)
                .append("\n    synchronous_mode: ")
                .append(synchronousMode)
                .append("\n    postgresql:\n      use_pg_rewind: true\n      use_slots: true\n      parameters:\n");
        settings.forEach((name, value) -> yaml.append("        ")
                .append(name)
                .append(": ")
                .append(quoted(value))
                .append('\n'));
        yaml.append("  initdb:\n  - encoding: UTF8\n  - locale: C\n")
                // The application's user has a password; Patroni's own users come in on trust.
                .append("  pg_hba:\n")
                .append("  - local all all trust\n")
                .append("  - host replication replicator 127.0.0.1/32 trust\n")
                .append("  - host all postgres 127.0.0.1/32 trust\n")
                .append("  - host all all 127.0.0.1/32 scram-sha-256\n")
                .append("postgresql:\n  listen: ")
                .append(address)
                .append(node.port)
                .append("\n  connect_address: ")
                .append(address)
                .append(node.port)
                .append("\n  data_dir: ")
                .append(quoted(node.data().toString()))
                .append("\n  bin_dir: ")
                .append(quoted(BIN.toString()))
                .append("\n  pgpass: ")
                .append(quoted(node.directory.resolve("pgpass").toString()))
                .append("\n  basebackup:\n  - checkpoint: 'fast'\n")
                .append("  authentication:\n")
                .append("    replication:\n      username: replicator\n      password: replicator\n")
                .append("    superuser:\n      username: postgres\n      password: postgres\n")
                .append("  parameters:\n    unix_socket_directories: ")
                .append(quoted(node.directory.toString()))
                .append("\n    logging_collector: 'on'\n    log_directory: ")
                .append(quoted(node.directory.toString()))
                .append("\n    log_filename: 'postgresql.log'\n");
        return yaml.toString();
    }

    private static String quoted(String value) {
        return "'" + value.replace("'", "''") + "'";
    }

    private void startEtcd() throws IOException, InterruptedException {
        Path log = directory.resolve("etcd.log");
        String client = "http://127.0.0.1:" + etcdPort;
        String peer = "http://127.0.0.1:" + etcdPeerPort;
        etcd = new ProcessBuilder(
                        RUNUSER.toString(),
                        "-u",
                        "postgres",
                        "--",
                        ETCD.toString(),
                        "--name=etcd0",
                        "--data-dir=" + directory.resolve("etcd"),
                        "--listen-client-urls=" + client,
                        "--advertise-client-urls=" + client,
                        "--listen-peer-urls=" + peer,
                        "--initial-advertise-peer-urls=" + peer,
                        "--initial-cluster=etcd0=" + peer,
                        "--initial-cluster-state=new",
                        "--initial-cluster-token=counters-" + UUID.randomUUID(),
                        "--heartbeat-interval=100",
                        "--election-timeout=1000")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        await("etcd answering on port " + etcdPort, TIMEOUT, () -> {
            Process process = etcd;
            if (process == null || !process.isAlive()) {
                throw failure("etcd exited:\n" + ServerProcesses.tail(log));
            }
            return get(etcdPort, "/health")
                    .filter(body -> body.contains("true"))
                    .orElse(null);
        });
    }

    private void launch(Node node) throws IOException {
        node.patroni = new ProcessBuilder(
                        RUNUSER.toString(),
                        "-u",
                        "postgres",
                        "--",
                        PATRONI.toString(),
                        node.config().toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(node.log().toFile()))
                .start();
    }

    /** The application's user and database, made on the first primary (and so on every node). */
    private void createDatabase(Node primary) throws SQLException {
        try (Connection connection = connectAsSuperuser(primary, "postgres");
                Statement statement = connection.createStatement()) {
            statement.execute("create role " + USER + " login password '" + PASSWORD + "'");
            statement.execute("create database " + DATABASE + " owner " + USER);
        }
    }

    public List<Node> nodes() {
        return List.copyOf(nodes);
    }

    public Node node(int index) {
        return nodes.get(index);
    }

    /**
     * The application's URL: every node, pgJDBC connecting to the one that is primary now
     * ({@code targetServerType=primary}) and re-checking what each host is after 2 s (by default it remembers for
     * 10); short connect and socket timeouts, so that a connection to a dead node fails fast.
     */
    public String jdbcUrl() {
        return "jdbc:postgresql://"
                + nodes.stream().map(node -> "127.0.0.1:" + node.port).collect(Collectors.joining(","))
                + "/" + DATABASE + "?targetServerType=primary&hostRecheckSeconds=2&connectTimeout=2&socketTimeout=10";
    }

    /** The application's database on {@code node} alone, whatever its role. */
    public String jdbcUrl(Node node) {
        return "jdbc:postgresql://127.0.0.1:" + node.port + "/" + DATABASE + "?connectTimeout=2&socketTimeout=10";
    }

    /** A connection to {@code database} on {@code node} as the superuser {@code postgres} (for what a test inspects). */
    public Connection connectAsSuperuser(Node node, String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + node.port + "/" + database
                + "?user=postgres&connectTimeout=2&socketTimeout=10");
    }

    /** The primary: the one node whose Patroni says it is the leader and runs as primary; waits for one. */
    public Node primary() {
        return awaitPrimary(null, FAILOVER_TIMEOUT);
    }

    /** Waits until a node other than {@code old} is primary (after {@code old} was killed or switched over). */
    public Node awaitNewPrimary(Node old) {
        return awaitPrimary(old, FAILOVER_TIMEOUT);
    }

    private Node awaitPrimary(@Nullable Node not, Duration timeout) {
        return await("a primary" + (not == null ? "" : " other than " + not), timeout, () -> {
            List<Node> primaries = nodes.stream()
                    .filter(Node::running)
                    .filter(node -> status(node, "/primary") == 200)
                    .toList();
            return primaries.size() == 1 && primaries.get(0) != not ? primaries.get(0) : null;
        });
    }

    /**
     * Waits until every running node is in the cluster: a primary, and every other running node streaming from it
     * (in synchronous mode, one of them a synchronous standby).
     */
    public void awaitStreaming() {
        await("every running node streaming from the primary", TIMEOUT, () -> {
            Node primary = primaryNow();
            if (primary == null) {
                return null;
            }
            long standbys = nodes.stream().filter(Node::running).count() - 1;
            try (Connection connection = connectAsSuperuser(primary, "postgres");
                    Statement statement = connection.createStatement();
                    ResultSet row = statement.executeQuery("select count(*) filter (where state = 'streaming'),"
                            + " count(*) filter (where sync_state = 'sync') from pg_stat_replication")) {
                row.next();
                boolean synced = !synchronousMode || standbys == 0 || row.getLong(2) >= 1;
                return row.getLong(1) == standbys && synced ? primary : null;
            } catch (SQLException e) {
                return null; // the primary is restarting
            }
        });
    }

    private @Nullable Node primaryNow() {
        List<Node> primaries = nodes.stream()
                .filter(Node::running)
                .filter(node -> status(node, "/primary") == 200)
                .toList();
        return primaries.size() == 1 ? primaries.get(0) : null;
    }

    /** Kills the primary ({@link #kill}); returns it. */
    public Node killPrimary() throws InterruptedException {
        Node primary = primary();
        kill(primary);
        return primary;
    }

    /**
     * SIGKILL to {@code node}'s Patroni and to its postmaster at once: the node dies with whatever it was doing, and
     * stays down (no Patroni restarts it) until {@link #restart}. Its backends exit as they see the postmaster gone.
     */
    public void kill(Node node) throws InterruptedException {
        Optional<ProcessHandle> postmaster = node.postmaster();
        Process process = node.patroni;
        if (process != null) {
            process.children().forEach(ProcessHandle::destroyForcibly); // Patroni first: it would restart PostgreSQL
        }
        postmaster.ifPresent(ProcessHandle::destroyForcibly);
        if (process != null) {
            ServerProcesses.kill(process); // runuser, and whatever Patroni was running (pg_rewind, pg_basebackup)
        }
        await(node + "'s postmaster gone", TIMEOUT, () -> node.postmaster().isEmpty() ? node : null);
    }

    /**
     * Starts {@code node}'s Patroni again and waits until it streams from the primary: a killed or stopped primary
     * rejoins as a standby, by {@code pg_rewind} when it had gone ahead of the new primary's timeline.
     */
    public synchronized void restart(Node node) throws IOException {
        if (node.running()) {
            throw new IllegalStateException("Patroni of " + node + " is running");
        }
        long started = System.nanoTime();
        long logged = Files.exists(node.log()) ? Files.size(node.log()) : 0;
        launch(node);
        awaitStreaming();
        String log = ServerProcesses.recent(node.log(), logged);
        System.out.printf(
                "Patroni %s rejoined%s in %d ms%n",
                node,
                log.contains("pg_rewind exit code=0") ? " by pg_rewind" : "",
                ServerProcesses.millisSince(started));
    }

    /**
     * A switchover with {@code patronictl} to {@code candidate}, which must be a healthy standby (in synchronous mode,
     * the synchronous one); waits until it is primary.
     */
    public void switchover(Node candidate) throws IOException, InterruptedException {
        Node leader = primary();
        ServerProcesses.run(
                directory.resolve("patronictl.log"),
                TIMEOUT,
                PATRONICTL.toString(),
                "-c",
                leader.config().toString(),
                "switchover",
                "--leader",
                leader.name(),
                "--candidate",
                candidate.name(),
                "--force");
        awaitPrimary(leader, FAILOVER_TIMEOUT);
    }

    /** A switchover to {@link #switchoverCandidate()}; returns the new primary. */
    public Node switchover() throws IOException, InterruptedException {
        Node candidate = switchoverCandidate();
        switchover(candidate);
        return candidate;
    }

    /**
     * A standby a switchover may go to: the synchronous standby in synchronous mode, else any streaming standby.
     */
    public Node switchoverCandidate() {
        String role = synchronousMode ? "/sync" : "/replica";
        return await(
                "a standby to switch over to (" + role + ")",
                FAILOVER_TIMEOUT,
                () -> nodes.stream()
                        .filter(Node::running)
                        .filter(node -> status(node, role) == 200)
                        .findFirst()
                        .orElse(null));
    }

    /** Whether Patroni runs in synchronous mode ({@link Builder#synchronousMode}). */
    public boolean synchronousMode() {
        return synchronousMode;
    }

    /** The directory of every node's data and logs. */
    public Path directory() {
        return directory;
    }

    /** Keeps the directory, with every log, when the cluster is closed (a test that failed calls it). */
    public void keepLogs() {
        keepLogs = true;
    }

    /** The HTTP status of Patroni's REST endpoint {@code path} on {@code node}; 0 when it does not answer. */
    private static int status(Node node, String path) {
        try {
            return HTTP.send(request(node.restPort, path), HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    private static Optional<String> get(int port, String path) {
        try {
            HttpResponse<String> response =
                    HTTP.send(request(port, path), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return response.statusCode() == 200 ? Optional.of(response.body()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private static HttpRequest request(int port, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(2))
                .build();
    }

    /** Polls {@code probe} until it returns a value, for at most {@code timeout}; fails saying what it waited for. */
    private <T> T await(String what, Duration timeout, Supplier<@Nullable T> probe) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            T value = probe.get();
            if (value != null) {
                return value;
            }
            if (System.nanoTime() > deadline) {
                throw failure("No " + what + " after " + timeout.toSeconds() + " s");
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw failure("Interrupted while waiting for " + what);
            }
        }
    }

    /** A failure of the cluster: its logs are kept, and their ends go in the message. */
    private IllegalStateException failure(String message) {
        keepLogs = true;
        StringBuilder text = new StringBuilder(message)
                .append(" (logs kept in ")
                .append(directory)
                .append(")");
        for (Node node : nodes) {
            text.append("\n--- ")
                    .append(node)
                    .append(node.running() ? " (running)" : " (not running)")
                    .append(", REST /patroni: ")
                    .append(get(node.restPort, "/patroni").orElse("no answer"))
                    .append('\n')
                    .append(ServerProcesses.tail(node.log()));
        }
        return new IllegalStateException(text.toString());
    }

    private void killAll() {
        for (Node node : nodes) {
            try {
                kill(node);
            } catch (InterruptedException | RuntimeException e) {
                node.postmaster().ifPresent(ProcessHandle::destroyForcibly);
            }
        }
        Process process = etcd;
        if (process != null) {
            try {
                ServerProcesses.kill(process);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Kills every process and deletes the directory, unless its logs are to be kept. */
    @Override
    public void close() {
        killAll();
        ServerProcesses.removeShutdownHook(killer);
        if (keepLogs) {
            System.out.println("Patroni cluster's logs kept in " + directory);
        } else {
            ServerProcesses.delete(directory);
        }
    }
}
