package dev.counters.internal.ratelimit;

import dev.counters.RateDecision;
import dev.counters.RateDecision.Outcome;
import dev.counters.RateLimit;
import dev.counters.RateLimitRule;
import dev.counters.RateLimitRule.OnStoreFailure;
import dev.counters.RateLimiter;
import dev.counters.internal.Time;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.OptionalLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A limiter as callers see it: checks the request, maps the key to what is stored, has its algorithm decide, and
 * answers a store failure by the rule: {@link OnStoreFailure#CLOSED} refuses ({@link Outcome#FAIL_CLOSED});
 * {@link OnStoreFailure#OPEN} admits ({@link Outcome#FAIL_OPEN}) from this node's budget of fail-open permits per
 * period, then refuses. A failure never answers {@link Outcome#ALLOWED} (nothing was committed, as far as anyone
 * knows) nor {@link Outcome#REFUSED} (the write may have taken the permits).
 */
final class StoreRateLimiter implements RateLimiter {

    private static final Logger LOG = LoggerFactory.getLogger(StoreRateLimiter.class);

    /** Keys stored as they are: short, and of characters that mean nothing to a name or a statement. */
    private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z0-9._-]{1,40}");

    private final String name;
    private final RateLimitRule rule;
    private final KeyLimiter algorithm;
    private final Time time;
    private final FailOpenBudget failOpen;
    /** Decisions per outcome, by its ordinal. */
    private final LongAdder[] decisions = new LongAdder[Outcome.values().length];
    /** Whether the last decision met a store failure: logged when failures start and end, not per decision. */
    private volatile boolean failing;

    /** The algorithm that decides. */
    KeyLimiter algorithm() {
        return algorithm;
    }

    StoreRateLimiter(String name, RateLimitRule rule, KeyLimiter algorithm, Time time) {
        this.name = name;
        this.rule = rule;
        this.algorithm = algorithm;
        this.time = time;
        this.failOpen =
                new FailOpenBudget(rule.failOpenPermits(), rule.limit().period().toNanos());
        Arrays.setAll(decisions, outcome -> new LongAdder());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public RateLimit limit() {
        return rule.limit();
    }

    /** What the limiter does when the store fails. */
    RateLimitRule rule() {
        return rule;
    }

    @Override
    public RateDecision tryAcquire(String key, long permits) {
        String stored = storageKey(key);
        RateLimit limit = rule.limit();
        long most = limit.algorithm() == RateLimit.Algorithm.GCRA ? limit.burst() : limit.permits();
        if (permits < 1 || permits > most) {
            throw new IllegalArgumentException("Rate limiter '" + name + "' takes 1 to " + most + " permits at once"
                    + (limit.algorithm() == RateLimit.Algorithm.GCRA ? " (its burst)" : " (its permits)") + ", not "
                    + permits);
        }
        RateDecision decision;
        try {
            decision = algorithm.tryAcquire(stored, permits);
            recovered();
        } catch (RuntimeException e) {
            decision = failed(permits, e);
        }
        decisions[decision.outcome().ordinal()].increment();
        return decision;
    }

    @Override
    public RateDecision peek(String key) {
        String stored = storageKey(key);
        try {
            RateDecision decision = algorithm.peek(stored);
            recovered();
            return decision;
        } catch (RuntimeException e) {
            logFailure(e);
            long now = GcraLimiter.nanos(time.steady());
            long left = rule.onStoreFailure() == OnStoreFailure.OPEN ? failOpen.left(now) : 0;
            return left > 0
                    ? new RateDecision(
                            Outcome.FAIL_OPEN,
                            left,
                            Duration.ZERO,
                            Duration.ofNanos(failOpen.untilNextWindow(now)),
                            rule.limit())
                    : closed();
        }
    }

    @Override
    public void reset(String key) {
        algorithm.reset(storageKey(key));
    }

    @Override
    public long decisions(Outcome outcome) {
        return decisions[outcome.ordinal()].sum();
    }

    /** Stops the algorithm's background work, if any. */
    void close() {
        algorithm.close();
    }

    private RateDecision failed(long permits, RuntimeException failure) {
        logFailure(failure);
        if (rule.onStoreFailure() == OnStoreFailure.OPEN) {
            long now = GcraLimiter.nanos(time.steady());
            OptionalLong left = failOpen.take(permits, now);
            if (left.isPresent()) {
                return new RateDecision(
                        Outcome.FAIL_OPEN,
                        left.getAsLong(),
                        Duration.ZERO,
                        Duration.ofNanos(failOpen.untilNextWindow(now)),
                        rule.limit());
            }
        }
        return closed();
    }

    /** Refused without the database: try again after a permit's interval; the whole limit is back after a period. */
    private RateDecision closed() {
        RateLimit limit = rule.limit();
        return new RateDecision(
                Outcome.FAIL_CLOSED, 0, Duration.ofNanos(GcraLimiter.emissionInterval(limit)), limit.period(), limit);
    }

    private void logFailure(RuntimeException failure) {
        if (!failing) {
            failing = true;
            LOG.warn(
                    "Rate limiter '{}' cannot reach its store, so it fails {} until the store answers: {}",
                    name,
                    rule.onStoreFailure() == OnStoreFailure.OPEN ? "open (within its fail-open permits)" : "closed",
                    failure.toString());
        }
    }

    private void recovered() {
        if (failing) {
            failing = false;
            LOG.info("Rate limiter '{}' reaches its store again", name);
        }
    }

    /**
     * The key as stored: itself if {@link #PLAIN_KEY plain}, else {@code h} and the URL-safe Base64 of its SHA-256 (44
     * characters, so never a plain key): any key, of any length or character, is stored as a short name that cannot
     * say anything else.
     *
     * @throws IllegalArgumentException if the key is null or empty
     */
    static String storageKey(String key) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("A rate limiter's key must not be " + (key == null ? "null" : "empty"));
        }
        if (PLAIN_KEY.matcher(key).matches()) {
            return key;
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return "h" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
