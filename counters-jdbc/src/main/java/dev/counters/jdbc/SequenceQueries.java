package dev.counters.jdbc;

import dev.counters.CounterName;
import dev.counters.spi.CounterStore.Reservation;
import org.jooq.DSLContext;
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

    /** Reserves values with the sequence's row locked; run it in a transaction. */
    Reservation reserve(DSLContext ctx, CounterName sequence, long count, long start, long increment,
            long maxValue) {
        Long next = ctx.select(t.sequencesNext).from(t.sequences)
                .where(t.sequencesName.eq(sequence.value()))
                .forUpdate()
                .fetchOne(t.sequencesNext);
        if (next == null) {
            // Two nodes creating the sequence at once: one insert fails (a deadlock or unique violation), its
            // transaction is rolled back, and its retry finds the row.
            ctx.insertInto(t.sequences, t.sequencesName, t.sequencesNext).values(sequence.value(), start).execute();
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
