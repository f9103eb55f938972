package dev.counters.jdbc.testing;

import dev.counters.testing.TestThreads;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Queue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * A TCP proxy on loopback between the application and a MySQL/MariaDB server that breaks connections on purpose, at
 * points chosen from the MySQL protocol it reads as it forwards:
 * <ul>
 *   <li><b>commit reply</b>: a statement that commits (a {@code COMMIT}, a write in autocommit mode, or an anonymous
 *       block with a {@code COMMIT}) is forwarded,
 *       the server's reply is awaited, and the connection is cut instead of passing it on. The server has committed;
 *       the client sees a lost connection. This is the ambiguous commit.</li>
 *   <li><b>before statement</b>: a statement that would commit is dropped and the connection cut: nothing ran.</li>
 *   <li><b>random</b>: a command is cut off after a random number of its bytes.</li>
 *   <li><b>refusing</b>: every connection is cut and new ones are closed at once, as a server that is down.</li>
 * </ul>
 * Each fault strikes with its probability per command, from a seeded random source, up to a budget of injections.
 */
public final class MySqlFaultProxy implements AutoCloseable {

    private static final int COM_QUERY = 0x03;
    private static final Set<String> WRITES = Set.of("INSERT", "UPDATE", "DELETE", "REPLACE");
    private static final Pattern AUTOCOMMIT =
            Pattern.compile("(?i)\\s*SET\\s+autocommit\\s*=\\s*([01]).*", Pattern.DOTALL);
    private static final Pattern COMMIT_IN_BLOCK = Pattern.compile("(?i);\\s*commit\\s*;");
    private static final Pattern LEADING_COMMENTS = Pattern.compile("^(\\s*/\\*.*?\\*/)*\\s*", Pattern.DOTALL);
    /** MariaDB's per-statement settings ({@code SET STATEMENT max_statement_time=4 FOR INSERT ...}) before a statement. */
    private static final Pattern STATEMENT_SETTINGS =
            Pattern.compile("^SET\\s+STATEMENT\\s.*?\\sFOR\\s+", Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

    private final ServerSocket listener;
    private final int targetPort;
    private final SplittableRandom random;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;

    private volatile double commitReply;
    private volatile double beforeStatement;
    private volatile double randomCut;
    private volatile boolean refusing;
    /** How long the proxy refuses connections after each withheld commit reply; 0 for not at all. */
    private volatile long outageNanos;
    /** Until when (System.nanoTime) an outage after a withheld reply lasts. */
    private volatile long outageUntil = System.nanoTime();

    private final AtomicLong budget = new AtomicLong();

    /** Commit points the proxy saw (commits and autocommitted writes). */
    public final AtomicLong commitPoints = new AtomicLong();
    /** Connections cut after the server committed, before the client heard. */
    public final AtomicLong commitRepliesCut = new AtomicLong();

    /**
     * The writes of each transaction whose commit reply was withheld, in order, for a test to tell which of its paths
     * met an ambiguous commit.
     */
    public final Queue<String> withheldCommits = new ConcurrentLinkedQueue<>();

    public final AtomicLong statementsCut = new AtomicLong();
    public final AtomicLong randomCuts = new AtomicLong();
    public final AtomicLong connections = new AtomicLong();

    public MySqlFaultProxy(int targetPort, long seed) throws IOException {
        this.targetPort = targetPort;
        this.random = new SplittableRandom(seed);
        this.listener = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        this.acceptor = TestThreads.daemon("fault-proxy-" + port(), this::accept);
        acceptor.start();
    }

    public int port() {
        return listener.getLocalPort();
    }

    /**
     * Cuts connections at commit replies, before statements and at random bytes with these probabilities per
     * command, until {@code injections} faults have been injected.
     */
    public void inject(double commitReply, double beforeStatement, double randomCut, long injections) {
        this.commitReply = commitReply;
        this.beforeStatement = beforeStatement;
        this.randomCut = randomCut;
        this.budget.set(injections);
    }

    public void stopInjecting() {
        inject(0, 0, 0, 0);
    }

    /** Whether the budget of injections is spent (a withheld reply counts once the server has answered). */
    public boolean exhausted() {
        return budget.get() == 0;
    }

    /** Faults injected so far. */
    public long injected() {
        return commitRepliesCut.get() + statementsCut.get() + randomCuts.get();
    }

    /**
     * After each withheld commit reply, the proxy acts as a server that went down with it ({@link #refuse}) for
     * {@code outage}: the attempt after the ambiguous commit, and any read after a write that just committed, find no
     * connection. Counted as part of that fault.
     */
    public void outageAfterCommitReplyCut(Duration outage) {
        this.outageNanos = outage.toNanos();
    }

    /** Whether the proxy refuses connections now ({@link #refuse}, or an outage after a withheld reply). */
    public boolean refusing() {
        return refusing || outageUntil - System.nanoTime() > 0;
    }

    /** While refusing, the proxy acts as a server that is down: open connections are cut, new ones closed. */
    public void refuse(boolean refusing) {
        this.refusing = refusing;
        if (refusing) {
            links.forEach(Link::close);
        }
    }

    private synchronized boolean strikes(double probability) {
        if (probability <= 0 || random.nextDouble() >= probability) {
            return false;
        }
        return budget.getAndUpdate(left -> left > 0 ? left - 1 : 0) > 0;
    }

    private synchronized int below(int bound) {
        return random.nextInt(bound);
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                if (refusing()) {
                    client.close();
                    continue;
                }
                connections.incrementAndGet();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                client.setTcpNoDelay(true); // packets pass one by one: no Nagle delay against delayed ACKs
                server.setTcpNoDelay(true);
                Link link = new Link(client, server);
                links.add(link);
                TestThreads.daemon("fault-proxy-up", link::clientToServer).start();
                TestThreads.daemon("fault-proxy-down", link::serverToClient).start();
            } catch (IOException e) {
                // the listener closed, or the server is down: the client sees its connection closed
            }
        }
    }

    /** One proxied connection. */
    private final class Link {

        private final Socket client;
        private final Socket server;
        private boolean autocommit = true;
        /** Set before a commit is forwarded: the reply that comes back is not passed on. */
        private final AtomicBoolean withholdReply = new AtomicBoolean();
        /** The writes of the transaction open on this connection. */
        private final StringBuilder writes = new StringBuilder();
        /** The writes of the commit whose reply is withheld. */
        private volatile String withheldWrites = "";

        Link(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        void clientToServer() {
            try (DataInputStream in = new DataInputStream(client.getInputStream())) {
                OutputStream out = server.getOutputStream();
                byte[] header = new byte[4];
                while (true) {
                    in.readFully(header);
                    int length = (header[0] & 0xff) | (header[1] & 0xff) << 8 | (header[2] & 0xff) << 16;
                    byte[] payload = new byte[length];
                    in.readFully(payload);
                    boolean command = header[3] == 0; // a command starts a new exchange: sequence id 0
                    if (command && length > 0 && (payload[0] & 0xff) == COM_QUERY && !forward(payload)) {
                        return;
                    }
                    if (command && strikes(randomCut)) {
                        randomCuts.incrementAndGet();
                        int cutAt = below(header.length + length);
                        byte[] packet = concat(header, payload);
                        out.write(packet, 0, cutAt);
                        out.flush();
                        close();
                        return;
                    }
                    out.write(concat(header, payload));
                    out.flush();
                }
            } catch (IOException e) {
                close();
            }
        }

        /** Decides on a query before it is forwarded; false when the connection was cut instead. */
        private boolean forward(byte[] payload) {
            String sql = new String(payload, 1, payload.length - 1, StandardCharsets.UTF_8);
            var autocommitSetting = AUTOCOMMIT.matcher(sql);
            if (autocommitSetting.matches()) {
                autocommit = autocommitSetting.group(1).equals("1");
                return true;
            }
            String statement = STATEMENT_SETTINGS
                    .matcher(LEADING_COMMENTS.matcher(sql).replaceFirst(""))
                    .replaceFirst("");
            int end = 0;
            while (end < statement.length() && Character.isLetter(statement.charAt(end))) {
                end++;
            }
            String verb = statement.substring(0, end).toUpperCase(Locale.ROOT);
            // An anonymous block (BEGIN NOT ATOMIC) that runs a transaction to its COMMIT is one.
            boolean block =
                    verb.equals("BEGIN") && COMMIT_IN_BLOCK.matcher(statement).find();
            boolean commits = verb.equals("COMMIT") || ((WRITES.contains(verb) || block) && autocommit);
            if (WRITES.contains(verb) || block) {
                writes.append(statement).append(";\n");
            } else if (verb.equals("ROLLBACK")) {
                writes.setLength(0);
            }
            if (commits) {
                commitPoints.incrementAndGet();
                withheldWrites = writes.toString();
                writes.setLength(0);
            }
            if (commits && strikes(beforeStatement)) {
                statementsCut.incrementAndGet();
                close();
                return false;
            }
            if (commits && strikes(commitReply)) {
                withholdReply.set(true);
            }
            return true;
        }

        void serverToClient() {
            try (InputStream in = server.getInputStream()) {
                OutputStream out = client.getOutputStream();
                byte[] buffer = new byte[16384];
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    if (withholdReply.getAndSet(false)) {
                        commitRepliesCut.incrementAndGet(); // the server answered: it has committed
                        withheldCommits.add(withheldWrites);
                        if (outageNanos > 0) {
                            outageUntil = System.nanoTime() + outageNanos;
                            links.forEach(Link::close);
                        }
                        close();
                        return;
                    }
                    out.write(buffer, 0, read);
                    out.flush();
                }
                throw new EOFException();
            } catch (IOException e) {
                close();
            }
        }

        void close() {
            if (withholdReply.getAndSet(false)) {
                // Cut (by another link's outage) before the server answered: no ambiguous commit to count, so the
                // fault is made again on a later commit.
                budget.incrementAndGet();
            }
            links.remove(this);
            closeQuietly(client);
            closeQuietly(server);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() {
        try {
            listener.close();
        } catch (IOException e) {
            // closed already
        }
        links.forEach(Link::close);
        acceptor.interrupt();
    }
}
