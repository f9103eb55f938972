package dev.counters.internal.strategy.buffered;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLongArray;
import org.jspecify.annotations.Nullable;

/**
 * A sum striped over cells, as {@link java.util.concurrent.atomic.LongAdder} is, that can be sealed: {@link #seal()}
 * shuts every cell in one step each, keeping its value, so an add either lands before the seal, and is in the sum, or
 * fails and adds nothing. Closing a buffer seals its slots before its last drain, and no increment slips past it,
 * without a second shared write per increment.
 *
 * <p>Uncontended, a sum is one field; after a failed compare-and-set it spreads over padded cells, and a thread
 * that meets another in its cell moves to another one. The sums it holds stay far from the 64-bit limits (small
 * deltas only), so {@code Long.MIN_VALUE} can mark a sealed cell.
 */
class SealableAdder {

    private static final long SEALED = Long.MIN_VALUE;
    /** Longs from one cell to the next: 128 bytes, so that two cells never share a cache line. */
    private static final int PAD = 16;

    private static final int CELLS =
            Math.min(64, Integer.highestOneBit(Math.max(2, Runtime.getRuntime().availableProcessors()) * 2 - 1) << 1);
    private static final AtomicLongArray SEALED_CELLS = new AtomicLongArray(0);
    /** A thread's choice of cell, changed when it meets another thread there. */
    private static final ThreadLocal<int[]> PROBE =
            ThreadLocal.withInitial(() -> new int[] {Thread.currentThread().hashCode() | 1});

    private static final VarHandle BASE;
    private static final VarHandle CELLS_FIELD;
    private static final VarHandle SEALED_SUM;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            BASE = lookup.findVarHandle(SealableAdder.class, "base", long.class);
            CELLS_FIELD = lookup.findVarHandle(SealableAdder.class, "cells", AtomicLongArray.class);
            SEALED_SUM = lookup.findVarHandle(SealableAdder.class, "sealedSum", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile long base;
    /** What the cells held when sealed, until taken. */
    private volatile long sealedSum;
    /** Null until two adds meet; {@link #SEALED_CELLS} once sealed. */
    private volatile @Nullable AtomicLongArray cells;

    /** Adds {@code x}; false, having added nothing, once sealed. */
    final boolean add(long x) {
        long b;
        return (cells == null && (b = base) != SEALED && BASE.compareAndSet(this, b, b + x)) || addSpread(x);
    }

    /** The add after a missed compare-and-set, kept apart so that the first one stays small enough to inline. */
    private boolean addSpread(long x) {
        AtomicLongArray cs = cells;
        if (cs == null) {
            long b = base;
            if (b == SEALED) {
                return false;
            }
            if (BASE.compareAndSet(this, b, b + x)) {
                return true;
            }
            cs = spread();
        }
        if (cs == SEALED_CELLS) {
            return false;
        }
        int[] probe = PROBE.get();
        while (true) {
            int i = (probe[0] & (CELLS - 1)) * PAD;
            long v = cs.get(i);
            if (v == SEALED) {
                return false;
            }
            if (cs.compareAndSet(i, v, v + x)) {
                return true;
            }
            int h = probe[0]; // another thread uses this cell: move to another (xorshift)
            h ^= h << 13;
            h ^= h >>> 17;
            h ^= h << 5;
            probe[0] = h;
        }
    }

    /** The cells, made now if there are none; {@link #SEALED_CELLS} if sealed meanwhile. */
    private AtomicLongArray spread() {
        AtomicLongArray made = new AtomicLongArray(CELLS * PAD);
        AtomicLongArray witness = (AtomicLongArray) CELLS_FIELD.compareAndExchange(this, null, made);
        return witness == null ? made : witness;
    }

    /** The sum now. */
    final long sum() {
        long b = base;
        long sum = sealedSum + (b == SEALED ? 0 : b);
        AtomicLongArray cs = cells;
        if (cs != null) {
            for (int i = 0; i < cs.length(); i += PAD) {
                long v = cs.get(i);
                sum += v == SEALED ? 0 : v;
            }
        }
        return sum;
    }

    /** Takes the sum, leaving 0: adds made meanwhile are either taken or left for the next take. */
    final long sumThenReset() {
        long sum = (long) SEALED_SUM.getAndSet(this, 0L);
        for (long b; (b = base) != SEALED; ) {
            if (BASE.compareAndSet(this, b, 0L)) {
                sum += b;
                break;
            }
        }
        AtomicLongArray cs = cells;
        if (cs != null) {
            for (int i = 0; i < cs.length(); i += PAD) {
                for (long v; (v = cs.get(i)) != SEALED; ) {
                    if (cs.compareAndSet(i, v, 0)) {
                        sum += v;
                        break;
                    }
                }
            }
        }
        return sum;
    }

    /** Refuses every later add; the sum stays until taken. */
    final void seal() {
        AtomicLongArray cs = (AtomicLongArray) CELLS_FIELD.getAndSet(this, SEALED_CELLS); // first: no cells after it
        long b = (long) BASE.getAndSet(this, SEALED);
        long sum = b == SEALED ? 0 : b;
        if (cs != null) {
            for (int i = 0; i < cs.length(); i += PAD) {
                long v = cs.getAndSet(i, SEALED);
                sum += v == SEALED ? 0 : v;
            }
        }
        SEALED_SUM.getAndAdd(this, sum);
    }
}
