package dev.counters.jdbc;

import static org.jooq.impl.DSL.val;

import dev.counters.CounterName;
import dev.counters.SequenceExhaustedException;
import dev.counters.TransientStoreException;
import dev.counters.sequence.Reservation;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.Query;
import org.jooq.Record3;
import org.jooq.SQLDialect;
import org.jspecify.annotations.Nullable;

/** The SQL of {@code counter_sequences}: the next value of each sequence. */
final class SequenceQueries {

    private final CounterTables t;
    private final FailoverProtection protection;

    SequenceQueries(CounterTables tables, FailoverProtection protection) {
        this.t = tables;
        this.protection = protection;
    }

    boolean exists(DSLContext ctx, CounterName sequence) {
        return ctx.fetchExists(t.sequences, t.sequencesName.eq(sequence.value()));
    }

    Query create(DSLContext ctx, CounterName sequence, long start) {
        return ctx.insertInto(t.sequences, t.sequencesName, t.sequencesNext, t.sequencesHistory)
                .values(val(sequence.value()), val(start), protection.live)
                .onConflict(t.sequencesName)
                .doNothing();
    }

    /** A reservation, and the skip made before it (null when none was). */
    record Drawn(Reservation reservation, FailoverProtection.@Nullable Skip skip) {}

    /**
     * MySQL and MariaDB reserve in one statement ({@link #reserveInOneStatement}), since they may be nodes of a Galera
     * cluster; the others in a transaction ({@link #reserve}).
     */
    static boolean inOneStatement(SQLDialect dialect) {
        return dialect.family() == SQLDialect.MARIADB || dialect.family() == SQLDialect.MYSQL;
    }

    /**
     * Reserves values from the sequence's row, if it has one, in one statement: the row moves past the reserved values
     * and the value it held comes back in the statement's own reply ({@code LAST_INSERT_ID(expr)}). Run alone, it is
     * its own transaction. On a Galera cluster the values a transaction of several statements reserved were, now and
     * then, handed out by another node too (MariaDB 10.11, writes to every node): a conflict that aborts such a
     * transaction between two of its statements was not always reported to the next one. A single statement has no
     * such gap, and a conflict fails it.
     *
     * <p>The reply carries an unsigned id, and none at all for 0 (Connector/J returns no key then), so the value goes
     * through it shifted into 1 .. 2^64 - 1, order kept: {@code (v as unsigned XOR 2^63) + 1}. Every signed value a
     * sequence can hold before it is exhausted ({@code next_value <= maxValue < Long.MAX_VALUE}) has its own id.
     */
    Optional<Reservation> reserveInOneStatement(
            DSLContext ctx,
            CounterName sequence,
            long count,
            long increment,
            long maxValue) { // empty when there is no row: create it with create(), in a statement of its own
        // Two rounds at most: the second finds the row stamped, by this caller's skip or by a racer's.
        for (int round = 0; round < 2; round++) {
            Long previous = reserveIfCurrent(ctx, sequence, count, increment, maxValue);
            if (previous != null) {
                return Optional.of(Reservation.starting(sequence, previous, count, increment, maxValue));
            }
            // No row matched: find out why, off the hot path.
            Record3<Long, String, String> row = ctx.select(t.sequencesNext, t.sequencesHistory, protection.live)
                    .from(t.sequences)
                    .where(t.sequencesName.eq(sequence.value()))
                    .fetchOne();
            if (row == null) {
                return Optional.empty(); // no row when the update ran (another caller may have created it since)
            }
            long next = row.value1();
            if (next > maxValue) {
                throw new SequenceExhaustedException(sequence.value(), maxValue);
            }
            if (FailoverProtection.stale(row.value2(), row.value3())) {
                long skipped = skipped(sequence, next, increment, maxValue);
                // Guarded by what was read: of racers that read the same row, exactly one moves it.
                boolean moved = ctx.update(t.sequences)
                                .set(t.sequencesNext, skipped)
                                .set(t.sequencesHistory, row.value3())
                                .where(
                                        t.sequencesName.eq(sequence.value()),
                                        t.sequencesNext.eq(next),
                                        t.sequencesHistory.eq(row.value2()))
                                .execute()
                        == 1;
                if (moved && skipped != next) { // committed: the statement ran on its own
                    protection.made(skip(sequence, row, next, skipped));
                }
            }
        }
        throw new TransientStoreException(
                "Sequence '" + sequence + "' changed history twice during a reservation; nothing was reserved", null);
    }

    /**
     * The one statement that reserves values from a row written under the live history (or before there was one),
     * stamping it; the previous next value, or null when no row matched.
     */
    private @Nullable Long reserveIfCurrent(
            DSLContext ctx, CounterName sequence, long count, long increment, long maxValue) {
        String table = t.sequences.getName();
        String live = FailoverProtection.historySql(ctx.dialect());
        // The granted count is worked out by the database as Reservation.starting does, in DECIMAL: no overflow.
        // The condition is always true: it only makes the reply carry the shifted value (see above).
        String sql = "update " + table + " set next_value = if(last_insert_id((cast(next_value as unsigned)"
                + " ^ 9223372036854775808) + 1) > 0, next_value + ? * least(?, floor((cast(? as decimal(20, 0))"
                + " - next_value) / ?) + 1), next_value), history = " + live + " where sequence_name = ?"
                + " and next_value <= ? and (history = " + live + " or history is null)";
        return ctx.connectionResult(connection -> {
            try (PreparedStatement update = connection.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)) {
                update.setLong(1, increment);
                update.setLong(2, count);
                update.setLong(3, maxValue);
                update.setLong(4, increment);
                update.setString(5, sequence.value());
                update.setLong(6, maxValue);
                if (update.executeUpdate() == 0) {
                    return null;
                }
                try (ResultSet keys = update.getGeneratedKeys()) {
                    if (!keys.next()) {
                        throw new SQLException(
                                "No value came back from the reservation of sequence '" + sequence + "'");
                    }
                    return unshifted(Long.parseUnsignedLong(keys.getString(1)));
                }
            }
        });
    }

    /**
     * Where a row written under an earlier history resumes: {@code skipAhead} steps ahead, never past the sequence's
     * maximum (the sequence is exhausted then: the values below it may have been handed out).
     */
    private long skipped(CounterName sequence, long next, long increment, long maxValue) {
        long skipped;
        try {
            skipped = Math.addExact(next, Math.multiplyExact(protection.skipAhead, increment));
        } catch (ArithmeticException e) {
            throw new SequenceExhaustedException(sequence.value(), maxValue);
        }
        if (skipped > maxValue) {
            throw new SequenceExhaustedException(sequence.value(), maxValue);
        }
        return skipped;
    }

    /** The skip of a sequence's row read as (next value, its history, the live history), from {@code was} to {@code now}. */
    private FailoverProtection.Skip skip(CounterName sequence, Record3<Long, String, String> row, long was, long now) {
        return new FailoverProtection.Skip(
                FailoverProtection.SEQUENCE, sequence, row.value2(), row.value3(), protection.skipAhead, was, now);
    }

    /** The value the reservation's reply carried, shifted as {@link #reserveInOneStatement} shifts it. */
    static long unshifted(long shifted) {
        return (shifted - 1) ^ Long.MIN_VALUE;
    }

    /**
     * Reserves values with the sequence's row locked, in a transaction (PostgreSQL, H2: one server takes the writes, so
     * the lock excludes every other reservation), or in the caller's transaction on any database: there
     * {@code LAST_INSERT_ID} belongs to the caller's session, and the one-statement reservation would change it.
     */
    Drawn reserve(
            DSLContext ctx,
            CounterName sequence,
            long count,
            long start,
            long increment,
            long maxValue,
            boolean protect) {
        Record3<Long, String, String> row = ctx.select(t.sequencesNext, t.sequencesHistory, protection.live)
                .from(t.sequences)
                .where(t.sequencesName.eq(sequence.value()))
                .forUpdate()
                .fetchOne();
        long next;
        FailoverProtection.Skip skip = null;
        boolean stamp = false;
        if (row == null) {
            // Two callers creating the sequence at once: one insert fails (a deadlock or unique violation), its
            // transaction is rolled back, and its retry finds the row.
            ctx.insertInto(t.sequences, t.sequencesName, t.sequencesNext, t.sequencesHistory)
                    .values(val(sequence.value()), val(start), protection.live)
                    .execute();
            next = start;
        } else {
            next = row.value1();
            // In the caller's transaction the row is neither moved nor stamped: its values are kept or lost with the
            // caller's rows, and a later draw of the store's own still sees the history it was written under.
            stamp = protect && !row.value3().equals(row.value2());
            if (stamp && FailoverProtection.stale(row.value2(), row.value3()) && next <= maxValue) {
                long skipped = skipped(sequence, next, increment, maxValue);
                if (skipped != next) {
                    skip = skip(sequence, row, next, skipped);
                }
                next = skipped;
            }
        }
        Reservation reservation = Reservation.starting(sequence, next, count, increment, maxValue);
        var update = ctx.update(t.sequences).set(t.sequencesNext, reservation.next());
        (stamp ? update.set(t.sequencesHistory, Objects.requireNonNull(row).value3()) : update)
                .where(t.sequencesName.eq(sequence.value()))
                .execute();
        return new Drawn(reservation, skip);
    }
}
