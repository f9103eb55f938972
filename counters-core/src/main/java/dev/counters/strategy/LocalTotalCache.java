package dev.counters.strategy;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.counters.CounterName;
import dev.counters.spi.TotalCache;
import java.time.Duration;
import java.util.OptionalLong;

/** A {@link TotalCache} in this JVM: at most 100,000 totals, each expiring as put. */
final class LocalTotalCache implements TotalCache {

    /** {@code put}: just put, so its expiry applies from now; else an addition, which keeps the expiry it had. */
    private record Total(long value, long expiryNanos, boolean put) {
    }

    private final Cache<CounterName, Total> totals;

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
    public void put(CounterName name, long total, Duration expiry) {
        totals.put(name, new Total(total, expiry.toNanos(), true));
    }

    @Override
    public void addIfPresent(CounterName name, long delta) {
        totals.asMap().computeIfPresent(name, (key, total) -> {
            long sum = total.value() + delta;
            // On overflow the total is dropped; the next read asks the store, which reports the problem.
            return ((total.value() ^ sum) & (delta ^ sum)) < 0 ? null : new Total(sum, total.expiryNanos(), false);
        });
    }

    @Override
    public void remove(CounterName name) {
        totals.invalidate(name);
    }
}
