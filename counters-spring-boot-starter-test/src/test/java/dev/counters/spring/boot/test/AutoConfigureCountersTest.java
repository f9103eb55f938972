package dev.counters.spring.boot.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.spi.CounterStore;
import dev.counters.spring.boot.CountersProperties;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.ApplicationContext;

/** {@code @AutoConfigureCounters} adds counters to a slice without them; in memory, it needs no database. */
class AutoConfigureCountersTest {

    @Nested
    @WebMvcTest
    @AutoConfigureCounters(store = CountersProperties.Store.MEMORY)
    class WithTheAnnotation {

        @Autowired
        CounterService counters;

        @Autowired
        CounterStore store;

        @Test
        void countersAreInMemory() {
            assertThat(store).isInstanceOf(InMemoryCounterStore.class);
            counters.increment("likes", 3);
            assertThat(counters.get("likes")).isEqualTo(3);
        }
    }

    @Nested
    @WebMvcTest
    class WithoutIt {

        @Autowired
        ApplicationContext context;

        @Test
        void theSliceHasNoCounters() {
            assertThat(context.getBeanNamesForType(CounterService.class)).isEmpty();
        }
    }
}
