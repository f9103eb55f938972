package dev.counters.benchmarks;

import dev.counters.CounterService;
import dev.counters.RateDecision;
import dev.counters.RateLimit;
import dev.counters.RateLimiter;
import javax.sql.DataSource;

/** A rate limiter of this library ({@code CounterService.rateLimiter}) on fresh tables of its own prefix. */
final class OurRateLimitWorkload implements RateLimitWorkload {

    private final CounterService service;
    private final RateLimiter limiter;

    private OurRateLimitWorkload(DataSource dataSource, RateLimit limit, String prefix) {
        this.service =
                CounterService.builder(FreshTables.store(dataSource, prefix)).build();
        this.limiter = service.rateLimiter("bench", limit);
    }

    /** {@code algorithm}'s limiter; its burst, for GCRA, is the permits, as Bucket4j's bucket capacity. */
    static Opener of(RateLimit.Algorithm algorithm) {
        return (dataSource, database, limit, tables, create) -> new OurRateLimitWorkload(
                dataSource, RateLimit.of(limit.permits(), limit.period()).withAlgorithm(algorithm), tables + "_");
    }

    @Override
    public boolean tryAcquire(String key) {
        RateDecision decision = limiter.tryAcquire(key);
        return switch (decision.outcome()) {
            case ALLOWED -> true;
            case REFUSED -> false;
            // Failing open or closed: the database did not decide. An error here, not an admission or a refusal.
            case FAIL_OPEN, FAIL_CLOSED -> throw new IllegalStateException("decided without the database: " + decision);
        };
    }

    @Override
    public void close() {
        service.close();
    }
}
