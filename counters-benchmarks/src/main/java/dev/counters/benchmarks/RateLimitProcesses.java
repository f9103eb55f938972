package dev.counters.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.testing.AdmissionLog;
import dev.counters.testing.AdmissionLog.Admission;
import dev.counters.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Application processes on one hot key, as a deployment runs them: {@code processes} JVMs ({@link RateLimitChild})
 * take permits of one key of one limiter until a common deadline; one is killed with {@code kill -9} a third of the way
 * through, whatever it had in flight, and started again. Every admission's span is logged by the process that got it,
 * and the bound is checked on all of them together.
 */
final class RateLimitProcesses {

    private static final Pattern DONE = Pattern.compile("DONE admitted=(\\d+) refused=(\\d+) errors=(\\d+)");

    private RateLimitProcesses() {}

    static RateLimitDriver.Result run(
            BenchDatabase database,
            RateLimitWorkload.Kind kind,
            RateLimitWorkload.Limit limit,
            int processes,
            int threads,
            Duration duration)
            throws Exception {
        Path directory = Files.createTempDirectory("counters-ratelimit-");
        Path go = directory.resolve("go");
        String tables = FreshTables.name("rl");
        try (HikariDataSource pool = database.pool(2);
                RateLimitWorkload created = kind.opener().open(pool, database, limit, tables, true)) {
            List<ChildJvm> children = new ArrayList<>();
            List<Path> logs = new ArrayList<>();
            for (int i = 0; i < processes; i++) {
                logs.add(directory.resolve("admitted-" + i));
                children.add(start(pool, database, kind, tables, limit, threads, logs.getLast(), go));
            }
            for (ChildJvm child : children) {
                child.awaitOutput("READY", 2, TimeUnit.MINUTES);
            }
            // All start together, and run until the deadline the go file holds (written whole, then moved in place).
            long started = System.currentTimeMillis();
            Path next = directory.resolve("go.next");
            Files.writeString(next, Long.toString(started + duration.toMillis()));
            Files.move(next, go, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            Thread.sleep(duration.toMillis() / 3);
            ChildJvm killed = children.get(processes / 2);
            killed.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL: kill -9
            logs.add(directory.resolve("admitted-restarted"));
            ChildJvm restarted = start(pool, database, kind, tables, limit, threads, logs.getLast(), go);
            long errors = 0;
            for (ChildJvm child : children) {
                if (child != killed) {
                    errors += errors(child.awaitSuccess(2, TimeUnit.MINUTES));
                }
            }
            errors += errors(restarted.awaitSuccess(2, TimeUnit.MINUTES));
            double seconds = (System.currentTimeMillis() - started) / 1e3;
            List<Admission> admissions = new ArrayList<>();
            for (Path log : logs) {
                admissions.addAll(AdmissionLog.read(log));
            }
            long most = RateLimitDriver.most(kind, limit, admissions);
            return new RateLimitDriver.Result(
                    database,
                    kind.name(),
                    "processes",
                    processes,
                    threads,
                    1,
                    limit,
                    admissions.size(), // refusals are not logged: decisions here are the admissions
                    seconds,
                    admissions.size(),
                    errors,
                    most,
                    limit.bound(kind.fixedWindow()),
                    null,
                    Double.NaN);
        }
    }

    /** The errors a process counted, from its last line. */
    private static long errors(String output) {
        Matcher done = DONE.matcher(output);
        if (!done.find()) {
            throw new IllegalStateException("A process ended without its DONE line:\n" + output);
        }
        return Long.parseLong(done.group(3));
    }

    private static ChildJvm start(
            HikariDataSource pool,
            BenchDatabase database,
            RateLimitWorkload.Kind kind,
            String tables,
            RateLimitWorkload.Limit limit,
            int threads,
            Path log,
            Path go)
            throws Exception {
        return ChildJvm.start(
                RateLimitChild.class,
                kind.name(),
                database.name(),
                pool.getJdbcUrl(),
                pool.getUsername(),
                pool.getPassword() == null ? "" : pool.getPassword(),
                tables,
                Long.toString(limit.permits()),
                Long.toString(limit.period().toMillis()),
                Integer.toString(threads),
                log.toString(),
                go.toString());
    }
}
