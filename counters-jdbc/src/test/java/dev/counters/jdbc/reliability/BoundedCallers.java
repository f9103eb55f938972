package dev.counters.jdbc.reliability;

import dev.counters.CounterService;
import dev.counters.Hold;
import dev.counters.HoldStatus;
import dev.counters.IdempotencyKey;
import dev.counters.StrategyStatistics;
import dev.counters.history.History;
import dev.counters.history.UniqueDeltas;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Shop callers of bounded counters, recording every change in a {@link History}: sales ({@code tryIncrement} of a
 * negative delta), restocks (a positive one) and checkouts (a reserve, then a confirm or a release). A refusal is a
 * change not applied ({@link History.Outcome#FAILED}). A hold is recorded as the change of its delta from the
 * reserve to its settling: confirmed, applied; a released one as that change and its giving back. A reserve or a
 * settle whose outcome is unknown is repeated under its key until it answers, for at most a minute; keyed callers
 * repeat sales and restocks that way too, unkeyed ones record them as {@link History.Outcome#of} says.
 */
final class BoundedCallers {

    private static final Duration HOLD_TTL = Duration.ofSeconds(30);
    private static final long GIVE_UP_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final boolean keyed;
    final AtomicLong refusals = new AtomicLong();
    final AtomicLong unknownOutcomes = new AtomicLong();
    final AtomicLong confirmed = new AtomicLong();
    final AtomicLong released = new AtomicLong();

    BoundedCallers(boolean keyed) {
        this.keyed = keyed;
    }

    /**
     * One operation of a shop caller of {@code node} on a random counter: mostly sales, some restocks and
     * checkouts.
     */
    void operate(CounterService node, String session, History history, List<String> counters, UniqueDeltas deltas) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        String counter = counters.get(random.nextInt(counters.size()));
        long units = Math.abs(deltas.next());
        int kind = random.nextInt(10);
        if (kind < 2) {
            change(node, session, history, counter, units); // a restock
        } else if (kind < 4) {
            checkout(node, session, history, counter, -units, kind == 2 && random.nextBoolean());
        } else {
            change(node, session, history, counter, -units); // a sale
        }
    }

    private void change(CounterService node, String session, History history, String counter, long delta) {
        History.Add add = history.invoke(session, counter, delta);
        if (!keyed) {
            try {
                complete(history, add, node.tryIncrement(counter, delta));
            } catch (RuntimeException e) {
                record(e);
                history.complete(add, History.Outcome.of(e));
            }
            return;
        }
        IdempotencyKey key = newKey();
        Boolean applied = settle(() -> node.tryIncrement(counter, delta, key));
        if (applied == null) {
            history.complete(add, History.Outcome.UNKNOWN);
        } else {
            complete(history, add, applied);
        }
    }

    private void complete(History history, History.Add add, boolean applied) {
        if (!applied) {
            refusals.incrementAndGet();
        }
        history.complete(add, applied ? History.Outcome.OK : History.Outcome.FAILED);
    }

    /** A reserve and, once it is held, a confirm (or a release): each repeated under the key until it answers. */
    private void checkout(
            CounterService node, String session, History history, String counter, long delta, boolean release) {
        IdempotencyKey key = newKey();
        History.Add add = history.invoke(session, counter, delta);
        Hold hold = settle(() -> node.reserve(counter, delta, HOLD_TTL, key));
        if (hold == null) {
            history.complete(add, History.Outcome.UNKNOWN);
            return;
        }
        if (hold.status() == HoldStatus.REFUSED) {
            refusals.incrementAndGet();
            history.complete(add, History.Outcome.FAILED);
            return;
        }
        if (release) {
            history.complete(add, History.Outcome.OK); // held: taken from the value until it goes back
            add = history.invoke(session, counter, -delta);
        }
        Hold held = hold;
        Hold settled = settle(() -> release ? node.release(held) : node.confirm(held));
        if (settled == null || settled.status() == HoldStatus.HELD) {
            history.complete(add, History.Outcome.UNKNOWN);
        } else if (settled.status() == HoldStatus.CONFIRMED) {
            confirmed.incrementAndGet();
            history.complete(add, release ? History.Outcome.FAILED : History.Outcome.OK);
        } else { // released or expired: the units went back
            released.incrementAndGet();
            history.complete(add, release ? History.Outcome.OK : History.Outcome.FAILED);
        }
    }

    /** The first answer of {@code call} repeated while it fails, for at most a minute; null if none came. */
    private <T> @Nullable T settle(Supplier<T> call) {
        long deadline = System.nanoTime() + GIVE_UP_NANOS;
        for (int attempt = 1; ; attempt++) {
            try {
                return call.get();
            } catch (RuntimeException e) {
                record(e);
                if (System.nanoTime() > deadline) {
                    return null;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Math.min(100, 5L * attempt)));
            }
        }
    }

    private void record(RuntimeException e) {
        if (History.Outcome.of(e) == History.Outcome.UNKNOWN) {
            unknownOutcomes.incrementAndGet();
        }
    }

    private static IdempotencyKey newKey() {
        return IdempotencyKey.of(UUID.randomUUID().toString());
    }

    /** Two nodes' escrow activity added up. */
    static StrategyStatistics.EscrowActivity sum(
            StrategyStatistics.EscrowActivity a, StrategyStatistics.EscrowActivity b) {
        return new StrategyStatistics.EscrowActivity(
                a.refusals() + b.refusals(),
                a.refills() + b.refills(),
                a.refilledUnits() + b.refilledUnits(),
                a.poolChanges() + b.poolChanges(),
                a.givenBackUnits() + b.givenBackUnits(),
                a.allowanceUnits() + b.allowanceUnits(),
                a.expiredHolds() + b.expiredHolds(),
                a.strandedUnits() + b.strandedUnits());
    }
}
