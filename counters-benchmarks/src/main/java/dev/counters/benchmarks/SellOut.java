package dev.counters.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * A flash sale: a stock of a few units, and many callers each taking one unit after another until it is refused.
 * Measures the time from the start to the last caller's refusal, and checks what a shop needs: every unit sold once
 * and no more (sold = stock, the value left 0), the value never seen below 0 by an observer reading it every
 * millisecond, and no unit left stranded apart from the value (a bounded counter's node allowances, after close).
 */
final class SellOut {

    /** Callers give up after this: a sale not sold out by then is not exact. */
    private static final Duration DEADLINE = Duration.ofMinutes(2);

    private SellOut() {}

    /** A stock: a {@link Workload} whose increment takes one unit, throwing {@link Workload.Refused} at the bound. */
    interface Stock extends Workload {

        /** The value now, read while callers take from it. */
        long value(int counter) throws Exception;

        /** Read after {@link #close()}: the room still held apart from the value, which a sale could never reach. */
        default long heldApart(int counter) throws Exception {
            return 0;
        }
    }

    /** Opens a stock of {@code stock} units on a setup, with tables (or a server) of its own. */
    @FunctionalInterface
    interface Opener {
        Stock open(Workload.Setup setup, long stock) throws Exception;
    }

    /** A named way of selling a stock. */
    record Kind(String name, String description, Opener opener) {

        /** The load driver's workload: this way of selling, on a stock of {@code stock} units. */
        Workload.Kind load(long stock) {
            return new Workload.Kind(name, description, setup -> opener.open(setup, stock));
        }
    }

    /**
     * One sale.
     *
     * @param sold the units acknowledged
     * @param value the value a new reader sees after close: stock minus the units stored as sold
     * @param lowest the lowest value the observer saw
     * @param heldApart the room left apart from the value after close
     * @param errors calls or reads that threw, and callers that saw no refusal before the deadline
     */
    record Result(
            BenchDatabase database,
            String workload,
            long stock,
            int callers,
            double seconds,
            long sold,
            long value,
            long lowest,
            long heldApart,
            long errors) {

        boolean exact() {
            return errors == 0 && sold == stock && value == 0 && lowest >= 0 && heldApart == 0;
        }

        String line() {
            return String.format(
                    Locale.ROOT,
                    "%-8s sell-out %-22s stock=%,d callers=%d %8.1f ms  sold=%,d value=%d lowest=%d held apart=%d"
                            + " errors=%d  %s",
                    database,
                    workload,
                    stock,
                    callers,
                    seconds * 1_000,
                    sold,
                    value,
                    lowest,
                    heldApart,
                    errors,
                    exact() ? "exact" : "NOT EXACT");
        }
    }

    static Result run(BenchDatabase database, Kind kind, long stock, int callers) throws Exception {
        return LoadDriver.onPools(database, new StatementCounter(), callers + 8, callers, 1, setup -> {
            Stock sale = kind.opener().open(setup, stock);
            LongAdder sold = new LongAdder();
            AtomicLong errors = new AtomicLong();
            AtomicLong lastRefusal = new AtomicLong();
            AtomicLong lowest = new AtomicLong(Long.MAX_VALUE);
            AtomicBoolean selling = new AtomicBoolean(true);
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < callers; t++) {
                threads.add(Thread.ofPlatform().name("sell-" + t).start(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    long deadline = System.nanoTime() + DEADLINE.toNanos();
                    while (true) {
                        if (System.nanoTime() > deadline) {
                            errors.incrementAndGet();
                            return;
                        }
                        try {
                            sale.increment(0);
                            sold.increment();
                        } catch (Workload.Refused e) {
                            lastRefusal.accumulateAndGet(System.nanoTime(), Math::max);
                            return;
                        } catch (Exception e) {
                            errors.incrementAndGet();
                        }
                    }
                }));
            }
            Thread observer = Thread.ofPlatform().name("sell-observer").start(() -> {
                while (selling.get()) {
                    observe(sale, lowest, errors);
                    LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
                }
            });
            long started = System.nanoTime();
            start.countDown();
            for (Thread thread : threads) {
                thread.join();
            }
            selling.set(false);
            observer.join();
            observe(sale, lowest, errors);
            double seconds = (Math.max(lastRefusal.get(), started) - started) / 1e9;
            sale.close();
            long value = stock - sale.totals()[0];
            return new Result(
                    database,
                    kind.name(),
                    stock,
                    callers,
                    seconds,
                    sold.sum(),
                    value,
                    lowest.get(),
                    sale.heldApart(0),
                    errors.get());
        });
    }

    private static void observe(Stock sale, AtomicLong lowest, AtomicLong errors) {
        try {
            lowest.accumulateAndGet(sale.value(0), Math::min);
        } catch (Exception e) {
            errors.incrementAndGet();
        }
    }
}
