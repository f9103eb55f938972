package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterName;
import dev.counters.SequenceExhaustedException;
import dev.counters.contract.Concurrently;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.sequence.Reservation;
import dev.counters.spi.Failovers;
import dev.counters.spi.Sequences;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The failover protection on a real database: a change of history is simulated by stamping rows with an earlier
 * history in SQL, as a promotion that lost the rows' last writes leaves them, and the next draw must skip, once.
 */
abstract class FailoverProtectionContract {

    private static final long SKIP = 1_000;
    private static final long MAX = Long.MAX_VALUE - 100;

    private final TestDatabase database;
    private final String prefix;
    private final JooqCounterStore store;

    FailoverProtectionContract(TestDatabase database) {
        this.database = database;
        this.prefix = JooqStores.on(database).prefix();
        this.store = store(SKIP);
    }

    private JooqCounterStore store(long skipAhead) {
        return JooqCounterStore.builder(database.dataSource())
                .tablePrefix(prefix)
                .failoverSkipAhead(skipAhead)
                .build();
    }

    @Test
    void aSequenceWrittenUnderAnotherHistorySkipsOnceBeforeItsNextValue() {
        CounterName name = unique("seq");
        assertThat(store.reserve(name, 10, 1, 3, MAX).first()).isEqualTo(1);
        String live = history("counter_sequences", "sequence_name", name);
        assertThat(live).isNotBlank();

        stamp("counter_sequences", "sequence_name", name, "an-earlier-history");
        Reservation[] drawn = new Reservation[2];
        String log = stderrOf(() -> {
            drawn[0] = store.reserve(name, 10, 1, 3, MAX);
            drawn[1] = store.reserve(name, 10, 1, 3, MAX);
        });
        Reservation skipped = drawn[0];
        Reservation after = drawn[1];

        assertThat(skipped.first())
                .as("past what the lost writes may have handed out")
                .isEqualTo(31 + SKIP * 3);
        assertThat(after.first()).as("the next draw does not skip").isEqualTo(skipped.next());
        assertThat(store.skips()).isEqualTo(new Failovers.Skips(1, 0));
        assertThat(history("counter_sequences", "sequence_name", name)).isEqualTo(live);
        assertThat(log.lines().filter(line -> line.contains(name.value())).toList())
                .singleElement()
                .satisfies(line -> assertThat(line)
                        .contains("WARN", "Sequence '" + name + "' skipped 1000 values (31 -> 3031)")
                        .contains("from an-earlier-history to " + live)
                        .contains("values repeat only if the failover lost more than 1000"));
    }

    /** What the log (slf4j-simple, on the standard error) printed while {@code work} ran. */
    private static String stderrOf(Runnable work) {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            work.run();
        } finally {
            System.setErr(err);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Test
    void racingTheFirstDrawAfterAChangeSkipsExactlyOnceAndHandsOutNoValueTwice() {
        CounterName name = unique("race");
        JooqCounterStore another = store(SKIP);
        store.reserve(name, 5, 1, 1, MAX);
        for (int round = 0; round < 3; round++) {
            stamp("counter_sequences", "sequence_name", name, "an-earlier-history-" + round);
            long before = store.skips().sequences() + another.skips().sequences();
            List<Long> values = Collections.synchronizedList(new ArrayList<>());
            Concurrently.run(8, thread -> {
                JooqCounterStore mine = thread % 2 == 0 ? store : another;
                for (int i = 0; i < 5; i++) {
                    Reservation drawn = mine.reserve(name, 3, 1, 1, MAX);
                    for (int k = 0; k < drawn.count(); k++) {
                        values.add(drawn.value(k));
                    }
                }
            });
            assertThat(store.skips().sequences() + another.skips().sequences() - before)
                    .as("skips in round " + round)
                    .isEqualTo(1);
            assertThat(new HashSet<>(values)).as("no value twice").hasSameSizeAs(values);
        }
    }

    @Test
    void aSkipThatWouldPassTheMaximumExhaustsTheSequence() {
        CounterName name = unique("max");
        store.reserve(name, 10, 1, 1, 500);
        stamp("counter_sequences", "sequence_name", name, "an-earlier-history");

        assertThatThrownBy(() -> store.reserve(name, 10, 1, 1, 500)).isInstanceOf(SequenceExhaustedException.class);
        assertThat(store.skips().sequences()).isZero();
        assertThat(store.reserve(name, 10, 1, 1, 2_000).first())
                .as("with room for the skip, it skips")
                .isEqualTo(11 + SKIP);
    }

    @Test
    void withSkipAheadZeroARowIsStampedWithoutSkipping() {
        CounterName name = unique("off");
        JooqCounterStore off = store(0);
        off.reserve(name, 10, 1, 1, MAX);
        stamp("counter_sequences", "sequence_name", name, "an-earlier-history");

        assertThat(off.reserve(name, 10, 1, 1, MAX).first()).isEqualTo(11);
        assertThat(off.skips()).isEqualTo(new Failovers.Skips(0, 0));
        assertThat(store.reserve(name, 10, 1, 1, MAX).first())
                .as("stamped: a protected store finds it current")
                .isEqualTo(21);
    }

    @Test
    void aRowWrittenBeforeTheHistoryColumnIsTakenAsCurrentAndStamped() {
        CounterName name = unique("null");
        store.reserve(name, 10, 1, 1, MAX);
        String live = history("counter_sequences", "sequence_name", name);
        stamp("counter_sequences", "sequence_name", name, null);

        assertThat(store.reserve(name, 10, 1, 1, MAX).first()).isEqualTo(11);
        assertThat(store.skips().sequences()).isZero();
        assertThat(history("counter_sequences", "sequence_name", name)).isEqualTo(live);
    }

    @Test
    void aDrawInTheCallersTransactionNeverSkipsNorStamps() throws SQLException {
        CounterName name = unique("gapless");
        store.reserve(name, 1, 1, 1, MAX);
        stamp("counter_sequences", "sequence_name", name, "an-earlier-history");
        try (Connection connection = database.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            JooqCounterStore joining = JooqCounterStore.builder(database.dataSource())
                    .tablePrefix(prefix)
                    .failoverSkipAhead(SKIP)
                    .callerTransactions(() -> connection)
                    .build();
            Reservation inTransaction =
                    ((Sequences) joining.callerTransaction().orElseThrow()).reserve(name, 1, 1, 1, MAX);
            connection.commit();
            connection.setAutoCommit(true);

            assertThat(inTransaction.first()).as("gapless: the next number").isEqualTo(2);
            assertThat(joining.skips().sequences()).isZero();
        }
        assertThat(history("counter_sequences", "sequence_name", name)).isEqualTo("an-earlier-history");
        assertThat(store.reserve(name, 1, 1, 1, MAX).first())
                .as("the store's own draw still skips")
                .isEqualTo(3 + SKIP);
    }

    @Test
    void aMaximumWithAShardWrittenUnderAnotherHistorySkipsOnceOnAllShards() {
        CounterName name = unique("mono");
        store.raiseShard(name, 0, 100);
        store.raiseShard(name, 1, 40);
        stampShard(name, 1, "an-earlier-history");

        assertThat(store.maxOfShards(name)).hasValue(100 + SKIP);
        assertThat(store.maxOfShards(name)).as("once").hasValue(100 + SKIP);
        assertThat(store.skips()).isEqualTo(new Failovers.Skips(0, 1));

        stampShard(name, 0, "another-earlier-history");
        stampShard(name, 1, "another-earlier-history");
        store.raiseShard(name, 0, 5);
        store.raiseShard(name, 1, 5);
        assertThat(store.maxOfShards(name)).as("raised since: stamped, no skip").hasValue(100 + SKIP);
        assertThat(store.skips().maxima()).isEqualTo(1);
    }

    @Test
    void racingColdLoadsOfAMaximumSkipItOnce() {
        CounterName name = unique("monorace");
        JooqCounterStore another = store(SKIP);
        store.raiseShard(name, 0, 7);
        stampShard(name, 0, "an-earlier-history");
        Set<Long> seen = Collections.synchronizedSet(new HashSet<>());
        AtomicLong reads = new AtomicLong();

        Concurrently.run(6, thread -> {
            seen.add((thread % 2 == 0 ? store : another).maxOfShards(name).orElseThrow());
            reads.incrementAndGet();
        });

        assertThat(reads).hasValue(6);
        assertThat(seen).containsExactly(7 + SKIP);
        assertThat(store.skips().maxima() + another.skips().maxima()).isEqualTo(1);
    }

    @Test
    void failoversAreOfferedWhereThePrimaryCanChange() {
        boolean offered = database != TestDatabase.H2;
        assertThat(store.capability(Failovers.class).isPresent()).as("offered").isEqualTo(offered);
        if (offered) {
            Failovers.Durability durability = store.durability();
            assertThat(durability.replication())
                    .as("a lone test server: %s", durability.settings())
                    .isEqualTo(Failovers.Replication.NONE);
            assertThat(durability.settings()).containsKey(database == TestDatabase.POSTGRES ? "standbys" : "replicas");
        }
        assertThat(store.skipAhead()).isEqualTo(SKIP);
        assertThat(store(0).skipAhead()).isZero();
    }

    private CounterName unique(String kind) {
        return CounterName.of("failover." + kind + "." + System.nanoTime());
    }

    /** Stamps a row with an earlier history, as a promotion that lost the row's last write leaves it. */
    private void stamp(String table, String key, CounterName name, @Nullable String history) {
        execute("update " + prefix + table + " set history = ? where " + key + " = ?", history, name.value());
    }

    private void stampShard(CounterName name, int shard, String history) {
        execute(
                "update " + prefix + "counter_max_shards set history = ? where counter_name = ? and shard = " + shard,
                history,
                name.value());
    }

    private @Nullable String history(String table, String key, CounterName name) {
        try (Connection connection = database.dataSource().getConnection();
                PreparedStatement select = connection.prepareStatement(
                        "select history from " + prefix + table + " where " + key + " = ?")) {
            select.setString(1, name.value());
            try (ResultSet rows = select.executeQuery()) {
                assertThat(rows.next()).isTrue();
                return rows.getString(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private void execute(String sql, @Nullable String history, String name) {
        try (Connection connection = database.dataSource().getConnection();
                PreparedStatement update = connection.prepareStatement(sql)) {
            update.setString(1, history);
            update.setString(2, name);
            assertThat(update.executeUpdate()).isPositive();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
