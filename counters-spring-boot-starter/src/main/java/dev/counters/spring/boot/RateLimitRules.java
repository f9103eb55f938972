package dev.counters.spring.boot;

import static dev.counters.spring.boot.CounterRules.checked;

import dev.counters.CounterService;
import dev.counters.CounterServiceBuilder;
import dev.counters.RateLimit;
import dev.counters.RateLimitRule;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.spring.boot.CounterRules.InvalidPropertyException;
import dev.counters.spring.boot.CountersProperties.LimiterProperties;
import dev.counters.spring.boot.CountersProperties.RateLimits;
import java.time.ZoneId;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The rate-limit rules of {@code counters.rate-limits.limiters}, as {@link CounterServiceBuilder#rateLimit} takes them,
 * checked as {@link CounterRules} checks the counters' rules: a refusal of core comes back naming the property.
 *
 * @param rules the rules by name or pattern, in their order
 */
record RateLimitRules(Map<String, RateLimitRule> rules) {

    /** @throws InvalidPropertyException for a limit, name or setting core refuses */
    static RateLimitRules of(RateLimits properties) {
        Long failOpenPermits = properties.failOpenPermits();
        if (failOpenPermits != null && failOpenPermits < 0) {
            throw new InvalidPropertyException(
                    "counters.rate-limits.fail-open-permits must be 0 or more, was " + failOpenPermits, null);
        }
        // A builder of its own checks the names and patterns as the service's will, duplicates included.
        CounterServiceBuilder names = CounterService.builder(new InMemoryCounterStore());
        Map<String, RateLimitRule> rules = new LinkedHashMap<>();
        properties.limiters().forEach((nameOrPattern, limiter) -> {
            String property = "counters.rate-limits.limiters.[" + nameOrPattern + "]";
            RateLimitRule rule = rule(property, properties, limiter);
            checked(property, () -> names.rateLimit(nameOrPattern, rule));
            rules.put(nameOrPattern, rule);
        });
        return new RateLimitRules(Collections.unmodifiableMap(rules));
    }

    /** A limit as written in an annotation or a route: {@code RateLimit.parse}, the failure naming where it is. */
    static RateLimit limit(String where, String spec) {
        return checked(where, () -> RateLimit.parse(spec));
    }

    private static RateLimitRule rule(String property, RateLimits top, LimiterProperties limiter) {
        String spec = limiter.limit();
        if (spec == null || spec.isBlank()) {
            throw new InvalidPropertyException(
                    property + ".limit: a limiter needs a limit, such as 100/1m or 10000/month", null);
        }
        RateLimit limit = limit(property + ".limit", spec);
        RateLimit.Algorithm algorithm = limiter.algorithm();
        if (algorithm != null) {
            RateLimit chosen = limit;
            limit = checked(property + ".algorithm", () -> chosen.withAlgorithm(algorithm));
        }
        Long burst = limiter.burst();
        if (burst != null) {
            RateLimit chosen = limit;
            limit = checked(property + ".burst", () -> chosen.withBurst(burst));
        }
        Integer subWindows = limiter.subWindows();
        if (subWindows != null) {
            RateLimit chosen = limit;
            limit = checked(property + ".sub-windows", () -> chosen.withSubWindows(subWindows));
        }
        ZoneId zone = limiter.zone();
        if (zone != null) {
            RateLimit chosen = limit;
            limit = checked(
                    property + ".zone",
                    () -> new RateLimit(
                            chosen.permits(),
                            chosen.period(),
                            chosen.burst(),
                            chosen.algorithm(),
                            chosen.calendar(),
                            zone,
                            chosen.subWindows()));
        }
        RateLimit checkedLimit = limit;
        RateLimitRule.OnStoreFailure onStoreFailure = or(limiter.onStoreFailure(), top.onStoreFailure());
        Long failOpenPermits = limiter.failOpenPermits() != null ? limiter.failOpenPermits() : top.failOpenPermits();
        return checked(property + ".fail-open-permits", () -> {
            RateLimitRule rule = new RateLimitRule(
                    checkedLimit, onStoreFailure, RateLimitRule.of(checkedLimit).failOpenPermits());
            return failOpenPermits == null ? rule : rule.withFailOpenPermits(failOpenPermits);
        });
    }

    /** {@code fail-open}, {@code fixed-window}: a constant as configuration and tags write it. */
    static String configName(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private static <T> T or(@Nullable T value, T inherited) {
        return value != null ? value : inherited;
    }
}
