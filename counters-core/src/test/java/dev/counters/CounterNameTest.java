package dev.counters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CounterNameTest {

    @ParameterizedTest
    @ValueSource(strings = {"a", "page-views", "orders.2026:eu_west", "A.b-C_d:9"})
    void acceptsLettersDigitsAndPunctuation(String value) {
        assertThat(CounterName.of(value).value()).isEqualTo(value);
    }

    @Test
    void acceptsMaximumLength() {
        assertThat(CounterName.of("x".repeat(CounterName.MAX_LENGTH)).value()).hasSize(128);
    }

    @Test
    void refusesNullEmptyAndTooLong() {
        assertThatThrownBy(() -> CounterName.of(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Counter name must not be null");
        assertThatThrownBy(() -> CounterName.of(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Counter name must not be empty");
        assertThatThrownBy(() -> CounterName.of("x".repeat(10_000)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Counter name is 10000 characters long; at most 128 are allowed");
    }

    @Test
    void namesTheOffendingCharacter() {
        assertThatThrownBy(() -> CounterName.of("views'); DROP TABLE x; --"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Counter name 'views'); DROP TABLE x; --' contains ''' at index 5;")
                .hasMessageEndingWith("allowed are ASCII letters, digits and ._-:");
        assertThatThrownBy(() -> CounterName.of("tab\there"))
                .hasMessageContaining("U+0009 at index 3")
                .hasMessageContaining("tab\\u0009here");
        assertThatThrownBy(() -> CounterName.of("emoji\uD83D\uDE00")).hasMessageContaining("U+D83D at index 5");
        assertThatThrownBy(() -> CounterName.of("caf\u00e9")).hasMessageContaining("U+00E9 at index 3");
        assertThatThrownBy(() -> CounterName.of("a/b")).hasMessageContaining("'/' at index 1");
        assertThatThrownBy(() -> CounterName.of("a b")).hasMessageContaining("' ' at index 1");
    }
}
