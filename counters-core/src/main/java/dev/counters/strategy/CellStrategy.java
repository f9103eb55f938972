package dev.counters.strategy;

import dev.counters.CounterName;
import dev.counters.StrategyStatistics;
import dev.counters.internal.CounterStrategy;
import dev.counters.internal.StrategyContext;
import dev.counters.spi.CounterStore;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The reads shared by the strategies whose counter is the sum of its cells in the store (atomic, optimistic,
 * sharded, node): they differ only in which cells they write. Each owns one Resilience4j {@link Retry}, the only
 * place its store calls are repeated.
 */
abstract class CellStrategy implements CounterStrategy {

    final CounterStore store;
    final Retry retry;
    private final LongAdder retries = new LongAdder();

    CellStrategy(StrategyContext context, String type, RetryConfig retryDefaults) {
        this.store = context.store();
        this.retry = context.retry(type, retryDefaults);
        this.retry.getEventPublisher().onRetry(event -> retries.increment());
    }

    /** Runs a store call, repeated by the strategy's retry while it fails in a way that surely wrote nothing. */
    final <T> T retrying(Supplier<T> call) {
        return retry.executeSupplier(call);
    }

    final void retrying(Runnable call) {
        retry.executeRunnable(call);
    }

    final long retries() {
        return retries.sum();
    }

    @Override
    public StrategyStatistics.Activity activity() {
        return new StrategyStatistics.Activity(0, retries(), 0, null);
    }

    @Override
    public long get(CounterName name) {
        return retrying(() -> store.get(name));
    }

    @Override
    public Map<CounterName, Long> getAll(Collection<CounterName> names) {
        Map<CounterName, Long> stored = retrying(() -> store.getAll(names));
        Map<CounterName, Long> values = new LinkedHashMap<>();
        for (CounterName name : names) {
            values.put(name, stored.getOrDefault(name, 0L));
        }
        return values;
    }

    @Override
    public Map<String, Long> cells(CounterName name) {
        return retrying(() -> store.cells(name));
    }

    @Override
    public void delete(CounterName name) {
        retrying(() -> store.delete(name));
    }
}
