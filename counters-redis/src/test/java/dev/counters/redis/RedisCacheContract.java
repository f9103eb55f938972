package dev.counters.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.counters.CacheUnavailableException;
import dev.counters.CounterName;
import dev.counters.redis.testing.RedisServer;
import dev.counters.spi.MonotonicCache.Added;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * What both caches promise, on a real redis-server, through one client flavour per subclass (plain Lettuce, Spring
 * Data Redis). Each test uses a key prefix of its own on the shared server.
 */
abstract class RedisCacheContract {

    static final RedisServer SERVER = RedisServer.shared();

    private final String prefix = "t" + UUID.randomUUID().toString().substring(0, 8) + ":";

    abstract RedisMonotonicCache.Builder monotonicBuilder();

    abstract RedisTotalCache.Builder totalBuilder();

    abstract RedisAccess access();

    RedisMonotonicCache monotonic() {
        return monotonicBuilder().keyPrefix(prefix).build();
    }

    RedisTotalCache totals() {
        return totalBuilder().keyPrefix(prefix).build();
    }

    static CounterName name(String name) {
        return CounterName.of(name);
    }

    // ---- monotonic ----

    @Test
    void aValueIsAbsentUntilLoadedThenAddsAndHoldsItsCopy() {
        RedisMonotonicCache cache = monotonic();
        CounterName name = name("orders");
        assertThat(cache.get(name)).isEmpty();
        assertThat(cache.addAndGet(name, 1))
                .as("an increment never creates a value")
                .isEmpty();
        assertThat(SERVER.<String>command("EXISTS", prefix + "monotonic:orders"))
                .isEqualTo("0");

        assertThat(cache.tryLoad(name, () -> 41)).hasValue(41);
        Added added = cache.addAndGet(name, 1).orElseThrow();
        assertThat(added.value()).isEqualTo(42);
        assertThat(cache.addAndGet(name, 8).orElseThrow()).isEqualTo(new Added(50, added.copy()));
        assertThat(cache.get(name)).hasValue(50);
        assertThat(cache.holds(name, added.copy())).isTrue();
        assertThat(cache.holds(name, added.copy() + 1)).isFalse();
        assertThat(added.copy()).isNotNegative();
    }

    @Test
    void keysAreAHashUnderThePrefixWithValueAndCopyAndNoExpiry() {
        RedisMonotonicCache cache = monotonic();
        CounterName name = name("layout.a-b_c:d");
        cache.tryLoad(name, () -> 7);
        Added added = cache.addAndGet(name, 3).orElseThrow();
        String key = prefix + "monotonic:layout.a-b_c:d";
        assertThat(SERVER.<String>command("TYPE", key)).isEqualTo("hash");
        assertThat(SERVER.<List<String>>command("HGETALL", key))
                .containsExactlyInAnyOrder("v", "10", "c", Long.toString(added.copy()));
        assertThat(SERVER.<String>command("PTTL", key))
                .as("a loaded value has no expiry")
                .isEqualTo("-1");
        assertThat(monotonicBuilder().build().key(name)).isEqualTo("counters:monotonic:layout.a-b_c:d");
    }

    @Test
    void aPresentValueIsKeptAndTheStoreNotRead() {
        RedisMonotonicCache cache = monotonic();
        CounterName name = name("present");
        cache.tryLoad(name, () -> 5);
        assertThat(cache.tryLoad(name, () -> {
                    throw new AssertionError("read the store although a value was present");
                }))
                .hasValue(5);
    }

    @Test
    void removeDropsTheValueAndItsCopyAndTheNextLoadMakesANewCopy() {
        RedisMonotonicCache cache = monotonic();
        CounterName name = name("removed");
        cache.tryLoad(name, () -> 100);
        long first = cache.addAndGet(name, 1).orElseThrow().copy();
        cache.remove(name);
        assertThat(cache.get(name)).isEmpty();
        assertThat(cache.holds(name, first)).isFalse();
        assertThat(cache.addAndGet(name, 1)).isEmpty();
        cache.tryLoad(name, () -> 101);
        Added again = cache.addAndGet(name, 1).orElseThrow();
        assertThat(again.value()).isEqualTo(102);
        assertThat(again.copy()).isNotEqualTo(first);
        assertThat(cache.holds(name, first)).isFalse();
    }

    @Test
    void largeValuesKeepEveryDigit() {
        // Lua numbers are doubles: a script returning HINCRBY's reply would round above 2^53
        RedisMonotonicCache cache = monotonic();
        CounterName name = name("large");
        long big = (1L << 60) + 1;
        assertThat(cache.tryLoad(name, () -> big)).hasValue(big);
        assertThat(cache.addAndGet(name, 2).orElseThrow().value()).isEqualTo(big + 2);
        assertThat(cache.get(name)).hasValue(big + 2);
    }

    @Test
    void anOverflowThrowsArithmeticExceptionAndChangesNothing() {
        RedisMonotonicCache cache = monotonic();
        CounterName name = name("overflow");
        cache.tryLoad(name, () -> Long.MAX_VALUE - 1);
        Added last = cache.addAndGet(name, 1).orElseThrow();
        assertThat(last.value()).isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(() -> cache.addAndGet(name, 1))
                .isInstanceOf(ArithmeticException.class)
                .hasMessageContaining("overflow")
                .hasMessageContaining("nothing changed");
        assertThat(cache.get(name)).hasValue(Long.MAX_VALUE);
        assertThat(cache.holds(name, last.copy())).isTrue();
    }

    @Test
    void concurrentColdLoadersReadTheStoreOnceAndTheOthersAreToldBusyAtOnce() throws Exception {
        RedisMonotonicCache cache = monotonic();
        CounterName name = name("cold");
        AtomicInteger reads = new AtomicInteger();
        int loaders = 8;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(loaders);
        List<OptionalLong> answers = new ArrayList<>();
        try {
            List<Future<OptionalLong>> loaded = new ArrayList<>();
            for (int i = 0; i < loaders; i++) {
                loaded.add(pool.submit(() -> {
                    start.await();
                    return cache.tryLoad(name, () -> {
                        sleep(150); // a slow database: the others find the claim
                        return 1_000 + reads.incrementAndGet();
                    });
                }));
            }
            start.countDown();
            for (Future<OptionalLong> value : loaded) {
                answers.add(value.get());
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(reads).hasValue(1);
        assertThat(answers)
                .as("the value, or busy: never another value")
                .contains(OptionalLong.of(1_001))
                .allSatisfy(answer -> assertThat(answer).isIn(OptionalLong.of(1_001), OptionalLong.empty()));
        assertThat(cache.tryLoad(name, () -> 0)).hasValue(1_001);
    }

    @Test
    void aLossBetweenClaimAndStoreKeepsNothingAndTheNextLoadReadsTheStoreAgain() {
        RedisMonotonicCache cache = monotonic();
        CounterName name = name("flushed");
        AtomicInteger reads = new AtomicInteger();
        LongSupplier stored = () -> {
            if (reads.incrementAndGet() == 1) {
                // Meanwhile the cache loses everything (and another node could have loaded and counted on)
                SERVER.flushAll();
                return 5;
            }
            return 7;
        };
        assertThat(cache.tryLoad(name, stored))
                .as("the maximum read before the loss is not kept")
                .isEmpty();
        assertThat(cache.get(name)).isEmpty();
        assertThat(cache.tryLoad(name, stored)).hasValue(7);
        assertThat(reads).hasValue(2);
        assertThat(cache.get(name)).hasValue(7);
    }

    @Test
    void aValueStoredByAnotherLoaderAfterALossWins() {
        RedisMonotonicCache cache = monotonic();
        RedisMonotonicCache other = monotonic();
        CounterName name = name("raced");
        OptionalLong loaded = cache.tryLoad(name, () -> {
            // The claim is lost, another node claims, loads 20 and counts on before this loader stores its 10
            SERVER.command("DEL", cache.key(name));
            other.tryLoad(name, () -> 20);
            other.addAndGet(name, 5);
            return 10;
        });
        assertThat(loaded).hasValue(25);
        assertThat(cache.addAndGet(name, 1).orElseThrow().value()).isEqualTo(26);
    }

    @Test
    void aClaimHeldByAnotherLoaderIsBusyWithoutReadingTheStoreUntilItExpires() {
        RedisMonotonicCache cache = monotonicBuilder()
                .keyPrefix(prefix)
                .loadTimeout(Duration.ofSeconds(3))
                .build();
        CounterName name = name("orphan");
        SERVER.command("HSET", cache.key(name), "l", "a-loader-that-died");
        SERVER.command("PEXPIRE", cache.key(name), "300");
        assertThat(cache.tryLoad(name, () -> {
                    throw new AssertionError("claimed although another loader held the claim");
                }))
                .as("busy, at once")
                .isEmpty();
        assertThat(cache.loadTimeout()).isEqualTo(Duration.ofSeconds(3));
        await().atMost(Duration.ofSeconds(5))
                .until(() -> cache.tryLoad(name, () -> 9).isPresent());
        assertThat(cache.get(name)).hasValue(9);
    }

    @Test
    void aFailedReadOfTheStoreGivesTheClaimBack() {
        RedisMonotonicCache cache = monotonic();
        CounterName name = name("failed-read");
        IllegalStateException databaseDown = new IllegalStateException("database down");
        assertThatThrownBy(() -> cache.tryLoad(name, () -> {
                    throw databaseDown;
                }))
                .isSameAs(databaseDown);
        assertThat(SERVER.<String>command("EXISTS", cache.key(name))).isEqualTo("0");
        assertThat(cache.tryLoad(name, () -> 3)).as("no claim left to wait out").hasValue(3);
    }

    @Test
    void persistenceIsReportedOnlyWhenTheServerSnapshotsOrLogsNamingTheServer() {
        RedisAccess access = access();
        await().atMost(Duration.ofSeconds(5)).until(() -> access.endpoint().endsWith(":" + SERVER.port()));
        assertThat(RedisMonotonicCache.persistenceWarning(access))
                .as("started with --save \"\" --appendonly no")
                .isEmpty();
        try {
            SERVER.command("CONFIG", "SET", "save", "3600 1");
            assertThat(RedisMonotonicCache.persistenceWarning(access))
                    .hasValueSatisfying(warning -> assertThat(warning)
                            .contains("save '3600 1'")
                            .contains("hands out values again")
                            .contains("127.0.0.1:" + SERVER.port()));
            SERVER.command("CONFIG", "SET", "save", "");
            SERVER.command("CONFIG", "SET", "appendonly", "yes");
            assertThat(RedisMonotonicCache.persistenceWarning(access))
                    .hasValueSatisfying(warning -> assertThat(warning).contains("appendonly yes"));
        } finally {
            SERVER.command("CONFIG", "SET", "save", "");
            SERVER.command("CONFIG", "SET", "appendonly", "no");
        }
        assertThat(RedisMonotonicCache.persistenceWarning(access)).isEmpty();
    }

    @Test
    void anErrorReplyIsCacheUnavailableNamingTheCounter() {
        RedisMonotonicCache cache = monotonic();
        CounterName name = name("wrong-type");
        SERVER.command("SET", cache.key(name), "not a hash");
        assertThatThrownBy(() -> cache.addAndGet(name, 1))
                .isInstanceOf(CacheUnavailableException.class)
                .hasMessageContaining("Increment of counter 'wrong-type'")
                .hasMessageContaining("WRONGTYPE");
    }

    @Test
    void scriptsAreSentAgainWhenTheServerForgotThem() {
        RedisMonotonicCache cache = monotonic();
        RedisTotalCache totals = totals();
        CounterName name = name("forgotten");
        cache.tryLoad(name, () -> 1);
        long loadId = totals.put(name, 1, Duration.ofSeconds(30));
        SERVER.command("SCRIPT", "FLUSH"); // as after a restart: EVALSHA answers NOSCRIPT
        assertThat(cache.addAndGet(name, 1).orElseThrow().value()).isEqualTo(2);
        totals.addIfLoaded(name, 1, loadId);
        assertThat(totals.get(name)).hasValue(2);
    }

    // ---- totals ----

    @Test
    void aTotalIsCachedWithItsExpiryAndAdditionsKeepIt() {
        RedisTotalCache totals = totals();
        CounterName name = name("views");
        String key = prefix + "total:views";
        assertThat(totals.get(name)).isEmpty();
        assertThat(totals.addIfLoaded(name, 3, 0)).isEmpty();
        assertThat(SERVER.<String>command("EXISTS", key))
                .as("an addition never creates a total")
                .isEqualTo("0");

        long loadId = totals.put(name, 5, Duration.ofSeconds(30));
        assertThat(loadId).isNotZero();
        assertThat(totals.get(name)).hasValue(5);
        assertThat(SERVER.<List<String>>command("HGETALL", key))
                .containsExactlyInAnyOrder("v", "5", "id", Long.toString(loadId));
        long ttl = Long.parseLong(SERVER.command("PTTL", key));
        assertThat(ttl).isBetween(1L, 30_000L);
        assertThat(totals.addIfLoaded(name, 3, loadId)).hasValue(loadId);
        assertThat(totals.addIfLoaded(name, -10, loadId)).hasValue(loadId);
        assertThat(totals.get(name)).hasValue(-2);
        assertThat(Long.parseLong(SERVER.command("PTTL", key)))
                .as("HINCRBY keeps the expiry")
                .isBetween(1L, ttl);

        totals.remove(name);
        assertThat(totals.get(name)).isEmpty();
    }

    @Test
    void anAdditionGoesOnlyToTheLoadItKnewOfAndLearnsTheOneCached() {
        RedisTotalCache totals = totals();
        CounterName name = name("loads");
        long first = totals.put(name, 5, Duration.ofSeconds(30));
        long second = totals.put(name, 9, Duration.ofSeconds(30)); // loaded again, e.g. by another node
        assertThat(second).isNotEqualTo(first);
        assertThat(totals.addIfLoaded(name, 4, first))
                .as("not added: the later load may hold it")
                .hasValue(second);
        assertThat(totals.addIfLoaded(name, 4, 0)).hasValue(second);
        assertThat(totals.get(name)).hasValue(9);
        assertThat(totals.addIfLoaded(name, 4, second)).hasValue(second);
        assertThat(totals.get(name)).hasValue(13);
    }

    @Test
    void aTotalExpires() {
        RedisTotalCache totals = totals();
        CounterName name = name("brief");
        long loadId = totals.put(name, 8, Duration.ofMillis(200));
        assertThat(totals.get(name)).hasValue(8);
        await().atMost(Duration.ofSeconds(3)).until(() -> totals.get(name).isEmpty());
        assertThat(totals.addIfLoaded(name, 1, loadId)).isEmpty();
        assertThat(totals.get(name)).isEmpty();
    }

    @Test
    void aTotalLeavingThe64BitRangeIsDropped() {
        RedisTotalCache totals = totals();
        CounterName name = name("huge");
        long loadId = totals.put(name, Long.MAX_VALUE - 1, Duration.ofSeconds(30));
        assertThat(totals.addIfLoaded(name, 5, loadId)).isEmpty();
        assertThat(totals.get(name)).isEmpty();
        loadId = totals.put(name, Long.MIN_VALUE + 1, Duration.ofSeconds(30));
        assertThat(totals.addIfLoaded(name, -5, loadId)).isEmpty();
        assertThat(totals.get(name)).isEmpty();
        loadId = totals.put(name, (1L << 60) + 1, Duration.ofSeconds(30));
        totals.addIfLoaded(name, 1, loadId);
        assertThat(totals.get(name)).as("every digit").hasValue((1L << 60) + 2);
    }

    @Test
    void getAllReturnsThosePresentInOrder() {
        RedisTotalCache totals = totals();
        totals.put(name("a"), 1, Duration.ofSeconds(30));
        totals.put(name("c"), 3, Duration.ofSeconds(30));
        Map<CounterName, Long> read = totals.getAll(List.of(name("c"), name("b"), name("a")));
        assertThat(read).containsExactly(Map.entry(name("c"), 3L), Map.entry(name("a"), 1L));
        assertThat(totals.getAll(List.of())).isEmpty();
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
