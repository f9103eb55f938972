package dev.counters.benchmarks.jmh;

import dev.counters.memory.InMemoryCounterStore;
import dev.counters.sequence.Sequence;
import dev.counters.sequence.SequenceService;
import dev.counters.sequence.SequenceSettings;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
 * A block sequence's {@code next()} against AtomicLong. The default block of 1,000 is reserved again every 1,000
 * numbers (in the background, from half-way); a block of 100,000 shows the cost of the hand-out alone.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SequenceBenchmarks {

    @Param({"1000", "100000"})
    public int blockSize;

    private SequenceService service;
    private Sequence sequence;
    private final AtomicLong atomic = new AtomicLong();

    @Setup(Level.Trial)
    public void setUp() {
        service = SequenceService.builder(new InMemoryCounterStore())
                .defaultSettings(SequenceSettings.defaults().withBlockSize(blockSize))
                .build();
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
