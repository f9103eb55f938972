package dev.counters.internal.strategy;

import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.contract.ForwardingCounterStore;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.spi.IdempotencyKeys.KeyedDelta;
import dev.counters.spi.IdempotentBatches.AppliedBatch;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.ShardedSettings;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A process of {@link IdsAcrossProcessesTest}: increments delta-log, buffered, sharded and node counters from fresh
 * threads, one after the other, and prints every id it writes ({@code ID ...}) and every shard it picks
 * ({@code SHARD ...}).
 */
public final class ChildIdRecorder {

    private ChildIdRecorder() {}

    public static void main(String[] args) throws InterruptedException {
        StringBuffer printed = new StringBuffer();
        ForwardingCounterStore recording = new ForwardingCounterStore(new InMemoryCounterStore()) {
            @Override
            public OptionalLong appendDelta(CounterName counter, String deltaId, long delta, Instant now) {
                printed.append("ID ").append(deltaId).append('\n');
                return super.appendDelta(counter, deltaId, delta, now);
            }

            @Override
            public AppliedBatch applyBatch(
                    String key,
                    String cell,
                    Map<CounterName, Long> deltas,
                    Map<String, KeyedDelta> keyed,
                    Instant now) {
                printed.append("ID ").append(key).append('\n');
                return super.applyBatch(key, cell, deltas, keyed, now);
            }

            @Override
            public void add(CounterName counter, String cell, long delta) {
                printed.append(counter.value().equals("sharded") ? "SHARD " : "ID ")
                        .append(cell)
                        .append('\n');
                super.add(counter, cell, delta);
            }
        };
        try (CounterService counters = CounterService.builder(recording)
                .defaultStrategy(DeltaLogSettings.defaults())
                .strategy("buffered", BufferedSettings.defaults())
                .strategy("sharded", ShardedSettings.defaults())
                .strategy("node", NodeSettings.defaults())
                .build()) {
            for (int t = 0; t < 4; t++) {
                Thread thread = new Thread(() -> {
                    for (int i = 0; i < 250; i++) {
                        counters.increment("delta-log");
                    }
                    for (int i = 0; i < 50; i++) {
                        counters.increment("sharded");
                    }
                    for (int i = 0; i < 5; i++) {
                        counters.incrementDurably("buffered", 1).join();
                    }
                });
                thread.start();
                thread.join();
            }
            counters.increment("node");
        }
        System.out.print(printed);
        System.out.println("DONE");
    }
}
