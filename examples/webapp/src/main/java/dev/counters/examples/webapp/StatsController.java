package dev.counters.examples.webapp;

import dev.counters.CounterService;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/stats?articles=a,b}: the views and likes of those articles and the number of orders, read in one
 * call to {@link CounterService#get(java.util.Collection)}, whatever strategy each counter has.
 */
@RestController
class StatsController {

    /** Enough for a page of articles; a bound keeps one request from asking for an unbounded query. */
    static final int MAX_ARTICLES = 100;

    record ArticleStats(long views, long likes) {
    }

    record Stats(Map<String, ArticleStats> articles, long orders) {
    }

    private final CounterService counters;

    StatsController(CounterService counters) {
        this.counters = counters;
    }

    @GetMapping("/api/stats")
    Stats stats(@RequestParam(defaultValue = "") List<String> articles) {
        List<String> distinct = articles.stream().distinct().toList();
        if (distinct.size() > MAX_ARTICLES) {
            throw new IllegalArgumentException("At most " + MAX_ARTICLES + " articles at once, got " + distinct.size());
        }
        List<ArticleId> ids = distinct.stream().map(ArticleId::new).toList();
        List<String> names = new ArrayList<>();
        ids.forEach(id -> {
            names.add(id.viewsCounter());
            names.add(id.likesCounter());
        });
        names.add(OrderController.ORDERS);
        Map<String, Long> values = counters.get(names);

        Map<String, ArticleStats> byArticle = new LinkedHashMap<>();
        ids.forEach(id -> byArticle.put(id.value(),
                new ArticleStats(values.get(id.viewsCounter()), values.get(id.likesCounter()))));
        return new Stats(byArticle, values.get(OrderController.ORDERS));
    }
}
