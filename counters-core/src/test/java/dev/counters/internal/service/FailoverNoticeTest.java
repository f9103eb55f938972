package dev.counters.internal.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterRule;
import dev.counters.CounterService;
import dev.counters.contract.ForwardingCounterStore;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.spi.Failovers;
import dev.counters.spi.Failovers.Durability;
import dev.counters.spi.Failovers.Replication;
import dev.counters.strategy.BoundedSettings;
import dev.counters.strategy.MonotonicSettings;
import dev.counters.strategy.ShardedSettings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The one line at start that says what the database's durability means for each configured strategy. */
class FailoverNoticeTest {

    @Test
    void aServiceOnAStoreThatOffersFailoversLogsOneLineAtStartAWarningWhenAsynchronous() {
        String async = logOfBuilding(new Durability(Replication.ASYNCHRONOUS, Map.of("standbys", "2")));
        assertThat(async.lines().filter(line -> line.contains("Failover:")).toList())
                .singleElement()
                .satisfies(line -> assertThat(line)
                        .contains("WARN", "{standbys=2}", "replicate asynchronously")
                        .contains("acknowledged increments of atomic, sharded counters can be lost in a failover,"
                                + " never counted twice")
                        .contains("bounded counters can lose acknowledged changes too, and cross their bounds")
                        .contains("monotonic counters and sequences skip ahead by 5000"));

        String sync = logOfBuilding(new Durability(Replication.SYNCHRONOUS, Map.of("synchronous_commit", "on")));
        assertThat(sync.lines().filter(line -> line.contains("Failover:")).toList())
                .singleElement()
                .satisfies(line -> assertThat(line).contains("INFO", "every strategy stays exact"));
    }

    @Test
    void aStoreWithoutFailoversLogsNothing() {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            CounterService.builder(new InMemoryCounterStore()).build().close();
        } finally {
            System.setErr(err);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8)).doesNotContain("Failover:");
    }

    @Test
    void eachReplicationSaysWhatItMeans() {
        List<String> strategies = List.of("atomic", "monotonic");
        assertThat(FailoverNotice.describe(new Durability(Replication.NONE, Map.of()), 0, strategies, false))
                .contains(
                        "no standby or replica",
                        "hand out again the values a failover lost (failover skip-ahead" + " is 0)");
        assertThat(FailoverNotice.describe(new Durability(Replication.CLUSTER, Map.of()), 7, strategies, false))
                .contains("Galera", "every strategy stays exact");
        assertThat(FailoverNotice.describe(new Durability(Replication.ASYNCHRONOUS, Map.of()), 7, strategies, true))
                .contains("increments of atomic counters", "rate limits can admit again", "skip ahead by 7")
                .doesNotContain("bounded");
        assertThat(FailoverNotice.describe(
                        new Durability(Replication.ASYNCHRONOUS, Map.of("binlog_format", "STATEMENT")),
                        7,
                        strategies,
                        false))
                .endsWith("with binlog_format=STATEMENT a MySQL replica stamps rows with its own history: after its"
                        + " promotion nothing skips (ROW or MIXED keep the protection)");
    }

    private static String logOfBuilding(Durability durability) {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            CounterService.builder(new FailoverStore(durability))
                    .rule("views", CounterRule.of(ShardedSettings.defaults()))
                    .rule("ids", CounterRule.of(MonotonicSettings.defaults()))
                    .rule("stock", CounterRule.of(BoundedSettings.defaults()))
                    .build()
                    .close();
        } finally {
            System.setErr(err);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    /** An in-memory store that says its database replicates as given. */
    private static final class FailoverStore extends ForwardingCounterStore implements Failovers {

        private final Durability durability;

        FailoverStore(Durability durability) {
            super(new InMemoryCounterStore());
            this.durability = durability;
        }

        @Override
        public <T> Optional<T> capability(Class<T> capability) {
            return capability == Failovers.class ? Optional.of(capability.cast(this)) : super.capability(capability);
        }

        @Override
        public long skipAhead() {
            return 5_000;
        }

        @Override
        public Skips skips() {
            return new Skips(0, 0);
        }

        @Override
        public Durability durability() {
            return durability;
        }
    }
}
