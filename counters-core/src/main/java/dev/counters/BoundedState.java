package dev.counters;

import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A bounded counter as the database shows it ({@link BoundedCounter#state()}): its value, bounds and held units
 * from one consistent read, and where its room to the bounds lies.
 *
 * @param name the counter
 * @param value the available value: every change applied, and every open hold's change too
 * @param heldTowardMin the units open holds took toward {@code min} (reserved stock); released, they come back
 * @param heldTowardMax the units open holds took toward {@code max} (reserved quota)
 * @param min the lower bound, or null
 * @param max the upper bound, or null
 * @param pool the room in the shared pool row
 * @param allowances the room each node holds in its own row, by node id
 */
public record BoundedState(
        CounterName name,
        long value,
        long heldTowardMin,
        long heldTowardMax,
        @Nullable Long min,
        @Nullable Long max,
        Allowance pool,
        Map<String, Allowance> allowances) {

    public BoundedState {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(pool, "pool");
        allowances = Map.copyOf(allowances);
    }

    /**
     * Room toward each bound held by one row: how far changes made through it may move the value. Null where the
     * counter has no such bound.
     */
    public record Allowance(
            @Nullable Long towardMin, @Nullable Long towardMax) {}
}
