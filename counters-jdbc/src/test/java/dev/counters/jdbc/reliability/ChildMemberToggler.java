package dev.counters.jdbc.reliability;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterRule;
import dev.counters.CounterService;
import dev.counters.MembershipCounter;
import dev.counters.history.History;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.ChildPool;
import dev.counters.strategy.ShardedSettings;
import dev.counters.testing.TestThreads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An application process of {@link MultiProcessMembersTest}: from several threads, until the deadline the go file holds
 * (epoch milliseconds), adds or removes a seeded random member of the test's hot counter through the public API
 * ({@link MembershipCounter} on a {@code sharded} rule, as an application configures it); between calls it reads a
 * member or the count. Every call is printed as it is invoked and again as it completes, flushed before it goes on, so
 * that a {@code kill -9} leaves a record of each call it made (see {@link MultiProcessMembersTest} for the lines). Times
 * are the machine's monotonic clock, which the processes share. Arguments: jdbcUrl user password tablePrefix goFile
 * seed threads session.
 */
public final class ChildMemberToggler {

    private ChildMemberToggler() {}

    public static void main(String[] args) throws Exception {
        Path go = Path.of(args[4]);
        long seed = Long.parseLong(args[5]);
        int threads = Integer.parseInt(args[6]);
        String session = args[7];
        AtomicLong ids = new AtomicLong();
        try (HikariDataSource dataSource = ChildPool.of(args, threads + 2);
                CounterService counters = CounterService.builder(JooqCounterStore.builder(dataSource)
                                .tablePrefix(args[3])
                                .build())
                        .rule(
                                "mp.*",
                                CounterRule.of(ShardedSettings.defaults().withShards(4))
                                        .withMembers())
                        .build()) {
            MembershipCounter hot = counters.members(MultiProcessMembersTest.COUNTER);
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
                        String member = MultiProcessMembersTest.member(random.nextInt(MultiProcessMembersTest.MEMBERS));
                        boolean add = random.nextBoolean();
                        long id = ids.incrementAndGet();
                        print("I\t" + session + "\t" + id + "\t" + System.nanoTime() + "\t" + member
                                + (add ? "+" : "-"));
                        String outcome;
                        try {
                            outcome = (add ? hot.add(member) : hot.remove(member)) ? "t" : "f";
                        } catch (RuntimeException e) {
                            outcome = History.Outcome.of(e).name(); // FAILED: surely not applied; else UNKNOWN
                        }
                        print("C\t" + session + "\t" + id + "\t" + System.nanoTime() + "\t" + outcome);
                        read(hot, session, random);
                    }
                }));
            }
            for (Thread worker : workers) {
                worker.join();
            }
        }
        print("DONE " + ids.get() + " calls");
    }

    /** A read of a member or of the count, printed with its span; a read that fails is not printed. */
    private static void read(MembershipCounter hot, String session, Random random) {
        int which = random.nextInt(MultiProcessMembersTest.MEMBERS + 1);
        String subject = which == MultiProcessMembersTest.MEMBERS ? "count" : MultiProcessMembersTest.member(which);
        long invoked = System.nanoTime();
        long value;
        try {
            value = subject.equals("count") ? hot.count() : hot.contains(subject) ? 1 : 0;
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
