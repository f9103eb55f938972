package dev.counters.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import javax.sql.DataSource;

/** One way of counting that the driver measures: a strategy of this library, or a baseline. */
interface Workload extends AutoCloseable {

    /**
     * Adds 1 to counter {@code counter} (takes 1 from a stock); returning normally means the change was acknowledged.
     *
     * @throws Refused if the change was refused and wrote nothing (a stock at its bound)
     */
    void increment(int counter) throws Exception;

    /** Writes anything still pending and stops; then {@link #totals()} reads what is stored. */
    @Override
    void close() throws Exception;

    /** The flushes made so far, for a buffered workload; {@link Flushes#NONE} for the others. */
    default Flushes flushes() {
        return Flushes.NONE;
    }

    /** The stored value of every counter, read after {@link #close()}. */
    long[] totals() throws Exception;

    /** Opens a workload on a database, with its own tables. */
    @FunctionalInterface
    interface Opener {
        Workload open(Setup setup) throws Exception;
    }

    /**
     * What a workload opens on: a pool of {@code connections} for the run's callers, the database, how many counters
     * and callers, and more pools for workloads that model several application instances. Every pool counts its
     * statements for the report and is closed by the driver after the run.
     */
    record Setup(
            DataSource dataSource,
            BenchDatabase database,
            int counters,
            int callers,
            int connections,
            IntFunction<DataSource> pools) {

        /**
         * The pools of {@code instances} application instances: the run's pool, then one more pool for each other
         * instance, sized for its share of the callers.
         */
        List<DataSource> instancePools(int instances) {
            List<DataSource> all = new ArrayList<>(List.of(dataSource));
            for (int i = 1; i < instances; i++) {
                all.add(pools.apply(Math.ceilDiv(connections, instances) + 2));
            }
            return all;
        }
    }

    /** A change refused by a bound: nothing was written, and it is not acknowledged. */
    final class Refused extends Exception {
        Refused() {
            super("refused: the stock is at its bound", null, false, false); // expected, so no stack trace
        }
    }

    /** A named workload, as chosen on the command line. */
    record Kind(String name, String description, Opener opener) {}
}
