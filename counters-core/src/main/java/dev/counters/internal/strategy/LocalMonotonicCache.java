package dev.counters.internal.strategy;

import dev.counters.CounterName;
import dev.counters.spi.MonotonicCache;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** A {@link MonotonicCache} in this JVM. */
public final class LocalMonotonicCache implements MonotonicCache {

    private final ConcurrentHashMap<CounterName, Copy> values = new ConcurrentHashMap<>();
    private final AtomicLong copies = new AtomicLong();

    /** A cached value; a new one after each removal. */
    private static final class Copy extends AtomicLong {

        private static final long serialVersionUID = 1L;

        final long id;

        Copy(long value, long id) {
            super(value);
            this.id = id;
        }
    }

    @Override
    public OptionalLong get(CounterName name) {
        Copy copy = values.get(name);
        return copy == null ? OptionalLong.empty() : OptionalLong.of(copy.get());
    }

    /**
     * Loads outside the map's lock: a copy here is lost only by {@link #remove}, which deletes the counter. Never
     * empty: concurrent loaders agree on the first value put.
     */
    @Override
    public OptionalLong tryLoad(CounterName name, LongSupplier stored) {
        Copy present = values.get(name);
        if (present != null) {
            return OptionalLong.of(present.get());
        }
        long value = stored.getAsLong();
        return OptionalLong.of(values.computeIfAbsent(name, key -> new Copy(value, copies.incrementAndGet()))
                .get());
    }

    @Override
    public Optional<Added> addAndGet(CounterName name, long delta) {
        Copy copy = values.get(name);
        return copy == null
                ? Optional.empty()
                : Optional.of(new Added(copy.accumulateAndGet(delta, Math::addExact), copy.id));
    }

    @Override
    public boolean holds(CounterName name, long copy) {
        Copy held = values.get(name);
        return held != null && held.id == copy;
    }

    @Override
    public void remove(CounterName name) {
        values.remove(name);
    }
}
