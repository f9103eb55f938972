package dev.counters.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.counters.BoundedCounter;
import dev.counters.BoundedIncrement;
import dev.counters.BoundedState;
import dev.counters.CounterBoundException;
import dev.counters.CounterContentionException;
import dev.counters.CounterName;
import dev.counters.CounterRule;
import dev.counters.CounterService;
import dev.counters.Hold;
import dev.counters.HoldStatus;
import dev.counters.IdempotencyKey;
import dev.counters.IdempotencyKeyReusedException;
import dev.counters.StoreUnavailableException;
import dev.counters.StrategyStatistics;
import dev.counters.WindowSettings;
import dev.counters.spi.CounterStore;
import dev.counters.spi.Escrow;
import dev.counters.spi.SessionLocks;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.BoundedSettings;
import dev.counters.strategy.NodeSettings;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the {@code bounded} strategy must do on every store: a counter that never leaves its bounds, refusals that
 * write nothing, exactness under concurrency with allowances on, holds, and the stated bounds on stranded room (a
 * crashed node's allowance, an expired hold). Each store runs it through a subclass of a few lines.
 */
public abstract class BoundedStrategyContract extends ContractSupport {

    protected BoundedStrategyContract(StoreFixture fixture) {
        super(fixture);
    }

    /** Every change through the pool row. */
    static final BoundedSettings POOL =
            BoundedSettings.of(0L, null).withEscrow(false).withSweepInterval(Duration.ofMillis(100));
    /** Allowances from the first change, small refills, so that refills, pool mode and collects all happen. */
    static final BoundedSettings ESCROW = BoundedSettings.of(0L, null)
            .withEscrowAbove(0)
            .withRefills(Duration.ofMillis(200), 4, 200)
            .withSweepInterval(Duration.ofMillis(100));

    static Stream<Arguments> modes() {
        return Stream.of(Arguments.of("pool", POOL), Arguments.of("escrow", ESCROW));
    }

    /**
     * The invariant, after every test, on every bounded counter it left: the value within its bounds, no room below 0,
     * and the rooms of all rows adding up to the distance from the value to each bound, open holds aside
     * ({@code min + Σ room_down = value − held up}, {@code max − Σ room_up = value + held down}).
     */
    @AfterEach
    void everyBoundedCounterLeftKeepsTheInvariant() {
        Escrow escrow = capability(store(), Escrow.class);
        for (CounterName name : store().counterNames(prefix(), null, 10_000)) {
            checkInvariant(escrow, name);
        }
    }

    /** The invariant above on one counter; nothing for a counter that is not bounded. */
    public static void checkInvariant(Escrow escrow, CounterName name) {
        Optional<Escrow.EscrowState> read = escrow.state(name, Instant.now());
        if (read.isEmpty()) {
            return; // a counting counter of the test
        }
        Escrow.EscrowState state = read.get();
        Long min = state.bounds().min();
        Long max = state.bounds().max();
        if (min != null) {
            assertThat(state.value()).as(name + " at or above its min").isGreaterThanOrEqualTo(min);
            assertThat(state.roomDown())
                    .as(name + "'s room toward its min")
                    .isEqualTo(state.value() - state.heldUp() - min);
        }
        if (max != null) {
            assertThat(state.value()).as(name + " at or below its max").isLessThanOrEqualTo(max);
            assertThat(state.roomUp())
                    .as(name + "'s room toward its max")
                    .isEqualTo(max - state.value() - state.heldDown());
        }
        escrow.escrowCells(name).forEach((cell, rooms) -> {
            for (Long room : new Long[] {rooms.roomDown(), rooms.roomUp()}) {
                assertThat(room == null || room >= 0)
                        .as(name + "'s cell " + cell + " has no room below 0: " + rooms)
                        .isTrue();
            }
        });
    }

    private CounterService service(CounterStore store, BoundedSettings settings) {
        return CounterService.builder(store).defaultStrategy(settings).build();
    }

    private String name(String local) {
        return prefix() + local;
    }

    private static IdempotencyKey key() {
        return IdempotencyKey.of(UUID.randomUUID().toString());
    }

    // ---- refusals ----

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void aChangePastTheMinimumIsRefusedAndWritesNothing(String label, BoundedSettings settings) {
        String stock = name("stock");
        try (CounterService counters = service(store(), settings.withInitial(3))) {
            assertThat(counters.get(stock)).isEqualTo(3);
            for (int i = 0; i < 3; i++) {
                assertThat(counters.tryIncrement(stock, -1)).isTrue();
            }
            var cells = counters.admin().cells(stock);
            assertThat(counters.tryIncrement(stock, -1)).isFalse();
            assertThatThrownBy(() -> counters.increment(stock, -1))
                    .isInstanceOfSatisfying(CounterBoundException.class, e -> {
                        assertThat(e.mayHaveBeenApplied()).isFalse();
                        assertThat(e.bound()).isZero();
                        assertThat(e.delta()).isEqualTo(-1);
                        assertThat(e.getMessage()).contains(stock, "below its minimum 0");
                    });
            assertThatThrownBy(() -> counters.incrementAndGet(stock, -1)).isInstanceOf(CounterBoundException.class);
            assertThat(counters.bounded(stock).tryIncrementAndGet(-1)).isEqualTo(new BoundedIncrement(false, -1, 0, 0));
            assertThat(counters.admin().cells(stock)).isEqualTo(cells);
            assertThat(counters.get(stock)).isZero();
            assertThat(counters.tryIncrement(stock, 2)).isTrue();
            BoundedIncrement sale = counters.bounded(stock).tryIncrementAndGet(-1);
            assertThat(sale.applied()).isTrue();
            assertThat(sale.value()).isEqualTo(1);
            assertThat(sale.remaining()).isEqualTo(1);
            StrategyStatistics.EscrowActivity escrow =
                    counters.statistics().get(0).activity().escrow();
            assertThat(escrow).isNotNull();
            assertThat(escrow.refusals()).isEqualTo(4);
            assertThat(counters.statistics().get(0).increments()).isEqualTo(5); // refusals are no increments
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void bothBoundsHold(String label, BoundedSettings settings) {
        String quota = name("quota");
        try (CounterService counters = service(store(), settings.withBounds(0L, 10L, 5))) {
            BoundedCounter bounded = counters.bounded(quota);
            assertThat(bounded.min()).isZero();
            assertThat(bounded.max()).isEqualTo(10);
            assertThat(bounded.tryIncrement(5)).isTrue();
            assertThat(bounded.tryIncrement(1)).isFalse();
            assertThatThrownBy(() -> counters.increment(quota, 1))
                    .isInstanceOfSatisfying(
                            CounterBoundException.class,
                            e -> assertThat(e.getMessage()).contains("above its maximum 10"));
            assertThat(bounded.tryIncrement(-10)).isTrue();
            assertThat(bounded.tryIncrement(-1)).isFalse();
            assertThat(bounded.tryIncrementAndGet(7)).isEqualTo(new BoundedIncrement(true, 7, 7, 3));
            BoundedState state = bounded.state();
            assertThat(state.value()).isEqualTo(7);
            assertThat(state.min()).isZero();
            assertThat(state.max()).isEqualTo(10);
            assertThat(counters.get(quota)).isEqualTo(7);
        }
    }

    @Test
    void aMaximumAloneLeavesTheOtherSideOpen() {
        String quota = name("quota");
        try (CounterService counters = service(store(), ESCROW.withBounds(null, 10L, 0))) {
            assertThat(counters.tryIncrement(quota, 10)).isTrue();
            assertThat(counters.tryIncrement(quota, 1)).isFalse();
            assertThat(counters.tryIncrement(quota, -1_000)).isTrue();
            assertThat(counters.tryIncrement(quota, 1_001)).isFalse();
            assertThat(counters.tryIncrement(quota, 1_000)).isTrue();
            assertThat(counters.get(quota)).isEqualTo(10);
            assertThat(counters.bounded(quota).state().min()).isNull();
        }
    }

    @Test
    void aDependentStageOnADurableIncrementCompletes() throws Exception {
        String stock = name("stock");
        try (CounterService counters = service(store(), ESCROW.withInitial(5))) {
            long after = counters.incrementDurably(stock, -1)
                    .thenApply(v -> counters.get(stock))
                    .get(10, TimeUnit.SECONDS);
            assertThat(after).isEqualTo(4);
            assertThat(counters.incrementDurably(stock, -10))
                    .failsWithin(Duration.ofSeconds(10))
                    .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                    .withCauseInstanceOf(CounterBoundException.class);
        }
    }

    // ---- exactness ----

    /**
     * Four services (nodes) of 16 threads sell a stock to 0 with allowances on: every acknowledged sale is counted
     * once, no read ever sees the value below 0, and no allowance is left once they close.
     */
    @Test
    void fourNodesSellExactlyTheStock() {
        String stock = name("stock");
        long initial = 20_000;
        BoundedSettings settings = ESCROW.withInitial(initial);
        List<CounterService> nodes = new ArrayList<>();
        AtomicLong sold = new AtomicLong();
        AtomicBoolean selling = new AtomicBoolean(true);
        AtomicReference<String> badRead = new AtomicReference<>();
        try {
            for (int n = 0; n < 4; n++) {
                nodes.add(service(n % 2 == 0 ? store() : anotherStore(), settings));
            }
            Thread observer = observer(nodes.get(0), stock, 0, initial, selling, badRead);
            Concurrently.run(64, thread -> {
                CounterService node = nodes.get(thread % 4);
                int contended = 0;
                while (true) {
                    try {
                        if (!node.tryIncrement(stock, -1)) {
                            return; // a refusal: the whole counter showed no room
                        }
                        sold.incrementAndGet();
                        contended = 0;
                    } catch (CounterContentionException e) {
                        // not applied: try again, but room seen must not stay out of reach
                        assertThat(++contended).as("contention in a row").isLessThan(100);
                    }
                }
            });
            selling.set(false);
            observer.join(10_000);
            assertThat(badRead.get()).isNull();
            assertThat(sold.get()).isEqualTo(initial);
            assertThat(nodes.get(0).get(stock)).isZero();
            long refills = nodes.stream()
                    .mapToLong(
                            node -> node.statistics().get(0).activity().escrow().refills())
                    .sum();
            assertThat(refills).as("allowances were taken").isPositive();
            long pooled = nodes.stream()
                    .mapToLong(
                            node -> node.statistics().get(0).activity().escrow().poolChanges())
                    .sum();
            assertThat(pooled).as("the last units were sold through the pool").isPositive();
            assertThat(nodes.get(0).bounded(stock).state().allowances().values())
                    .as("no room left in any allowance once refused")
                    .allSatisfy(allowance -> assertThat(allowance.towardMin()).isZero());
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        } finally {
            nodes.forEach(CounterService::close);
        }
        try (CounterService reader = service(store(), settings)) {
            BoundedState state = reader.bounded(stock).state();
            assertThat(state.value()).isZero();
            assertThat(state.allowances()).isEmpty();
            assertThat(state.pool().towardMin()).isZero();
        }
    }

    @Test
    void restocksDuringASaleAreSoldToo() throws Exception {
        String stock = name("stock");
        long initial = 2_000;
        BoundedSettings settings = ESCROW.withInitial(initial);
        AtomicLong sold = new AtomicLong();
        AtomicBoolean restocking = new AtomicBoolean(true);
        AtomicBoolean selling = new AtomicBoolean(true);
        AtomicReference<String> badRead = new AtomicReference<>();
        try (CounterService a = service(store(), settings);
                CounterService b = service(anotherStore(), settings)) {
            Thread observer = observer(a, stock, 0, initial + 1_000, selling, badRead);
            Concurrently.run(9, thread -> {
                if (thread == 8) {
                    for (int i = 0; i < 10; i++) {
                        assertThat(a.tryIncrement(stock, 100, key())).isTrue();
                    }
                    restocking.set(false);
                    return;
                }
                CounterService node = thread % 2 == 0 ? a : b;
                while (true) {
                    boolean last = !restocking.get();
                    if (node.tryIncrement(stock, -1)) {
                        sold.incrementAndGet();
                    } else if (last) {
                        return;
                    }
                }
            });
            selling.set(false);
            observer.join(10_000);
            assertThat(badRead.get()).isNull();
            assertThat(sold.get()).isEqualTo(initial + 1_000);
            assertThat(a.get(stock)).isZero();
        }
    }

    /** Reads {@code state()} while {@code running}, and records the first read outside {@code [min, max]}. */
    private static Thread observer(
            CounterService counters,
            String name,
            long min,
            long max,
            AtomicBoolean running,
            AtomicReference<String> badRead) {
        Thread thread = new Thread(() -> {
            while (running.get()) {
                BoundedState state = counters.bounded(name).state();
                if (state.value() < min || state.value() + state.heldTowardMin() > max) {
                    badRead.compareAndSet(null, state.toString());
                }
                long value = counters.get(name);
                if (value < min || value > max) {
                    badRead.compareAndSet(null, "get() " + value);
                }
            }
        });
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    // ---- keys and holds ----

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void aKeyedChangeIsMadeOnceAndARepeatGetsTheFirstAnswer(String label, BoundedSettings settings) {
        String stock = name("stock");
        try (CounterService counters = service(store(), settings.withInitial(2))) {
            IdempotencyKey first = key();
            assertThat(counters.tryIncrement(stock, -1, first)).isTrue();
            assertThat(counters.tryIncrement(stock, -1, first)).isTrue();
            assertThat(counters.get(stock)).isEqualTo(1);
            assertThat(counters.bounded(stock).tryIncrementAndGet(-1, first).value())
                    .isEqualTo(1);

            IdempotencyKey refused = key();
            assertThat(counters.tryIncrement(stock, -2, refused)).isFalse();
            assertThat(counters.tryIncrement(stock, 5)).isTrue();
            assertThat(counters.tryIncrement(stock, -2, refused))
                    .as("the first answer")
                    .isFalse();
            assertThat(counters.get(stock)).isEqualTo(6);

            IdempotencyKey thrown = key();
            assertThatThrownBy(() -> counters.increment(stock, -10, thrown)).isInstanceOf(CounterBoundException.class);
            assertThatThrownBy(() -> counters.increment(stock, -10, thrown)).isInstanceOf(CounterBoundException.class);
            assertThat(counters.incrementAndGet(stock, -1, key())).isEqualTo(5);

            assertThatThrownBy(() -> counters.tryIncrement(stock, -2, first))
                    .isInstanceOf(IdempotencyKeyReusedException.class);
            assertThatThrownBy(() -> counters.tryIncrement(name("other"), -1, first))
                    .isInstanceOf(IdempotencyKeyReusedException.class);
            assertThatThrownBy(() -> counters.reserve(stock, -1, Duration.ofSeconds(10), first))
                    .isInstanceOf(IdempotencyKeyReusedException.class);
            assertThat(counters.get(stock)).isEqualTo(5);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modes")
    void holdsAreConfirmedOrReleasedOnce(String label, BoundedSettings settings) {
        String stock = name("stock");
        try (CounterService counters = service(store(), settings.withInitial(5))) {
            BoundedCounter bounded = counters.bounded(stock);
            IdempotencyKey checkout = key();
            Hold hold = counters.reserve(stock, -2, Duration.ofSeconds(30), checkout);
            assertThat(hold.status()).isEqualTo(HoldStatus.HELD);
            assertThat(hold.units()).isEqualTo(2);
            assertThat(counters.reserve(stock, -2, Duration.ofSeconds(30), checkout))
                    .isEqualTo(hold);
            BoundedState held = bounded.state();
            assertThat(held.value()).isEqualTo(3);
            assertThat(held.heldTowardMin()).isEqualTo(2);
            assertThat(bounded.hold(checkout)).contains(hold);

            assertThat(counters.confirm(hold).status()).isEqualTo(HoldStatus.CONFIRMED);
            assertThat(counters.confirm(hold).status()).isEqualTo(HoldStatus.CONFIRMED);
            assertThat(counters.release(hold).status()).as("confirmed stays").isEqualTo(HoldStatus.CONFIRMED);
            assertThat(bounded.state().heldTowardMin()).isZero();
            assertThat(counters.get(stock)).isEqualTo(3);

            IdempotencyKey abandoned = key();
            assertThat(bounded.reserve(-3, Duration.ofSeconds(30), abandoned).held())
                    .isTrue();
            assertThat(bounded.tryIncrement(-1))
                    .as("held units are not for sale")
                    .isFalse();
            assertThat(bounded.release(abandoned).status()).isEqualTo(HoldStatus.RELEASED);
            assertThat(bounded.release(abandoned).status()).isEqualTo(HoldStatus.RELEASED);
            assertThat(bounded.confirm(abandoned).status()).isEqualTo(HoldStatus.RELEASED);
            assertThat(counters.get(stock)).isEqualTo(3);

            IdempotencyKey tooMany = key();
            assertThat(bounded.reserve(-4, Duration.ofSeconds(30), tooMany).status())
                    .isEqualTo(HoldStatus.REFUSED);
            assertThat(bounded.tryIncrement(10)).isTrue();
            assertThat(bounded.reserve(-4, Duration.ofSeconds(30), tooMany).status())
                    .as("a refusal is final for its key")
                    .isEqualTo(HoldStatus.REFUSED);
            assertThat(bounded.confirm(tooMany).status()).isEqualTo(HoldStatus.REFUSED);
            assertThat(counters.get(stock)).isEqualTo(13);

            IdempotencyKey quota = key();
            assertThat(bounded.reserve(+1, Duration.ofSeconds(30), quota).status())
                    .as("toward a missing bound")
                    .isEqualTo(HoldStatus.HELD);
            assertThat(bounded.state().heldTowardMax()).isEqualTo(1);
            assertThat(bounded.release(quota).status()).isEqualTo(HoldStatus.RELEASED);
            assertThat(counters.get(stock)).isEqualTo(13);
        }
    }

    /** Checkouts on two nodes with allowances on: every confirmed unit is sold once, every released one comes back. */
    @Test
    void checkoutsUnderLoadAreExact() {
        String stock = name("stock");
        long initial = 4_000;
        BoundedSettings settings = ESCROW.withInitial(initial);
        AtomicLong confirmed = new AtomicLong();
        AtomicLong released = new AtomicLong();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicReference<String> badRead = new AtomicReference<>();
        try (CounterService a = service(store(), settings);
                CounterService b = service(anotherStore(), settings)) {
            Thread observer = observer(a, stock, 0, initial, running, badRead);
            Concurrently.run(16, thread -> {
                CounterService node = thread % 2 == 0 ? a : b;
                for (int i = 0; i < 150; i++) {
                    IdempotencyKey key = key();
                    Hold hold = node.reserve(stock, -2, Duration.ofMinutes(1), key);
                    assertThat(hold.status()).isEqualTo(HoldStatus.HELD);
                    if (i % 3 == 2) {
                        assertThat(node.release(hold).status()).isEqualTo(HoldStatus.RELEASED);
                        released.addAndGet(2);
                    } else {
                        assertThat(node.confirm(hold).status()).isEqualTo(HoldStatus.CONFIRMED);
                        assertThat(node.confirm(hold).status()).isEqualTo(HoldStatus.CONFIRMED);
                        confirmed.addAndGet(2);
                    }
                }
            });
            running.set(false);
            observer.join(10_000);
            assertThat(badRead.get()).isNull();
            BoundedState state = a.bounded(stock).state();
            assertThat(state.value()).isEqualTo(initial - confirmed.get());
            assertThat(state.heldTowardMin()).isZero();
            assertThat(released.get()).isPositive();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void settlingAnUnknownKeyOrAnotherCountersKeyIsRefused() {
        String stock = name("stock");
        String other = name("other");
        try (CounterService counters = service(store(), POOL.withInitial(5))) {
            IdempotencyKey unknown = key();
            assertThatThrownBy(() -> counters.bounded(stock).confirm(unknown))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(unknown.value());
            IdempotencyKey hers = key();
            counters.reserve(other, -1, Duration.ofSeconds(30), hers);
            var cells = counters.admin().cells(other);
            assertThatThrownBy(() -> counters.bounded(stock).release(hers))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(stock)
                    .hasMessageContaining(other);
            IdempotencyKey change = key();
            counters.tryIncrement(stock, -1, change);
            assertThatThrownBy(() -> counters.bounded(stock).confirm(change))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(counters.admin().cells(other)).isEqualTo(cells);
            assertThat(counters.bounded(stock).hold(hers)).isEmpty();
        }
    }

    /** An expired hold goes back within {@code sweep-interval}; a confirm after it is refused. */
    @Test
    void anExpiredHoldGoesBackWithinTheSweepInterval() {
        String stock = name("stock");
        Duration ttl = Duration.ofSeconds(1);
        try (CounterService counters = service(store(), POOL.withInitial(5))) {
            IdempotencyKey key = key();
            Hold hold = counters.reserve(stock, -3, ttl, key);
            long expiresAt = System.nanoTime() + ttl.toNanos();
            assertThat(counters.get(stock)).isEqualTo(2);
            await().atMost(ttl.plus(POOL.sweepInterval()).plusMillis(900))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> counters.bounded(stock).hold(key).orElseThrow().status() == HoldStatus.EXPIRED);
            assertThat(System.nanoTime() - expiresAt)
                    .as("swept within the interval (and some slack) after expiry")
                    .isLessThan(POOL.sweepInterval().plusMillis(900).toNanos());
            assertThat(counters.get(stock)).isEqualTo(5);
            assertThat(counters.bounded(stock).state().heldTowardMin()).isZero();
            assertThat(counters.confirm(hold).status()).isEqualTo(HoldStatus.EXPIRED);
            assertThat(counters.get(stock)).isEqualTo(5);
        }
    }

    /** A confirm past the expiry, before any sweep, expires the hold itself. */
    @Test
    void aConfirmPastTheExpiryExpiresTheHold() {
        String stock = name("stock");
        BoundedSettings slowSweep = POOL.withInitial(5).withSweepInterval(Duration.ofMinutes(10));
        try (CounterService counters = service(store(), slowSweep)) {
            IdempotencyKey key = key();
            Hold hold = counters.reserve(stock, -3, Duration.ofSeconds(1), key);
            // expiresAt is on the database's clock, which the tests' databases share with this host
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> Instant.now().isAfter(hold.expiresAt().plusMillis(100)));
            assertThat(counters.bounded(stock).hold(key).orElseThrow().status())
                    .as("not swept yet")
                    .isEqualTo(HoldStatus.HELD);
            assertThat(counters.confirm(hold).status()).isEqualTo(HoldStatus.EXPIRED);
            assertThat(counters.confirm(hold).status()).isEqualTo(HoldStatus.EXPIRED);
            assertThat(counters.get(stock)).isEqualTo(5);
        }
    }

    /** A due hold is counted by a refusal's read and collected: it never causes a refusal. */
    @Test
    void aDueHoldNeverCausesARefusal() {
        String stock = name("stock");
        BoundedSettings slowSweep = POOL.withInitial(3).withSweepInterval(Duration.ofMinutes(10));
        try (CounterService counters = service(store(), slowSweep)) {
            Hold hold = counters.reserve(stock, -3, Duration.ofSeconds(1), key());
            assertThat(counters.tryIncrement(stock, -1)).isFalse();
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> Instant.now().isAfter(hold.expiresAt().plusMillis(100)));
            assertThat(counters.tryIncrement(stock, -1))
                    .as("the due hold was collected")
                    .isTrue();
            assertThat(counters.get(stock)).isEqualTo(2);
        }
    }

    // ---- allowances: idle, close, crash ----

    @Test
    void anIdleAllowanceGoesBack() {
        String stock = name("stock");
        BoundedSettings settings = ESCROW.withInitial(1_000).withGiveBackAfter(Duration.ofMillis(200));
        try (CounterService counters = service(store(), settings)) {
            for (int i = 0; i < 20; i++) {
                assertThat(counters.tryIncrement(stock, -1)).isTrue();
            }
            assertThat(counters.bounded(stock).state().allowances()).hasSize(1);
            await().atMost(Duration.ofSeconds(3))
                    .until(() -> counters.bounded(stock).state().allowances().isEmpty());
            BoundedState state = counters.bounded(stock).state();
            assertThat(state.value()).isEqualTo(980);
            assertThat(state.pool().towardMin()).isEqualTo(980);
            assertThat(counters.tryIncrement(stock, -1)).isTrue();
        }
    }

    /**
     * A node that dies holding an allowance (its store unreachable, so it cannot give it back) has it swept back to the
     * pool by a live node within lease-ttl + sweep-interval, and every unit is sold.
     */
    @Test
    void aCrashedNodesAllowanceComesBackWithinTheStatedBound() {
        String stock = name("stock");
        BoundedSettings settings =
                ESCROW.withInitial(500).withLeaseTtl(Duration.ofSeconds(1)).withGiveBackAfter(Duration.ofMinutes(10));
        Crashable crashable = new Crashable(store());
        CounterService doomed = service(crashable.store(), settings.withNodeId("doomed-" + prefix().substring(1, 9)));
        long sold = 0;
        try (CounterService live = service(anotherStore(), settings)) {
            for (int i = 0; i < 50; i++) {
                assertThat(doomed.tryIncrement(stock, -1)).isTrue();
                sold++;
            }
            assertThat(live.bounded(stock).state().allowances()).hasSize(1);
            crashable.crash();
            long crashed = System.nanoTime();
            Duration bound = settings.leaseTtl().plus(settings.sweepInterval());
            await().atMost(bound.plusSeconds(1))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> live.bounded(stock).state().allowances().isEmpty());
            assertThat(System.nanoTime() - crashed)
                    .as("back within lease-ttl + sweep-interval (and some slack)")
                    .isLessThan(bound.plusSeconds(1).toNanos());
            while (live.tryIncrement(stock, -1)) {
                sold++;
            }
            assertThat(sold).isEqualTo(500);
            assertThat(live.get(stock)).isZero();
            assertThat(live.statistics().get(0).activity().escrow().strandedUnits())
                    .isPositive();
        } finally {
            doomed.close(); // cannot give anything back: its store is down
        }
    }

    /**
     * Room in another node's allowance never causes a refusal or endless contention: a node that finds the pool empty
     * collects it, so one node sells every unit while another holds an idle allowance.
     */
    @Test
    void roomInAnotherNodesAllowanceIsCollectedBeforeAnyRefusal() {
        String stock = name("stock");
        BoundedSettings settings = ESCROW.withInitial(1_000)
                .withRefills(Duration.ofMillis(200), 100, 100)
                .withGiveBackAfter(Duration.ofMinutes(10));
        try (CounterService idle = service(store(), settings);
                CounterService busy = service(anotherStore(), settings)) {
            assertThat(idle.tryIncrement(stock, -1)).isTrue();
            assertThat(idle.bounded(stock).state().allowances().values())
                    .singleElement()
                    .satisfies(allowance -> assertThat(allowance.towardMin()).isPositive());
            long sold = 1;
            while (busy.tryIncrement(stock, -1)) {
                sold++;
            }
            assertThat(sold).isEqualTo(1_000);
            assertThat(busy.get(stock)).isZero();
        }
    }

    /** A node whose id another process took keeps serving its counters through the pool, and sells every unit. */
    @Test
    void aNodeThatLostItsClaimKeepsServingThroughThePool() {
        String stock = name("stock");
        String nodeId = "lost-" + prefix().substring(1, 9);
        BoundedSettings settings = ESCROW.withInitial(300)
                .withLeaseTtl(Duration.ofSeconds(1))
                .withGiveBackAfter(Duration.ofMinutes(10))
                .withNodeId(nodeId);
        Crashable crashable = new Crashable(store());
        try (CounterService counters = service(crashable.store(), settings)) {
            long sold = 0;
            for (int i = 0; i < 20; i++) {
                assertThat(counters.tryIncrement(stock, -1)).isTrue();
                sold++;
            }
            crashable.crash(); // its claim lapses, and another process takes the id
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                java.time.Instant now = java.time.Instant.now();
                return leases(store()).tryLease("node:" + nodeId, "thief", now.plusSeconds(60), now);
            });
            crashable.down = false;
            while (counters.tryIncrement(stock, -1)) {
                sold++;
            }
            assertThat(sold).isEqualTo(300);
            assertThat(counters.get(stock)).isZero();
        } finally {
            leases(store()).releaseLease("node:" + nodeId, "thief");
        }
    }

    @Test
    void closingGivesEveryAllowanceBack() {
        String stock = name("stock");
        BoundedSettings settings = ESCROW.withInitial(1_000).withGiveBackAfter(Duration.ofMinutes(10));
        try (CounterService counters = service(store(), settings)) {
            for (int i = 0; i < 10; i++) {
                counters.tryIncrement(stock, -1);
            }
            assertThat(counters.bounded(stock).state().allowances()).isNotEmpty();
        }
        try (CounterService reader = service(store(), settings)) {
            BoundedState state = reader.bounded(stock).state();
            assertThat(state.allowances()).isEmpty();
            assertThat(state.pool().towardMin()).isEqualTo(990);
        }
    }

    // ---- rules ----

    @Test
    void twoBoundedRulesAndANodeRuleOfOneNodeIdStartAndWork() {
        String nodeId = "shared-" + prefix().substring(1, 9);
        try (CounterService counters = CounterService.builder(store())
                .strategy(prefix() + "stock.*", ESCROW.withInitial(10).withNodeId(nodeId))
                .strategy(prefix() + "quota.*", ESCROW.withBounds(0L, 10L, 0).withNodeId(nodeId))
                .strategy(prefix() + "hits.*", NodeSettings.defaults().withNodeId(nodeId))
                .build()) {
            assertThat(counters.tryIncrement(prefix() + "stock.a", -10)).isTrue();
            assertThat(counters.tryIncrement(prefix() + "stock.a", -1)).isFalse();
            assertThat(counters.tryIncrement(prefix() + "quota.a", 10)).isTrue();
            assertThat(counters.tryIncrement(prefix() + "quota.a", 1)).isFalse();
            counters.increment(prefix() + "hits.a", 3);
            assertThat(counters.get(prefix() + "hits.a")).isEqualTo(3);
        }
    }

    @Test
    void badInputWritesNothing() {
        String stock = name("stock");
        String plain = name("plain");
        try (CounterService counters = CounterService.builder(store())
                .strategy(prefix() + "stock", POOL.withInitial(5).withMaxHoldTtl(Duration.ofMinutes(1)))
                .strategy(prefix() + "plain", AtomicSettings.defaults())
                .build()) {
            assertThatThrownBy(() -> counters.tryIncrement(stock, 0)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> counters.reserve(stock, 0, Duration.ofSeconds(5), key()))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> counters.reserve(stock, -1, Duration.ZERO, key()))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> counters.reserve(stock, -1, Duration.ofMinutes(2), key()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("max-hold-ttl");
            assertThatThrownBy(() -> counters.reserve(stock, -1, Duration.ofSeconds(5), null))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> counters.tryIncrement(stock, -1, null))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> counters.tryIncrement(plain, -1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(plain)
                    .hasMessageContaining("atomic")
                    .hasMessageContaining("strategy: bounded");
            assertThatThrownBy(() -> counters.bounded(plain)).isInstanceOf(IllegalStateException.class);
            assertThat(counters.admin().cells(plain)).isEmpty();
        }
        assertThatThrownBy(() -> CounterRule.of(POOL).withWindow(WindowSettings.of(Duration.ofMinutes(1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bounded");
        try (CounterService counters = CounterService.builder(store())
                .strategy(prefix() + "stock", POOL.withInitial(5))
                .windows(prefix() + "*", WindowSettings.of(Duration.ofMinutes(1)))
                .build()) {
            assertThatThrownBy(() -> counters.tryIncrement(stock, -1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(stock)
                    .hasMessageContaining("rule '" + prefix() + "stock'")
                    .hasMessageContaining("rule '" + prefix() + "*'");
        }
        assertThat(store().cells(dev.counters.CounterName.of(stock))).isEmpty();
    }

    @Test
    void aBoundedCounterAndACountingCounterNeverShareData() {
        String stock = name("stock");
        String hits = name("hits");
        try (CounterService counters = service(store(), POOL.withInitial(5))) {
            counters.tryIncrement(stock, -1);
        }
        try (CounterService atomic = CounterService.builder(store())
                .defaultStrategy(AtomicSettings.defaults())
                .build()) {
            assertThatThrownBy(() -> atomic.increment(stock, 1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(stock);
            atomic.increment(hits, 1);
        }
        try (CounterService counters = service(store(), POOL.withInitial(5))) {
            assertThatThrownBy(() -> counters.tryIncrement(hits, -1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(hits);
            assertThat(counters.get(stock)).isEqualTo(4);
        }
        assertThat(store().cells(dev.counters.CounterName.of(hits))).containsOnlyKeys("main");
    }

    /**
     * A store whose every call, capabilities included, fails as an unreachable database once {@link #down} is set:
     * a process that died, as far as the others can tell. {@link #crash()} also ends its session locks, as the
     * database server does when a dead process's connections close.
     */
    static final class Crashable {

        volatile boolean down;
        private final CounterStore delegate;
        private final List<SessionLocks.SessionLock> locks = new java.util.concurrent.CopyOnWriteArrayList<>();

        void crash() {
            down = true;
            locks.forEach(SessionLocks.SessionLock::close);
        }

        Crashable(CounterStore delegate) {
            this.delegate = delegate;
        }

        CounterStore store() {
            return proxy(CounterStore.class, delegate);
        }

        private <T> T proxy(Class<T> type, Object target) {
            InvocationHandler handler = (self, method, args) -> {
                if (method.getName().equals("capability") && args != null && args.length == 1) {
                    Class<?> capability = (Class<?>) args[0];
                    @SuppressWarnings("unchecked")
                    Optional<Object> offered = (Optional<Object>) method.invoke(target, args);
                    return capability.isInterface() ? offered.map(found -> proxy(capability, found)) : offered;
                }
                if (down && method.getDeclaringClass() != Object.class) {
                    throw new StoreUnavailableException("the store is unreachable (test)", null);
                }
                Object result;
                try {
                    result = method.invoke(target, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
                if (result instanceof Optional<?> optional
                        && optional.isPresent()
                        && optional.get() instanceof SessionLocks.SessionLock lock) {
                    locks.add(lock);
                }
                return result;
            };
            return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
        }
    }
}
