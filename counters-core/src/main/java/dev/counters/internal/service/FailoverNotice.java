package dev.counters.internal.service;

import dev.counters.spi.CounterStore;
import dev.counters.spi.Failovers;
import dev.counters.spi.Failovers.Durability;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one line logged at start, on a store that offers {@link Failovers}, that says what the database's durability
 * settings mean for each configured strategy across a failover: INFO, or WARN when acknowledged writes can be lost.
 */
final class FailoverNotice {

    private static final Logger LOG = LoggerFactory.getLogger(FailoverNotice.class);

    private FailoverNotice() {}

    /** Logs the line, if the store offers {@link Failovers}; a failure to read the settings is logged, not thrown. */
    static void log(CounterStore store, Collection<String> strategies, boolean rateLimits) {
        store.capability(Failovers.class).ifPresent(failovers -> {
            Durability durability;
            try {
                durability = failovers.durability();
            } catch (RuntimeException e) {
                LOG.warn("Could not read the database's durability settings: {}", e.toString());
                return;
            }
            String line = describe(durability, failovers.skipAhead(), strategies, rateLimits);
            if (durability.replication() == Failovers.Replication.ASYNCHRONOUS) {
                LOG.warn(line);
            } else {
                LOG.info(line);
            }
        });
    }

    /** What {@code durability} means for each of {@code strategies}, sequences and (when any) rate limits. */
    static String describe(Durability durability, long skipAhead, Collection<String> strategies, boolean rateLimits) {
        // MySQL's statement-based replication replays the statement that stamps a row on the replica, which stamps
        // its own server_uuid (the store shows binlog_format only where it matters).
        String statements = "STATEMENT".equalsIgnoreCase(durability.settings().get("binlog_format"))
                ? "; with binlog_format=STATEMENT a MySQL replica stamps rows with its own history: after its"
                        + " promotion nothing skips (ROW or MIXED keep the protection)"
                : "";
        return meaning(durability, skipAhead, strategies, rateLimits) + statements;
    }

    private static String meaning(
            Durability durability, long skipAhead, Collection<String> strategies, boolean rateLimits) {
        Set<String> configured = new TreeSet<>(strategies);
        String skip = skipAhead == 0
                ? "hand out again the values a failover lost (failover skip-ahead is 0)"
                : "skip ahead by " + skipAhead + " after a change of primary (values repeat only if it lost more)";
        String settings = "Failover: the database's settings " + new TreeMap<>(durability.settings()) + " ";
        Failovers.Replication replication = durability.replication();
        if (replication == Failovers.Replication.CLUSTER) {
            return settings + "say a Galera cluster: every node certifies each commit, a node's death loses no"
                    + " acknowledged write, and every strategy stays exact across it";
        }
        if (replication == Failovers.Replication.SYNCHRONOUS) {
            return settings + "make each commit wait for a standby: a failover to it loses no acknowledged write, and"
                    + " every strategy stays exact across it; sequences and monotonic counters " + skip;
        }
        if (replication == Failovers.Replication.NONE) {
            String disk = "off".equals(durability.settings().get("synchronous_commit"))
                    ? "with synchronous_commit=off a crash of the server can lose its last commits"
                    : "a commit survives what the server's disk survives";
            return settings + "show no standby or replica: " + disk + "; if a replica is promoted, sequences and"
                    + " monotonic counters " + skip;
        }
        List<String> parts = new ArrayList<>();
        Set<String> counting = new TreeSet<>(configured);
        counting.removeAll(Set.of("monotonic", "bounded"));
        if (!counting.isEmpty()) {
            parts.add("acknowledged increments of " + String.join(", ", counting)
                    + " counters can be lost in a failover, never counted twice");
        }
        if (configured.contains("bounded")) {
            parts.add("bounded counters can lose acknowledged changes too, and cross their bounds by as much");
        }
        if (rateLimits) {
            parts.add("rate limits can admit again what was lost");
        }
        parts.add((configured.contains("monotonic") ? "monotonic counters and sequences " : "sequences ") + skip);
        return settings + "replicate asynchronously: a failover can lose acknowledged commits; "
                + String.join("; ", parts);
    }
}
