package dev.counters.strategy;

import dev.counters.CounterName;
import dev.counters.NodeIdInUseException;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-node counters (seed 004's closing design, a G-Counter, or a PN-Counter when decrements are allowed): each
 * application node adds only to its own rows, so nodes never wait for each other; a read sums every node's rows,
 * including those of nodes long gone. The PN form keeps two rows per node, increments and decrements, each only
 * growing in magnitude.
 *
 * <p>The node id is claimed with a lease in the store when the strategy starts, and renewed in the background, so
 * that a second live process configured with the same id fails fast instead of silently sharing rows.
 */
final class NodeStrategy extends CellStrategy {

    private static final Logger log = LoggerFactory.getLogger(NodeStrategy.class);

    private final String nodeId;
    private final boolean decrements;
    private final String incrementCell;
    private final String decrementCell;
    private final String leaseKey;
    private final String owner;
    private final Clock clock;
    private final java.time.Duration leaseTtl;
    private final ScheduledExecutorService renewer;
    private volatile boolean leaseLost;

    NodeStrategy(StrategyContext context, NodeSettings settings) {
        super(context.store());
        this.nodeId = settings.nodeId() != null ? settings.nodeId()
                : "node-" + HexFormat.of().toHexDigits(context.random().nextInt());
        this.decrements = settings.decrements();
        this.incrementCell = "n:" + nodeId + ":+";
        this.decrementCell = "n:" + nodeId + ":-";
        this.leaseKey = "node:" + nodeId;
        this.owner = context.instanceId();
        this.clock = context.clock();
        this.leaseTtl = settings.leaseTtl();
        Instant now = clock.instant();
        if (!store.tryLease(leaseKey, owner, now.plus(leaseTtl), now)) {
            throw new NodeIdInUseException("Node id '" + nodeId + "' is held by another live process; give each "
                    + "process its own node id (a claim lasts " + leaseTtl.toSeconds() + "s after its holder stops)");
        }
        this.renewer = Executors.newSingleThreadScheduledExecutor(task -> context.newThread("node-lease", task));
        long period = Math.max(1, leaseTtl.toMillis() / 3);
        renewer.scheduleAtFixedRate(this::renewLease, period, period, TimeUnit.MILLISECONDS);
    }

    @Override
    public String type() {
        return "node";
    }

    /** Renews the claim on the node id; a claim taken over by another process stops this one's increments. */
    void renewLease() {
        try {
            Instant now = clock.instant();
            if (!store.tryLease(leaseKey, owner, now.plus(leaseTtl), now)) {
                leaseLost = true;
                log.error("Node id '{}' was claimed by another process; this process stops incrementing its counters",
                        nodeId);
            }
        } catch (RuntimeException e) {
            log.warn("Could not renew the claim on node id '{}': {}", nodeId, e.toString());
        }
    }

    @Override
    public void increment(CounterName name, long delta) {
        store.add(name, cellFor(name, delta), delta);
    }

    @Override
    public long incrementAndGet(CounterName name, long delta) {
        return store.addAndGet(name, cellFor(name, delta), delta);
    }

    private String cellFor(CounterName name, long delta) {
        if (leaseLost) {
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
            store.releaseLease(leaseKey, owner);
        } catch (RuntimeException e) {
            log.warn("Could not release the claim on node id '{}' (it expires by itself): {}", nodeId, e.toString());
        }
    }
}
