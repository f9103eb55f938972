package dev.counters.benchmarks;

import dev.counters.CounterRule;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.ShardedSettings;
import java.util.List;
import javax.sql.DataSource;

/**
 * One way of keeping a hot post's likes the toggle report measures: a {@code MembershipCounter} of this library, or
 * the membership row and {@code likes} column written by hand. After the run, {@link #count()} must equal
 * {@link #members()}, whatever interleaving of likes and unlikes of the same users the callers made.
 */
interface ToggleWorkload extends AutoCloseable {

    /**
     * {@code user} likes the post ({@code like}) or no longer does; durable on return.
     *
     * @return whether it changed anything (false: already liked, or not liked)
     */
    boolean toggle(String user, boolean like) throws Exception;

    /** The post's stored like count, read after {@link #close()}. */
    long count() throws Exception;

    /** The post's stored membership rows (users who like it), read after {@link #close()}. */
    long members() throws Exception;

    @FunctionalInterface
    interface Opener {
        ToggleWorkload open(DataSource dataSource, BenchDatabase database) throws Exception;
    }

    record Kind(String name, String description, Opener opener) {}

    static List<Kind> all() {
        return List.of(
                new Kind(
                        "members-sharded",
                        "this library, `MembershipCounter` with a sharded rule (16 shards):"
                                + " `CounterRule.of(ShardedSettings.defaults()).withMembers()`",
                        MembershipToggles.of(
                                CounterRule.of(ShardedSettings.defaults()).withMembers())),
                new Kind(
                        "members-node",
                        "this library, `MembershipCounter` with a node rule (one node here):"
                                + " `CounterRule.of(NodeSettings.defaults()).withMembers()`",
                        MembershipToggles.of(
                                CounterRule.of(NodeSettings.defaults()).withMembers())),
                new Kind(
                        "insert-update",
                        "baseline, by hand in JDBC: `INSERT` the membership row and `UPDATE posts SET likes = likes + 1`"
                                + " in one transaction (unlike: `DELETE` it and `likes - 1`); a duplicate or missing"
                                + " row rolls back, a deadlock is retried",
                        HandWrittenToggles::new));
    }

    static Kind named(String name) {
        return all().stream()
                .filter(kind -> kind.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("Unknown toggle workload '" + name + "'; known: "
                        + all().stream().map(Kind::name).toList()));
    }
}
