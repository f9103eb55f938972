package dev.counters.spring.boot;

import dev.counters.spi.MonotonicCache;
import dev.counters.spi.TotalCache;
import org.jspecify.annotations.Nullable;

/**
 * The application's shared caches, if it has them ({@code counters-redis} defines both on Redis), and which one a
 * strategy uses: the one its settings name, else the shared one if there is one, else none (a cache in this JVM).
 */
record SharedCaches(@Nullable MonotonicCache monotonic, @Nullable TotalCache totals, boolean checked) {

    /** For checking settings at binding time, before the beans exist: never fails for want of a cache. */
    static final SharedCaches UNCHECKED = new SharedCaches(null, null, false);

    static SharedCaches of(@Nullable MonotonicCache monotonic, @Nullable TotalCache totals) {
        return new SharedCaches(monotonic, totals, true);
    }

    @Nullable MonotonicCache monotonic(CountersProperties.@Nullable CacheLocation location, String strategy) {
        return pick(monotonic, location, strategy, MonotonicCache.class);
    }

    @Nullable TotalCache totals(CountersProperties.@Nullable CacheLocation location, String strategy) {
        return pick(totals, location, strategy, TotalCache.class);
    }

    private <C> @Nullable C pick(@Nullable C shared, CountersProperties.@Nullable CacheLocation location,
            String strategy, Class<C> type) {
        if (location == CountersProperties.CacheLocation.LOCAL) {
            return null;
        }
        if (location == CountersProperties.CacheLocation.REDIS && shared == null && checked) {
            throw new IllegalStateException("counters." + strategy + ".cache is redis, but there is no "
                    + type.getSimpleName() + " bean: add dev.counters:counters-redis and configure Spring Data Redis"
                    + " (spring.data.redis.*), or set the cache to local");
        }
        return shared;
    }
}
