package dev.counters.internal;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The identities a service instance writes to the store (delta ids, flush keys, lease owners, generated node ids):
 * unique across threads, processes, restarts and hosts. Each instance draws a 128-bit prefix from
 * {@link SecureRandom} once, when it is created, and numbers its ids after it; no two instances share a prefix short
 * of a 2<sup>-64</sup> birthday chance over 2<sup>32</sup> instances, and within one instance the number never repeats.
 *
 * <p>Never derived from the injected {@link java.util.random.RandomGenerator}: tests make that one deterministic, and
 * a deterministic id repeats in the next process that runs the same code.
 */
public final class UniqueIds {

    private static final SecureRandom SEEDS = new SecureRandom();

    private final String instanceId;
    private final AtomicLong issued = new AtomicLong();

    private UniqueIds(String instanceId) {
        this.instanceId = instanceId;
    }

    /** A new instance prefix: 22 characters of URL-safe base 64 ({@code A-Z a-z 0-9 - _}). */
    public static UniqueIds create() {
        byte[] prefix = new byte[16];
        SEEDS.nextBytes(prefix);
        return new UniqueIds(Base64.getUrlEncoder().withoutPadding().encodeToString(prefix));
    }

    /** This instance's id, the owner of its leases: 22 characters. */
    public String instanceId() {
        return instanceId;
    }

    /** An id nobody else has: this instance's id, a dot, and a number it never issued before (at most 36 characters). */
    public String next() {
        return instanceId + "." + Long.toString(issued.incrementAndGet(), 36);
    }
}
