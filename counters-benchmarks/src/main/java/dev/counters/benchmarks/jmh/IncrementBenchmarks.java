package dev.counters.benchmarks.jmh;

import dev.counters.Counter;
import dev.counters.CounterService;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.strategy.BufferedSettings;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The in-process path of a {@code buffered} increment against the JDK's own counters: {@link LongAdder} (what it
 * is built on) and {@link AtomicLong}. Each thread cycles through the counters.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class IncrementBenchmarks {

    @Param({"1", "16"})
    public int counters;

    private CounterService service;
    private String[] names;
    private Counter[] handles;
    private LongAdder[] adders;
    private AtomicLong[] atomics;

    /** Which counter a thread increments next. */
    @State(Scope.Thread)
    public static class Cursor {
        int next;

        int next(int counters) {
            int current = next;
            next = current + 1 == counters ? 0 : current + 1;
            return current;
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        // In memory: the flusher's work is not what is measured here, only the increment's.
        service = CounterService.builder(new InMemoryCounterStore())
                .defaultStrategy(BufferedSettings.defaults())
                .build();
        names = new String[counters];
        handles = new Counter[counters];
        adders = new LongAdder[counters];
        atomics = new AtomicLong[counters];
        for (int i = 0; i < counters; i++) {
            names[i] = "bench.c" + i;
            handles[i] = service.counter(names[i]);
            adders[i] = new LongAdder();
            atomics[i] = new AtomicLong();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        service.close();
    }

    /** {@code counters.increment(name)}: name lookup, validation, strategy routing, then the adder. */
    @Benchmark
    public void bufferedByName(Cursor cursor) {
        service.increment(names[cursor.next(counters)]);
    }

    /** {@code counter.increment()} on a handle held by the caller. */
    @Benchmark
    public void bufferedHandle(Cursor cursor) {
        handles[cursor.next(counters)].increment();
    }

    @Benchmark
    public void longAdder(Cursor cursor) {
        adders[cursor.next(counters)].increment();
    }

    @Benchmark
    public long atomicLong(Cursor cursor) {
        return atomics[cursor.next(counters)].incrementAndGet();
    }
}
