package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterService;
import dev.counters.CounterServiceBuilder;
import dev.counters.NodeIdInUseException;
import dev.counters.contract.Concurrently;
import dev.counters.jdbc.reliability.ChildNodeIncrementer;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.spi.CounterStore;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.StrategySettings;
import dev.counters.testing.ChildJvm;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Several {@code node} rules in one application (issue 31, item 0): they share the process's one claim on the node
 * id, so the service starts on every database, counts exactly, starts again after a close, and still refuses a second
 * holder of the id (another process, or another service in this JVM).
 */
class NodeRulesTest {

    /** {@code rules} node rules under one node id: {@code n0.*}, {@code n1.*}, ... (the third is the default). */
    private static CounterService service(CounterStore store, String nodeId, int rules) {
        StrategySettings node = NodeSettings.defaults().withNodeId(nodeId);
        CounterServiceBuilder builder =
                CounterService.builder(store).strategy("n0.*", node).strategy("n1.*", node);
        if (rules == 3) {
            builder.defaultStrategy(node);
        }
        return builder.build();
    }

    private static List<String> counters(int rules) {
        return rules == 3 ? List.of("n0.a", "n1.a", "other.a") : List.of("n0.a", "n1.a");
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void twoAndThreeNodeRulesShareTheClaimCountExactlyAndStartAgain(TestDatabase database) throws Exception {
        sharedClaim(database, 2);
        sharedClaim(database, 3);
    }

    private static void sharedClaim(TestDatabase database, int rules) throws Exception {
        {
            JooqStores stores = JooqStores.on(database);
            String nodeId = "rules-" + UUID.randomUUID().toString().substring(0, 8);
            List<String> names = counters(rules);
            try (CounterService counters = service(stores.store(), nodeId, rules)) {
                Concurrently.run(6, thread -> {
                    for (int i = 0; i < 50; i++) {
                        counters.increment(names.get((thread + i) % names.size()));
                    }
                });
                assertThat(names.stream().mapToLong(counters::getExact).sum()).isEqualTo(300);
                // Another holder of the id is still refused: another service, on this store or another, and on a
                // server another process.
                assertThatThrownBy(() -> service(stores.store(), nodeId, rules))
                        .isInstanceOf(NodeIdInUseException.class);
                assertThatThrownBy(() -> service(stores.anotherStore(), nodeId, rules))
                        .isInstanceOf(NodeIdInUseException.class);
                if (database != TestDatabase.H2) {
                    ChildJvm other = ChildJvm.start(
                            ChildNodeIncrementer.class,
                            database.jdbcUrl(),
                            database.user(),
                            database.password(),
                            stores.prefix(),
                            "n0.a",
                            nodeId,
                            "30");
                    assertThat(other.process().waitFor(2, TimeUnit.MINUTES)).isTrue();
                    assertThat(other.output()).contains("NODE ID IN USE");
                    assertThat(other.process().exitValue()).as(other.output()).isEqualTo(2);
                }
            }
            // A restart on the same store: the claim was released by the last rule, and is taken again.
            try (CounterService restarted = service(stores.store(), nodeId, rules)) {
                names.forEach(restarted::increment);
                assertThat(names.stream().mapToLong(restarted::getExact).sum()).isEqualTo(300 + names.size());
            }
            // Released again on close: another holder may now take the id.
            try (CounterService successor = service(stores.anotherStore(), nodeId, rules)) {
                successor.increment("n1.a");
                assertThat(names.stream().mapToLong(successor::getExact).sum()).isEqualTo(301 + names.size());
            }
        }
    }
}
