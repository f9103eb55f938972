package dev.counters.examples.plain;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counters and order numbers over HTTP with nothing but the JDK's HTTP server, H2 and counters-jdbc:
 * <ul>
 *   <li>{@code POST /counters/{name}/increment[?by=n]} and {@code GET /counters/{name}}: {@code {"name":..,"value":..}}
 *   <li>{@code POST /orders}: {@code {"orderNumber":..}}
 * </ul>
 * Run it with {@code main}, or {@link #start(int, String) start} it from code and {@link #close() close} it.
 */
public final class PlainJavaExample implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PlainJavaExample.class);

    static final int DEFAULT_PORT = 8081;
    /**
     * A file under the working directory, so counts survive a restart. DB_CLOSE_ON_EXIT=FALSE: H2's own shutdown hook
     * must not close the database while ours is still writing the buffered likes.
     */
    static final String DEFAULT_JDBC_URL = "jdbc:h2:file:./data/counters-plain;DB_CLOSE_ON_EXIT=FALSE";
    /** How long stopping waits for requests in progress. */
    private static final int STOP_DELAY_SECONDS = 1;

    private final CountingServices services;
    private final HttpServer server;
    private final ExecutorService requests;
    private final AtomicBoolean closed = new AtomicBoolean();

    private PlainJavaExample(CountingServices services, HttpServer server, ExecutorService requests) {
        this.services = services;
        this.server = server;
        this.requests = requests;
    }

    /** Arguments: {@code [port [jdbc-url]]}, by default {@value #DEFAULT_PORT} and {@value #DEFAULT_JDBC_URL}. */
    public static void main(String[] args) throws IOException {
        if (args.length > 2 || (args.length > 0 && !args[0].matches("\\d{1,5}"))) {
            System.err.println("Usage: PlainJavaExample [port [jdbc-url]]");
            System.exit(2);
        }
        int port = args.length > 0 ? Integer.parseInt(args[0]) : DEFAULT_PORT;
        String jdbcUrl = args.length > 1 ? args[1] : DEFAULT_JDBC_URL;
        // jOOQ greets with a logo and a tip on first use; an example's console is clearer without them.
        System.setProperty("org.jooq.no-logo", "true");
        System.setProperty("org.jooq.no-tips", "true");

        PlainJavaExample example = start(port, jdbcUrl);
        // Ctrl-C or a plain kill: stop taking requests, then write what buffered counters hold.
        Runtime.getRuntime().addShutdownHook(new Thread(example::close, "counters-example-shutdown"));
        LOG.info("Counting at http://localhost:{}/ on {} (Ctrl-C stops)", example.port(), jdbcUrl);
    }

    /**
     * Opens the database (creating the library's tables if needed) and serves the API on {@code port} of the
     * loopback interface (0: any free port, see {@link #port()}).
     */
    public static PlainJavaExample start(int port, String jdbcUrl) throws IOException {
        CountingServices services = CountingServices.open(jdbcUrl);
        ExecutorService requests = Executors.newCachedThreadPool(); // Java 21+: newVirtualThreadPerTaskExecutor()
        try {
            // Loopback only: an example without authentication should not be reachable from other machines.
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
            server.createContext(CounterHandler.PATH, new CounterHandler(services.counters()));
            server.createContext(OrderHandler.PATH, new OrderHandler(services.sequences()));
            server.setExecutor(requests);
            server.start();
            return new PlainJavaExample(services, server, requests);
        } catch (IOException | RuntimeException e) {
            requests.shutdown();
            services.close();
            throw e;
        }
    }

    /** The port the API listens on. */
    public int port() {
        return server.getAddress().getPort();
    }

    /** Stops taking requests, lets those in progress finish, then closes the services (flushing buffered counters). */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            server.stop(STOP_DELAY_SECONDS);
            finish(requests);
            services.close();
            LOG.info("Stopped; buffered counters written");
        }
    }

    /** No new requests, and those in progress finish (what ExecutorService.close() does on Java 21). */
    private static void finish(ExecutorService requests) {
        requests.shutdown();
        try {
            requests.awaitTermination(STOP_DELAY_SECONDS + 10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
