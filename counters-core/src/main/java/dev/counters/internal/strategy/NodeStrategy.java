package dev.counters.internal.strategy;

import dev.counters.CounterName;
import dev.counters.NodeIdInUseException;
import dev.counters.spi.SessionLocks;
import dev.counters.strategy.NodeSettings;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongConsumer;

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
 * whose session locks hold on one node only (the store offers none there). A service holds one claim per node id,
 * shared by all its {@code node} rules ({@link NodeClaim}).
 */
public final class NodeStrategy extends CellStrategy implements CountsMembers {

    private final String nodeId;
    private final boolean decrements;
    private final String incrementCell;
    private final String decrementCell;
    private final NodeClaim claim;
    private final AtomicBoolean closed = new AtomicBoolean();

    public NodeStrategy(StrategyContext context, NodeSettings settings) {
        super(context, StrategyContext.transientFailures());
        this.nodeId = settings.nodeId() != null ? settings.nodeId() : "node-" + context.instanceId();
        this.decrements = settings.decrements();
        this.incrementCell = "n:" + nodeId + ":+";
        this.decrementCell = "n:" + nodeId + ":-";
        this.claim = NodeClaim.acquire(context, nodeId, settings.leaseTtl(), retry);
    }

    @Override
    public void increment(CounterName name, long delta) {
        addCombined(name, cellFor(name, delta), delta, false);
    }

    @Override
    public LongConsumer incrementer(CounterName name) {
        return new HeldCell(name, combiner(name, incrementCell));
    }

    /**
     * A kept handle's increments: it holds the combiner of this node's increment cell, so that a positive increment
     * skips the combiners' cache; the rest (decrements, a lost claim) goes the usual way.
     */
    private final class HeldCell implements LongConsumer {

        private final CounterName name;
        private final Combiner increments;

        HeldCell(CounterName name, Combiner increments) {
            this.name = name;
            this.increments = increments;
        }

        @Override
        public void accept(long delta) {
            if (delta > 0 && !claim.lost()) {
                increments.submit(delta, false);
            } else {
                increment(name, delta);
            }
        }
    }

    @Override
    public long incrementAndGet(CounterName name, long delta) {
        return addCombined(name, cellFor(name, delta), delta, true);
    }

    @Override
    KeyedIncrements.KeyedCellWrite keyedWrite(CounterName name, long delta) {
        return KeyedIncrements.KeyedCellWrite.add(name, cellFor(name, delta), delta);
    }

    /**
     * This node's increment cell, under its claim, whatever the sign of the change: a membership counter's count is
     * kept by its member rows, so each node's row holds the net of its changes, and removes need no PN form.
     */
    @Override
    String memberCell(CounterName name) {
        if (closed.get()) {
            throw new IllegalStateException("The CounterService is closed: node '" + nodeId + "' released its claim,"
                    + " and the members of counter '" + name + "' were not changed");
        }
        return cellFor(name, 1);
    }

    private String cellFor(CounterName name, long delta) {
        if (claim.lost()) {
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
        if (closed.compareAndSet(false, true)) {
            claim.release(); // once: the claim counts the rules that still use it
        }
    }
}
