package dev.counters.internal.ratelimit;

import dev.counters.BoundedIncrement;
import dev.counters.CounterContentionException;
import dev.counters.CounterName;
import dev.counters.RateDecision;
import dev.counters.RateDecision.Outcome;
import dev.counters.RateLimit;
import dev.counters.internal.NamePages;
import dev.counters.internal.Time;
import dev.counters.internal.strategy.BoundedStrategy;
import dev.counters.internal.strategy.StrategyContext;
import dev.counters.spi.CounterStore;
import dev.counters.spi.Escrow;
import dev.counters.spi.Escrow.Bounds;
import dev.counters.spi.Escrow.EscrowState;
import dev.counters.strategy.BoundedSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Fixed windows, calendar quotas and sliding windows, each window of a key a bounded counter
 * ({@link RateWindows#name}) with {@code min 0} and {@code max} the permits it may still admit, which every acquisition
 * adds its permits to through the {@code bounded} strategy: a hot key takes node allowances (escrow), and no committed
 * state ever has more than the maximum in a window. A decision is {@link Outcome#ALLOWED} only after its commit.
 *
 * <p>Windows are picked on steady time (the database's clock), which every process shares. A permit committed after its
 * window ended (the caller paused between picking the window and the write) is given back and decided again in the
 * window of now, so that every admission counts in the window it happened in.
 *
 * <p>A sliding window's slices are such counters too. The first use of slice {@code i} seals slice {@code i − 1}
 * ({@link Escrow#seal}: no change toward its maximum passes any more, so its value is final; a slice never used is
 * created sealed at 0) and binds slice {@code i} with {@code max = permits − Σ value(i−S+1 … i−1)}, so every {@code S}
 * consecutive slices admit at most the permits. Once bound, a slice is never bound again with other bounds here: a
 * process that finds it stored uses it as stored; and a bind that raced a seal (its process had not seen the slice
 * end yet) leaves the seal as it is, the store never opening a sealed counter again.
 *
 * <p>A refusal is remembered until the window ends, for that many permits or more: within a window its room only
 * shrinks, every acquisition adding to it.
 */
final class WindowLimiter implements KeyLimiter, BoundedStrategy.Binding {

    /** How long an ended window is kept past the time it decides anything, before the purge deletes it. */
    static final Duration GRACE = Duration.ofMinutes(1);
    /** Decisions tried in successive windows, each one's window having ended before it was made, at most. */
    static final int MAX_ATTEMPTS = 5;

    private final String limiter;
    private final RateLimit limit;
    private final RateWindows windows;
    private final boolean sliding;
    private final Time time;
    private final CounterStore store;
    private final Escrow escrow;
    private final BoundedStrategy strategy;
    /** Per key, the smallest refused number of permits and the window of that refusal. */
    private final ConcurrentHashMap<String, Refusal> refusals = new ConcurrentHashMap<>();
    /** The start of the window that forgot the ones before it, here. */
    private volatile Instant current = Instant.MIN;

    private record Refusal(Instant start, long permits) {}

    /** The window a decision was made for ended before its write: decide again in the window of now. */
    private static final class WindowEnded extends RuntimeException {

        private static final long serialVersionUID = 1L;
        static final WindowEnded INSTANCE = new WindowEnded();

        private WindowEnded() {
            super("the window ended", null, false, false);
        }
    }

    private WindowLimiter(StrategyContext context, String limiter, RateLimit limit, BoundedSettings settings) {
        this.limiter = limiter;
        this.limit = limit;
        this.windows = new RateWindows(limit);
        this.sliding = limit.algorithm() == RateLimit.Algorithm.SLIDING_WINDOW;
        this.time = context.time();
        this.store = context.store();
        this.escrow = context.require(Escrow.class);
        this.strategy = new BoundedStrategy(context, settings.withBounds(0L, limit.permits()), this);
    }

    /** The limiter of windows for {@code limit} ({@link RateLimit.Algorithm#FIXED_WINDOW} or SLIDING_WINDOW). */
    static KeyLimiter create(StrategyContext context, String limiter, RateLimit limit) {
        return create(context, limiter, limit, BoundedSettings.defaults());
    }

    /** As {@link #create(StrategyContext, String, RateLimit)}, with the escrow settings of {@code settings}. */
    static KeyLimiter create(StrategyContext context, String limiter, RateLimit limit, BoundedSettings settings) {
        if (limit.algorithm() == RateLimit.Algorithm.GCRA) {
            throw new IllegalArgumentException("GCRA has no windows: " + limit);
        }
        return new WindowLimiter(context, limiter, limit, settings);
    }

    @Override
    public RateDecision tryAcquire(String key, long permits) {
        for (int attempt = 1; ; attempt++) {
            if (attempt > MAX_ATTEMPTS) {
                // Every attempt outlived its window: nothing taken, and no decision; the rule answers it.
                throw new CounterContentionException(
                        RateWindows.name(limiter, key, windows.start(time.steady())), MAX_ATTEMPTS);
            }
            Instant now = time.steady();
            Instant start = windows.start(now);
            forgetEnded(start);
            Refusal refused = refusals.get(key);
            if (refused != null && refused.start().equals(start) && permits >= refused.permits()) {
                return refusal(0, now, start); // no read: the room only shrank since
            }
            CounterName name = RateWindows.name(limiter, key, start);
            // A hot window escrows: its decisions share combined writes of this node's row, and the room that row
            // holds here answers `remaining` (a lower bound). A cold one reads its room with the write.
            boolean hot = strategy.escrowedRoom(name, permits).isPresent();
            BoundedIncrement answer;
            try {
                answer = strategy.tryIncrement(name, permits, null, !hot);
            } catch (WindowEnded e) {
                continue;
            }
            Instant after = time.steady();
            boolean ended = !after.isBefore(windows.end(start));
            if (answer.applied()) {
                if (!ended) {
                    long remaining = hot ? strategy.escrowedRoom(name, permits).orElse(0) : answer.remaining();
                    return new RateDecision(Outcome.ALLOWED, remaining, Duration.ZERO, reset(now, start), limit);
                }
                // Committed maybe after its window: it would count in the wrong one. Given back (toward 0, always
                // room), and decided again in the window of now.
                strategy.tryIncrement(name, -permits, null, false);
                continue;
            }
            if (ended && sliding) {
                continue; // refused by the seal of a slice that ended meanwhile
            }
            refusals.merge(
                    key,
                    new Refusal(start, permits),
                    (old, fresh) ->
                            old.start().equals(fresh.start()) && old.permits() <= fresh.permits() ? old : fresh);
            return refusal(answer.remaining(), now, start);
        }
    }

    @Override
    public RateDecision peek(String key) {
        Instant now = time.steady();
        Instant start = windows.start(now);
        Optional<EscrowState> state = escrow.state(RateWindows.name(limiter, key, start), now);
        long remaining;
        if (state.isPresent()) {
            Long room = state.get().roomUp();
            remaining = room == null ? 0 : Math.max(0, room);
        } else {
            remaining = Math.max(0, limit.permits() - (sliding ? used(key, start, now, false) : 0));
        }
        return remaining > 0
                ? new RateDecision(Outcome.ALLOWED, remaining, Duration.ZERO, reset(now, start), limit)
                : refusal(0, now, start);
    }

    @Override
    public void reset(String key) {
        refusals.remove(key);
        Instant start = windows.start(time.steady());
        for (int back = 0; back < limit.subWindows(); back++) {
            strategy.delete(RateWindows.name(limiter, key, windows.before(start, back)));
        }
    }

    @Override
    public void close() {
        strategy.close();
    }

    private RateDecision refusal(long remaining, Instant now, Instant start) {
        Duration untilEnd = Duration.between(now, windows.end(start));
        return new RateDecision(Outcome.REFUSED, remaining, untilEnd, reset(now, start), limit);
    }

    /** Until the window ends; for a sliding window, until what its slices admitted so far has left it. */
    private Duration reset(Instant now, Instant start) {
        return Duration.between(now, windows.decidesUntil(start));
    }

    /** Once per window here: the refusals and the allowances of the windows before are dropped. */
    private void forgetEnded(Instant start) {
        Instant known = current;
        if (!start.isAfter(known)) {
            return;
        }
        synchronized (this) {
            if (!start.isAfter(current)) {
                return;
            }
            current = start;
        }
        refusals.values().removeIf(refusal -> refusal.start().isBefore(start));
        strategy.forget(
                name -> RateWindows.start(name).map(at -> at.isBefore(start)).orElse(false));
    }

    // ---- binding a window on its first use here (BoundedStrategy.Binding) ----

    @Override
    public Optional<Bounds> bounds(CounterName name) {
        Instant start = RateWindows.start(name).orElseThrow();
        Instant now = time.steady();
        if (!now.isBefore(windows.end(start))) {
            throw WindowEnded.INSTANCE; // never created (nor re-bound) once ended: it decides nothing any more
        }
        if (!sliding) {
            return Optional.of(new Bounds(0L, limit.permits()));
        }
        if (escrow.state(name, now).isPresent()) {
            return Optional.empty(); // bound by another process, perhaps sealed: used as stored
        }
        String key = RateWindows.key(limiter, name);
        return Optional.of(new Bounds(
                0L, Math.max(0, limit.permits() - used(key == null ? "" : key, start, now, true))));
    }

    /** A slice's bounds come from the slices before it, which another process may have read at another moment. */
    @Override
    public boolean bindsOnce() {
        return sliding;
    }

    @Override
    public double rate(CounterName name) {
        String key = RateWindows.key(limiter, name);
        Optional<Instant> start = RateWindows.start(name);
        return key == null || start.isEmpty()
                ? 0
                : strategy.rate(RateWindows.name(limiter, key, windows.before(start.get(), 1)));
    }

    /**
     * The permits the slices before the one starting at {@code start} admitted within the last period; with
     * {@code seal}, the one just before is sealed first (created sealed if it was never used), so that the sum is final.
     */
    private long used(String key, Instant start, Instant now, boolean seal) {
        long used = 0;
        for (int back = 1; back < limit.subWindows(); back++) {
            CounterName slice = RateWindows.name(limiter, key, windows.before(start, back));
            Optional<EscrowState> state = back == 1 && seal ? sealed(slice, now) : escrow.state(slice, now);
            used += state.map(EscrowState::value).orElse(0L);
        }
        return used;
    }

    private Optional<EscrowState> sealed(CounterName slice, Instant now) {
        Optional<EscrowState> state = escrow.seal(slice, now);
        if (state.isPresent()) {
            return state;
        }
        // Never used: created closed, so that no late write can count in it after the next slice was bound.
        escrow.bindIfAbsent(slice, new Bounds(0L, 0L), 0, Escrow.POOL, now);
        return escrow.seal(slice, now);
    }

    // ---- purge of ended windows ----

    /**
     * Deletes the windows of {@code limiter} (if it is one of windows) that decide nothing since before
     * {@code horizon} minus {@link #GRACE}, at most {@code budget}; how many it deleted.
     */
    static int purge(KeyLimiter limiter, Instant horizon, int budget) {
        return limiter instanceof WindowLimiter windowed ? windowed.purge(horizon, budget) : 0;
    }

    private int purge(Instant horizon, int budget) {
        Instant before = horizon.minus(GRACE);
        return NamePages.deleteWhere(
                store,
                limiter + ":",
                budget,
                name -> {
                    Optional<Instant> start = RateWindows.start(name);
                    return start.isPresent()
                            && RateWindows.key(limiter, name) != null
                            && windows.decidesUntil(start.get()).isBefore(before);
                },
                strategy::delete);
    }

    /** For tests: the strategy that writes the windows. */
    BoundedStrategy strategy() {
        return strategy;
    }

    @Override
    public String toString() {
        return "WindowLimiter[" + limiter + ", " + limit + "]";
    }
}
