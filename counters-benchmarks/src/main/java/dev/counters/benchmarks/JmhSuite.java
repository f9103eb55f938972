package dev.counters.benchmarks;

import java.util.ArrayList;
import java.util.List;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** Runs the JMH benchmarks in forked JVMs, with the GC profiler for allocation per operation. */
final class JmhSuite {

    /** One benchmark's score: operations per second (all threads together) and bytes allocated per operation. */
    record Score(
            String benchmark,
            int threads,
            String params,
            double opsPerSecond,
            double error,
            double bytesPerOperation) {}

    private JmhSuite() {}

    static List<Score> run(boolean quick) throws RunnerException {
        List<Score> scores = new ArrayList<>();
        for (int threads : new int[] {1, 2}) {
            ChainedOptionsBuilder options = new OptionsBuilder()
                    .include("dev\\.counters\\.benchmarks\\.jmh\\..*")
                    .threads(threads)
                    .forks(1)
                    .warmupIterations(quick ? 1 : 2)
                    .warmupTime(TimeValue.milliseconds(quick ? 100 : 1_000))
                    .measurementIterations(quick ? 1 : 3)
                    .measurementTime(TimeValue.milliseconds(quick ? 100 : 1_000))
                    .jvmArgsAppend("-Xmx512m")
                    .addProfiler(GCProfiler.class)
                    .shouldFailOnError(true);
            for (RunResult result : new Runner(options.build()).run()) {
                Result<?> primary = result.getPrimaryResult();
                Result<?> allocation = result.getSecondaryResults().get("gc.alloc.rate.norm");
                String benchmark = result.getParams().getBenchmark();
                StringBuilder params = new StringBuilder();
                for (String key : result.getParams().getParamsKeys()) {
                    params.append(key).append('=').append(result.getParams().getParam(key));
                }
                scores.add(new Score(
                        benchmark.substring(benchmark.lastIndexOf('.', benchmark.lastIndexOf('.') - 1) + 1),
                        threads,
                        params.toString(),
                        primary.getScore(),
                        primary.getScoreError(),
                        allocation == null ? Double.NaN : allocation.getScore()));
            }
        }
        return scores;
    }
}
