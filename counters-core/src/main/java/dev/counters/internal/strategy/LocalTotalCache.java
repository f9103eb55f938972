package dev.counters.internal.strategy;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.counters.CounterName;
import dev.counters.spi.TotalCache;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

/** A {@link TotalCache} in this JVM: at most 100,000 totals, each expiring as put. */
final class LocalTotalCache implements TotalCache {

    /** {@code put}: just put, so its expiry applies from now; else an addition, which keeps the expiry it had. */
    private record Total(long value, long loadId, long expiryNanos, boolean put) {}

    private final Cache<CounterName, Total> totals;
    private final AtomicLong loads = new AtomicLong();

    /** Expiry on the {@code ticker}'s forward movement only: a clock set back must not keep a stale total. */
    LocalTotalCache(Ticker ticker) {
        this.totals = Caffeine.newBuilder()
                .ticker(ticker)
                .expireAfter(new Expiry<CounterName, Total>() {
                    @Override
                    public long expireAfterCreate(CounterName name, Total total, long now) {
                        return total.expiryNanos();
                    }

                    @Override
                    public long expireAfterUpdate(CounterName name, Total total, long now, long remaining) {
                        return total.put() ? total.expiryNanos() : remaining;
                    }

                    @Override
                    public long expireAfterRead(CounterName name, Total total, long now, long remaining) {
                        return remaining;
                    }
                })
                .maximumSize(100_000)
                .build();
    }

    @Override
    public OptionalLong get(CounterName name) {
        Total total = totals.getIfPresent(name);
        return total == null ? OptionalLong.empty() : OptionalLong.of(total.value());
    }

    @Override
    public long put(CounterName name, long total, Duration expiry) {
        long loadId = loads.incrementAndGet();
        totals.put(name, new Total(total, loadId, expiry.toNanos(), true));
        return loadId;
    }

    @Override
    public OptionalLong addIfLoaded(CounterName name, long delta, long loadId) {
        Total added = totals.asMap().computeIfPresent(name, (key, total) -> {
            if (total.loadId() != loadId) {
                return new Total(total.value(), total.loadId(), total.expiryNanos(), false); // keeps its expiry
            }
            long sum = total.value() + delta;
            // On overflow the total is dropped; the next read asks the store, which reports the problem.
            return ((total.value() ^ sum) & (delta ^ sum)) < 0
                    ? null
                    : new Total(sum, loadId, total.expiryNanos(), false);
        });
        return added == null ? OptionalLong.empty() : OptionalLong.of(added.loadId());
    }

    @Override
    public void remove(CounterName name) {
        totals.invalidate(name);
    }
}
