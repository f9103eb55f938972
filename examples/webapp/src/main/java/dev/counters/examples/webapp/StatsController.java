package dev.counters.examples.webapp;

import dev.counters.CounterService;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/stats?articles=a,b}: the views and likes of those articles and the number of orders, read in one
 * call to {@link CounterService#get(java.util.Collection)}, whatever strategy each counter has.
 */
@RestController
class StatsController {

    /** Reads of every article, counted per 5-second window (see application.yml). */
    static final String READS = "reads";

    /** Windows the page's chart shows: two minutes. */
    static final int CHART_WINDOWS = 24;

    /** Enough for a page of articles; a bound keeps one request from asking for an unbounded query. */
    static final int MAX_ARTICLES = 100;

    /**
     * {@code likes} counts every like this node took; {@code likesInDatabase} those already flushed. {@code likedBy}
     * is the number of visitors who like the article, and {@code liked} whether the visitor asking is one of them
     * (null without {@code X-Visitor}).
     */
    record ArticleStats(
            long views,
            long likes,
            long likesInDatabase,
            long likedBy,
            @Nullable Boolean liked) {}

    /** The buffered likes' write-behind: increments not yet written, and how long the oldest of them has waited. */
    record Buffer(long pendingIncrements, long flushLagMillis, long flushes) {}

    /** One window of the reads chart: when it started, and the reads in it. */
    record Window(Instant start, long reads) {}

    record Stats(
            Map<String, ArticleStats> articles,
            long orders,
            long paidOrders,
            Buffer likesBuffer,
            List<Window> readsPerWindow) {}

    private final CounterService counters;

    StatsController(CounterService counters) {
        this.counters = counters;
    }

    @GetMapping("/api/stats")
    Stats stats(
            @RequestParam(defaultValue = "") List<String> articles,
            @RequestHeader(name = ArticleController.VISITOR, required = false) @Nullable String visitor) {
        List<String> distinct = articles.stream().distinct().toList();
        if (distinct.size() > MAX_ARTICLES) {
            throw new IllegalArgumentException("At most " + MAX_ARTICLES + " articles at once, got " + distinct.size());
        }
        List<ArticleId> ids = distinct.stream().map(ArticleId::new).toList();
        List<String> names = new ArrayList<>();
        ids.forEach(id -> {
            names.add(id.viewsCounter());
            names.add(id.likesCounter());
            names.add(id.likedByCounter()); // a membership counter's value is its count
        });
        names.add(OrderController.ORDERS);
        names.add(Checkout.PAID_ORDERS);
        Map<String, Long> values = counters.get(names);

        Map<String, ArticleStats> byArticle = new LinkedHashMap<>();
        ids.forEach(id -> byArticle.put(
                id.value(),
                new ArticleStats(
                        values.get(id.viewsCounter()),
                        values.get(id.likesCounter()),
                        inDatabase(id.likesCounter()),
                        values.get(id.likedByCounter()),
                        visitor == null
                                ? null
                                : counters.members(id.likedByCounter()).contains(visitor))));
        List<Window> reads = counters.windowed(READS).last(CHART_WINDOWS).stream()
                .map(window -> new Window(window.start(), window.value()))
                .toList();
        return new Stats(
                byArticle, values.get(OrderController.ORDERS), values.get(Checkout.PAID_ORDERS), likesBuffer(), reads);
    }

    /** What the store holds for a counter: the sum of its cells, without this node's pending increments. */
    private long inDatabase(String counter) {
        return counters.admin().cells(counter).values().stream()
                .mapToLong(Long::longValue)
                .sum();
    }

    private Buffer likesBuffer() {
        return counters.statistics().stream()
                .filter(rule -> rule.rule().equals("likes.*") && rule.activity().buffer() != null)
                .map(rule -> rule.activity().buffer())
                .map(buffer ->
                        new Buffer(buffer.pendingIncrements(), buffer.flushLag().toMillis(), buffer.flushes()))
                .findFirst()
                .orElse(new Buffer(0, 0, 0));
    }
}
