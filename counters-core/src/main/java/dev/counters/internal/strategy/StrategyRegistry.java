package dev.counters.internal.strategy;

import dev.counters.internal.strategy.buffered.BufferedStrategy;
import dev.counters.spi.MonotonicCache;
import dev.counters.spi.TotalCache;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.BoundedSettings;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.CacheChoice;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.MonotonicSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.ShardedSettings;
import dev.counters.strategy.StrategySettings;
import org.jspecify.annotations.Nullable;

/**
 * The one place that maps each settings record to its strategy. It is a {@link StrategySettings.Visitor}, so a new
 * strategy does not compile until it is handled here.
 */
public final class StrategyRegistry implements StrategySettings.Visitor<CounterStrategy> {

    private final StrategyContext context;
    private final @Nullable MonotonicCache monotonicCache;
    private final @Nullable TotalCache totalCache;

    /**
     * @param monotonicCache the service's shared cache of monotonic values, if it was given one
     * @param totalCache the service's shared cache of sharded totals, if it was given one
     */
    public StrategyRegistry(
            StrategyContext context, @Nullable MonotonicCache monotonicCache, @Nullable TotalCache totalCache) {
        this.context = context;
        this.monotonicCache = monotonicCache;
        this.totalCache = totalCache;
    }

    /** Builds the strategy {@code settings} describe, with this registry's context. */
    public CounterStrategy create(StrategySettings settings) {
        return settings.accept(this);
    }

    @Override
    public CounterStrategy atomic(AtomicSettings settings) {
        return new AtomicStrategy(context);
    }

    @Override
    public CounterStrategy optimistic(OptimisticSettings settings) {
        return new OptimisticStrategy(context, settings);
    }

    @Override
    public CounterStrategy sharded(ShardedSettings settings) {
        return new ShardedStrategy(
                context, settings, shared(settings.cache(), totalCache, TotalCache.class, "totalCache"));
    }

    @Override
    public CounterStrategy node(NodeSettings settings) {
        return new NodeStrategy(context, settings);
    }

    @Override
    public CounterStrategy buffered(BufferedSettings settings) {
        return new BufferedStrategy(context, settings);
    }

    @Override
    public CounterStrategy deltaLog(DeltaLogSettings settings) {
        return new DeltaLogStrategy(context, settings);
    }

    @Override
    public CounterStrategy monotonic(MonotonicSettings settings) {
        MonotonicCache cache = shared(settings.cache(), monotonicCache, MonotonicCache.class, "monotonicCache");
        return new MonotonicStrategy(context, settings, cache != null ? cache : new LocalMonotonicCache());
    }

    @Override
    public CounterStrategy bounded(BoundedSettings settings) {
        return new BoundedStrategy(context, settings);
    }

    /** The shared cache the choice asks for; null for one in this JVM. */
    private <C> @Nullable C shared(CacheChoice choice, @Nullable C cache, Class<C> type, String builderMethod) {
        if (choice == CacheChoice.SHARED && cache == null) {
            throw new IllegalStateException("The " + context.strategy() + " strategy of rule '" + context.rule()
                    + "' asks for the shared " + type.getSimpleName() + " (CacheChoice.SHARED), and the service was"
                    + " given none: pass one to CounterServiceBuilder." + builderMethod + "(...), or choose"
                    + " CacheChoice.LOCAL");
        }
        return choice == CacheChoice.LOCAL ? null : cache;
    }
}
