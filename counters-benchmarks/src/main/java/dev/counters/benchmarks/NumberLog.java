package dev.counters.benchmarks;

import java.util.Arrays;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The numbers each thread drew, checked after the run: strictly increasing per thread, and no number drawn twice.
 * Keeps at most {@link #KEPT_PER_THREAD} per thread so that a fast run does not fill the heap; the order is checked
 * on every number.
 */
final class NumberLog {

    static final int KEPT_PER_THREAD = 1 << 20;

    /** One thread's numbers; only that thread writes it. */
    private static final class ThreadNumbers {
        long[] numbers = new long[1024];
        int size;
        long last = Long.MIN_VALUE;
        long highest = Long.MIN_VALUE;
        long count;
        boolean decreased;
    }

    private final Queue<ThreadNumbers> threads = new ConcurrentLinkedQueue<>();
    private final ThreadLocal<ThreadNumbers> mine = ThreadLocal.withInitial(() -> {
        ThreadNumbers numbers = new ThreadNumbers();
        threads.add(numbers);
        return numbers;
    });

    void add(long number) {
        ThreadNumbers log = mine.get();
        log.decreased |= number <= log.last;
        log.last = number;
        log.highest = Math.max(log.highest, number);
        log.count++;
        if (log.size < KEPT_PER_THREAD) {
            if (log.size == log.numbers.length) {
                log.numbers = Arrays.copyOf(log.numbers, log.numbers.length * 2);
            }
            log.numbers[log.size++] = number;
        }
    }

    /** How many numbers were drawn, kept or not. Like the methods below, call after every drawing thread has ended. */
    long count() {
        return threads.stream().mapToLong(log -> log.count).sum();
    }

    /** The largest number drawn; {@code Long.MIN_VALUE} if none. */
    long highest() {
        return threads.stream().mapToLong(log -> log.highest).max().orElse(Long.MIN_VALUE);
    }

    /** Call after every drawing thread has ended. */
    boolean uniqueAndIncreasing() {
        long[] merged = new long[threads.stream().mapToInt(log -> log.size).sum()];
        int at = 0;
        for (ThreadNumbers log : threads) {
            if (log.decreased) {
                return false;
            }
            System.arraycopy(log.numbers, 0, merged, at, log.size);
            at += log.size;
        }
        Arrays.sort(merged);
        for (int i = 1; i < merged.length; i++) {
            if (merged[i] == merged[i - 1]) {
                return false;
            }
        }
        return true;
    }
}
