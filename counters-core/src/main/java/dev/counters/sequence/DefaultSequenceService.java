package dev.counters.sequence;

import dev.counters.CounterName;
import dev.counters.internal.NameRules;
import dev.counters.internal.Observations;
import dev.counters.internal.Threads;
import dev.counters.spi.CounterStore;
import dev.counters.spi.Sequences;
import io.github.resilience4j.retry.Retry;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** Creates each sequence once, with the settings its name selects. */
final class DefaultSequenceService implements SequenceService {

    private final CounterStore store;
    private final Sequences sequencesStore;
    private final Retry retry;
    private final NameRules<SequenceSettings> rules;
    private final Observations observations;
    private final ConcurrentHashMap<String, Sequence> sequences = new ConcurrentHashMap<>();
    /** Fetches the next blocks in the background: a thread per concurrent fetch, idle ones ended after a minute. */
    private final ExecutorService prefetcher =
            Executors.newCachedThreadPool(Threads.daemon("counters-sequence-prefetch-"));

    DefaultSequenceService(
            CounterStore store,
            Sequences sequencesStore,
            Retry retry,
            NameRules<SequenceSettings> settings,
            Observations observations) {
        this.store = store;
        this.sequencesStore = sequencesStore;
        this.retry = retry;
        this.rules = settings;
        this.observations = observations;
    }

    @Override
    public Sequence sequence(String name) {
        Sequence sequence = sequences.get(name == null ? "" : name);
        if (sequence != null) {
            return sequence;
        }
        CounterName validated = CounterName.of(name, "Sequence name");
        return sequences.computeIfAbsent(name, key -> create(validated, rules.select(key)));
    }

    private Sequence create(CounterName name, SequenceSettings settings) {
        return switch (settings.mode()) {
            case BLOCK ->
                new BlockSequence(name, sequencesStore, retry, settings, prefetcher, System::nanoTime, observations);
            case GAPLESS -> new GaplessSequence(name, store, sequencesStore, retry, settings, observations);
        };
    }

    @Override
    public void close() {
        Threads.shutdownAndWait(prefetcher);
    }
}
