package dev.counters.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import dev.counters.strategy.StrategySettings;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Dependent stages on every future the library returns, as ordinary code writes them: a stage that reads a counter of
 * the same rule, flushes and waits, or increments. Each must complete within a deadline, on every strategy. A stage
 * runs on the thread that completes its future, so a library that completed it on a thread of its own while holding
 * state would wait for itself.
 */
public abstract class DependentStagesContract extends ContractSupport {

    private static final long DEADLINE_SECONDS = 10;

    protected DependentStagesContract(StoreFixture fixture) {
        super(fixture);
    }

    static Stream<Arguments> strategies() {
        return StrategyContract.exactAndBoundedStrategies();
    }

    private CounterService service(StrategySettings strategy) {
        return CounterService.builder(store()).defaultStrategy(strategy).build();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void aStageOfADurableIncrementReadsTheSameCounter(String label, StrategySettings strategy) throws Exception {
        String likes = prefix() + "likes.1";
        try (CounterService counters = service(strategy)) {
            assertThat(counters.incrementDurably(likes, 1)
                            .thenApply(v -> counters.get(likes))
                            .get(DEADLINE_SECONDS, TimeUnit.SECONDS))
                    .isEqualTo(1);
            assertThat(counters.incrementDurably(likes, 2)
                            .thenApply(v -> counters.getExact(likes))
                            .get(DEADLINE_SECONDS, TimeUnit.SECONDS))
                    .isEqualTo(3);
            assertThat(counters.get(likes)).as("the counter can still be read").isEqualTo(3);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void aStageOfAFlushReadsFlushesAndIncrements(String label, StrategySettings strategy) throws Exception {
        String counter = prefix() + "flushed";
        try (CounterService counters = service(strategy)) {
            counters.increment(counter, 3);
            CompletableFuture<Long> stage = counters.flush().thenApply(v -> {
                long seen = counters.get(counter);
                counters.increment(counter, 1);
                counters.flush().join(); // waits for the next flush, from inside this one's stage
                counters.incrementDurably(counter, 1).join();
                return seen;
            });
            assertThat(stage.get(DEADLINE_SECONDS, TimeUnit.SECONDS)).isEqualTo(3);
            CompletableFuture<Void> read = counters.flush().thenRun(() -> counters.get(counter));
            read.get(DEADLINE_SECONDS, TimeUnit.SECONDS);
            assertThat(counters.getExact(counter)).isEqualTo(5);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void stagesOnManyFuturesAtOnceAllComplete(String label, StrategySettings strategy) throws Exception {
        String counter = prefix() + "chained";
        int threads = 8;
        int perThread = 20;
        try (CounterService counters = service(strategy)) {
            List<CompletableFuture<Long>> stages = new ArrayList<>();
            Concurrently.run(threads, thread -> {
                List<CompletableFuture<Long>> mine = new ArrayList<>();
                for (int i = 0; i < perThread; i++) {
                    mine.add(counters.incrementDurably(counter, 1)
                            .thenCompose(v -> counters.flush())
                            .thenApply(v -> counters.get(counter)));
                }
                synchronized (stages) {
                    stages.addAll(mine);
                }
            });
            CompletableFuture.allOf(stages.toArray(CompletableFuture[]::new)).get(DEADLINE_SECONDS, TimeUnit.SECONDS);
            for (CompletableFuture<Long> stage : stages) {
                assertThat(stage.join()).isBetween(1L, (long) threads * perThread);
            }
            assertThat(counters.getExact(counter)).isEqualTo((long) threads * perThread);
        }
    }
}
