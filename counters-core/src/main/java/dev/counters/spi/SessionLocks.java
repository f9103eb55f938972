package dev.counters.spi;

import java.util.Optional;

/**
 * Locks held by a database session of their own, which the database releases by itself when the session ends:
 * when the process holding one dies, even by {@code kill -9}, the lock is free again as soon as the server sees
 * its connection close, with no expiry to wait for (MySQL and MariaDB {@code GET_LOCK}, PostgreSQL advisory
 * locks). The {@code node} strategy claims its node id with one where the store offers them, and a
 * {@link Leases lease} otherwise.
 */
public interface SessionLocks {

    /**
     * Takes the lock named {@code key} at once, on a connection kept for it alone.
     *
     * @return the lock, or empty when another session holds it
     */
    Optional<SessionLock> tryLock(String key);

    /** A lock held on a session of its own; closing it releases the lock and the session. */
    interface SessionLock extends AutoCloseable {

        /** Whether the session is alive, and so still holds the lock; false once it ended, whatever the cause. */
        boolean isHeld();

        @Override
        void close();
    }
}
