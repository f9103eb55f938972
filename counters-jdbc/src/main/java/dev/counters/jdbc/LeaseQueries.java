package dev.counters.jdbc;

import java.time.Instant;
import org.jooq.DSLContext;

/** The SQL of {@code counter_leases}: expiring claims. */
final class LeaseQueries {

    private final CounterTables t;

    LeaseQueries(CounterTables tables) {
        this.t = tables;
    }

    /** Takes the lease if free, renews it for its owner, or takes it over once expired: whether owner holds it. */
    boolean tryLease(DSLContext ctx, String key, String owner, Instant expiresAt, Instant now) {
        if (ctx.insertInto(t.leases, t.leasesKey, t.leasesOwner, t.leasesExpiresAt)
                .values(key, owner, expiresAt.toEpochMilli())
                .onConflict(t.leasesKey)
                .doNothing()
                .execute() == 1) {
            return true;
        }
        return ctx.update(t.leases)
                .set(t.leasesOwner, owner)
                .set(t.leasesExpiresAt, expiresAt.toEpochMilli())
                .where(t.leasesKey.eq(key))
                .and(t.leasesOwner.eq(owner).or(t.leasesExpiresAt.le(now.toEpochMilli())))
                .execute() == 1;
    }

    void release(DSLContext ctx, String key, String owner) {
        ctx.deleteFrom(t.leases).where(t.leasesKey.eq(key), t.leasesOwner.eq(owner)).execute();
    }
}
