package dev.counters.jdbc.reliability;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterName;
import dev.counters.CountersException;
import dev.counters.TransientStoreException;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.ChildPool;
import dev.counters.spi.Members.MemberChange;
import dev.counters.testing.TestThreads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * An application process of {@link MultiProcessMembersTest}: from several threads, until the deadline the go file holds
 * (epoch milliseconds), changes seeded random members of the test's hot counter, one to three changes a call, each call
 * repeated while it was rolled back ({@link TransientStoreException}), as the engine does, on a cell of the process's
 * own; between calls it reads a member or the count. Every call is printed as it is invoked and again as it completes,
 * flushed before it goes on, so that a {@code kill -9} leaves a record of each call it made (see
 * {@link MultiProcessMembersTest} for the lines). Times are the machine's monotonic clock, which the processes share.
 * Arguments: jdbcUrl user password tablePrefix goFile seed threads session.
 */
public final class ChildMemberToggler {

    /** Attempts of a call that keeps being rolled back (deadlocks of first inserts into one gap): then "failed". */
    private static final int ATTEMPTS = 100;

    private ChildMemberToggler() {}

    public static void main(String[] args) throws Exception {
        Path go = Path.of(args[4]);
        long seed = Long.parseLong(args[5]);
        int threads = Integer.parseInt(args[6]);
        String session = args[7];
        CounterName hot = CounterName.of(MultiProcessMembersTest.COUNTER);
        String cell = "p:" + session;
        AtomicLong ids = new AtomicLong();
        try (HikariDataSource dataSource = ChildPool.of(args, threads + 2)) {
            JooqCounterStore store =
                    JooqCounterStore.builder(dataSource).tablePrefix(args[3]).build();
            print("READY");
            long waitUntil = System.currentTimeMillis() + 120_000;
            while (!Files.exists(go) && System.currentTimeMillis() < waitUntil) {
                Thread.sleep(1);
            }
            long deadline = Long.parseLong(Files.readString(go).strip());
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Random random = new Random(seed * 31 + t);
                workers.add(TestThreads.start(() -> {
                    while (System.currentTimeMillis() < deadline) {
                        List<MemberChange> changes = new ArrayList<>();
                        for (int i = 1 + random.nextInt(3); i > 0; i--) {
                            changes.add(new MemberChange(
                                    MultiProcessMembersTest.member(random.nextInt(MultiProcessMembersTest.MEMBERS)),
                                    random.nextBoolean()));
                        }
                        long id = ids.incrementAndGet();
                        print("I\t" + session + "\t" + id + "\t" + System.nanoTime() + "\t"
                                + changes.stream()
                                        .map(c -> c.member() + (c.add() ? "+" : "-"))
                                        .collect(Collectors.joining(",")));
                        String outcome = change(store, hot, cell, changes, random);
                        print("C\t" + session + "\t" + id + "\t" + System.nanoTime() + "\t" + outcome);
                        read(store, hot, session, random);
                    }
                }));
            }
            for (Thread worker : workers) {
                worker.join();
            }
        }
        print("DONE " + ids.get() + " calls");
    }

    /** The call's outcome: each change's result (t or f), FAILED (surely not applied) or UNKNOWN. */
    private static String change(
            JooqCounterStore store, CounterName hot, String cell, List<MemberChange> changes, Random random) {
        for (int attempt = 1; ; attempt++) {
            try {
                return store.changeMembers(hot, cell, changes).stream()
                        .map(changed -> changed ? "t" : "f")
                        .collect(Collectors.joining());
            } catch (TransientStoreException e) {
                if (attempt == ATTEMPTS) {
                    return "FAILED";
                }
                LockSupport.parkNanos(random.nextInt(2_000_000)); // the deadlock's losers do not meet again at once
            } catch (CountersException e) {
                return e.mayHaveBeenApplied() ? "UNKNOWN" : "FAILED";
            } catch (RuntimeException e) {
                return "UNKNOWN";
            }
        }
    }

    /** A read of a member or of the count, printed with its span; a read that fails is not printed. */
    private static void read(JooqCounterStore store, CounterName hot, String session, Random random) {
        int which = random.nextInt(MultiProcessMembersTest.MEMBERS + 1);
        String subject = which == MultiProcessMembersTest.MEMBERS ? "count" : MultiProcessMembersTest.member(which);
        long invoked = System.nanoTime();
        long value;
        try {
            value = subject.equals("count") ? store.get(hot) : store.isMember(hot, subject) ? 1 : 0;
        } catch (RuntimeException e) {
            return;
        }
        print("R\t" + session + "\t" + subject + "\t" + invoked + "\t" + System.nanoTime() + "\t" + value);
    }

    private static synchronized void print(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
