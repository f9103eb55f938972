package dev.counters.internal.strategy;

import dev.counters.internal.Time;
import dev.counters.spi.Escrow.NodeAllowance;
import dev.counters.spi.Holds.KeyedOperation;
import dev.counters.spi.Leases;
import dev.counters.spi.SessionLocks;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a bounded strategy sweeps back to the pools every {@code sweep-interval}, under the lease
 * {@code counters:escrow} (one process at a time): holds past their expiry, and the allowances of nodes whose claim on
 * their id has ended (a crashed process). A node other than this one is dead when its claim can be taken: its session
 * lock, where the store has them, or else its lease, taken under an owner of the sweep's own so that it never renews
 * and then releases a live claim of this process. So a dead node's room is back within the lease TTL plus the
 * interval, and an expired hold's within the interval.
 */
final class EscrowSweep {

    private static final Logger LOG = LoggerFactory.getLogger(EscrowSweep.class);

    static final String LEASE = "counters:escrow";
    /** The sweep's lease and a dead node's claim last this long: a sweeper killed mid-run delays the next by this. */
    private static final Duration HOLD = Duration.ofSeconds(10);

    private static final int HOLDS_PER_RUN = 1_000;
    private static final int PAGE = 500;
    private static final int COUNTERS_PER_NODE = 100;

    private final BoundedStrategy strategy;
    private final String ownNodeId;
    private final String owner;
    private final Time time;
    private final @Nullable Leases leases;
    private final @Nullable SessionLocks sessionLocks;

    EscrowSweep(StrategyContext context, BoundedStrategy strategy, String ownNodeId) {
        this.strategy = strategy;
        this.ownNodeId = ownNodeId;
        this.owner = context.instanceId();
        this.time = context.time();
        this.leases = context.store().capability(Leases.class).orElse(null);
        this.sessionLocks = context.store().capability(SessionLocks.class).orElse(null);
    }

    void runQuietly() {
        try {
            run();
        } catch (RuntimeException | Error e) { // a scheduled task that throws is never run again
            LOG.warn("The escrow sweep failed; it runs again at the next interval: {}", e.toString());
        }
    }

    /** One run: whether this process held the lease. */
    boolean run() {
        if (leases == null) {
            return false;
        }
        Instant now = time.now();
        if (!leases.tryLease(LEASE, owner, now.plus(HOLD), now)) {
            return false;
        }
        try {
            expireHolds();
            reclaimDeadNodes();
            return true;
        } finally {
            leases.releaseLease(LEASE, owner);
        }
    }

    private void expireHolds() {
        Instant now = time.steady();
        for (KeyedOperation hold : strategy.holds().dueHolds(null, now, HOLDS_PER_RUN)) {
            strategy.expire(hold, now);
        }
    }

    private void reclaimDeadNodes() {
        List<NodeAllowance> page = strategy.escrow().allowances(null, PAGE);
        while (!page.isEmpty()) {
            List<NodeAllowance> ofNode = new ArrayList<>();
            String node = null;
            for (NodeAllowance allowance : page) {
                if (!allowance.nodeId().equals(node)) {
                    reclaim(node, ofNode);
                    node = allowance.nodeId();
                    ofNode = new ArrayList<>();
                }
                if (ofNode.size() < COUNTERS_PER_NODE) {
                    ofNode.add(allowance);
                }
            }
            reclaim(node, ofNode);
            if (page.size() < PAGE) {
                return;
            }
            page = strategy.escrow().allowances(page.get(page.size() - 1), PAGE);
        }
    }

    /** Retires the node's rows if its claim can be taken (it is dead), holding the claim meanwhile. */
    private void reclaim(@Nullable String node, List<NodeAllowance> ofNode) {
        if (node == null || ofNode.isEmpty() || node.equals(ownNodeId)) {
            return;
        }
        String claimKey = "node:" + node;
        if (sessionLocks != null) {
            Optional<SessionLocks.SessionLock> lock = sessionLocks.tryLock(claimKey);
            if (lock.isPresent()) {
                try {
                    retireAll(node, ofNode);
                } finally {
                    lock.get().close();
                }
            }
            return;
        }
        if (leases == null) {
            return;
        }
        String sweeper = owner + ":sweep";
        Instant now = time.now();
        if (leases.tryLease(claimKey, sweeper, now.plus(HOLD), now)) {
            try {
                retireAll(node, ofNode);
            } finally {
                leases.releaseLease(claimKey, sweeper);
            }
        }
    }

    private void retireAll(String node, List<NodeAllowance> ofNode) {
        for (NodeAllowance allowance : ofNode) {
            long units = strategy.reclaim(allowance.counter(), node);
            LOG.info(
                    "Gave back {} units of counter '{}' held by node '{}', whose claim had ended",
                    units,
                    allowance.counter(),
                    node);
        }
    }
}
