package dev.counters.benchmarks.jmh;

import dev.counters.memory.InMemoryCounterStore;
import dev.counters.sequence.Sequence;
import dev.counters.sequence.SequenceService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** A block sequence's {@code next()} (blocks of 1,000, reserved in the background) against AtomicLong. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SequenceBenchmarks {

    private SequenceService service;
    private Sequence sequence;
    private final AtomicLong atomic = new AtomicLong();

    @Setup(Level.Trial)
    public void setUp() {
        service = SequenceService.builder(new InMemoryCounterStore()).build();
        sequence = service.sequence("bench.ids");
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        service.close();
    }

    @Benchmark
    public long blockSequence() {
        return sequence.next();
    }

    @Benchmark
    public long atomicLong() {
        return atomic.incrementAndGet();
    }
}
