package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.contract.OutageStore;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.spi.CounterStore;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.LifecycleAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Closing the application with the database down fits in one buffered shutdown timeout, whatever the number of
 * buffered rules, so that it ends within Kubernetes' grace period; Spring is told when counters are done.
 */
class ShutdownDeadlineTest {

    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(3);

    private final OutageStore store = new OutageStore(new InMemoryCounterStore());

    /** Two buffered rules (the default and {@code orders.*}); Spring waits 20 s for each phase's callbacks. */
    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withPropertyValues(
                        "counters.store=memory",
                        "counters.default-strategy=buffered",
                        "counters.counters.[orders.*].strategy=buffered",
                        "counters.buffered.flush-interval=1h",
                        "counters.buffered.shutdown-timeout=" + SHUTDOWN_TIMEOUT.toSeconds() + "s",
                        "spring.lifecycle.timeout-per-shutdown-phase=20s")
                .withBean(CounterStore.class, () -> store)
                .withConfiguration(
                        AutoConfigurations.of(LifecycleAutoConfiguration.class, CountersAutoConfiguration.class));
    }

    @Test
    void closingWithTheStoreDownTakesOneShutdownTimeoutNotOnePerRule() {
        long[] closing = new long[1];
        runner().run(context -> {
            CounterService counters = context.getBean(CounterService.class);
            counters.increment("views");
            counters.increment("orders.placed");
            store.down = true;
            closing[0] = System.nanoTime();
        });
        Duration took = Duration.ofNanos(System.nanoTime() - closing[0]);
        // One timeout and some: serially, the flush, then each rule's close, would take three.
        assertThat(took).isGreaterThanOrEqualTo(SHUTDOWN_TIMEOUT).isLessThan(SHUTDOWN_TIMEOUT.multipliedBy(2));
        assertThat(store.failedBatches).as("both rules kept trying").hasValueGreaterThan(1);
    }

    @Test
    void closingWithTheStoreUpWritesEveryRulesPendingIncrements() {
        runner().run(context -> {
            CounterService counters = context.getBean(CounterService.class);
            for (int i = 0; i < 100; i++) {
                counters.increment("views");
                counters.increment("orders.placed", 2);
            }
            assertThat(store.get(CounterName.of("views")))
                    .as("nothing flushed within the hour")
                    .isZero();
        });
        assertThat(store.get(CounterName.of("views"))).isEqualTo(100);
        assertThat(store.get(CounterName.of("orders.placed"))).isEqualTo(200);
    }
}
