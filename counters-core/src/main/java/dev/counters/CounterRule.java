package dev.counters;

import dev.counters.strategy.StrategySettings;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a rule of the service ({@link CounterServiceBuilder#rule}) gives the counters whose name is, or matches, its
 * name or pattern. Each part is chosen on its own: a counter takes its strategy from the first rule that sets one
 * (an exact name first, then the patterns in the order they were declared, then the default strategy), its windows
 * from the first that sets windows, and its idle expiry likewise. A counter counts members
 * ({@link CounterService#members(String)}) if any rule it matches says so.
 *
 * @param settings the strategy; null leaves it to another rule or the default strategy
 * @param window time windows ({@link CounterService#windowed(String)}); null: none
 * @param expireAfterIdle removes a counter nobody wrote for this long (at least a minute; see
 *     {@link CounterServiceBuilder#expireAfterIdle}); null: never
 * @param members the counter counts the members of a set ({@link MembershipCounter}): it changes only when a member
 *     is added or removed, and takes no increments. Its strategy must {@linkplain StrategySettings#countsMembers()
 *     count members} (atomic, sharded, node); it has no windows and no idle expiry.
 */
public record CounterRule(
        @Nullable StrategySettings settings,
        @Nullable WindowSettings window,
        @Nullable Duration expireAfterIdle,
        boolean members) {

    private static final CounterRule EMPTY = new CounterRule(null, null, null, false);

    public CounterRule {
        if (expireAfterIdle != null && expireAfterIdle.compareTo(Duration.ofMinutes(1)) < 0) {
            throw new IllegalArgumentException("expire-after-idle must be at least 1 minute, was " + expireAfterIdle);
        }
        if (settings != null && window != null && !settings.takesWindows()) {
            throw new IllegalArgumentException("The " + settings.name() + " strategy's counters have no windows in"
                    + " this version: give the rule a window or the " + settings.name() + " strategy, not both");
        }
        if (settings != null && expireAfterIdle != null && !settings.mayExpire()) {
            throw new IllegalArgumentException("The " + settings.name() + " strategy's counters cannot expire after"
                    + " idling: removed, they would hand out their values again");
        }
        if (members && settings != null && !settings.countsMembers()) {
            throw new IllegalArgumentException("The " + settings.name() + " strategy cannot count members: a"
                    + " membership counter takes the atomic, sharded or node strategy");
        }
        if (members && window != null) {
            throw new IllegalArgumentException("A membership counter has no windows");
        }
        if (members && expireAfterIdle != null) {
            throw new IllegalArgumentException(
                    "A membership counter cannot expire after idling: its count would go" + " and its members stay");
        }
    }

    /** A rule that gives counters {@code settings}. */
    public static CounterRule of(StrategySettings settings) {
        return EMPTY.withSettings(settings);
    }

    /** A rule that gives counters time windows, and leaves their strategy to another rule or the default. */
    public static CounterRule windowed(WindowSettings window) {
        return EMPTY.withWindow(window);
    }

    /** A rule that removes counters idle for {@code idle}, and leaves their strategy to another rule or the default. */
    public static CounterRule expiringAfterIdle(Duration idle) {
        return EMPTY.withExpireAfterIdle(idle);
    }

    /** A rule that makes counters count members, and leaves their strategy to another rule or the default. */
    public static CounterRule countingMembers() {
        return EMPTY.withMembers();
    }

    public CounterRule withSettings(StrategySettings settings) {
        return new CounterRule(Objects.requireNonNull(settings, "settings"), window, expireAfterIdle, members);
    }

    public CounterRule withWindow(WindowSettings window) {
        return new CounterRule(settings, Objects.requireNonNull(window, "window"), expireAfterIdle, members);
    }

    public CounterRule withExpireAfterIdle(Duration idle) {
        return new CounterRule(settings, window, Objects.requireNonNull(idle, "idle"), members);
    }

    public CounterRule withMembers() {
        return new CounterRule(settings, window, expireAfterIdle, true);
    }

    /**
     * This rule with the parts {@code other} sets.
     *
     * @throws IllegalArgumentException if both set the same part, naming {@code nameOrPattern}
     */
    CounterRule merge(CounterRule other, String nameOrPattern) {
        return new CounterRule(
                pick(settings, other.settings, "A strategy is", nameOrPattern),
                pick(window, other.window, "Windows are", nameOrPattern),
                pick(expireAfterIdle, other.expireAfterIdle, "An expiry is", nameOrPattern),
                members || other.members);
    }

    private static <T> @Nullable T pick(@Nullable T mine, @Nullable T theirs, String what, String nameOrPattern) {
        if (mine != null && theirs != null) {
            throw new IllegalArgumentException(what + " already set for '" + nameOrPattern + "'");
        }
        return mine != null ? mine : theirs;
    }
}
