package dev.counters.internal.service;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterName;
import dev.counters.CounterStoreException;
import dev.counters.contract.ForwardingCounterStore;
import dev.counters.memory.InMemoryCounterStore;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The names of the monotonic and bounded counters, read when a service is built. */
class StrategyFamiliesTest {

    /** A store whose reads of names fail the first {@code failures} times each, as a commit reply lost. */
    private static final class FailingReads extends ForwardingCounterStore {

        private final AtomicInteger maximumFailures;
        private final AtomicInteger boundedFailures;

        FailingReads(int failures) {
            super(new InMemoryCounterStore());
            this.maximumFailures = new AtomicInteger(failures);
            this.boundedFailures = new AtomicInteger(failures);
        }

        @Override
        public List<CounterName> maximumNames(@Nullable CounterName after, int limit) {
            fail(maximumFailures);
            return super.maximumNames(after, limit);
        }

        @Override
        public List<CounterName> boundedNames(@Nullable CounterName after, int limit) {
            fail(boundedFailures);
            return super.boundedNames(after, limit);
        }

        private static void fail(AtomicInteger failures) {
            if (failures.getAndDecrement() > 0) {
                throw new CounterStoreException("Communications link failure during commit (injected)", null);
            }
        }
    }

    @Test
    void aReadOfNamesThatFailsIsReadAgainSoThatABlipDoesNotStopAStart() {
        assertThatCode(() -> StrategyFamilies.of(new FailingReads(StrategyFamilies.ATTEMPTS_AT_START - 1)))
                .doesNotThrowAnyException();
    }

    @Test
    void aStoreThatKeepsFailingStopsTheStart() {
        assertThatThrownBy(() -> StrategyFamilies.of(new FailingReads(StrategyFamilies.ATTEMPTS_AT_START)))
                .isInstanceOf(CounterStoreException.class);
    }
}
