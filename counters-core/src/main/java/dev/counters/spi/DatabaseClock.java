package dev.counters.spi;

import java.time.Instant;

/**
 * The database server's clock: every process on the database stamps and purges what guards exactly-once retries
 * (delta ids, idempotency keys, flush keys) and removes windows on it, so that no process's own clock error moves
 * a purge. A store of a database shared by several processes should offer it. Used by every strategy and by the
 * service's housekeeping, through the service's clock; without it they use the JVM's clock.
 */
public interface DatabaseClock {

    /** The database's clock now (one round trip). */
    Instant databaseTime();
}
