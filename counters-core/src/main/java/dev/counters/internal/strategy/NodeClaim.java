package dev.counters.internal.strategy;

import dev.counters.NodeIdInUseException;
import dev.counters.internal.Time;
import dev.counters.spi.Leases;
import dev.counters.spi.SessionLocks;
import dev.counters.spi.SessionLocks.SessionLock;
import io.github.resilience4j.retry.Retry;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A service's claim on a node id (see {@link NodeStrategy}): one per service and node id, shared by every {@code node}
 * rule of the service that uses the id, and released when the last of them closes. A claim per rule met its own
 * process's session lock and refused to start. Another service, in this JVM or another, is another holder and is
 * refused, as another process would be.
 *
 * <p>The first rule's lease TTL serves every rule sharing the claim.
 */
final class NodeClaim {

    private static final Logger LOG = LoggerFactory.getLogger(NodeClaim.class);

    /**
     * How often a claim refused at start is tried again, {@link #PATIENCE_POLL_MILLIS} apart (2 s), before the id
     * counts as taken: a bounded strategy's sweep holds a dead node's claim for a moment while it gives back the node's
     * allowance, and a process restarting under that id then must still start. So must one restarted right after a
     * crash, before the server has seen its old session end. Counted in tries, not on the service's clock, which a
     * test may hold still.
     */
    private static final int PATIENCE_TRIES = 20;

    private static final long PATIENCE_POLL_MILLIS = 100;

    /** The claims held in this JVM, by service instance and node id; every access holds its lock. */
    private static final Map<Key, NodeClaim> HELD = new HashMap<>();

    private final Key key;
    private final String nodeId;
    private final String claimKey;
    private final String owner;
    private final Time time;
    private final Duration leaseTtl;
    private final @Nullable SessionLocks sessionLocks;
    private final @Nullable Leases leases;
    private volatile @Nullable SessionLock sessionLock;
    private final ScheduledExecutorService renewer;
    private volatile boolean lost;
    /** The rules sharing the claim; guarded by {@link #HELD}. */
    private int users;

    @SuppressWarnings("FutureReturnValueIgnored") // renew catches its own failures; close shuts the renewer down
    private NodeClaim(StrategyContext context, String nodeId, Duration leaseTtl, Retry retry) {
        this.key = new Key(context.instanceId(), nodeId);
        this.nodeId = nodeId;
        this.claimKey = "node:" + nodeId;
        this.owner = context.instanceId();
        this.time = context.time();
        this.leaseTtl = leaseTtl;
        this.sessionLocks = context.store().capability(SessionLocks.class).orElse(null);
        this.leases = sessionLocks != null ? null : context.require(Leases.class);
        // Retried: on a Galera cluster, two processes claiming one id through different nodes make one of them a
        // certification conflict, rolled back, whose retry then finds the claim taken.
        if (!claimPatiently(retry)) {
            throw new NodeIdInUseException("Node id '" + nodeId + "' is held by another live process; give each "
                    + "process its own node id"
                    + (sessionLocks != null
                            ? ""
                            : " (a claim lasts " + leaseTtl.toSeconds() + "s after its holder stops)"));
        }
        this.renewer = Executors.newSingleThreadScheduledExecutor(task -> context.newThread("node-lease", task));
        long period = Math.max(1, leaseTtl.toMillis() / 3);
        renewer.scheduleAtFixedRate(this::renew, period, period, TimeUnit.MILLISECONDS);
    }

    /**
     * The claim on {@code nodeId} for a rule of {@code context}'s service: the one the service holds already, or a new
     * one.
     *
     * @throws NodeIdInUseException when another process or service holds the id
     */
    static NodeClaim acquire(StrategyContext context, String nodeId, Duration leaseTtl, Retry retry) {
        synchronized (HELD) {
            NodeClaim claim = HELD.get(new Key(context.instanceId(), nodeId));
            if (claim == null) {
                claim = new NodeClaim(context, nodeId, leaseTtl, retry); // refused: nothing is recorded
                HELD.put(claim.key, claim);
            }
            claim.users++;
            return claim;
        }
    }

    /** Whether another process took the id from this one: then no rule may increment under it any more. */
    boolean lost() {
        return lost;
    }

    /** One rule is done with the claim; the last one releases it. */
    void release() {
        synchronized (HELD) {
            if (--users > 0) {
                return;
            }
            HELD.remove(key, this);
            // Under the lock: a rule starting meanwhile waits for the release, then claims the id anew.
            renewer.shutdownNow();
            try {
                renewer.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try {
                SessionLock held = sessionLock;
                if (held != null) {
                    held.close();
                } else if (leases != null) {
                    leases.releaseLease(claimKey, owner);
                }
            } catch (RuntimeException e) {
                LOG.warn("Could not release the claim on node id '{}' (it ends by itself): {}", nodeId, e.toString());
            }
        }
    }

    /** Takes the claim at start, trying again for about 2 s while another holds it. */
    private boolean claimPatiently(Retry retry) {
        for (int tries = 1; !retry.executeSupplier(this::claim); tries++) {
            if (tries == PATIENCE_TRIES) {
                return false;
            }
            try {
                Thread.sleep(PATIENCE_POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** Takes the claim on the node id, or keeps it: whether this process holds it now. */
    private boolean claim() {
        if (leases != null) {
            Instant now = time.now();
            return leases.tryLease(claimKey, owner, now.plus(leaseTtl), now);
        }
        SessionLock held = sessionLock;
        if (held != null && held.isHeld()) {
            return true;
        }
        if (held != null) {
            held.close();
        }
        sessionLock = Objects.requireNonNull(sessionLocks).tryLock(claimKey).orElse(null);
        return sessionLock != null;
    }

    /**
     * Keeps the claim on the node id. A claim taken over by another process stops this one's increments; a store that
     * cannot be reached says nothing about the claim, so increments go on (they fail by themselves meanwhile).
     */
    private void renew() {
        try {
            if (!claim()) {
                lost = true;
                LOG.error(
                        "Node id '{}' was claimed by another process; this process stops incrementing its counters",
                        nodeId);
            }
        } catch (RuntimeException | Error e) { // a scheduled task that throws is never run again
            LOG.warn("Could not renew the claim on node id '{}': {}", nodeId, e.toString());
        }
    }

    private record Key(String instanceId, String nodeId) {}
}
