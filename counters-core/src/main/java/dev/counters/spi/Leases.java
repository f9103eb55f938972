package dev.counters.spi;

import java.time.Instant;

/**
 * Expiring claims on a key: a node's id ({@code node}, where the store has no {@link SessionLocks}), the one recount
 * in flight for a counter ({@code delta-log}), and the one process doing the service's housekeeping.
 */
public interface Leases {

    /**
     * Takes or renews the lease {@code key} for {@code owner} until {@code expiresAt}: succeeds when nobody holds
     * it, when its holder's lease ended at or before {@code now}, or when {@code owner} already holds it.
     *
     * @return whether {@code owner} holds the lease now
     */
    boolean tryLease(String key, String owner, Instant expiresAt, Instant now);

    /** Gives up the lease if {@code owner} holds it. */
    void releaseLease(String key, String owner);
}
