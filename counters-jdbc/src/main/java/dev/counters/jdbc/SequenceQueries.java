package dev.counters.jdbc;

import dev.counters.CounterName;
import dev.counters.SequenceExhaustedException;
import dev.counters.spi.CounterStore.Reservation;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.Query;

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
     * MySQL and MariaDB reserve in one statement ({@link #reserveInOneStatement}); the others in a transaction of
     * several ({@link #reserve}).
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
     */
    Optional<Reservation> reserveInOneStatement(DSLContext ctx, CounterName sequence, long count, long increment,
            long maxValue) {
        String table = t.sequences.getName();
        // The granted count is worked out by the database as Reservation.starting does, in DECIMAL: no overflow.
        String sql = "update " + table + " set next_value = last_insert_id(next_value) + ? * least(?, floor((cast(? as"
                + " decimal(20, 0)) - next_value) / ?) + 1) where sequence_name = ? and next_value <= ?";
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
                        throw new SQLException("No value came back from the reservation of sequence '" + sequence
                                + "'");
                    }
                    return keys.getLong(1);
                }
            }
        });
        if (previous != null) {
            return Optional.of(Reservation.starting(sequence, previous, count, increment, maxValue));
        }
        Long next = ctx.select(t.sequencesNext).from(t.sequences).where(t.sequencesName.eq(sequence.value()))
                .fetchOne(t.sequencesNext);
        if (next == null || next <= maxValue) {
            return Optional.empty(); // no row when the update ran (another caller may have created it since)
        }
        throw new SequenceExhaustedException(sequence.value(), maxValue);
    }

    /**
     * Reserves values from the sequence's row, if it has one; run it in a transaction, and create the row beforehand in
     * a statement of its own ({@link #create}). The row is first changed in place, so that the value the reservation
     * starts from is the one the write itself read: a value read first, even by a locking read, and written back later
     * could overwrite another's reservation on Galera, where a read's lock does not exclude a write made on another
     * node. The in-place write conflicts with every concurrent one, and the loser is rolled back.
     */
    Optional<Reservation> reserve(DSLContext ctx, CounterName sequence, long count, long increment, long maxValue) {
        long step = count > Long.MAX_VALUE / increment ? Long.MAX_VALUE : count * increment;
        long moved = moveInPlace(ctx, sequence, step);
        if (moved == 0) {
            return Optional.empty();
        }
        Long after = ctx.select(t.sequencesNext).from(t.sequences)
                .where(t.sequencesName.eq(sequence.value()))
                .fetchOne(t.sequencesNext);
        long next = after - moved; // what the row held before this transaction moved it
        if (next > maxValue) {
            set(ctx, sequence, next); // a caller's transaction may go on after the exception: leave the row as it was
        }
        Reservation reservation = Reservation.starting(sequence, next, count, increment, maxValue);
        if (reservation.next() != after) {
            set(ctx, sequence, reservation.next());
        }
        return Optional.of(reservation);
    }

    private void set(DSLContext ctx, CounterName sequence, long next) {
        ctx.update(t.sequences).set(t.sequencesNext, next).where(t.sequencesName.eq(sequence.value())).execute();
    }

    /**
     * Adds {@code step} to the row's value, or, within {@code step} of {@code Long.MAX_VALUE}, subtracts 1 (the value
     * is then put right by the caller): what it added, or 0 when there is no row.
     */
    private long moveInPlace(DSLContext ctx, CounterName sequence, long step) {
        long limit = Long.MAX_VALUE - step;
        if (ctx.update(t.sequences)
                .set(t.sequencesNext, t.sequencesNext.plus(step))
                .where(t.sequencesName.eq(sequence.value()), t.sequencesNext.le(limit))
                .execute() == 1) {
            return step;
        }
        return ctx.update(t.sequences)
                .set(t.sequencesNext, t.sequencesNext.minus(1))
                .where(t.sequencesName.eq(sequence.value()), t.sequencesNext.gt(limit))
                .execute() == 1 ? -1 : 0;
    }
}
