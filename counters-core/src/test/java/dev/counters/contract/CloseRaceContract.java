package dev.counters.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.Counter;
import dev.counters.CounterService;
import dev.counters.CountersException;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.StrategySettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code close()} racing increments, durable increments and flushes from many threads, on every strategy: every
 * acknowledged increment is stored, every future completes (by close plus its timeout), and what comes after close is
 * refused, or, by a strategy that writes before it returns, stored.
 */
public abstract class CloseRaceContract extends ContractSupport {

    protected CloseRaceContract(StoreFixture fixture) {
        super(fixture);
    }

    static Stream<Arguments> strategies() {
        return StrategyContract.exactAndBoundedStrategies();
    }

    /** The buffered strategy's shutdown timeout here; the others write before they return. */
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(20);

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void closeRacingCallersLosesNothingAcknowledgedAndAnswersEveryCall(String label, StrategySettings strategy)
            throws Exception {
        String counter = prefix() + "raced";
        int threads = 8;
        AtomicLong acknowledged = new AtomicLong();
        AtomicBoolean closeReturned = new AtomicBoolean();
        List<CompletableFuture<?>> futures = new ArrayList<>();
        List<Throwable> unexpected = new ArrayList<>();
        CounterService counters = CounterService.builder(store())
                .defaultStrategy(shortFlushes(label, strategy))
                .build();
        CountDownLatch warmedUp = new CountDownLatch(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<String>> callers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            callers.add(pool.submit(() -> {
                Counter held = counters.counter(counter);
                int firstAfterClose = -1; // then one more call of each kind, each after close returned
                for (int i = 0; firstAfterClose < 0 || i < firstAfterClose + 4; i++) {
                    if (i == 200) {
                        warmedUp.countDown();
                    }
                    if (firstAfterClose < 0 && closeReturned.get()) {
                        firstAfterClose = i;
                    }
                    boolean late = firstAfterClose >= 0;
                    try {
                        switch (i % 4) {
                            case 0 -> held.increment();
                            case 1 -> counters.increment(counter);
                            case 2 -> {
                                add(futures, held.incrementDurably(1).whenComplete((v, e) -> {
                                    if (e == null) {
                                        acknowledged.incrementAndGet();
                                    } else if (!refused(e)) {
                                        add(unexpected, e);
                                    }
                                }));
                                continue;
                            }
                            default -> {
                                add(futures, counters.flush().whenComplete((v, e) -> {
                                    if (e != null && !refused(e)) {
                                        add(unexpected, e);
                                    }
                                }));
                                continue;
                            }
                        }
                        acknowledged.incrementAndGet();
                        if (late && label.equals("buffered")) {
                            return "a held buffered handle accepted an increment after close";
                        }
                    } catch (IllegalStateException refused) {
                        // refused: nothing written
                    }
                }
                return "";
            }));
        }
        assertThat(warmedUp.await(60, TimeUnit.SECONDS)).isTrue();
        long closing = System.nanoTime();
        counters.close();
        closeReturned.set(true);
        for (Future<String> caller : callers) {
            assertThat(caller.get(60, TimeUnit.SECONDS)).isEmpty();
        }
        pool.shutdown();
        List<CompletableFuture<?>> all;
        synchronized (futures) {
            all = List.copyOf(futures);
        }
        long left = SHUTDOWN_TIMEOUT.plusSeconds(5).toNanos() - (System.nanoTime() - closing);
        try {
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(Math.max(left, 0), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            // answered: their outcomes are checked below
        }
        assertThat(all).as("every future completes by close plus its timeout").allMatch(CompletableFuture::isDone);
        synchronized (unexpected) {
            assertThat(unexpected).as("failures other than a refusal").isEmpty();
        }
        assertThatThrownBy(() -> counters.increment(counter)).isInstanceOf(IllegalStateException.class);
        try (CounterService reader =
                CounterService.builder(store()).defaultStrategy(strategy).build()) {
            assertThat(reader.getExact(counter))
                    .as("every acknowledged increment stored, nothing else")
                    .isEqualTo(acknowledged.get());
        }
    }

    private static StrategySettings shortFlushes(String label, StrategySettings strategy) {
        return label.equals("buffered")
                ? BufferedSettings.defaults()
                        .withFlushInterval(Duration.ofMillis(20))
                        .withShutdownTimeout(SHUTDOWN_TIMEOUT)
                : strategy;
    }

    private static <T> void add(List<T> list, T element) {
        synchronized (list) {
            list.add(element);
        }
    }

    /**
     * Refused, nothing written: closed, or a bound reached (callers that do not wait for their durable increments can
     * fill the buffer's queue).
     */
    private static boolean refused(Throwable failure) {
        Throwable e =
                failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return e instanceof IllegalStateException || e instanceof CountersException c && !c.mayHaveBeenApplied();
    }
}
