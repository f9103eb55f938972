package dev.counters.spring.boot;

import dev.counters.BoundedState;
import dev.counters.Counter;
import dev.counters.CounterBoundException;
import dev.counters.CounterService;
import dev.counters.MembershipCounter;
import dev.counters.RateDecision;
import dev.counters.RateLimiter;
import dev.counters.StrategyStatistics;
import dev.counters.WindowSettings;
import dev.counters.WindowedCounter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * {@code /actuator/counters}: the configured rules with their strategies, the rate limiters with their decisions, the
 * stored counters with their values (a page at a time), one counter with its cells, or several by name; what a rate
 * limiter's key has ({@code /actuator/counters/limiters/{name}/{key}}); a membership counter's count and a page of its
 * members, or whether one is a member ({@code /actuator/counters/members/{name}}). Incrementing and resetting a counter, and
 * resetting a limiter's key, are write operations, refused unless
 * {@code management.endpoint.counters.access=unrestricted}. Stored names (which may be user
 * ids) and values are shown as {@code management.endpoint.counters.show-values} says (Boot's {@link Show}, never by
 * default, as for the {@code env} endpoint's values); a name the caller gave is echoed, with its value hidden.
 */
@Endpoint(id = "counters", defaultAccess = Access.READ_ONLY)
public class CountersEndpoint {

    /** Counters listed per page. */
    static final int PAGE_SIZE = 100;

    private final CounterService counters;
    private final Show showValues;
    private final Set<String> roles;

    CountersEndpoint(CounterService counters, Show showValues, Set<String> roles) {
        this.counters = counters;
        this.showValues = showValues;
        this.roles = Set.copyOf(roles);
    }

    /**
     * Without parameters, the rules and the first page of stored counters; {@code after} pages on; {@code names}
     * reads just those counters.
     */
    @ReadOperation
    public CountersDescriptor counters(
            SecurityContext securityContext, String @Nullable [] names, @Nullable String after) {
        return validated(() -> list(names, after, shown(securityContext)));
    }

    private CountersDescriptor list(String @Nullable [] names, @Nullable String after, boolean shown) {
        List<RuleDescriptor> rules =
                counters.statistics().stream().map(RuleDescriptor::of).toList();
        List<LimiterDescriptor> limiters =
                counters.rateLimiters().stream().map(LimiterDescriptor::of).toList();
        if (names == null && !shown) {
            return new CountersDescriptor(rules, limiters, null, null); // the stored names are the data hidden
        }
        List<String> listed = names != null ? Arrays.asList(names) : counters.counterNames(after, PAGE_SIZE);
        List<CounterDescriptor> values = new ArrayList<>();
        if (shown) {
            counters.get(listed).forEach((name, value) -> values.add(CounterDescriptor.of(counters, name, value)));
        } else {
            listed.forEach(name -> values.add(CounterDescriptor.of(counters, name, null)));
        }
        String next = names == null && listed.size() == PAGE_SIZE ? listed.get(listed.size() - 1) : null;
        return new CountersDescriptor(rules, limiters, values, next);
    }

    /**
     * What {@code key} has in the rate limiter {@code name}, taking nothing ({@code /limiters/{name}/{key}}); not found
     * for a limiter not made. The key is echoed, its permits hidden as values are.
     */
    @ReadOperation
    public @Nullable KeyDescriptor limiterKey(
            SecurityContext securityContext, @Selector String limiters, @Selector String name, @Selector String key) {
        boolean shown = shown(securityContext);
        return validated(() -> {
            RateLimiter limiter = limiter(limiters, name);
            return limiter == null ? null : KeyDescriptor.of(limiter, key, shown ? limiter.peek(key) : null);
        });
    }

    /** Forgets what {@code key} took from the rate limiter {@code name}: its next request finds the whole limit. */
    @DeleteOperation
    public @Nullable KeyDescriptor resetLimiterKey(
            SecurityContext securityContext, @Selector String limiters, @Selector String name, @Selector String key) {
        boolean shown = shown(securityContext);
        return validated(() -> {
            RateLimiter limiter = limiter(limiters, name);
            if (limiter == null) {
                return null;
            }
            limiter.reset(key);
            return KeyDescriptor.of(limiter, key, shown ? limiter.peek(key) : null);
        });
    }

    /** The limiter of that name among those made; null if none. */
    private @Nullable RateLimiter limiter(String section, String name) {
        if (!section.equals(LIMITERS)) {
            throw new IllegalArgumentException("Unknown section '" + section + "': /" + LIMITERS + "/{name}/{key}");
        }
        return counters.rateLimiters().stream()
                .filter(limiter -> limiter.name().equals(name))
                .findFirst()
                .orElse(null);
    }

    /** The path segment of rate limiters' keys. */
    static final String LIMITERS = "limiters";

    /** The path segment of membership counters' members. */
    static final String MEMBERS = "members";

    /** Members listed per page. */
    static final int MEMBERS_PAGE_SIZE = 100;

    /**
     * A membership counter's count and its first page of members, the page after {@code after}, or, given
     * {@code member}, whether that one is a member ({@code /members/{name}}): one indexed read each. Not found for a
     * counter that does not count members. Members (user ids, perhaps) and the count are hidden as values are; a
     * member the caller gives is echoed.
     */
    @ReadOperation
    public @Nullable MembersDescriptor members(
            SecurityContext securityContext,
            @Selector String members,
            @Selector String name,
            @Nullable String member,
            @Nullable String after) {
        boolean shown = shown(securityContext);
        return validated(() -> {
            if (!members.equals(MEMBERS)) {
                throw new IllegalArgumentException(
                        "Unknown section '" + members + "': /" + MEMBERS + "/{name}, /" + LIMITERS + "/{name}/{key}");
            }
            MembershipCounter counter = membership(name);
            if (counter == null) {
                return null;
            }
            String strategy = counters.counter(name).strategy();
            if (!shown) {
                return new MembersDescriptor(name, strategy, null, null, null, member, null);
            }
            if (member != null) {
                return new MembersDescriptor(
                        name, strategy, counter.count(), null, null, member, counter.contains(member));
            }
            List<String> page = counter.members(after, MEMBERS_PAGE_SIZE);
            String next = page.size() == MEMBERS_PAGE_SIZE ? page.get(page.size() - 1) : null;
            return new MembersDescriptor(name, strategy, counter.count(), page, next, null, null);
        });
    }

    /** The counter's members, or null if no rule makes it count members. */
    private @Nullable MembershipCounter membership(String name) {
        return membership(counters, name);
    }

    private static @Nullable MembershipCounter membership(CounterService counters, String name) {
        try {
            return counters.members(name);
        } catch (IllegalStateException e) {
            return null; // CounterService.members's answer for a counter whose rules do not count members
        }
    }

    @ReadOperation
    public CounterDescriptor counter(SecurityContext securityContext, @Selector String name) {
        boolean shown = shown(securityContext);
        return validated(() -> {
            Counter counter = counters.counter(name);
            boolean members = membership(name) != null;
            if (!shown) {
                return new CounterDescriptor(name, counter.strategy(), members, null, null, null, null);
            }
            if (counter.strategy().equals(BOUNDED)) {
                BoundedState state = counters.bounded(name).state();
                return new CounterDescriptor(
                        name,
                        counter.strategy(),
                        false,
                        state.value(),
                        counters.admin().cells(name),
                        null,
                        BoundedDescriptor.of(state));
            }
            return new CounterDescriptor(
                    name,
                    counter.strategy(),
                    members,
                    counter.get(),
                    counters.admin().cells(name),
                    counter instanceof WindowedCounter windowed ? recentWindows(windowed) : null,
                    null);
        });
    }

    private boolean shown(SecurityContext securityContext) {
        return showValues.isShown(securityContext, roles);
    }

    /** Adds {@code delta} (1 unless given) and returns the new value. */
    @WriteOperation
    public CounterDescriptor increment(SecurityContext securityContext, @Selector String name, @Nullable Long delta) {
        boolean shown = shown(securityContext);
        return validated(() -> {
            Counter counter = counters.counter(name);
            long value = counter.incrementAndGet(delta == null ? 1 : delta);
            return CounterDescriptor.of(counters, name, shown ? value : null);
        });
    }

    /** Deletes everything stored for the counter, so that it reads 0. */
    @DeleteOperation
    public CounterDescriptor reset(SecurityContext securityContext, @Selector String name) {
        boolean shown = shown(securityContext);
        return validated(() -> {
            Counter counter = counters.counter(name);
            counter.delete();
            return CounterDescriptor.of(counters, name, shown ? counter.get() : null);
        });
    }

    /** The windows a chart shows: the retained ones, at most {@value #CHART_WINDOWS}, the current one last. */
    private static List<WindowDescriptor> recentWindows(WindowedCounter windowed) {
        WindowSettings settings = windowed.settings();
        int retained = (int) Math.min(CHART_WINDOWS, settings.retention().dividedBy(settings.size()));
        return windowed.last(retained).stream()
                .map(window -> new WindowDescriptor(window.start(), window.end(), window.value()))
                .toList();
    }

    /** The strategy whose counters have bounds ({@code BoundedSettings.name()}). */
    private static final String BOUNDED = "bounded";

    /** Windows listed per windowed counter. */
    static final int CHART_WINDOWS = 60;

    /**
     * A bad name or delta is the caller's mistake, and so is a change a bounded counter refuses: a 400 with the
     * reason, not a server error.
     */
    private static <T> T validated(Supplier<T> operation) {
        try {
            return operation.get();
        } catch (IllegalArgumentException | CounterBoundException e) {
            String reason = Objects.requireNonNullElse(e.getMessage(), "Invalid argument");
            throw new InvalidEndpointRequestException(reason, reason);
        }
    }

    /** The endpoint's answer to a listing or a read of several counters; no stored counters when they are hidden. */
    public record CountersDescriptor(
            List<RuleDescriptor> rules,
            List<LimiterDescriptor> limiters,
            @Nullable List<CounterDescriptor> counters,
            @Nullable String next) {}

    /**
     * A rate limiter: its name, its limit as written ({@code 100/1m}), its algorithm, and its decisions in this process
     * since it started by outcome ({@code allowed}, {@code refused}, {@code fail-open}, {@code fail-closed}).
     */
    public record LimiterDescriptor(String name, String limit, String algorithm, Map<String, Long> decisions) {

        static LimiterDescriptor of(RateLimiter limiter) {
            Map<String, Long> decisions = new LinkedHashMap<>();
            for (RateDecision.Outcome outcome : RateDecision.Outcome.values()) {
                decisions.put(RateLimitRules.configName(outcome), limiter.decisions(outcome));
            }
            return new LimiterDescriptor(
                    limiter.name(),
                    limiter.limit().toString(),
                    RateLimitRules.configName(limiter.limit().algorithm()),
                    decisions);
        }
    }

    /**
     * A key of a rate limiter, and what it has now (without its permits when values are hidden): whether a request
     * would be admitted, the permits left, and the seconds until it has its whole limit again.
     */
    public record KeyDescriptor(
            String limiter,
            String key,
            @Nullable Boolean admitted,
            @Nullable Long remaining,
            @Nullable Long resetAfterSeconds) {

        static KeyDescriptor of(RateLimiter limiter, String key, @Nullable RateDecision now) {
            return now == null
                    ? new KeyDescriptor(limiter.name(), key, null, null, null)
                    : new KeyDescriptor(
                            limiter.name(),
                            key,
                            now.allowed(),
                            now.remaining(),
                            RateLimitHeaders.seconds(now.resetAfter()));
        }
    }

    /** A configured rule: its name or pattern, its strategy, and the increments it took since the start. */
    public record RuleDescriptor(String rule, String strategy, long increments) {

        static RuleDescriptor of(StrategyStatistics statistics) {
            return new RuleDescriptor(statistics.rule(), statistics.strategy(), statistics.increments());
        }
    }

    /**
     * A counter, its strategy, whether it counts members ({@code /members/{name}} reads them; its value is their
     * count) and its value, and when one counter is read its stored cells and, for a windowed counter (whose value is
     * its current window's), its recent windows, and for a bounded counter (whose value is the available one) its
     * bounds, held units and allowances. Without value, cells, windows and bounds when values are hidden.
     */
    public record CounterDescriptor(
            String name,
            String strategy,
            boolean members,
            @Nullable Long value,
            @Nullable Map<String, Long> cells,
            @Nullable List<WindowDescriptor> windows,
            @Nullable BoundedDescriptor bounded) {

        /** A counter in a listing, or as a write left it. */
        static CounterDescriptor of(CounterService counters, String name, @Nullable Long value) {
            return new CounterDescriptor(
                    name,
                    counters.counter(name).strategy(),
                    membership(counters, name) != null,
                    value,
                    null,
                    null,
                    null);
        }
    }

    /**
     * A membership counter: its strategy, its count, and a page of its members with the one to pass as {@code after}
     * for the next ({@code next}, null on the last page), or whether {@code member} is one ({@code contains}). Without
     * count, members and {@code contains} when values are hidden.
     */
    public record MembersDescriptor(
            String name,
            String strategy,
            @Nullable Long count,
            @Nullable List<String> members,
            @Nullable String next,
            @Nullable String member,
            @Nullable Boolean contains) {}

    /**
     * A bounded counter's bounds, the units open reservations hold toward each, and where its room lies: the shared
     * pool row, and each node's allowance.
     */
    public record BoundedDescriptor(
            @Nullable Long min,
            @Nullable Long max,
            long heldTowardMin,
            long heldTowardMax,
            RoomDescriptor pool,
            Map<String, RoomDescriptor> allowances) {

        static BoundedDescriptor of(BoundedState state) {
            Map<String, RoomDescriptor> allowances = new TreeMap<>();
            state.allowances().forEach((node, allowance) -> allowances.put(node, RoomDescriptor.of(allowance)));
            return new BoundedDescriptor(
                    state.min(),
                    state.max(),
                    state.heldTowardMin(),
                    state.heldTowardMax(),
                    RoomDescriptor.of(state.pool()),
                    allowances);
        }
    }

    /** Room toward each bound held by one row; null where the counter has no such bound. */
    public record RoomDescriptor(
            @Nullable Long towardMin, @Nullable Long towardMax) {

        static RoomDescriptor of(BoundedState.Allowance allowance) {
            return new RoomDescriptor(allowance.towardMin(), allowance.towardMax());
        }
    }

    /** One window of a windowed counter: {@code [start, end)} and its value. */
    public record WindowDescriptor(Instant start, Instant end, long value) {}
}
