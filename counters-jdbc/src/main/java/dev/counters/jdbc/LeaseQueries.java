package dev.counters.jdbc;

import java.time.Instant;
import java.time.ZoneOffset;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

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
                        .execute()
                == 1) {
            return true;
        }
        return ctx.update(t.leases)
                        .set(t.leasesOwner, owner)
                        .set(t.leasesExpiresAt, expiresAt.toEpochMilli())
                        .where(t.leasesKey.eq(key))
                        .and(t.leasesOwner.eq(owner).or(t.leasesExpiresAt.le(now.toEpochMilli())))
                        .execute()
                == 1;
    }

    /**
     * The database server's clock, in UTC: {@code UTC_TIMESTAMP(6)} on MySQL and MariaDB (whose {@code NOW()} is in
     * the session's zone), {@code clock_timestamp()} on PostgreSQL (not the transaction's start), and
     * {@code CURRENT_TIMESTAMP}, with its zone, elsewhere.
     */
    Instant databaseTime(DSLContext ctx) {
        return switch (ctx.family()) {
            case MYSQL, MARIADB ->
                ctx.select(DSL.field("utc_timestamp(6)", SQLDataType.LOCALDATETIME))
                        .fetchSingle()
                        .value1()
                        .toInstant(ZoneOffset.UTC);
            case POSTGRES ->
                ctx.select(DSL.field("clock_timestamp()", SQLDataType.OFFSETDATETIME))
                        .fetchSingle()
                        .value1()
                        .toInstant();
            default ->
                ctx.select(DSL.field("current_timestamp(6)", SQLDataType.OFFSETDATETIME))
                        .fetchSingle()
                        .value1()
                        .toInstant();
        };
    }

    void release(DSLContext ctx, String key, String owner) {
        ctx.deleteFrom(t.leases)
                .where(t.leasesKey.eq(key), t.leasesOwner.eq(owner))
                .execute();
    }
}
