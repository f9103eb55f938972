package dev.counters.jdbc;

import dev.counters.CounterName;
import dev.counters.SequenceExhaustedException;
import dev.counters.sequence.Reservation;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.Query;
import org.jooq.SQLDialect;

/** The SQL of {@code counter_sequences}: the next value of each sequence. */
final class SequenceQueries {

    private final CounterTables t;

    SequenceQueries(CounterTables tables) {
        this.t = tables;
    }

    boolean exists(DSLContext ctx, CounterName sequence) {
        return ctx.fetchExists(t.sequences, t.sequencesName.eq(sequence.value()));
    }

    Query create(DSLContext ctx, CounterName sequence, long start) {
        return ctx.insertInto(t.sequences, t.sequencesName, t.sequencesNext)
                .values(sequence.value(), start)
                .onConflict(t.sequencesName)
                .doNothing();
    }

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
        String table = t.sequences.getName();
        // The granted count is worked out by the database as Reservation.starting does, in DECIMAL: no overflow.
        // The condition is always true: it only makes the reply carry the shifted value (see above).
        String sql = "update " + table + " set next_value = if(last_insert_id((cast(next_value as unsigned)"
                + " ^ 9223372036854775808) + 1) > 0, next_value + ? * least(?, floor((cast(? as decimal(20, 0))"
                + " - next_value) / ?) + 1), next_value) where sequence_name = ? and next_value <= ?";
        Long previous = ctx.connectionResult(connection -> {
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
        if (previous != null) {
            return Optional.of(Reservation.starting(sequence, previous, count, increment, maxValue));
        }
        Long next = ctx.select(t.sequencesNext)
                .from(t.sequences)
                .where(t.sequencesName.eq(sequence.value()))
                .fetchOne(t.sequencesNext);
        if (next == null || next <= maxValue) {
            return Optional.empty(); // no row when the update ran (another caller may have created it since)
        }
        throw new SequenceExhaustedException(sequence.value(), maxValue);
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
    Reservation reserve(DSLContext ctx, CounterName sequence, long count, long start, long increment, long maxValue) {
        Long next = ctx.select(t.sequencesNext)
                .from(t.sequences)
                .where(t.sequencesName.eq(sequence.value()))
                .forUpdate()
                .fetchOne(t.sequencesNext);
        if (next == null) {
            // Two callers creating the sequence at once: one insert fails (a deadlock or unique violation), its
            // transaction is rolled back, and its retry finds the row.
            ctx.insertInto(t.sequences, t.sequencesName, t.sequencesNext)
                    .values(sequence.value(), start)
                    .execute();
            next = start;
        }
        Reservation reservation = Reservation.starting(sequence, next, count, increment, maxValue);
        ctx.update(t.sequences)
                .set(t.sequencesNext, reservation.next())
                .where(t.sequencesName.eq(sequence.value()))
                .execute();
        return reservation;
    }
}
