package dev.counters.sequence;

import dev.counters.CounterName;
import dev.counters.NamePattern;
import dev.counters.spi.CounterStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Pattern;

/** Creates each sequence once, with the settings its name selects. */
final class DefaultSequenceService implements SequenceService {

    private record Rule(Pattern pattern, SequenceSettings settings) {
    }

    private final CounterStore store;
    private final SequenceSettings defaults;
    private final Map<String, SequenceSettings> exact = new LinkedHashMap<>();
    private final List<Rule> patterns = new ArrayList<>();
    private final ConcurrentHashMap<String, Sequence> sequences = new ConcurrentHashMap<>();
    private final ExecutorService prefetcher = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("counters-sequence-prefetch-", 0).factory());

    DefaultSequenceService(CounterStore store, SequenceSettings defaults, Map<String, SequenceSettings> rules) {
        this.store = store;
        this.defaults = defaults;
        rules.forEach((nameOrPattern, settings) -> {
            if (NamePattern.isPattern(nameOrPattern)) {
                patterns.add(new Rule(NamePattern.compile(nameOrPattern), settings));
            } else {
                exact.put(nameOrPattern, settings);
            }
        });
    }

    @Override
    public Sequence sequence(String name) {
        Sequence sequence = sequences.get(name == null ? "" : name);
        if (sequence != null) {
            return sequence;
        }
        CounterName validated = CounterName.of(name, "Sequence name");
        return sequences.computeIfAbsent(name, key -> create(validated, settingsFor(key)));
    }

    private SequenceSettings settingsFor(String name) {
        SequenceSettings settings = exact.get(name);
        if (settings != null) {
            return settings;
        }
        for (Rule rule : patterns) {
            if (rule.pattern().matcher(name).matches()) {
                return rule.settings();
            }
        }
        return defaults;
    }

    private Sequence create(CounterName name, SequenceSettings settings) {
        return switch (settings.mode()) {
            case BLOCK -> new BlockSequence(name, store, settings, prefetcher);
            case GAPLESS -> new GaplessSequence(name, store, settings);
        };
    }

    @Override
    public void close() {
        prefetcher.close();
    }
}
