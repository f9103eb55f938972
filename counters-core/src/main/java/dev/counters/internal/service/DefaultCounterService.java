package dev.counters.internal.service;

import static dev.counters.internal.service.Arguments.bounding;
import static dev.counters.internal.service.Arguments.checkDelta;
import static dev.counters.internal.service.Arguments.checkKey;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.counters.BoundedCounter;
import dev.counters.Counter;
import dev.counters.CounterAdmin;
import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.Hold;
import dev.counters.IdempotencyKey;
import dev.counters.MembershipCounter;
import dev.counters.RateLimit;
import dev.counters.RateLimiter;
import dev.counters.StrategyStatistics;
import dev.counters.WindowedCounter;
import dev.counters.internal.NameRules;
import dev.counters.internal.Time;
import dev.counters.internal.ratelimit.RateLimiters;
import dev.counters.internal.ratelimit.RateWindows;
import dev.counters.internal.strategy.Bounding;
import dev.counters.internal.strategy.CounterStrategy;
import dev.counters.internal.strategy.CountsMembers;
import dev.counters.internal.strategy.Resharding;
import dev.counters.spi.CounterStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/** Validates, routes each counter to its strategy, and keeps recently used handles resolved. */
public final class DefaultCounterService implements CounterService, CounterAdmin {

    private final NameRules<Route> router;
    private final List<Route> routes;
    private final CounterStore store;
    private final Cache<String, Handle> handles;
    private final NameRules<Optional<Windows>> windows;
    /** Whether a rule makes a name count members: only the rules that do are in it, so the first match says so. */
    private final NameRules<Boolean> members;

    private final Time time;
    /**
     * The handles used last, by the hash of their name, in front of the cache: a hit is an array read and a string
     * comparison, without the cache's bookkeeping. Plain reads and writes: a thread that misses an entry another
     * thread wrote asks the cache, and handles are immutable.
     */
    private final @Nullable Handle[] recent = new Handle[RECENT_HANDLES];

    private static final int RECENT_HANDLES = 1 << 10;
    /** A plain volatile rather than an AtomicBoolean: every increment by name reads it, one load fewer. */
    private volatile boolean closed;

    private final Housekeeping housekeeping;
    private final StrategyFamilies families;
    private final ThreadFactory threadFactory;
    private final RateLimiters rateLimiters;

    public DefaultCounterService(
            NameRules<Route> router,
            List<Route> routes,
            CounterStore store,
            int maxCachedHandles,
            NameRules<Optional<Windows>> windows,
            NameRules<Boolean> members,
            Time time,
            Housekeeping housekeeping,
            StrategyFamilies families,
            ThreadFactory threadFactory,
            RateLimiters rateLimiters) {
        this.threadFactory = threadFactory;
        this.rateLimiters = rateLimiters;
        this.housekeeping = housekeeping;
        this.families = families;
        this.windows = windows;
        this.members = members;
        this.time = time;
        this.router = router;
        this.routes = List.copyOf(routes);
        this.store = store;
        this.handles = Caffeine.newBuilder().maximumSize(maxCachedHandles).build();
    }

    @Override
    public void increment(String name, long delta) {
        counter(name).increment(delta);
    }

    @Override
    public void increment(String name, long delta, IdempotencyKey key) {
        counter(name).increment(delta, key);
    }

    @Override
    public long incrementAndGet(String name, long delta, IdempotencyKey key) {
        return counter(name).incrementAndGet(delta, key);
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
        // Validate everything first, then ask each strategy once for all of its counters (a windowed one's current
        // window).
        IdentityHashMap<CounterStrategy, List<CounterName>> byStrategy = new IdentityHashMap<>();
        Map<String, CounterName> stored = new LinkedHashMap<>();
        for (String name : names) {
            Handle handle = handle(name);
            stored.put(name, handle.stored());
            byStrategy
                    .computeIfAbsent(handle.route().strategy(), s -> new ArrayList<>())
                    .add(handle.stored());
        }
        Map<CounterName, Long> values = new LinkedHashMap<>();
        byStrategy.forEach((strategy, counters) -> values.putAll(strategy.getAll(counters)));
        Map<String, Long> result = new LinkedHashMap<>();
        stored.forEach((name, counter) -> result.put(name, values.getOrDefault(counter, 0L)));
        return result;
    }

    @Override
    public long getExact(String name) {
        return counter(name).getExact();
    }

    @Override
    public boolean tryIncrement(String name, long delta) {
        return counter(name).tryIncrement(delta);
    }

    @Override
    public boolean tryIncrement(String name, long delta, IdempotencyKey key) {
        return counter(name).tryIncrement(delta, key);
    }

    @Override
    public Hold reserve(String name, long delta, Duration ttl, IdempotencyKey key) {
        return bounded(name).reserve(delta, ttl, key);
    }

    @Override
    public Hold confirm(Hold hold) {
        return bounded(checkHold(hold).counter().value()).confirm(hold.key());
    }

    @Override
    public Hold release(Hold hold) {
        return bounded(checkHold(hold).counter().value()).release(hold.key());
    }

    private static Hold checkHold(Hold hold) {
        if (hold == null) {
            throw new IllegalArgumentException("Hold must not be null");
        }
        return hold;
    }

    @Override
    public BoundedCounter bounded(String name) {
        Handle counter = handle(name);
        if (counter instanceof WindowedHandle) {
            throw new IllegalStateException("Counter '" + name + "' has windows, and windowed counters have no bounds");
        }
        return new BoundedView(
                counter.stored(), counter.route(), bounding(counter.route(), counter.stored()), housekeeping);
    }

    @Override
    public RateLimiter rateLimiter(String name) {
        checkOpen();
        return rateLimiters.get(name);
    }

    @Override
    public RateLimiter rateLimiter(String name, RateLimit limit) {
        checkOpen();
        return rateLimiters.get(name, limit);
    }

    @Override
    public List<RateLimiter> rateLimiters() {
        return rateLimiters.all();
    }

    @Override
    public MembershipCounter members(String name) {
        if (handle(name) instanceof MembershipHandle membership) {
            return membership;
        }
        throw new IllegalStateException("Counter '" + name + "' does not count members: no rule that matches it says"
                + " so; give one CounterRule.countingMembers() (or .withMembers()), in the starter"
                + " counters.counters.[<name or pattern>].members: true");
    }

    @Override
    public CounterAdmin admin() {
        return this;
    }

    @Override
    public Map<String, Long> cells(String name) {
        Handle counter = handle(name);
        return counter.route().strategy().cells(counter.stored());
    }

    @Override
    public int growShards(String name, int shards) {
        Handle counter = handle(name);
        if (!(counter.route().strategy() instanceof Resharding resharding)) {
            throw new IllegalStateException("Counter '" + counter.stored() + "' uses the "
                    + counter.route().strategyName() + " strategy; only sharded counters have shards");
        }
        return resharding.growShards(counter.stored(), shards);
    }

    @Override
    public void delete(String name) {
        counter(name).delete();
    }

    @Override
    public List<String> counterNames(@Nullable String after, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1, was " + limit);
        }
        CounterName from = after == null ? null : CounterName.of(after);
        List<String> names = new ArrayList<>();
        while (names.size() < limit) { // the rate limiters' windows are theirs, not the application's counters
            int wanted = limit - names.size();
            List<CounterName> page = store.counterNames("", from, wanted);
            for (CounterName name : page) {
                if (!name.value().contains(RateWindows.MARK)) {
                    names.add(name.value());
                }
            }
            if (page.size() < wanted) {
                break;
            }
            from = page.get(page.size() - 1);
        }
        return names;
    }

    @Override
    public CompletableFuture<Void> flush() {
        return CompletableFuture.allOf(
                routes.stream().map(route -> route.strategy().flush()).toArray(CompletableFuture[]::new));
    }

    @Override
    public List<StrategyStatistics> statistics() {
        return routes.stream()
                .map(route -> new StrategyStatistics(
                        route.rule(),
                        route.strategyName(),
                        route.increments(),
                        route.strategy().activity(),
                        route.memberChanges().added.sum(),
                        route.memberChanges().removed.sum(),
                        route.memberChanges().unchanged.sum()))
                .toList();
    }

    @Override
    public Counter counter(String name) {
        return handle(name);
    }

    @Override
    public WindowedCounter windowed(String name) {
        if (handle(name) instanceof WindowedHandle windowed) {
            return windowed;
        }
        throw new IllegalStateException("Counter '" + name + "' has no windows: give a rule that matches it a window"
                + " (counters.counters.[<name or pattern>].window, or CounterServiceBuilder.windows)");
    }

    private Handle handle(String name) {
        checkOpen();
        if (name == null) {
            throw new IllegalArgumentException("Counter name must not be null");
        }
        int index = name.hashCode() & (RECENT_HANDLES - 1);
        Handle counter = recent[index];
        if (counter != null && counter.key().equals(name)) {
            return counter;
        }
        counter = handles.getIfPresent(name);
        if (counter == null) {
            RateWindows.checkNotReserved(name);
            CounterName counterName = CounterName.of(name);
            Optional<Windows.Window> window = Windows.parse(counterName)
                    .filter(stored -> windows.select(stored.counter().value()).isPresent());
            if (members.select(name)) {
                counter = membership(counterName);
            } else if (window.isPresent()) {
                // One window by its stored name (as listed by counterNames): a counter of its counter's strategy.
                counter =
                        routed(counterName, router.select(window.get().counter().value()));
            } else {
                Route route = router.select(counterName.value());
                Optional<Windows> windowed = windows.select(counterName.value());
                if (windowed.isPresent() && !route.settings().takesWindows()) {
                    throw new IllegalStateException("Counter '" + counterName + "' takes the " + route.strategyName()
                            + " strategy from rule '" + route.rule() + "' and windows from rule '"
                            + windowed.get().rule + "', but "
                            + route.strategyName() + " counters have no windows; keep the windowed rule's pattern"
                            + " from matching it");
                }
                counter = windowed.isPresent()
                        ? new WindowedHandle(counterName, route, windowed.get(), time, store, housekeeping)
                        : routed(counterName, route);
            }
            handles.put(name, counter);
        }
        recent[index] = counter;
        return counter;
    }

    /**
     * A membership counter's handle, once its rules are known to agree: a strategy that counts members, no windows
     * (the service's build checks the rules' names and patterns themselves; this, every name they match).
     */
    private MembershipHandle membership(CounterName name) {
        Route route = router.select(name.value());
        if (!route.settings().countsMembers() || !(route.strategy() instanceof CountsMembers strategy)) {
            throw new IllegalStateException("Counter '" + name + "' counts members, but takes the "
                    + route.strategyName() + " strategy from rule '" + route.rule() + "', which cannot count them: give"
                    + " it the atomic, sharded or node strategy");
        }
        Optional<Windows> windowed = windows.select(name.value());
        if (windowed.isPresent()) {
            throw new IllegalStateException("Counter '" + name + "' counts members, and takes windows from rule '"
                    + windowed.get().rule + "'; a membership counter has no windows: keep the windowed rule's pattern"
                    + " from matching it");
        }
        families.check(name, route);
        return new MembershipHandle(name, route, strategy, this::checkOpen);
    }

    /** A counter's handle, once its stored data is known to be of its strategy's family. */
    private RoutedCounter routed(CounterName name, Route route) {
        families.check(name, route);
        return new RoutedCounter(name, route, housekeeping);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("The CounterService is closed");
        }
    }

    /** Whether this call closed the service (only the first does). */
    private synchronized boolean markClosed() {
        boolean first = !closed;
        closed = true;
        return first;
    }

    /**
     * Closes every rule's strategy at once, each on its own thread, so that buffered rules write what is pending side
     * by side: closing takes about the longest shutdown timeout, not their sum. Each strategy's close is bounded by its
     * own timeout, so the joins are too.
     */
    @Override
    public void close() {
        if (markClosed()) {
            housekeeping.close();
            List<RuntimeException> failures = Collections.synchronizedList(new ArrayList<>());
            try {
                rateLimiters.close();
            } catch (RuntimeException e) {
                failures.add(e);
            }
            List<Thread> closing = new ArrayList<>();
            for (Route route : routes) {
                Runnable close = () -> {
                    try {
                        route.strategy().close();
                    } catch (RuntimeException e) {
                        failures.add(e);
                    }
                };
                if (routes.size() == 1) {
                    close.run();
                } else {
                    Thread thread = threadFactory.newThread(close);
                    thread.start();
                    closing.add(thread);
                }
            }
            boolean interrupted = false;
            for (Thread thread : closing) {
                while (thread.isAlive()) {
                    try {
                        thread.join();
                    } catch (InterruptedException e) {
                        interrupted = true; // the strategies are closing all the same: wait for them, then say so
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (!failures.isEmpty()) {
                RuntimeException failure = failures.get(0);
                failures.subList(1, failures.size()).forEach(failure::addSuppressed);
                throw failure;
            }
        }
    }

    /** A counter bound to its strategy, and to the strategy's increment of it. */
    private record RoutedCounter(
            String key, CounterName name, Route route, LongConsumer incrementer, Housekeeping housekeeping)
            implements Handle {

        /** {@code key} is the name's value, one load closer for the lookup by name. */
        RoutedCounter(CounterName name, Route route, Housekeeping housekeeping) {
            this(name.value(), name, route, route.strategy().incrementer(name), housekeeping);
        }

        @Override
        public CounterName stored() {
            return name;
        }

        @Override
        public String strategy() {
            return route.strategyName();
        }

        @Override
        public void increment(long delta) {
            incrementer.accept(checkDelta(name, delta));
            route.count();
        }

        @Override
        public CompletableFuture<Void> incrementDurably(long delta) {
            CompletableFuture<Void> durable = route.strategy().incrementDurably(name, checkDelta(name, delta));
            route.count();
            return durable;
        }

        @Override
        public long incrementAndGet(long delta) {
            long value = route.strategy().incrementAndGet(name, checkDelta(name, delta));
            route.count();
            return value;
        }

        @Override
        public void increment(long delta, IdempotencyKey key) {
            route.strategy().increment(name, checkDelta(name, delta), checkKey(route, name, key, housekeeping), false);
            route.count();
        }

        @Override
        public long incrementAndGet(long delta, IdempotencyKey key) {
            long value = route.strategy()
                    .increment(name, checkDelta(name, delta), checkKey(route, name, key, housekeeping), true);
            route.count();
            return value;
        }

        @Override
        public boolean tryIncrement(long delta) {
            boolean applied = bounding(route, name)
                    .tryIncrement(name, checkDelta(name, delta), null, false)
                    .applied();
            if (applied) {
                route.count(); // refusals are no increments
            }
            return applied;
        }

        @Override
        public boolean tryIncrement(long delta, IdempotencyKey key) {
            Bounding bounding = bounding(route, name);
            boolean applied = bounding.tryIncrement(
                            name, checkDelta(name, delta), checkKey(route, name, key, housekeeping), false)
                    .applied();
            if (applied) {
                route.count();
            }
            return applied;
        }

        @Override
        public long get() {
            return route.strategy().get(name);
        }

        @Override
        public long getExact() {
            return route.strategy().getExact(name);
        }

        @Override
        public void delete() {
            route.strategy().delete(name);
        }
    }
}
