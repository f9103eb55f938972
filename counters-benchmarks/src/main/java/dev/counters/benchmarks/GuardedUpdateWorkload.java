package dev.counters.benchmarks;

import java.util.List;
import javax.sql.DataSource;

/**
 * The baseline a shop writes for a stock that must not go below 0: one row per stock,
 * {@code UPDATE … SET v = v - 1 WHERE id = ? AND v >= 1} per sale, one commit each; a sale is acknowledged iff it
 * updated the row. Its total is the units sold.
 */
final class GuardedUpdateWorkload extends PlainUpdateWorkload implements SellOut.Stock {

    private GuardedUpdateWorkload(List<DataSource> pools, int counters, long stock) throws Exception {
        super(pools, counters, new Rows(stock, "SET v = v - 1 WHERE id = ? AND v >= 1", -1));
    }

    /** {@code instances} application instances, each with its own pool; callers shared out evenly. */
    static SellOut.Opener instances(int instances) {
        return (setup, stock) -> new GuardedUpdateWorkload(setup.instancePools(instances), setup.counters(), stock);
    }
}
