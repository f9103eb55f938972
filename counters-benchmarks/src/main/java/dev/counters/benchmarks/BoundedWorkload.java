package dev.counters.benchmarks;

import dev.counters.BoundedState;
import dev.counters.CounterService;
import dev.counters.strategy.BoundedSettings;
import java.util.Arrays;
import java.util.Objects;

/**
 * The {@code bounded} strategy selling a stock: {@code tryIncrement(-1)} on a counter with {@code min 0} that starts
 * at the stock, in fresh tables (a fresh counter per point), from one service or several on the same tables
 * ({@link ServiceInstances}: each its pool and node id). A refusal is not acknowledged; the total is the units sold,
 * the stock minus the value a new service reads after every instance closed.
 */
final class BoundedWorkload implements SellOut.Stock {

    private final ServiceInstances instances;
    private final long stock;

    private BoundedWorkload(Setup setup, BoundedSettings settings, int instances, long stock) {
        this.instances = new ServiceInstances(setup, settings.withBounds(0L, null, stock), instances);
        this.stock = stock;
    }

    /** {@code instances} services on the same tables, each with its own pool and node id. */
    static SellOut.Opener instances(BoundedSettings settings, int instances) {
        return (setup, stock) -> new BoundedWorkload(setup, settings, instances, stock);
    }

    @Override
    public void increment(int counter) throws Refused {
        if (!instances.caller().tryIncrement(instances.name(counter), -1)) {
            throw new Refused();
        }
    }

    @Override
    public long value(int counter) {
        return instances.first().get(instances.name(counter));
    }

    @Override
    public void close() {
        instances.close();
    }

    @Override
    public long[] totals() {
        return Arrays.stream(instances.values()).map(value -> stock - value).toArray();
    }

    /** The room the nodes' allowance rows still hold, read by a new service after close: 0 once all went back. */
    @Override
    public long heldApart(int counter) {
        try (CounterService reader = instances.reader()) {
            BoundedState state = reader.bounded(instances.name(counter)).state();
            return state.allowances().values().stream()
                    .map(BoundedState.Allowance::towardMin)
                    .filter(Objects::nonNull)
                    .mapToLong(Long::longValue)
                    .sum();
        }
    }
}
