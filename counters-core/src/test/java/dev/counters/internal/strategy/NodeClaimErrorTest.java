package dev.counters.internal.strategy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterService;
import dev.counters.NodeIdInUseException;
import dev.counters.contract.ForwardingCounterStore;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.strategy.NodeSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A renewal of a node id's claim that fails with an {@link Error} must not end the renewals: a scheduled task that
 * throws is never run again, so the claim would lapse while its holder goes on writing the node's row, and another
 * process could claim the same id.
 */
class NodeClaimErrorTest {

    @Test
    void aRenewalThatFailsWithAnErrorIsFollowedByTheNextAndTheClaimHolds() throws Exception {
        InMemoryCounterStore shared = new InMemoryCounterStore();
        AtomicInteger renewals = new AtomicInteger();
        ForwardingCounterStore failingOnce = new ForwardingCounterStore(shared) {
            @Override
            public boolean tryLease(String key, String owner, Instant expiresAt, Instant now) {
                if (renewals.incrementAndGet() == 2) { // the first renewal, after the claim at start
                    throw new NoSuchMethodError("simulated: a library of another version");
                }
                return super.tryLease(key, owner, expiresAt, now);
            }
        };
        NodeSettings settings = NodeSettings.defaults().withNodeId("n-1").withLeaseTtl(Duration.ofSeconds(1));
        try (CounterService holder =
                CounterService.builder(failingOnce).defaultStrategy(settings).build()) {
            holder.increment("x");
            Thread.sleep(3_000); // three leases
            assertThat(renewals).hasValueGreaterThan(3);
            assertThatThrownBy(() -> CounterService.builder(shared)
                            .defaultStrategy(settings)
                            .build()
                            .close())
                    .isInstanceOf(NodeIdInUseException.class);
            holder.increment("x");
            assertThat(holder.get("x")).isEqualTo(2);
        }
    }
}
