package dev.counters.internal.service;

import static dev.counters.internal.service.Arguments.checkDelta;
import static dev.counters.internal.service.Arguments.checkKey;
import static dev.counters.internal.service.Arguments.checkTtl;

import dev.counters.BoundedCounter;
import dev.counters.BoundedIncrement;
import dev.counters.BoundedState;
import dev.counters.CounterName;
import dev.counters.Hold;
import dev.counters.HoldStatus;
import dev.counters.IdempotencyKey;
import dev.counters.internal.strategy.Bounding;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** A bounded counter's operations ({@link dev.counters.CounterService#bounded}), checked, then passed to its strategy. */
final class BoundedView implements BoundedCounter {

    private final CounterName name;
    private final Route route;
    private final Bounding bounding;
    private final Housekeeping housekeeping;

    BoundedView(CounterName name, Route route, Bounding bounding, Housekeeping housekeeping) {
        this.name = name;
        this.route = route;
        this.bounding = bounding;
        this.housekeeping = housekeeping;
    }

    @Override
    public CounterName name() {
        return name;
    }

    @Override
    public @Nullable Long min() {
        return bounding.settings().min();
    }

    @Override
    public @Nullable Long max() {
        return bounding.settings().max();
    }

    @Override
    public boolean tryIncrement(long delta) {
        return counted(bounding.tryIncrement(name, checkDelta(name, delta), null, false))
                .applied();
    }

    @Override
    public boolean tryIncrement(long delta, IdempotencyKey key) {
        return tryIncrementAndGet(delta, key, false).applied();
    }

    @Override
    public BoundedIncrement tryIncrementAndGet(long delta) {
        return counted(bounding.tryIncrement(name, checkDelta(name, delta), null, true));
    }

    @Override
    public BoundedIncrement tryIncrementAndGet(long delta, IdempotencyKey key) {
        return tryIncrementAndGet(delta, key, true);
    }

    private BoundedIncrement tryIncrementAndGet(long delta, IdempotencyKey key, boolean needsValue) {
        checkDelta(name, delta);
        return counted(bounding.tryIncrement(name, delta, checkKey(route, name, key, housekeeping), needsValue));
    }

    @Override
    public Hold reserve(long delta, Duration ttl, IdempotencyKey key) {
        checkDelta(name, delta);
        checkTtl(name, ttl, bounding.settings().maxHoldTtl());
        return bounding.reserve(name, delta, ttl, checkKey(route, name, key, housekeeping));
    }

    @Override
    public Hold confirm(IdempotencyKey key) {
        return bounding.settle(name, checkKey(route, name, key, housekeeping), HoldStatus.CONFIRMED);
    }

    @Override
    public Hold release(IdempotencyKey key) {
        return bounding.settle(name, checkKey(route, name, key, housekeeping), HoldStatus.RELEASED);
    }

    @Override
    public Optional<Hold> hold(IdempotencyKey key) {
        return bounding.hold(name, checkKey(route, name, key, housekeeping));
    }

    @Override
    public BoundedState state() {
        return bounding.state(name);
    }

    /** Applied changes count as the route's increments; refusals do not. */
    private BoundedIncrement counted(BoundedIncrement answer) {
        if (answer.applied()) {
            route.count();
        }
        return answer;
    }
}
