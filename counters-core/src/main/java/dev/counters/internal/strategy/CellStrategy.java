package dev.counters.internal.strategy;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.counters.CounterName;
import dev.counters.IdempotencyKey;
import dev.counters.StrategyStatistics;
import dev.counters.internal.Retries;
import dev.counters.observation.CountersObservationContext.Operation;
import dev.counters.spi.CounterStore;
import dev.counters.spi.Members;
import dev.counters.spi.Members.MemberChange;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The reads shared by the counting strategies (atomic, optimistic, sharded, node, delta-log): a counter is the sum of
 * its cells and unfolded deltas in the store, whichever strategy wrote them, so they differ only in what they write,
 * and a counter moved from one to another keeps its value. Each owns one Resilience4j {@link Retry}, the only place its
 * store calls are repeated. The membership counters of those that count members ({@link CountsMembers}) are written
 * here too, each change to the cell the strategy names ({@link #memberCell}).
 */
abstract class CellStrategy implements CounterStrategy {

    final CounterStore store;
    final Retry retry;
    private final StrategyContext context;
    private final LongAdder retries = new LongAdder();
    private final KeyedIncrements keyed;
    // Weak values: a cell nobody is incrementing needs no combiner, and one in use is held by its callers.
    private final Cache<Cell, Combiner> combiners =
            Caffeine.newBuilder().weakValues().build();
    // Membership changes of a cell, likewise: a membership counter's cells take no increments.
    private final Cache<Cell, MemberCombiner> memberCombiners =
            Caffeine.newBuilder().weakValues().build();
    private final @Nullable Members members;

    CellStrategy(StrategyContext context, RetryConfig retryDefaults) {
        this.store = context.store();
        this.context = context;
        this.retry = context.retry(retryDefaults);
        this.retry.getEventPublisher().onRetry(event -> retries.increment());
        this.keyed = new KeyedIncrements(context);
        this.members = store.capability(Members.class).orElse(null);
    }

    @Override
    public long increment(CounterName name, long delta, IdempotencyKey key, boolean needsValue) {
        return keyed.apply(
                name,
                delta,
                key,
                needsValue,
                keyedWrite(name, delta),
                joinsCallerTransactions() ? store.callerTransaction() : Optional.empty(),
                this::getExact);
    }

    /**
     * Whether the strategy's writes take part in the caller's transaction when the store can join it: only those
     * whose undoing is harmless (see {@link CounterStore#callerTransaction()}).
     */
    boolean joinsCallerTransactions() {
        return false;
    }

    /**
     * The change of an increment under an idempotency key, run in the key's transaction: an add to the cell the
     * strategy writes, or what the strategy writes instead.
     */
    abstract KeyedIncrements.KeyedCellWrite keyedWrite(CounterName name, long delta);

    /**
     * Runs a store call, repeated by the strategy's retry as configured (by default while it fails in a way that surely
     * wrote nothing); once an attempt's outcome was unknown, so is the call's ({@link Retries}).
     */
    final <T> T retrying(Supplier<T> call) {
        return Retries.write(retry, call);
    }

    final void retrying(Runnable call) {
        Retries.write(retry, call);
    }

    /**
     * Adds {@code delta} to a cell, combined with the concurrent increments of the same cell in this JVM (see
     * {@link Combiner}): the counter's total after it when {@code needsTotal}, as {@link CounterStore#addAndGet}.
     */
    final long addCombined(CounterName name, String cell, long delta, boolean needsTotal) {
        return combiner(name, cell).submit(delta, needsTotal);
    }

    /** Whether a combined write of the cell is in flight in this JVM. */
    final boolean busy(CounterName name, String cell) {
        Cell key = new Cell(name, cell);
        Combiner combiner = combiners.getIfPresent(key);
        if (combiner != null) {
            return combiner.busy();
        }
        MemberCombiner changes = memberCombiners.getIfPresent(key);
        return changes != null && changes.busy();
    }

    /**
     * The cell's combiner. Whoever holds it keeps it in use (the cache holds combiners weakly), so a handle that
     * holds it shares it with every other caller of the cell.
     */
    final Combiner combiner(CounterName name, String cell) {
        return combiners.get(new Cell(name, cell), key -> new Combiner(new ObservedWrite(name, writer(name, cell))));
    }

    /**
     * How the cell's combiner writes a batch: the counter's total after it when the batch needs it. An
     * {@link Upsert} by default; optimistic counters write by compare-and-set, delta-log ones append. The combiner
     * runs one write at a time, so a writer may keep state between its writes.
     */
    Combiner.Write writer(CounterName name, String cell) {
        return new Upsert(name, cell);
    }

    /** Each combined write of a cell, as one {@code counters.store.write} observation. */
    private final class ObservedWrite implements Combiner.Write {

        private final CounterName name;
        private final Combiner.Write write;

        ObservedWrite(CounterName name, Combiner.Write write) {
            this.name = name;
            this.write = write;
        }

        @Override
        public long apply(Combiner.Batch batch) {
            return context.observe(Operation.WRITE, name, () -> write.apply(batch));
        }
    }

    /** Adds a batch's sum to the cell in one upsert, repeated by the strategy's retry. */
    private final class Upsert implements Combiner.Write {

        private final CounterName name;
        private final String cell;

        Upsert(CounterName name, String cell) {
            this.name = name;
            this.cell = cell;
        }

        @Override
        public long apply(Combiner.Batch batch) {
            return retrying(() -> {
                long sum = batch.takeQueued(); // before needsTotal(): a delta it takes may want the total
                if (batch.needsTotal()) {
                    return store.addAndGet(name, cell, sum);
                }
                store.add(name, cell, sum);
                return 0L;
            });
        }
    }

    private record Cell(CounterName name, String cell) {}

    // ---- membership counters ({@link CountsMembers}, for the strategies that declare it) ----

    /** How long a membership change waits for the transaction of another caller before it gives up. */
    static final Duration MEMBER_WAIT = Duration.ofSeconds(30);

    /**
     * The cell a membership change of the counter goes to now: the one an increment would. Overridden by the
     * strategies that count members.
     */
    String memberCell(CounterName name) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " counts no members");
    }

    /** After a membership change that changed, or may have changed, the counter's value. */
    void membersChanged(CounterName name) {}

    public final boolean change(CounterName name, MemberChange change) {
        Members store = members();
        String cell = memberCell(name);
        MemberCombiner combiner = memberCombiners.get(
                new Cell(name, cell),
                key -> new MemberCombiner(
                        name,
                        changes -> context.observe(
                                Operation.WRITE, name, () -> retrying(() -> store.changeMembers(name, cell, changes))),
                        MEMBER_WAIT));
        try {
            boolean changed = combiner.apply(change);
            if (changed) {
                membersChanged(name);
            }
            return changed;
        } catch (RuntimeException e) {
            membersChanged(name); // its outcome may be unknown
            throw e;
        }
    }

    public final boolean isMember(CounterName name, String member) {
        Members store = members();
        return retrying(() -> store.isMember(name, member));
    }

    public final List<String> members(CounterName name, @Nullable String after, int limit) {
        Members store = members();
        return retrying(() -> store.members(name, after, limit));
    }

    private Members members() {
        return members != null ? members : context.require(Members.class); // which throws, naming what is missing
    }

    final long retries() {
        return retries.sum();
    }

    @Override
    public StrategyStatistics.Activity activity() {
        return new StrategyStatistics.Activity(0, retries(), 0, null);
    }

    @Override
    public long get(CounterName name) {
        return retrying(() -> store.get(name));
    }

    @Override
    public Map<CounterName, Long> getAll(Collection<CounterName> names) {
        Map<CounterName, Long> stored = retrying(() -> store.getAll(names));
        Map<CounterName, Long> values = new LinkedHashMap<>();
        for (CounterName name : names) {
            values.put(name, stored.getOrDefault(name, 0L));
        }
        return values;
    }

    @Override
    public Map<String, Long> cells(CounterName name) {
        return retrying(() -> store.cells(name));
    }

    @Override
    public void delete(CounterName name) {
        retrying(() -> store.delete(name));
    }
}
