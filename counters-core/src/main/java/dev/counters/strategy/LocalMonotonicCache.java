package dev.counters.strategy;

import dev.counters.CounterName;
import dev.counters.spi.MonotonicCache;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** A {@link MonotonicCache} in this JVM. */
final class LocalMonotonicCache implements MonotonicCache {

    private final ConcurrentHashMap<CounterName, AtomicLong> values = new ConcurrentHashMap<>();

    @Override
    public OptionalLong get(CounterName name) {
        AtomicLong value = values.get(name);
        return value == null ? OptionalLong.empty() : OptionalLong.of(value.get());
    }

    @Override
    public long putIfAbsent(CounterName name, long value) {
        return values.computeIfAbsent(name, key -> new AtomicLong(value)).get();
    }

    @Override
    public OptionalLong addAndGet(CounterName name, long delta) {
        AtomicLong value = values.get(name);
        return value == null ? OptionalLong.empty()
                : OptionalLong.of(value.accumulateAndGet(delta, Math::addExact));
    }

    @Override
    public void remove(CounterName name) {
        values.remove(name);
    }
}
