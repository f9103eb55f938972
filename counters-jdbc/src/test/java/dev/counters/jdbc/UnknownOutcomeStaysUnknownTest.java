package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterService;
import dev.counters.CountersException;
import dev.counters.IdempotencyKey;
import dev.counters.jdbc.testing.FaultInjectingDataSource;
import dev.counters.jdbc.testing.FaultInjectingDataSource.Fault;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.StrategySettings;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 31, items 2 and 3: a call whose increment may be stored never says "not applied"
 * ({@code mayHaveBeenApplied() == false}), whatever failed after it. A caller that believed it and repeated the
 * increment without its key would count it twice.
 */
class UnknownOutcomeStaysUnknownTest {

    /** How the attempts after the first, whose commit reply is lost, fail: each surely wrote nothing. */
    enum Later {
        /** The database is unreachable: {@code StoreUnavailableException}, which the keyed retry does not repeat. */
        UNREACHABLE,
        /** Every statement is a deadlock victim: {@code TransientStoreException} until the attempts run out. */
        ROLLED_BACK
    }

    static Stream<Arguments> cases() {
        return Stream.of(TestDatabase.values())
                .flatMap(database -> Stream.of(
                        Arguments.of(database, "atomic", AtomicSettings.defaults()),
                        Arguments.of(database, "delta-log", DeltaLogSettings.defaults())));
    }

    static Stream<Arguments> keyedCases() {
        return cases().flatMap(arguments -> Stream.of(Later.values())
                .map(later -> Arguments.of(
                        arguments.get()[0], arguments.get()[1], arguments.get()[2], later)));
    }

    private static CounterService service(
            TestDatabase database, FaultInjectingDataSource faulty, StrategySettings factory) {
        JooqCounterStore store = JooqCounterStore.builder(faulty)
                .tablePrefix(JooqStores.shared(database).prefix())
                .build();
        return CounterService.builder(store).defaultStrategy(factory).build();
    }

    private static long stored(TestDatabase database, String name) {
        return JooqStores.total(JooqStores.shared(database).store(), name);
    }

    /**
     * Item 3: the keyed retry's first attempt commits and its reply is lost; every later attempt surely writes
     * nothing. The increment is stored, so the answer is "unknown", and repeating it under its key settles it once.
     * Before, the caller got the last attempt's "not applied".
     */
    @ParameterizedTest(name = "{0} {1}, later attempts {3}")
    @MethodSource("keyedCases")
    void aKeyedIncrementWhoseFirstAttemptsReplyWasLostIsNeverReportedAsNotApplied(
            TestDatabase database, String strategy, StrategySettings factory, Later later) {
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(database.dataSource());
        String name = "unknown-keyed." + strategy + "." + System.nanoTime();
        IdempotencyKey key = IdempotencyKey.of(UUID.randomUUID().toString());
        try (CounterService counters = service(database, faulty, factory)) {
            faulty.failEvery(1, Fault.AFTER_COMMIT);
            faulty.downAfterStrike = later == Later.UNREACHABLE;
            faulty.deadlocksAfterStrike = later == Later.ROLLED_BACK;

            assertThatThrownBy(() -> counters.increment(name, 5, key))
                    .isInstanceOfSatisfying(CountersException.class, e -> {
                        assertThat(e.mayHaveBeenApplied())
                                .as("may have been applied: %s", e)
                                .isTrue();
                        assertThat(e.getMessage()).contains("outcome is unknown", "may have been applied");
                    });
            assertThat(faulty.injectedAfterCommit.get())
                    .as("the first attempt's reply lost")
                    .isOne();

            faulty.failEvery(0, Fault.AFTER_COMMIT);
            faulty.downAfterStrike = false;
            faulty.deadlocksAfterStrike = false;
            faulty.down = false;
            faulty.deadlocks = false;
            counters.increment(name, 5, key); // the caller settles it under its key
        }
        assertThat(stored(database, name)).as("stored once").isEqualTo(5);
    }

    /**
     * Item 2: delta-log's {@code incrementAndGet} appends, then reads. The database becomes unreachable right after the
     * append committed, so the read fails with {@code StoreUnavailableException}; the caller must not be told "not
     * applied". Before, it was, and a caller that repeated counted the delta twice.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void deltaLogIncrementAndGetWhoseReadFailsSaysTheIncrementWasTaken(TestDatabase database) {
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(database.dataSource());
        String name = "unknown-read.delta-log." + System.nanoTime();
        try (CounterService counters = service(database, faulty, DeltaLogSettings.defaults())) {
            faulty.downAfterWrite = true;
            assertThatThrownBy(() -> counters.incrementAndGet(name, 7))
                    .isInstanceOfSatisfying(CountersException.class, e -> {
                        assertThat(e.mayHaveBeenApplied())
                                .as("may have been applied: %s", e)
                                .isTrue();
                        assertThat(e.getMessage()).contains("was incremented by 7", "do not repeat it");
                    });
            faulty.downAfterWrite = false;
            faulty.down = false;
        }
        assertThat(stored(database, name)).as("counted once").isEqualTo(7);
    }

    static Stream<TestDatabase> databases() {
        return Stream.of(TestDatabase.values());
    }

    /**
     * Item 2, keyed: a repeat of a key recorded without a value reads the value after its transaction, which found the
     * key; the database becomes unreachable right after that commit. The increment is stored, so the read's failure
     * must not say "not applied".
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void aKeyedRepeatWhoseReadFailsSaysTheIncrementWasTaken(
            TestDatabase database, String strategy, StrategySettings factory) {
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(database.dataSource());
        String name = "unknown-read.keyed." + strategy + "." + System.nanoTime();
        IdempotencyKey key = IdempotencyKey.of(UUID.randomUUID().toString());
        try (CounterService counters = service(database, faulty, factory)) {
            counters.increment(name, 3, key); // recorded without a value
            faulty.downAfterWrite = true;
            assertThatThrownBy(() -> counters.incrementAndGet(name, 3, key))
                    .isInstanceOfSatisfying(
                            CountersException.class,
                            e -> assertThat(e.mayHaveBeenApplied())
                                    .as("may have been applied: %s", e)
                                    .isTrue());
            faulty.downAfterWrite = false;
            faulty.down = false;
            assertThat(counters.incrementAndGet(name, 3, key)).isEqualTo(3);
        }
        assertThat(stored(database, name)).as("counted once").isEqualTo(3);
    }
}
