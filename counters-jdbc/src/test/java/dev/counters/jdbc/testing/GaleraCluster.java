package dev.counters.jdbc.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * A real MariaDB Galera cluster on loopback, from Debian's {@code mariadb-server} and {@code galera-4} (plus
 * {@code rsync}): each node is a plain {@code mariadbd} child process, so a test can {@code kill -9} one and restart it,
 * and it rejoins by incremental state transfer (IST).
 *
 * <p>Starting copies no state between nodes: a seed data directory, installed and bootstrapped once per JVM, is copied
 * to every node with a saved primary view ({@code gvwstate.dat}) that lists them all, and Galera's primary-component
 * recovery ({@code pc.recovery}) forms the cluster as soon as every node sees the others, all at the seed's position.
 * That takes about 2 seconds; a node joining by rsync state transfer takes about 9.
 *
 * <p>The nodes run as {@code mysql} (the rsync state transfer drops to {@code nobody} when the server runs as root), so
 * the tests must run as root. Every option is in each node's option file, because the state transfer scripts read
 * option files and hand command-line options on to their helpers. Short failure-detection timeouts keep the stall of
 * the surviving nodes, when one dies, to about 2 seconds (5 with Galera's defaults).
 */
public final class GaleraCluster implements AutoCloseable {

    private static final Path SERVER = Path.of("/usr/sbin/mariadbd");
    private static final Path INSTALL = Path.of("/usr/bin/mariadb-install-db");
    private static final Path PROVIDER = Path.of("/usr/lib/galera/libgalera_smm.so");
    private static final Path RSYNC = Path.of("/usr/bin/rsync");
    /** A start or a rejoin under load on 2 shared cores can take most of it. */
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    /**
     * Suspect a silent node after 1 s and drop it after 2. Galera requires the keepalive period under a third of the
     * suspect timeout; and the install timeout (by default half the inactive timeout) must stay well above the join
     * retransmission period (by default 1 s), or nodes starting together may never agree on a view.
     */
    private static final String FAILURE_DETECTION = "evs.keepalive_period=PT0.3S;evs.join_retrans_period=PT0.3S;"
            + "evs.suspect_timeout=PT1S;evs.inactive_timeout=PT2S;evs.install_timeout=PT2S";

    private static final Pattern RECOVERED = Pattern.compile("WSREP: Recovered position: ([0-9a-f-]{36}:-?\\d+)");

    private static Path seed;

    private final Path directory;
    private final List<String> extraServerOptions;
    private final Map<String, String> environment;
    private final List<Node> nodes = new ArrayList<>();
    private final Thread killer = new Thread(this::killAll);

    private static final class Node {
        final int index;
        final Path directory;
        final int port;
        final int gcommPort;
        final int istPort;
        final int sstPort;
        volatile Process process;

        Node(int index, Path directory, int[] ports) {
            this.index = index;
            this.directory = directory;
            this.port = ports[0];
            this.gcommPort = ports[1];
            this.istPort = ports[2];
            this.sstPort = ports[3];
        }

        Path data() {
            return directory.resolve("data");
        }

        Path options() {
            return directory.resolve("my.cnf");
        }

        Path log() {
            return directory.resolve("server.log");
        }

        boolean running() {
            return process != null && process.isAlive();
        }
    }

    private GaleraCluster(Path directory, int size, List<String> extraServerOptions, Map<String, String> environment)
            throws IOException {
        this.environment = Map.copyOf(environment);
        this.directory = directory;
        this.extraServerOptions = List.copyOf(extraServerOptions);
        for (int i = 0; i < size; i++) {
            int[] ports = new int[4];
            for (int p = 0; p < ports.length; p++) {
                ports[p] = ServerProcesses.freePort();
            }
            nodes.add(new Node(i, directory.resolve("node" + i), ports));
        }
    }

    /**
     * Fails, saying what is missing, unless this machine can run a cluster: Debian's packages installed, and root, to
     * run the nodes as mysql. The tests never skip for want of them: {@code ./test} installs the packages.
     */
    private static void requireInstalled() {
        ServerProcesses.requireInstalled(
                List.of(SERVER, INSTALL, PROVIDER, RSYNC), "mariadb-server, galera-4 and rsync", "mysql", "Galera");
    }

    public static GaleraCluster start(int nodes) {
        return start(nodes, List.of());
    }

    /**
     * Starts {@code nodes} nodes and waits until every one is synced in a cluster of that size, with the database
     * {@link EmbeddedMariaDb#DATABASE}. {@code extraServerOptions} are server options as on a command line
     * ({@code --name=value}); they go to each node's option file, after (so in place of) the defaults here.
     */
    public static GaleraCluster start(int nodes, List<String> extraServerOptions) {
        return start(nodes, extraServerOptions, Map.of());
    }

    /**
     * As {@link #start(int, List)}, with {@code environment} added to each node's process (the benchmarks' sync delay,
     * an {@code LD_PRELOAD}).
     */
    public static GaleraCluster start(int nodes, List<String> extraServerOptions, Map<String, String> environment) {
        if (nodes < 1) {
            throw new IllegalArgumentException("nodes: " + nodes);
        }
        requireInstalled();
        long started = System.nanoTime();
        GaleraCluster cluster = null;
        try {
            Path seed = seed();
            long seeded = System.nanoTime();
            cluster = new GaleraCluster(
                    ServerProcesses.directoryFor("mysql", "counters-galera-"), nodes, extraServerOptions, environment);
            Runtime.getRuntime().addShutdownHook(cluster.killer);
            List<String> members = IntStream.range(0, nodes)
                    .mapToObj(i -> UUID.randomUUID().toString())
                    .toList();
            for (Node node : cluster.nodes) {
                Files.createDirectories(node.directory);
                run(node.log(), "cp", "-a", seed.toString(), node.data().toString());
                cluster.writeOptions(node);
                Files.writeString(node.data().resolve("gvwstate.dat"), savedView(members, node.index));
            }
            run(cluster.directory.resolve("chown.log"), "chown", "-R", "mysql:mysql", cluster.directory.toString());
            for (Node node : cluster.nodes) {
                // Alone, a node has no one to recover its view with: it bootstraps.
                node.process =
                        nodes == 1 ? launch(node, environment, "--wsrep-new-cluster") : launch(node, environment);
            }
            cluster.awaitSynced(cluster.nodes);
            System.out.printf(
                    "Galera cluster of %d nodes synced in %d ms (%d ms of it for the seed)%n",
                    nodes, millisSince(started), TimeUnit.NANOSECONDS.toMillis(seeded - started));
            return cluster;
        } catch (Exception e) {
            if (cluster != null) {
                cluster.close();
            }
            throw new IllegalStateException("Could not start a Galera cluster of " + nodes + " nodes", e);
        }
    }

    /**
     * The data directory every node starts from, made once per JVM: installed, bootstrapped as a one-node cluster to
     * give it a cluster position, given the test database, and shut down cleanly.
     */
    private static synchronized Path seed() throws IOException, InterruptedException, SQLException {
        if (seed == null) {
            Path directory = ServerProcesses.directoryFor("mysql", "counters-galera-seed-");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(directory)));
            GaleraCluster single = new GaleraCluster(directory, 1, List.of(), Map.of());
            Runtime.getRuntime().addShutdownHook(single.killer);
            Node node = single.nodes.get(0);
            Files.createDirectories(node.directory);
            run(
                    node.log(),
                    INSTALL.toString(),
                    "--no-defaults",
                    "--datadir=" + node.data(),
                    "--user=mysql",
                    "--auth-root-authentication-method=normal",
                    "--skip-test-db",
                    "--skip-name-resolve",
                    "--innodb-log-file-size=16M");
            single.writeOptions(node);
            run(node.log(), "chown", "-R", "mysql:mysql", directory.toString());
            node.process = launch(node, "--wsrep-new-cluster");
            try {
                single.awaitSynced(single.nodes);
                try (Connection connection = single.connect(node);
                        Statement statement = connection.createStatement()) {
                    statement.execute("CREATE DATABASE IF NOT EXISTS " + EmbeddedMariaDb.DATABASE);
                }
                node.process.destroy(); // SIGTERM: a clean shutdown records the position in grastate.dat
                if (!node.process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                    throw new IllegalStateException("The Galera seed did not shut down:\n" + tail(node));
                }
            } finally {
                kill(node);
            }
            Files.deleteIfExists(node.data().resolve("galera.cache"));
            Files.deleteIfExists(node.data().resolve("gvwstate.dat"));
            seed = node.data();
        }
        return seed;
    }

    private void writeOptions(Node node) throws IOException {
        String peers = nodes.stream().map(peer -> "127.0.0.1:" + peer.gcommPort).collect(Collectors.joining(","));
        List<String> lines = new ArrayList<>(List.of(
                "[mysqld]",
                "datadir=" + node.data(),
                "port=" + node.port,
                "socket=" + node.directory.resolve("mysqld.sock"),
                "pid-file=" + node.directory.resolve("mysqld.pid"),
                "bind-address=127.0.0.1",
                "user=mysql",
                "skip-ssl",
                "skip-name-resolve",
                "max_connections=500",
                "max_allowed_packet=64M",
                "innodb_flush_log_at_trx_commit=2",
                "innodb_buffer_pool_size=128M",
                "innodb_log_file_size=16M",
                "binlog_format=ROW",
                "default_storage_engine=InnoDB",
                "innodb_autoinc_lock_mode=2",
                "wsrep_on=ON",
                "wsrep_provider=" + PROVIDER,
                "wsrep_cluster_name=counters", // gcomm takes at most 32 characters
                "wsrep_cluster_address=gcomm://" + peers,
                "wsrep_node_name=node" + node.index,
                "wsrep_node_address=127.0.0.1:" + node.gcommPort,
                "wsrep_node_incoming_address=127.0.0.1:" + node.port,
                "wsrep_sst_method=rsync",
                "wsrep_slave_threads=4", // a rejoining node applies what it missed in parallel
                "wsrep_sst_receive_address=127.0.0.1:" + node.sstPort,
                "wsrep_provider_options=\"gmcast.listen_addr=tcp://127.0.0.1:" + node.gcommPort
                        + ";ist.recv_addr=127.0.0.1:" + node.istPort + ";gcache.size=64M;pc.recovery=true;"
                        + FAILURE_DETECTION + "\""));
        extraServerOptions.forEach(option -> lines.add(option.replaceFirst("^--", "")));
        lines.addAll(List.of("[sst]", "sst-syslog=-1"));
        Files.write(node.options(), lines);
    }

    /** The last primary view, as Galera saves it: all the nodes, so that they form it again once they meet. */
    private static String savedView(List<String> members, int index) {
        StringBuilder view = new StringBuilder("my_uuid: " + members.get(index) + "\n#vwbeg\n")
                .append("view_id: 3 ")
                .append(members.get(0))
                .append(" 1\nbootstrap: 0\n"); // 3: primary
        members.forEach(member -> view.append("member: ").append(member).append(" 0\n"));
        return view.append("#vwend\n").toString();
    }

    private static Process launch(Node node, String... arguments) throws IOException {
        return launch(node, Map.of(), arguments);
    }

    private static Process launch(Node node, Map<String, String> environment, String... arguments) throws IOException {
        List<String> command = new ArrayList<>(List.of(SERVER.toString(), "--defaults-file=" + node.options()));
        command.addAll(List.of(arguments));
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(node.log().toFile()));
        builder.environment().putAll(environment);
        return builder.start();
    }

    private static void run(Path log, String... command) throws IOException, InterruptedException {
        ServerProcesses.run(log, TIMEOUT, command);
    }

    /** Waits until each of {@code waiting} is synced and ready in a cluster of all the running nodes. */
    private void awaitSynced(List<Node> waiting) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        for (Node node : waiting) {
            SQLException refused = null;
            while (true) {
                Map<String, String> status = Map.of();
                String running =
                        String.valueOf(nodes.stream().filter(Node::running).count());
                try {
                    status = status(node);
                    refused = null;
                    if ("Synced".equals(status.get("wsrep_local_state_comment"))
                            && "ON".equals(status.get("wsrep_ready"))
                            && running.equals(status.get("wsrep_cluster_size"))) {
                        break;
                    }
                } catch (SQLException e) {
                    refused = e; // not listening yet
                }
                if (!node.running()) {
                    throw new IllegalStateException("Galera node " + node.index + " exited:\n" + tail(node));
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "Galera node " + node.index + " not synced after " + TIMEOUT + " " + status + ":\n"
                                    + tail(node),
                            refused);
                }
                Thread.sleep(50);
            }
        }
    }

    private Map<String, String> status(Node node) throws SQLException {
        Map<String, String> status = new HashMap<>();
        try (Connection connection = connect(node);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SHOW GLOBAL STATUS LIKE 'wsrep_%'")) {
            while (rows.next()) {
                status.put(rows.getString(1), rows.getString(2));
            }
        }
        return status;
    }

    private Connection connect(Node node) throws SQLException {
        return DriverManager.getConnection(
                "jdbc:mysql://127.0.0.1:" + node.port
                        + "/?sslMode=DISABLED&allowPublicKeyRetrieval=true&connectTimeout=2000&socketTimeout=10000",
                EmbeddedMariaDb.USER,
                "");
    }

    public int size() {
        return nodes.size();
    }

    public int port(int node) {
        return nodes.get(node).port;
    }

    /** The test database on {@code node}, user {@link EmbeddedMariaDb#USER} with an empty password. */
    public String jdbcUrl(int node) {
        return "jdbc:mysql://127.0.0.1:" + port(node) + "/" + EmbeddedMariaDb.DATABASE
                + "?sslMode=DISABLED&allowPublicKeyRetrieval=true" + EmbeddedMariaDb.DRIVER_SETTINGS;
    }

    /**
     * The test database through Connector/J's multi-host failover: {@code preferredNode} first, then the others. A
     * connection that cannot reach a node, or loses it, moves to the next; {@code failOverReadOnly=false} keeps it
     * writable there (by default it would turn read-only), and after 10 seconds it tries the preferred node again at
     * a transaction boundary. Statements made before a switch belong to the old session: take new ones.
     */
    public String failoverJdbcUrl(int preferredNode) {
        String hosts = Stream.concat(
                        Stream.of(preferredNode),
                        IntStream.range(0, size())
                                .filter(node -> node != preferredNode)
                                .boxed())
                .map(node -> "127.0.0.1:" + port(node))
                .collect(Collectors.joining(","));
        return "jdbc:mysql://" + hosts + "/" + EmbeddedMariaDb.DATABASE
                + "?sslMode=DISABLED&allowPublicKeyRetrieval=true&failOverReadOnly=false&connectTimeout=1000"
                + "&secondsBeforeRetrySource=10&queriesBeforeRetrySource=0" + EmbeddedMariaDb.DRIVER_SETTINGS;
    }

    /** SIGKILL: the node dies at once, with whatever it was doing (its state transfer helpers too). */
    public void kill(int node) throws InterruptedException {
        kill(nodes.get(node));
    }

    private static void kill(Node node) throws InterruptedException {
        Process process = node.process;
        if (process != null) {
            ServerProcesses.kill(process);
        }
    }

    /**
     * Starts a killed node again at the position {@code mariadbd --wsrep-recover} finds in its data directory, so that
     * it catches up by IST rather than a full copy, and waits until it is synced in a cluster of all the running nodes.
     */
    public synchronized void restart(int index) throws IOException, InterruptedException {
        Node node = nodes.get(index);
        if (node.running()) {
            throw new IllegalStateException("Galera node " + index + " is running");
        }
        long started = System.nanoTime();
        long logged = Files.size(node.log());
        run(node.log(), SERVER.toString(), "--defaults-file=" + node.options(), "--wsrep-recover");
        Matcher recovered = RECOVERED.matcher(recent(node, logged));
        if (!recovered.find() || recovered.group(1).endsWith(":-1")) {
            throw new IllegalStateException("No position recovered on Galera node " + index + ":\n" + tail(node));
        }
        node.process = launch(node, environment, "--wsrep-start-position=" + recovered.group(1));
        awaitSynced(nodes.stream().filter(Node::running).toList());
        String rejoin = recent(node, logged).contains("IST received") ? "by IST" : "by a full state transfer";
        System.out.printf(
                "Galera node %d rejoined %s from %s in %d ms%n",
                index, rejoin, recovered.group(1), millisSince(started));
    }

    private static long millisSince(long nanos) {
        return ServerProcesses.millisSince(nanos);
    }

    private static String recent(Node node, long offset) throws IOException {
        return ServerProcesses.recent(node.log(), offset);
    }

    private static String tail(Node node) {
        return ServerProcesses.tail(node.log());
    }

    private static String tail(Path log) {
        return ServerProcesses.tail(log);
    }

    private void killAll() {
        for (Node node : nodes) {
            try {
                kill(node);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void delete(Path directory) {
        ServerProcesses.delete(directory);
    }

    /** Kills every node and deletes their directories. */
    @Override
    public void close() {
        killAll();
        ServerProcesses.removeShutdownHook(killer);
        delete(directory);
    }
}
