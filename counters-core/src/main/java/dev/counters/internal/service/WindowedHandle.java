package dev.counters.internal.service;

import static dev.counters.internal.service.Arguments.checkDelta;
import static dev.counters.internal.service.Arguments.checkKey;

import dev.counters.CounterName;
import dev.counters.IdempotencyKey;
import dev.counters.IdempotencyKeyReusedException;
import dev.counters.WindowSettings;
import dev.counters.WindowedCounter;
import dev.counters.internal.NamePages;
import dev.counters.internal.Time;
import dev.counters.spi.CounterStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A windowed counter: each increment goes to the window of the time it is made (the service's clock), stored by the
 * counter's strategy as a counter of its own ({@link Windows}); reads by window.
 */
final class WindowedHandle implements Handle, WindowedCounter {

    /** The most windows one read of a series covers. */
    static final int MAX_SERIES = 10_000;

    private final String key;
    private final CounterName name;
    private final Route route;
    private final Windows windows;
    private final Time time;
    private final CounterStore store;
    private final Housekeeping housekeeping;
    /** The window of the last increment, reused while the clock is inside it. */
    private volatile @Nullable Current current;

    private record Current(Instant start, Instant end, CounterName stored) {}

    WindowedHandle(
            CounterName name, Route route, Windows windows, Time time, CounterStore store, Housekeeping housekeeping) {
        Windows.check(name);
        this.key = name.value();
        this.name = name;
        this.route = route;
        this.windows = windows;
        this.time = time;
        this.store = store;
        this.housekeeping = housekeeping;
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    public Route route() {
        return route;
    }

    @Override
    public CounterName name() {
        return name;
    }

    @Override
    public WindowSettings settings() {
        return windows.settings;
    }

    /** The window now under way, by the clock read once here. */
    @Override
    public CounterName stored() {
        Instant now = time.now();
        Current window = current;
        if (window == null || now.isBefore(window.start()) || !now.isBefore(window.end())) {
            Instant start = windows.start(now);
            window = new Current(start, windows.end(start), Windows.name(name, start));
            current = window;
        }
        return window.stored();
    }

    /** The window an increment lands in, if this JVM's clock lets it be written safely ({@link Windows#checkClock}). */
    private CounterName toWrite() {
        windows.checkClock(name, time.now(), time.steady());
        return stored();
    }

    @Override
    public String strategy() {
        return route.strategyName();
    }

    @Override
    public boolean tryIncrement(long delta) {
        throw noBounds();
    }

    @Override
    public boolean tryIncrement(long delta, IdempotencyKey key) {
        throw noBounds();
    }

    private IllegalStateException noBounds() {
        return new IllegalStateException("Counter '" + name + "' has windows, and windowed counters have no bounds:"
                + " tryIncrement needs strategy: bounded");
    }

    @Override
    public void increment(long delta) {
        route.strategy().increment(toWrite(), checkDelta(name, delta));
        route.count();
    }

    @Override
    public void increment(long delta, IdempotencyKey key) {
        keyed(delta, key, false);
    }

    /**
     * An increment under a key, in the current window. A repeat after the window turned finds the key recorded for
     * an earlier window of this counter: the same increment, applied there, so it writes nothing and answers the
     * current window's value.
     */
    private long keyed(long delta, IdempotencyKey key, boolean needsValue) {
        try {
            long value = route.strategy()
                    .increment(
                            toWrite(), checkDelta(name, delta), checkKey(route, name, key, housekeeping), needsValue);
            route.count();
            return value;
        } catch (IdempotencyKeyReusedException e) {
            boolean earlierWindow = e.recordedDelta() == delta
                    && Windows.parse(CounterName.of(e.recordedCounter()))
                            .filter(window -> window.counter().equals(name))
                            .isPresent();
            if (!earlierWindow) {
                throw e;
            }
            return needsValue ? current() : 0;
        }
    }

    @Override
    public CompletableFuture<Void> incrementDurably(long delta) {
        CompletableFuture<Void> durable = route.strategy().incrementDurably(toWrite(), checkDelta(name, delta));
        route.count();
        return durable;
    }

    /** Adds {@code delta} to the current window; returns the window's value after it. */
    @Override
    public long incrementAndGet(long delta) {
        long value = route.strategy().incrementAndGet(toWrite(), checkDelta(name, delta));
        route.count();
        return value;
    }

    @Override
    public long incrementAndGet(long delta, IdempotencyKey key) {
        return keyed(delta, key, true);
    }

    /** The current window's value. */
    @Override
    public long get() {
        return current();
    }

    @Override
    public long getExact() {
        return route.strategy().getExact(stored());
    }

    @Override
    public long current() {
        return route.strategy().get(stored());
    }

    @Override
    public long at(Instant instant) {
        return route.strategy().get(Windows.name(name, windows.start(instant)));
    }

    @Override
    public long sumOfLast(Duration duration) {
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("duration must be positive, was " + duration);
        }
        Instant now = time.now();
        return series(now.minus(duration), now.plusNanos(1)).stream()
                .mapToLong(Window::value)
                .sum();
    }

    @Override
    public List<Window> last(int count) {
        if (count < 1 || count > MAX_SERIES) {
            throw new IllegalArgumentException("windows must be between 1 and " + MAX_SERIES + ", was " + count);
        }
        Instant now = time.now();
        List<Window> series = series(now.minus(windows.settings.size().multipliedBy(count - 1)), now.plusNanos(1));
        return series.subList(Math.max(0, series.size() - count), series.size());
    }

    @Override
    public List<Window> series(Instant from, Instant to) {
        if (!from.isBefore(to)) {
            throw new IllegalArgumentException("from (" + from + ") must be before to (" + to + ")");
        }
        List<Instant> starts = new ArrayList<>();
        for (Instant start = windows.start(from); start.isBefore(to); start = windows.end(start)) {
            if (starts.size() == MAX_SERIES) {
                throw new IllegalArgumentException("[" + from + ", " + to + ") covers more than " + MAX_SERIES
                        + " windows of " + windows.settings.size());
            }
            starts.add(start);
        }
        List<CounterName> stored =
                starts.stream().map(start -> Windows.name(name, start)).toList();
        Map<CounterName, Long> values = route.strategy().getAll(stored);
        List<Window> series = new ArrayList<>(starts.size());
        for (int i = 0; i < starts.size(); i++) {
            series.add(new Window(starts.get(i), windows.end(starts.get(i)), values.getOrDefault(stored.get(i), 0L)));
        }
        return series;
    }

    /** Removes every window of the counter: the current one, and every stored one. */
    @Override
    public void delete() {
        route.strategy().delete(stored());
        NamePages.deleteWhere(
                store, name.value() + Windows.MARK, Integer.MAX_VALUE, stored -> true, route.strategy()::delete);
    }
}
