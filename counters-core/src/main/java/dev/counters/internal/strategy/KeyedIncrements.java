package dev.counters.internal.strategy;

import dev.counters.CounterContentionException;
import dev.counters.CounterName;
import dev.counters.CounterStoreException;
import dev.counters.IdempotencyKey;
import dev.counters.IdempotencyKeyReusedException;
import dev.counters.StoreUnavailableException;
import dev.counters.internal.Retries;
import dev.counters.spi.CounterStore;
import dev.counters.spi.IdempotencyKeys;
import io.github.resilience4j.retry.Retry;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.ToLongFunction;

/**
 * Increments under a caller's {@link IdempotencyKey}, for the exact strategies: the key is recorded in the transaction
 * of the write ({@link IdempotencyKeys}), so a write whose outcome is unknown can be repeated under the
 * same key, and is, by the strategy's keyed retry ({@code counters-<strategy>-keyed}): every store failure except an
 * unreachable store, whose wait for a connection already took the pool's timeout. Once an attempt's outcome was
 * unknown the increment may be stored, so the call's failure is unknown too, whatever the later attempts said
 * ({@link Retries}). Keyed increments are not combined: each is a transaction of its own, of two or three statements.
 */
final class KeyedIncrements {

    private final CounterStore store;
    private final StrategyContext context;
    private final Retry retry;

    KeyedIncrements(StrategyContext context) {
        this.store = context.store();
        this.context = context;
        this.retry = context.retry(
                "keyed",
                StrategyContext.<Object>transientFailures(10)
                        .retryExceptions(CounterStoreException.class, CounterContentionException.class)
                        .ignoreExceptions(StoreUnavailableException.class)
                        .build());
    }

    /**
     * Applies the write under the key, at most once: in the caller's transaction when given one (not retried, as
     * every write there), else in one of its own, retried. A repeat of a recorded key writes nothing.
     *
     * @param write the change, on the store bound to the key's transaction; the counter's value after it when
     *     {@code needsValue}
     * @param current the counter's value now, for a repeat that asks for a value its first call did not record
     * @return the counter's value after the increment when {@code needsValue}, else 0
     */
    long apply(
            CounterName name,
            long delta,
            IdempotencyKey key,
            boolean needsValue,
            KeyedCellWrite write,
            Optional<CounterStore> callerTransaction,
            ToLongFunction<CounterName> current) {
        IdempotencyKeys.KeyedIncrement result = callerTransaction.isPresent()
                ? applyOnce(callerTransaction.get(), name, delta, key, needsValue, write)
                : Retries.write(retry, () -> applyOnce(store, name, delta, key, needsValue, write));
        if (!result.counter().equals(name) || result.delta() != delta) {
            throw new IdempotencyKeyReusedException(key, result.counter().value(), result.delta(), name.value(), delta);
        }
        if (!needsValue) {
            return 0;
        }
        // The increment is recorded under the key: a failing read must not make it look "not applied".
        return result.value().isPresent()
                ? result.value().getAsLong()
                : CounterStrategy.readAfterTaken(name, delta, () -> current.applyAsLong(name));
    }

    private IdempotencyKeys.KeyedIncrement applyOnce(
            CounterStore target,
            CounterName name,
            long delta,
            IdempotencyKey key,
            boolean needsValue,
            KeyedCellWrite write) {
        IdempotencyKeys keys = target.capability(IdempotencyKeys.class)
                .orElseThrow(() -> new IllegalStateException(
                        "Idempotency keys need a store that offers " + "dev.counters.spi.IdempotencyKeys, and "
                                + target.getClass().getName() + " does not"));
        return keys.applyOnce(
                key.value(), name, delta, context.time().steady(), transaction -> write.apply(transaction, needsValue));
    }

    /** The change a keyed increment makes, on the store bound to the key's transaction. */
    @FunctionalInterface
    interface KeyedCellWrite {

        /** Writes; returns the counter's value after it when {@code needsValue}. */
        OptionalLong apply(CounterStore transaction, boolean needsValue);

        /** An add to one cell. */
        static KeyedCellWrite add(CounterName name, String cell, long delta) {
            return (transaction, needsValue) -> {
                if (needsValue) {
                    return OptionalLong.of(transaction.addAndGet(name, cell, delta));
                }
                transaction.add(name, cell, delta);
                return OptionalLong.empty();
            };
        }
    }
}
