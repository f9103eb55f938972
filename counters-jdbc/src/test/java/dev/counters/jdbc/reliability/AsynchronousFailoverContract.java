package dev.counters.jdbc.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.reliability.FailoverDraws.Drawn;
import dev.counters.spi.Failovers;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Asynchronous replication loses what the primary acknowledged, and a database subclass shows what that costs and how
 * the store limits it: values drawn while replicated, then replication held back for real (the replicas receive
 * nothing more), values drawn and acknowledged on the primary only, the primary killed with SIGKILL and a replica
 * promoted, and the application, its pool finding the new primary, draws again. Each draw is a cold start (new
 * services), so every value comes from what the promoted database holds.
 *
 * <p>Three tables at once, each through a store of its own: without the protection ({@code failoverSkipAhead(0)}, the
 * negative control) block-sequence numbers and monotonic values are handed out again; with a skip-ahead smaller than
 * what was lost some still are (the bound is a real one); with the default none is, and the store counted and logged
 * one skip of each.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AsynchronousFailoverContract {

    /** Draws of each kind replicated before the failover, then lost with it, then made on the promoted replica. */
    static final int REPLICATED = 30;

    static final int LOST = 50;
    static final int AFTER = 50;
    /** Smaller than what the failover loses (more than {@link #LOST} values of each kind): values still repeat. */
    static final long BELOW_THE_LOSS = 20;

    static final String CONTROL = "skip-ahead 0";
    static final String BOUNDED = "skip-ahead " + BELOW_THE_LOSS;
    static final String PROTECTED = "the default skip-ahead";

    private final List<Subject> subjects = new ArrayList<>();

    /** The same draws in tables of their own, through a store with a skip-ahead of its own. */
    static final class Subject {
        final String name;
        final JooqCounterStore store;
        Drawn before = new Drawn(List.of(), List.of());
        Drawn after = new Drawn(List.of(), List.of());
        /** Counted after the first draws on the promoted replica; the store's count must not move after. */
        Optional<Failovers.Skips> skips = Optional.empty();

        List<String> warnings = List.of();

        Subject(String name, JooqCounterStore store) {
            this.name = name;
            this.store = store;
        }
    }

    /** The database's name in what the test prints. */
    abstract String database();

    /** Starts a primary and its replicas, replicating; returns the application's pool, which follows the primary. */
    abstract DataSource start() throws Exception;

    /** Waits until every replica has applied everything the primary has committed so far. */
    abstract void awaitReplicated() throws Exception;

    /** From here on, nothing the primary commits reaches a replica; fails unless that is so. */
    abstract void holdBackReplication() throws Exception;

    /**
     * Kills the primary with SIGKILL, promotes a replica, and lets the pool's new connections go to it; returns how far
     * behind the replica was and how it was promoted, for the report.
     */
    abstract String killPrimaryAndPromote() throws Exception;

    /** Stops every server started. */
    abstract void stop() throws Exception;

    @BeforeAll
    final void failOver() throws Exception {
        DataSource pool = start();
        subjects.add(new Subject(CONTROL, store(pool, builder -> builder.failoverSkipAhead(0))));
        subjects.add(new Subject(BOUNDED, store(pool, builder -> builder.failoverSkipAhead(BELOW_THE_LOSS))));
        subjects.add(new Subject(PROTECTED, store(pool, builder -> builder))); // the default skip-ahead
        for (Subject subject : subjects) {
            subject.before = FailoverDraws.draw(subject.store, REPLICATED);
        }
        awaitReplicated();
        holdBackReplication();
        for (Subject subject : subjects) {
            subject.before = subject.before.plus(FailoverDraws.draw(subject.store, LOST));
        }
        long killed = System.nanoTime();
        String failover = killPrimaryAndPromote();
        for (Subject subject : subjects) {
            try (FailoverDraws.StandardError log = new FailoverDraws.StandardError()) {
                subject.after = FailoverDraws.draw(subject.store, AFTER);
                subject.skips = FailoverDraws.skips(subject.store);
                subject.after = subject.after.plus(FailoverDraws.draw(subject.store, AFTER));
                subject.warnings = log.warnings();
            }
            if (subject == subjects.get(0)) {
                failover += ", the first value drawn " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed)
                        + " ms after the kill";
            }
            ReliabilityReport.row(
                    "asynchronous failover, acknowledged commits lost",
                    "block sequence and monotonic on " + database() + ", " + subject.name
                            + (subject.name.equals(CONTROL) ? " (negative control)" : ""),
                    String.format(
                            "%d numbers and %d values drawn while replicated, %d of each on the primary only; %s; %d of"
                                    + " each drawn after, by new services | %d numbers and %d values handed out again;"
                                    + " skips %s",
                            REPLICATED,
                            REPLICATED,
                            LOST,
                            failover,
                            subject.after.numbers().size(),
                            subject.before.repeatedNumbers(subject.after).size(),
                            subject.before.repeatedValues(subject.after).size(),
                            subject.skips
                                    .map(skips -> skips.sequences() + " sequence, " + skips.maxima() + " maximum")
                                    .orElse("not counted")));
        }
    }

    private static JooqCounterStore store(DataSource pool, UnaryOperator<JooqCounterStore.Builder> skipAhead) {
        String prefix = "f" + UUID.randomUUID().toString().replace("-", "").substring(0, 10) + "_";
        return skipAhead
                .apply(JooqCounterStore.builder(pool).tablePrefix(prefix).migrateSchema(true))
                .build();
    }

    @AfterAll
    final void tearDown() throws Exception {
        stop();
    }

    @Test
    void withoutTheProtectionThePromotedReplicaHandsOutValuesAgain() {
        Subject control = subject(CONTROL);
        assertThat(control.before.repeatedNumbers(control.after))
                .as("block-sequence numbers handed out again")
                .isNotEmpty();
        assertThat(control.before.repeatedValues(control.after))
                .as("monotonic values handed out again")
                .isNotEmpty();
        assertThat(control.skips).contains(new Failovers.Skips(0, 0));
        assertThat(control.warnings).isEmpty();
    }

    @Test
    void withTheProtectionNoValueRepeatsAndTheSkipIsCountedAndLogged() {
        Subject protectedOne = subject(PROTECTED);
        Drawn all = protectedOne.before.plus(protectedOne.after);
        assertThat(all.numbers()).as("block-sequence numbers").doesNotHaveDuplicates();
        assertThat(all.values()).as("monotonic values").doesNotHaveDuplicates();
        // The first draw of each after the change skips, once; the draws after it do not.
        assertThat(protectedOne.skips).contains(new Failovers.Skips(1, 1));
        assertThat(FailoverDraws.skips(protectedOne.store)).contains(new Failovers.Skips(1, 1));
        assertThat(protectedOne.warnings).hasSize(2);
    }

    @Test
    void aSkipAheadSmallerThanTheLossBoundsWhatRepeats() {
        Subject bounded = subject(BOUNDED);
        Subject control = subject(CONTROL);
        assertThat(bounded.before.repeatedNumbers(bounded.after)).isNotEmpty();
        assertThat(bounded.before.repeatedValues(bounded.after)).isNotEmpty();
        // Fewer than without the protection: the skip covered the first part of the loss.
        assertThat(bounded.before.repeatedNumbers(bounded.after).size())
                .isLessThan(control.before.repeatedNumbers(control.after).size());
        assertThat(bounded.before.repeatedValues(bounded.after).size())
                .isLessThan(control.before.repeatedValues(control.after).size());
        assertThat(bounded.skips).contains(new Failovers.Skips(1, 1));
    }

    final Subject subject(String name) {
        return subjects.stream()
                .filter(subject -> subject.name.equals(name))
                .findFirst()
                .orElseThrow();
    }
}
