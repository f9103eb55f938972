package dev.counters.strategy;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Settings of the {@code node} strategy: one row per application node (G-Counter, or PN-Counter with decrements); a
 * node writes only its own row, reads sum every node's. Exact and durable when {@code increment} returns.
 *
 * @param nodeId this process's node id (1 to 40 ASCII letters, digits, {@code . _ -}); null generates a random one
 *     at each start, which adds a row per counter per start: give long-lived deployments a stable id
 * @param decrements whether negative deltas are allowed (a PN-Counter); false makes a grow-only G-Counter
 * @param leaseTtl how long a claim on the node id lasts without renewal, where it is a lease (H2); it is renewed, or
 *     on a store with session locks checked, every third of this
 */
public record NodeSettings(@Nullable String nodeId, boolean decrements, Duration leaseTtl) implements StrategySettings {

    private static final Pattern NODE_ID = Pattern.compile("[A-Za-z0-9._-]{1,40}");

    public NodeSettings {
        if (nodeId != null && !NODE_ID.matcher(nodeId).matches()) {
            throw new IllegalArgumentException(
                    "Node id '" + nodeId + "' is invalid: use 1 to 40 ASCII letters, digits, '.', '_' or '-'");
        }
        Objects.requireNonNull(leaseTtl, "leaseTtl");
        if (leaseTtl.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("node lease-ttl must be at least 1s, was " + leaseTtl);
        }
    }

    /** A generated node id, decrements allowed (PN-Counter), a 30-second lease. */
    public static NodeSettings defaults() {
        return new NodeSettings(null, true, Duration.ofSeconds(30));
    }

    public NodeSettings withNodeId(@Nullable String nodeId) {
        return new NodeSettings(nodeId, decrements, leaseTtl);
    }

    public NodeSettings withDecrements(boolean decrements) {
        return new NodeSettings(nodeId, decrements, leaseTtl);
    }

    public NodeSettings withLeaseTtl(Duration leaseTtl) {
        return new NodeSettings(nodeId, decrements, leaseTtl);
    }

    @Override
    public String name() {
        return "node";
    }

    @Override
    public boolean countsMembers() {
        return true;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
        return visitor.node(this);
    }
}
