package dev.counters.redis.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real {@code redis-server} (Debian's package), started by the test as a child process on a free port of the
 * loopback, without persistence: {@code --save "" --appendonly no}. It can be killed and started again on the same
 * port (the cache lost, as a restarted Redis without persistence loses it), flushed and paused. Commands from the
 * test go over a socket of their own in plain RESP, so they need no client library and work whatever state the
 * caches' clients are in.
 */
public final class RedisServer implements AutoCloseable {

    private static final List<String> CANDIDATES =
            List.of("/usr/bin/redis-server", "/usr/local/bin/redis-server", "/usr/sbin/redis-server");
    private static RedisServer shared;

    private final String binary;
    private final int port;
    private final Path directory;
    private Process process;

    private RedisServer() throws IOException {
        this.binary = binary();
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            this.port = socket.getLocalPort();
        }
        this.directory = Files.createTempDirectory("counters-redis-");
        start();
        Runtime.getRuntime().addShutdownHook(new Thread(this::stop));
    }

    /** A server of its own, for a test that stops or pauses it; the caller closes it. */
    public static RedisServer startNew() {
        try {
            return new RedisServer();
        } catch (IOException e) {
            throw new IllegalStateException("Could not start redis-server", e);
        }
    }

    /** The server the tests that leave it running share (each test keeps to key names of its own). */
    public static synchronized RedisServer shared() {
        if (shared == null) {
            shared = startNew();
        }
        return shared;
    }

    /** Fails, never skips, when the tests cannot run: Redis is part of what they test. */
    private static String binary() {
        for (String candidate : CANDIDATES) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(java.io.File.pathSeparator)) {
            Path candidate = Path.of(dir, "redis-server");
            if (!dir.isEmpty() && Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        throw new AssertionError("redis-server was not found (looked in " + CANDIDATES + " and on the PATH): the "
                + "counters-redis tests need a real Redis. Install Debian's package (./test does): apt-get install "
                + "redis-server");
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return port;
    }

    /** Starts the server again on the same port, empty (it keeps nothing across a stop). */
    public synchronized void start() {
        if (process != null && process.isAlive()) {
            return;
        }
        Path log = directory.resolve("redis.log");
        List<String> command = List.of(
                binary,
                "--port",
                String.valueOf(port),
                "--bind",
                host(),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                directory.toString(),
                "--daemonize",
                "no");
        try {
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("Could not run " + binary, e);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (true) {
            try {
                if ("PONG".equals(command("PING"))) {
                    return;
                }
            } catch (RuntimeException notYet) {
                // not listening yet
            }
            if (!process.isAlive() || System.nanoTime() > deadline) {
                String printed;
                try {
                    printed = Files.readString(log);
                } catch (IOException e) {
                    printed = "(no log: " + e + ")";
                }
                process.destroyForcibly();
                throw new IllegalStateException("redis-server on port " + port + " did not answer PING:\n" + printed);
            }
            sleep(Duration.ofMillis(20));
        }
    }

    /** Kills the server (SIGKILL): every key is lost, clients see their connection drop. */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("redis-server on port " + port + " did not exit");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while stopping redis-server", e);
        }
        process = null;
    }

    public void flushAll() {
        command("FLUSHALL");
    }

    /** Makes the server answer no client for {@code duration} (CLIENT PAUSE ... ALL): a slow or stalled Redis. */
    public void pause(Duration duration) {
        command("CLIENT", "PAUSE", String.valueOf(duration.toMillis()), "ALL");
    }

    /**
     * Sends one command on a connection of its own and returns the reply: a string for a status, integer or bulk
     * reply (null for a nil one), a list for an array.
     *
     * @throws IllegalStateException for an error reply or if the server cannot be reached
     */
    @SuppressWarnings("unchecked")
    public <T> T command(String... args) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host(), port), 2_000);
            socket.setSoTimeout(10_000);
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                request.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
                request.write(bytes);
                request.write("\r\n".getBytes(StandardCharsets.UTF_8));
            }
            OutputStream out = socket.getOutputStream();
            out.write(request.toByteArray());
            out.flush();
            return (T) read(new BufferedInputStream(socket.getInputStream()));
        } catch (IOException e) {
            throw new IllegalStateException("redis-server on port " + port + " unreachable for " + List.of(args), e);
        }
    }

    private static Object read(InputStream in) throws IOException {
        int type = in.read();
        String line = line(in);
        return switch (type) {
            case '+', ':' -> line;
            case '-' -> throw new IllegalStateException(line);
            case '$' -> {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    yield null;
                }
                byte[] bytes = in.readNBytes(length);
                in.readNBytes(2);
                yield new String(bytes, StandardCharsets.UTF_8);
            }
            case '*' -> {
                int count = Integer.parseInt(line);
                List<Object> items = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    items.add(read(in));
                }
                yield items;
            }
            default -> throw new IOException("Unexpected reply type " + type + " " + line);
        };
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\r') {
            if (b < 0) {
                throw new IOException("Connection closed mid-reply");
            }
            line.write(b);
        }
        in.read(); // '\n'
        return line.toString(StandardCharsets.UTF_8);
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        stop();
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temporary directory; the OS cleans up
        }
    }
}
