package dev.counters.benchmarks;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/**
 * Runs the JPA report's three measurements from many threads, on {@link LoadDriver}'s pools and measurement: entity
 * inserts through Spring Data JPA, ids alone from the generator Hibernate calls, and likes toggled on a hot post.
 * Each run ends with its check: every acknowledged insert stored, every id unique, the like count equal to the rows.
 */
final class JpaDriver {

    static final String INSERTS = "inserts";
    static final String IDS = "ids";
    static final String TOGGLES = "toggles";
    /** The users who toggle likes, taken uniformly. */
    static final int USERS = 10_000;

    private JpaDriver() {}

    /**
     * One measured run.
     *
     * @param operations inserts, ids or toggles in the measured window
     * @param latency of one transaction (inserts: {@value JpaOrders#PER_TRANSACTION} of them), id or toggle
     * @param idShare inserts: the share of the transactions' time spent getting ids (NaN: the id is the insert's)
     * @param check what the end-of-run check compared
     */
    record Result(
            BenchDatabase database,
            String workload,
            String scenario,
            int threads,
            long operations,
            double seconds,
            Histogram latency,
            double statementsPerOperation,
            double idShare,
            long errors,
            boolean exact,
            String check) {

        double perSecond() {
            return operations / seconds;
        }

        double millis(double percentile) {
            return latency.getValueAtPercentile(percentile) / 1e6;
        }

        String line() {
            return String.format(
                    Locale.ROOT,
                    "%-16s %-16s %-8s threads=%3d %,10.0f %s/s p50=%.2fms p99=%.2fms %.3f stmts/op ids=%s"
                            + " errors=%,d %s (%s)",
                    database,
                    workload,
                    scenario,
                    threads,
                    perSecond(),
                    scenario,
                    millis(50),
                    millis(99),
                    statementsPerOperation,
                    Double.isNaN(idShare) ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * idShare),
                    errors,
                    exact ? "exact" : "NOT EXACT",
                    check);
        }
    }

    /** Inserts through the generator's repository, {@value JpaOrders#PER_TRANSACTION} orders per transaction. */
    static Result inserts(
            BenchDatabase database, IdGenerator generator, int threads, Duration warmup, Duration duration)
            throws Exception {
        StatementCounter statements = new StatementCounter();
        return LoadDriver.onPools(database, statements, threads + 8, threads, 1, setup -> {
            try (JpaOrders orders = new JpaOrders(generator, setup.dataSource(), database)) {
                LongAdder acknowledged = new LongAdder();
                LongAdder errors = new LongAdder();
                LongAdder idNanos = new LongAdder();
                LongAdder allNanos = new LongAdder();
                LoadDriver.Measurement measurement = LoadDriver.measure(
                        threads, false, warmup, duration, statements, () -> Flushes.NONE, measured -> {
                            long started = System.nanoTime();
                            try {
                                long ids = orders.insert(Thread.currentThread().getName());
                                acknowledged.add(JpaOrders.PER_TRANSACTION);
                                if (measured) {
                                    idNanos.add(ids);
                                    allNanos.add(System.nanoTime() - started);
                                }
                                return true;
                            } catch (RuntimeException e) {
                                if (measured) {
                                    errors.increment();
                                }
                                return false;
                            }
                        });
                long stored = orders.count();
                return new Result(
                        database,
                        generator.name(),
                        INSERTS,
                        threads,
                        measurement.operations() * JpaOrders.PER_TRANSACTION,
                        measurement.seconds(),
                        measurement.latency(),
                        measurement.statementsPerOperation() / JpaOrders.PER_TRANSACTION,
                        generator.fromInsert() ? Double.NaN : (double) idNanos.sum() / allNanos.sum(),
                        errors.sum(),
                        stored == acknowledged.sum(),
                        String.format(Locale.ROOT, "%,d stored, %,d acknowledged", stored, acknowledged.sum()));
            }
        });
    }

    /** Ids alone, each thread on a Hibernate session of its own, as {@code persist} asks the generator. */
    static Result ids(BenchDatabase database, IdGenerator generator, int threads, Duration warmup, Duration duration)
            throws Exception {
        SequenceWorkload.Opener opener = (dataSource, on) -> {
            JpaOrders orders = new JpaOrders(generator, dataSource, on);
            return new SequenceWorkload() {
                @Override
                public long next() {
                    return orders.nextId();
                }

                @Override
                public void close() {
                    try {
                        orders.close();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            };
        };
        LoadResult ids = LoadDriver.runSequence(
                database,
                new SequenceWorkload.Kind(generator.name(), generator.description(), opener),
                threads,
                warmup,
                duration);
        return new Result(
                database,
                generator.name(),
                IDS,
                threads,
                ids.operations(),
                ids.seconds(),
                ids.latency(),
                ids.statementsPerOperation(),
                Double.NaN,
                ids.failures(),
                ids.correct(),
                ids.correct() ? "every id unique and increasing per thread" : "an id drawn twice or out of order");
    }

    /**
     * Likes toggled on one post by {@code threads} callers: each takes a user at random and sends the opposite of
     * what the callers last saw for that user (two callers on one user race, as two tabs of a browser do).
     */
    static Result toggles(
            BenchDatabase database, ToggleWorkload.Kind kind, int threads, Duration warmup, Duration duration)
            throws Exception {
        StatementCounter statements = new StatementCounter();
        return LoadDriver.onPools(database, statements, threads + 8, threads, 1, setup -> {
            ToggleWorkload likes = kind.opener().open(setup.dataSource(), database);
            AtomicIntegerArray liked = new AtomicIntegerArray(USERS);
            LongAdder errors = new LongAdder();
            LoadDriver.Measurement measurement =
                    LoadDriver.measure(threads, false, warmup, duration, statements, () -> Flushes.NONE, measured -> {
                        int user = ThreadLocalRandom.current().nextInt(USERS);
                        boolean like = liked.get(user) == 0;
                        try {
                            likes.toggle("user-" + user, like);
                            liked.set(user, like ? 1 : 0);
                            return true;
                        } catch (Exception e) {
                            if (measured) {
                                errors.increment();
                            }
                            return false;
                        }
                    });
            likes.close();
            long count = likes.count();
            long members = likes.members();
            return new Result(
                    database,
                    kind.name(),
                    TOGGLES,
                    threads,
                    measurement.operations(),
                    measurement.seconds(),
                    measurement.latency(),
                    measurement.statementsPerOperation(),
                    Double.NaN,
                    errors.sum(),
                    count == members,
                    String.format(Locale.ROOT, "count %,d, %,d member rows", count, members));
        });
    }
}
