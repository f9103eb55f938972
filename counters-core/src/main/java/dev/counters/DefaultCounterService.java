package dev.counters;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.counters.strategy.CounterStrategy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/** Validates, routes each counter to its strategy, and keeps recently used handles resolved. */
final class DefaultCounterService implements CounterService {

    private final NameRules<CounterStrategy> router;
    private final List<CounterStrategy> strategies;
    private final Cache<String, Counter> handles;
    private final AtomicBoolean closed = new AtomicBoolean();

    DefaultCounterService(NameRules<CounterStrategy> router, List<CounterStrategy> strategies, int maxCachedHandles) {
        this.router = router;
        this.strategies = List.copyOf(strategies);
        this.handles = Caffeine.newBuilder().maximumSize(maxCachedHandles).build();
    }

    @Override
    public void increment(String name, long delta) {
        counter(name).increment(delta);
    }

    @Override
    public CompletableFuture<Void> incrementDurably(String name, long delta) {
        return counter(name).incrementDurably(delta);
    }

    @Override
    public long incrementAndGet(String name, long delta) {
        return counter(name).incrementAndGet(delta);
    }

    @Override
    public long get(String name) {
        return counter(name).get();
    }

    @Override
    public Map<String, Long> get(Collection<String> names) {
        // Validate everything first, then ask each strategy once for all of its counters.
        Map<CounterStrategy, List<CounterName>> byStrategy = new IdentityHashMap<>();
        List<CounterName> validated = new ArrayList<>(names.size());
        for (String name : names) {
            CounterName counterName = CounterName.of(name);
            validated.add(counterName);
            byStrategy.computeIfAbsent(router.select(counterName.value()), s -> new ArrayList<>()).add(counterName);
        }
        Map<CounterName, Long> values = new LinkedHashMap<>();
        byStrategy.forEach((strategy, counters) -> values.putAll(strategy.getAll(counters)));
        Map<String, Long> result = new LinkedHashMap<>();
        for (CounterName name : validated) {
            result.put(name.value(), values.getOrDefault(name, 0L));
        }
        return result;
    }

    @Override
    public long getExact(String name) {
        return counter(name).getExact();
    }

    @Override
    public int growShards(String name, int shards) {
        return counter(name).growShards(shards);
    }

    @Override
    public void delete(String name) {
        counter(name).delete();
    }

    @Override
    public Counter counter(String name) {
        if (closed.get()) {
            throw new IllegalStateException("The CounterService is closed");
        }
        if (name == null) {
            throw new IllegalArgumentException("Counter name must not be null");
        }
        Counter counter = handles.getIfPresent(name);
        if (counter == null) {
            CounterName counterName = CounterName.of(name);
            counter = new RoutedCounter(counterName, router.select(counterName.value()));
            handles.put(name, counter);
        }
        return counter;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            RuntimeException failure = null;
            for (CounterStrategy strategy : strategies) {
                try {
                    strategy.close();
                } catch (RuntimeException e) {
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
            if (failure != null) {
                throw failure;
            }
        }
    }

    /** A counter bound to its strategy. */
    private record RoutedCounter(CounterName name, CounterStrategy target) implements Counter {

        @Override
        public String strategy() {
            return target.type();
        }

        @Override
        public void increment(long delta) {
            target.increment(name, checkDelta(delta));
        }

        @Override
        public CompletableFuture<Void> incrementDurably(long delta) {
            return target.incrementDurably(name, checkDelta(delta));
        }

        @Override
        public long incrementAndGet(long delta) {
            return target.incrementAndGet(name, checkDelta(delta));
        }

        @Override
        public long get() {
            return target.get(name);
        }

        @Override
        public long getExact() {
            return target.getExact(name);
        }

        @Override
        public Map<String, Long> cells() {
            return target.cells(name);
        }

        @Override
        public int growShards(int shards) {
            return target.growShards(name, shards);
        }

        @Override
        public void delete() {
            target.delete(name);
        }

        private long checkDelta(long delta) {
            if (delta == 0) {
                throw new IllegalArgumentException("Delta for counter '" + name + "' must not be 0");
            }
            return delta;
        }
    }
}
