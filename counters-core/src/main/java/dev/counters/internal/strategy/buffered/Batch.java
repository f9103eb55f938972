package dev.counters.internal.strategy.buffered;

import dev.counters.CounterName;
import dev.counters.internal.UniqueIds;
import dev.counters.internal.strategy.AtomicStrategy;
import dev.counters.spi.IdempotencyKeys.KeyedDelta;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A flush in progress: its key, cell, deltas, keyed increments (whose deltas are among the batch's) and waiting
 * durable callers stay the same across retries. The key is an id unique to the batch and a digest
 * of its content, so that the key also names the deltas: a retry under it applies them exactly once.
 */
record Batch(
        String key,
        String cell,
        Map<CounterName, Long> deltas,
        Map<String, KeyedDelta> keyed,
        List<DurableIncrement> durable) {

    /** The cell the first lane flushes into: the same as atomic's, so a counter can move between the two. */
    static final String CELL = AtomicStrategy.CELL;

    /** An increment whose caller waits for the flush carrying it; delta 0 only waits (a flush call). */
    record DurableIncrement(CounterName name, long delta, DurableFuture done) {}

    /** A batch under a key of its own: a new id and the digest of its content. */
    static Batch of(
            UniqueIds ids,
            String cell,
            Map<CounterName, Long> deltas,
            Map<String, KeyedDelta> keyed,
            List<DurableIncrement> durable) {
        return new Batch(ids.next() + "." + digest(cell, deltas, keyed), cell, deltas, keyed, durable);
    }

    /** The same content under a new key. */
    Batch underNewKey(UniqueIds ids) {
        return of(ids, cell, deltas, keyed, durable);
    }

    /** The futures of the durable callers waiting for this batch. */
    List<DurableFuture> futures() {
        return futures(durable);
    }

    static List<DurableFuture> futures(List<DurableIncrement> increments) {
        List<DurableFuture> futures = new ArrayList<>(increments.size());
        increments.forEach(increment -> futures.add(increment.done()));
        return futures;
    }

    /** 128 bits of SHA-256 over the cell, the deltas in name order and the keyed increments in key order. */
    private static String digest(String cell, Map<CounterName, Long> deltas, Map<String, KeyedDelta> keyed) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform has SHA-256", e);
        }
        sha.update(cell.getBytes(StandardCharsets.US_ASCII));
        new TreeMap<>(deltas).forEach((name, delta) -> {
            sha.update((byte) 0);
            sha.update(name.value().getBytes(StandardCharsets.US_ASCII));
            sha.update((byte) 0);
            sha.update(Long.toString(delta).getBytes(StandardCharsets.US_ASCII));
        });
        new TreeMap<>(keyed).forEach((key, increment) -> {
            sha.update((byte) 1);
            sha.update(key.getBytes(StandardCharsets.US_ASCII));
            sha.update((byte) 0);
            sha.update(increment.counter().value().getBytes(StandardCharsets.US_ASCII));
            sha.update((byte) 0);
            sha.update(Long.toString(increment.delta()).getBytes(StandardCharsets.US_ASCII));
        });
        return HexFormat.of().formatHex(sha.digest(), 0, 16);
    }
}
