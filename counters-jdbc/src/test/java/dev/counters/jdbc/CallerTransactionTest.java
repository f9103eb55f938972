package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterContentionException;
import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.contract.Concurrently;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.sequence.Sequence;
import dev.counters.sequence.SequenceService;
import dev.counters.sequence.SequenceSettings;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.ShardedSettings;
import dev.counters.strategy.StrategySettings;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Writes that take part in the caller's transaction (atomic and optimistic increments, gapless sequence numbers)
 * commit and roll back with it; the others never do. The caller's transaction here is a plain JDBC transaction bound
 * to the thread, as a transaction manager would bind it.
 */
class CallerTransactionTest {

    private static final ThreadLocal<Connection> CURRENT = new ThreadLocal<>();

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aGaplessNumberRolledBackWithItsTransactionIsHandedOutAgain(TestDatabase database) {
        Sequence sequence = sequences(database, SequenceSettings.gapless()).sequence("invoice.numbers");

        Supplier<Long> next = sequence::next;
        assertThat(inTransaction(database, true, next)).isEqualTo(1);
        assertThat(inTransaction(database, false, next)).isEqualTo(2);
        assertThat(inTransaction(database, true, next))
                .as("the rolled-back number again")
                .isEqualTo(2);
        assertThat(sequence.next()).as("outside any transaction").isEqualTo(3);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void gaplessNumbersCommittedByConcurrentTransactionsHaveNoHoles(TestDatabase database) {
        Sequence sequence = sequences(database, SequenceSettings.gapless()).sequence("order.numbers");
        List<Long> committed = Collections.synchronizedList(new ArrayList<>());
        AtomicLong rolledBack = new AtomicLong();

        Concurrently.run(8, thread -> {
            for (int i = 0; i < 40; i++) {
                boolean commit = ThreadLocalRandom.current().nextInt(3) > 0;
                long number = inTransaction(database, commit, sequence::next);
                if (commit) {
                    committed.add(number);
                } else {
                    rolledBack.incrementAndGet();
                }
            }
        });

        assertThat(rolledBack.get()).isPositive();
        assertThat(committed).hasSize(320 - (int) rolledBack.get());
        assertThat(committed)
                .as("the committed numbers are 1..n, each once")
                .containsExactlyInAnyOrderElementsOf(
                        LongStream.rangeClosed(1, committed.size()).boxed().toList());
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void atomicAndOptimisticIncrementsCountOnlyWhenTheirTransactionCommits(TestDatabase database) {
        for (String strategy : List.of("atomic", "optimistic")) {
            StrategySettings factory =
                    strategy.equals("atomic") ? AtomicSettings.defaults() : OptimisticSettings.defaults();
            CounterService counters = CounterService.builder(joiningStore(database))
                    .defaultStrategy(factory)
                    .build();
            CounterName name = CounterName.of("joined." + strategy);
            AtomicLong expected = new AtomicLong();

            AtomicLong givenUp = new AtomicLong();
            Concurrently.run(8, thread -> {
                for (int i = 0; i < 50; i++) {
                    long delta = ThreadLocalRandom.current().nextLong(1, 1_000);
                    boolean commit = thread < 2 || ThreadLocalRandom.current().nextBoolean();
                    try {
                        if (thread < 2) {
                            // Writers outside any transaction race the transactional ones on the same row.
                            counters.increment(name.value(), delta);
                        } else {
                            boolean andGet = i % 2 == 0;
                            long seen = inTransaction(database, commit, () -> {
                                if (andGet) {
                                    return counters.incrementAndGet(name.value(), delta);
                                }
                                counters.increment(name.value(), delta);
                                return delta;
                            });
                            assertThat(seen).isPositive();
                        }
                    } catch (CounterContentionException e) {
                        // Optimistic gives up after its attempts under contention, saying nothing was written: the
                        // caller believes it, and the total checks it.
                        assertThat(strategy).isEqualTo("optimistic");
                        givenUp.incrementAndGet();
                        continue;
                    }
                    if (commit) {
                        expected.addAndGet(delta);
                    }
                }
            });
            assertThat(givenUp.get()).as("increments given up").isLessThan(400);

            assertThat(counters.getExact(name.value())).as(strategy).isEqualTo(expected.get());
            counters.close();
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void blocksOfNumbersAndShardedIncrementsAreNeverRolledBackByTheCaller(TestDatabase database) {
        JooqCounterStore store = joiningStore(database);
        Sequence blocks = SequenceService.builder(store).build().sequence("ticket.numbers");
        CounterService sharded = CounterService.builder(store)
                .defaultStrategy(ShardedSettings.defaults())
                .build();

        long inRolledBack = inTransaction(database, false, () -> {
            sharded.increment("sharded.views", 5);
            return blocks.next();
        });

        // A fresh service must not reuse the block handed out in the rolled-back transaction.
        long afterRestart = SequenceService.builder(store)
                .build()
                .sequence("ticket.numbers")
                .next();
        assertThat(afterRestart).isGreaterThan(inRolledBack);
        assertThat(sharded.getExact("sharded.views")).isEqualTo(5);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void withoutCallerTransactionsEveryWriteCommitsOnItsOwn(TestDatabase database) {
        JooqCounterStore store = JooqCounterStore.builder(database.dataSource())
                .tablePrefix(JooqStores.shared(database).prefix())
                .build();
        CounterService counters = CounterService.builder(store).build();
        Sequence sequence = SequenceService.builder(store)
                .defaultSettings(SequenceSettings.gapless())
                .build()
                .sequence("independent.numbers");

        inTransaction(database, false, () -> {
            counters.increment("independent.count", 3);
            return sequence.next();
        });

        assertThat(counters.getExact("independent.count")).isEqualTo(3);
        assertThat(sequence.next()).as("the first number stayed taken").isEqualTo(2);
    }

    private static SequenceService sequences(TestDatabase database, SequenceSettings settings) {
        return SequenceService.builder(joiningStore(database))
                .defaultSettings(settings)
                .build();
    }

    /** A store on tables of its own, joining the thread's transaction. */
    private static JooqCounterStore joiningStore(TestDatabase database) {
        return JooqCounterStore.builder(database.dataSource())
                .tablePrefix(JooqStores.on(database).prefix())
                .callerTransactions(CURRENT::get)
                .build();
    }

    /** Runs work in a JDBC transaction bound to this thread, then commits or rolls it back. */
    private static <T> T inTransaction(TestDatabase database, boolean commit, Supplier<T> work) {
        try (Connection connection = database.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            CURRENT.set(connection);
            try {
                T result = work.get();
                if (commit) {
                    connection.commit();
                } else {
                    connection.rollback();
                }
                return result;
            } catch (RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                CURRENT.remove();
                connection.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
