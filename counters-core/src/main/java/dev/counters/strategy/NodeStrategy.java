package dev.counters.strategy;

import dev.counters.CounterName;
import dev.counters.NodeIdInUseException;
import dev.counters.internal.StrategyContext;
import dev.counters.internal.Time;
import dev.counters.spi.CounterStore.Leases;
import dev.counters.spi.CounterStore.SessionLocks.SessionLock;
import dev.counters.spi.CounterStore.SessionLocks;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-node counters (the closing design of "Poor man's distributed counter", a G-Counter, or a PN-Counter when
 * decrements are allowed): each application node adds only to its own rows, so nodes never wait for each other; a read
 * sums every node's rows, including those of nodes long gone. The PN form keeps two rows per node, increments and
 * decrements, each only growing in magnitude.
 *
 * <p>The node id is claimed when the strategy starts, so that a second live process configured with the same id fails
 * fast instead of silently sharing rows. Where the store has {@link SessionLocks} (MySQL, MariaDB, PostgreSQL), the
 * claim is a lock held by a database session of its own: the server frees it the moment a dead process's connection
 * closes, so a process restarted under its stable id after a crash starts at once. Elsewhere (H2) it is a lease in
 * the store, renewed in the background, which a crashed holder keeps until its TTL ends; so on a Galera cluster too,
 * whose session locks hold on one node only (the store offers none there).
 */
final class NodeStrategy extends CellStrategy {

    private static final Logger log = LoggerFactory.getLogger(NodeStrategy.class);

    private final String nodeId;
    private final boolean decrements;
    private final String incrementCell;
    private final String decrementCell;
    private final String claimKey;
    private final String owner;
    private final Time time;
    private final Duration leaseTtl;
    private final @Nullable SessionLocks sessionLocks;
    private final @Nullable Leases leases;
    private volatile @Nullable SessionLock sessionLock;
    private final ScheduledExecutorService renewer;
    private volatile boolean claimLost;

    NodeStrategy(StrategyContext context, NodeSettings settings) {
        super(context, "node", StrategyContext.transientFailures());
        this.nodeId = settings.nodeId() != null ? settings.nodeId() : "node-" + context.instanceId();
        this.decrements = settings.decrements();
        this.incrementCell = "n:" + nodeId + ":+";
        this.decrementCell = "n:" + nodeId + ":-";
        this.claimKey = "node:" + nodeId;
        this.owner = context.instanceId();
        this.time = context.time();
        this.leaseTtl = settings.leaseTtl();
        this.sessionLocks = store.capability(SessionLocks.class).orElse(null);
        this.leases = sessionLocks != null ? null : context.require(Leases.class, "node");
        // Retried: on a Galera cluster, two processes claiming one id through different nodes make one of them a
        // certification conflict, rolled back, whose retry then finds the claim taken.
        if (!retrying(this::claim)) {
            throw new NodeIdInUseException("Node id '" + nodeId + "' is held by another live process; give each "
                    + "process its own node id" + (sessionLocks != null ? ""
                            : " (a claim lasts " + leaseTtl.toSeconds() + "s after its holder stops)"));
        }
        this.renewer = Executors.newSingleThreadScheduledExecutor(task -> context.newThread("node-lease", task));
        long period = Math.max(1, leaseTtl.toMillis() / 3);
        renewer.scheduleAtFixedRate(this::renewClaim, period, period, TimeUnit.MILLISECONDS);
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

    @Override
    public String type() {
        return "node";
    }

    /**
     * Keeps the claim on the node id. A claim taken over by another process stops this one's increments; a store that
     * cannot be reached says nothing about the claim, so increments go on (they fail by themselves meanwhile).
     */
    void renewClaim() {
        try {
            if (!claim()) {
                claimLost = true;
                log.error("Node id '{}' was claimed by another process; this process stops incrementing its counters",
                        nodeId);
            }
        } catch (RuntimeException e) {
            log.warn("Could not renew the claim on node id '{}': {}", nodeId, e.toString());
        }
    }

    @Override
    public void increment(CounterName name, long delta) {
        addCombined(name, cellFor(name, delta), delta, false);
    }

    /**
     * Holds the combiner of this node's increment cell, so that a positive increment through a kept handle skips
     * the combiners' cache; the rest (decrements, a lost claim) goes the usual way.
     */
    @Override
    public LongConsumer incrementer(CounterName name) {
        Combiner increments = combiner(name, incrementCell);
        return delta -> {
            if (delta > 0 && !claimLost) {
                increments.submit(delta, false);
            } else {
                increment(name, delta);
            }
        };
    }

    @Override
    public long incrementAndGet(CounterName name, long delta) {
        return addCombined(name, cellFor(name, delta), delta, true);
    }

    @Override
    KeyedIncrements.KeyedCellWrite keyedWrite(CounterName name, long delta) {
        return KeyedIncrements.KeyedCellWrite.add(name, cellFor(name, delta), delta);
    }

    private String cellFor(CounterName name, long delta) {
        if (claimLost) {
            throw new NodeIdInUseException("Node id '" + nodeId + "' was claimed by another process; counter '" + name
                    + "' was not incremented");
        }
        if (delta > 0) {
            return incrementCell;
        }
        if (!decrements) {
            throw new IllegalArgumentException("Counter '" + name + "' is a grow-only node counter (G-Counter): delta "
                    + delta + " is refused; allow decrements to make it a PN-Counter");
        }
        return decrementCell;
    }

    @Override
    public void close() {
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
            log.warn("Could not release the claim on node id '{}' (it ends by itself): {}", nodeId, e.toString());
        }
    }
}
