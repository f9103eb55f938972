package dev.counters.sequence;

import dev.counters.NameRules;
import dev.counters.spi.CounterStore;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Builds a {@link SequenceService}: default settings, and settings for particular sequences by exact name or
 * pattern ({@code *}, {@code ?}); an exact name wins over patterns, and the first matching pattern wins.
 */
public final class SequenceServiceBuilder {

    private final CounterStore store;
    private SequenceSettings defaults = SequenceSettings.defaults();
    private final Map<String, SequenceSettings> rules = new LinkedHashMap<>();

    SequenceServiceBuilder(CounterStore store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    public SequenceServiceBuilder defaultSettings(SequenceSettings settings) {
        this.defaults = Objects.requireNonNull(settings, "settings");
        return this;
    }

    public SequenceServiceBuilder sequence(String nameOrPattern, SequenceSettings settings) {
        NameRules.add(rules, nameOrPattern, settings, "A sequence configuration");
        return this;
    }

    public SequenceService build() {
        return new DefaultSequenceService(store, NameRules.of(rules, defaults));
    }
}
