package dev.counters.spi;

import java.util.Map;

/**
 * A database whose primary can change (a Patroni failover, a MySQL or MariaDB replica promoted), and a store that
 * protects what a change can make repeat.
 *
 * <p>Every row that hands out values (a sequence's next value, a monotonic counter's maximum shards) records the
 * <em>history</em> it was written under: on PostgreSQL the system identifier and the timeline, which a promotion
 * changes; on MySQL {@code server_uuid}, on MariaDB {@code server_id} (a Galera cluster is one history: it does not
 * lose commits on a node's death). A promotion that lost commits the old primary had acknowledged leaves such a row
 * with an earlier history than the database's. Before the next value is handed out from such a row, in the same
 * transaction, the store moves it ahead by {@link #skipAhead()} values and stamps the new history, and logs it: values
 * can repeat only if the failover lost more than that. A draw inside the application's transaction (a gapless number)
 * never skips: its values are kept or lost with the rows the application wrote beside them.
 */
public interface Failovers {

    /**
     * How far a sequence (in its own steps) or a monotonic counter jumps after a change of history; 0 when the
     * protection is off.
     */
    long skipAhead();

    /** The skips made by this store since it was built, for a metric: rows moved ahead after a change of history. */
    Skips skips();

    /**
     * What the database's settings say a commit survives, read now (a few statements): for the one log line at start
     * that says what they mean for each strategy.
     */
    Durability durability();

    /** Rows moved ahead after a change of history, by kind. */
    record Skips(long sequences, long maxima) {}

    /**
     * The settings read ({@code synchronous_commit}, {@code synchronous_standby_names}, {@code wsrep_on},
     * {@code rpl_semi_sync_master_enabled}, ...: name to value, as the database shows them) and what they add up to.
     */
    record Durability(Replication replication, Map<String, String> settings) {

        public Durability {
            settings = Map.copyOf(settings);
        }
    }

    /** What a commit acknowledged to the library is known to survive. */
    enum Replication {
        /** No replication seen: a commit survives what the server's own disk survives. */
        NONE,
        /** A commit waits for a standby: a failover to that standby keeps it. */
        SYNCHRONOUS,
        /** Standbys may be behind: a failover can lose acknowledged commits. */
        ASYNCHRONOUS,
        /** A Galera cluster: every node certifies a commit before it is acknowledged. */
        CLUSTER
    }
}
