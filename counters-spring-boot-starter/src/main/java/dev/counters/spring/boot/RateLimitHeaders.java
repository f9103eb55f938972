package dev.counters.spring.boot;

import dev.counters.RateDecision;
import dev.counters.RateLimit;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The fields of draft-ietf-httpapi-ratelimit-headers-11, Structured Field lists (RFC 9651) with one member per limiter:
 * {@code RateLimit-Policy: "likes";q=5;w=60} (quota and window in seconds) and {@code RateLimit: "likes";r=3;t=42}
 * (remaining quota, and seconds until the key has its whole quota again), and {@code Retry-After} in whole seconds,
 * rounded up. The key is never sent (no {@code pk}): it is the server's business.
 */
final class RateLimitHeaders {

    static final String POLICY = "RateLimit-Policy";
    static final String CURRENT = "RateLimit";
    static final String RETRY_AFTER = "Retry-After";

    private RateLimitHeaders() {}

    /** One limiter's decision for one request. */
    record Decided(String limiter, RateDecision decision) {}

    static String policy(List<Decided> decided) {
        return decided.stream()
                .map(each -> policy(each.limiter(), each.decision().limit()))
                .collect(Collectors.joining(", "));
    }

    static String current(List<Decided> decided) {
        return decided.stream()
                .map(each -> current(each.limiter(), each.decision()))
                .collect(Collectors.joining(", "));
    }

    /** {@code "likes";q=5;w=60}; a calendar quota's window is its nominal length (a month: 31 days). */
    static String policy(String limiter, RateLimit limit) {
        return string(limiter) + ";q=" + limit.permits() + ";w=" + seconds(limit.period());
    }

    /** {@code "likes";r=3;t=42}. */
    static String current(String limiter, RateDecision decision) {
        return string(limiter) + ";r=" + Math.max(0, decision.remaining()) + ";t=" + seconds(decision.resetAfter());
    }

    /** Whole seconds, rounded up: a client that waits that long never comes too early. */
    static long seconds(Duration duration) {
        if (duration.isNegative() || duration.isZero()) {
            return 0;
        }
        return duration.getSeconds() + (duration.getNano() > 0 ? 1 : 0);
    }

    /** An sf-string: printable ASCII in quotes, with {@code "} and {@code \} escaped. */
    static String string(String value) {
        StringBuilder quoted = new StringBuilder(value.length() + 2).append('"');
        for (char c : value.toCharArray()) {
            if (c < 0x20 || c > 0x7e) {
                throw new IllegalArgumentException("Not printable ASCII: " + value);
            }
            if (c == '"' || c == '\\') {
                quoted.append('\\');
            }
            quoted.append(c);
        }
        return quoted.append('"').toString();
    }
}
