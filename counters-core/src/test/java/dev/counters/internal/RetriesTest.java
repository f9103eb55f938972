package dev.counters.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterContentionException;
import dev.counters.CounterName;
import dev.counters.CounterStoreException;
import dev.counters.CountersException;
import dev.counters.StoreUnavailableException;
import dev.counters.TransientStoreException;
import dev.counters.internal.strategy.StrategyContext;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import org.junit.jupiter.api.Test;

/** Once an attempt's outcome was unknown, the call's failure is unknown, whatever later attempts said. */
class RetriesTest {

    /** A retry that repeats every store failure, as keyed increments' and delta-log appends' do. */
    private static final Retry EVERYTHING = Retry.of(
            "everything",
            RetryConfig.custom()
                    .maxAttempts(3)
                    .waitDuration(Duration.ofMillis(1))
                    .retryExceptions(CountersException.class)
                    .ignoreExceptions(StoreUnavailableException.class)
                    .build());

    private static Runnable failing(RuntimeException... failures) {
        Queue<RuntimeException> left = new ArrayDeque<>(List.of(failures));
        return () -> {
            throw left.remove();
        };
    }

    private static final CounterStoreException LOST_REPLY = new CounterStoreException("reply lost", null);

    @Test
    void aLaterAttemptThatSurelyWroteNothingDoesNotMakeAnUnknownOutcomeNotApplied() {
        List<RuntimeException> laterFailures = List.of(
                new StoreUnavailableException("no connection", null),
                new TransientStoreException("deadlock", null),
                new CounterContentionException(CounterName.of("c"), 1));
        for (RuntimeException later : laterFailures) {
            assertThatThrownBy(() -> Retries.write(EVERYTHING, failing(LOST_REPLY, later, later)))
                    .isInstanceOfSatisfying(CounterStoreException.class, e -> {
                        assertThat(e.mayHaveBeenApplied()).isTrue();
                        assertThat(e.getMessage()).contains("outcome is unknown", "may have been applied");
                        assertThat(e.getCause()).isSameAs(later);
                    });
        }
    }

    @Test
    void failuresThatSurelyWroteNothingStaySo() {
        TransientStoreException deadlock = new TransientStoreException("deadlock", null);
        assertThatThrownBy(() -> Retries.write(EVERYTHING, failing(deadlock, deadlock, deadlock)))
                .isSameAs(deadlock);
        StoreUnavailableException down = new StoreUnavailableException("no connection", null);
        assertThatThrownBy(() -> Retries.write(EVERYTHING, failing(down))).isSameAs(down);
    }

    @Test
    void anUnknownOutcomeThatEndsTheCallIsThrownAsItIs() {
        assertThatThrownBy(() ->
                        Retries.write(Retry.of("transient", StrategyContext.transientFailures()), failing(LOST_REPLY)))
                .isSameAs(LOST_REPLY);
    }

    @Test
    void aCallThatSucceedsAfterAnUnknownAttemptReturns() {
        Queue<RuntimeException> left = new ArrayDeque<>(List.of(LOST_REPLY));
        assertThat(Retries.write(EVERYTHING, () -> {
                    if (!left.isEmpty()) {
                        throw left.remove();
                    }
                    return 42L;
                }))
                .isEqualTo(42L);
    }
}
