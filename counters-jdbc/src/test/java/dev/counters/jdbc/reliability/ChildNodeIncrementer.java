package dev.counters.jdbc.reliability;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterService;
import dev.counters.NodeIdInUseException;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.ChildPool;
import dev.counters.strategy.NodeSettings;
import java.time.Duration;

/**
 * A process of the same-node-id test: claims a node id, then increments a node counter by 1 and prints each
 * acknowledged increment's running count, until killed or refused. Prints {@code NODE ID IN USE} and exits with 2 if
 * the claim is refused at start. Arguments: jdbcUrl user password tablePrefix counter nodeId leaseTtlSeconds.
 */
public final class ChildNodeIncrementer {

    private ChildNodeIncrementer() {}

    public static void main(String[] args) {
        HikariDataSource dataSource = ChildPool.of(args, 2);
        CounterService counters;
        try {
            counters = CounterService.builder(JooqCounterStore.builder(dataSource)
                            .tablePrefix(args[3])
                            .build())
                    .defaultStrategy(NodeSettings.defaults()
                            .withNodeId(args[5])
                            .withLeaseTtl(Duration.ofSeconds(Long.parseLong(args[6]))))
                    .build();
        } catch (NodeIdInUseException e) {
            System.out.println("NODE ID IN USE: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.out.println("STARTED");
        System.out.flush();
        long acknowledged = 0;
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                counters.increment(args[4]);
                acknowledged++;
                System.out.println("ACK " + acknowledged);
                System.out.flush();
            } catch (NodeIdInUseException e) {
                System.out.println("REFUSED: " + e.getMessage());
                System.exit(0);
            }
        }
        System.exit(3); // the test should have killed us long before
    }
}
