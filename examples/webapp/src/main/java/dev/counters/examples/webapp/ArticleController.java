package dev.counters.examples.webapp;

import dev.counters.CounterService;
import dev.counters.spring.boot.RateLimited;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /api/articles/{id}/view} and {@code POST /api/articles/{id}/like}: each answers the new total. */
@RestController
@RequestMapping("/api/articles/{id}")
class ArticleController {

    /** The rate limiter of likes per visitor. */
    static final String LIKES_LIMITER = "likes";

    record Views(String article, long views) {}

    record Likes(String article, long likes) {}

    private final CounterService counters;

    ArticleController(CounterService counters) {
        this.counters = counters;
    }

    @PostMapping("/view")
    Views view(@PathVariable String id) {
        ArticleId article = new ArticleId(id);
        counters.increment(StatsController.READS, 1); // windowed: lands in the current 5-second window
        return new Views(article.value(), counters.incrementAndGet(article.viewsCounter(), 1));
    }

    /**
     * The total includes this like at once, although it reaches the database with the next flush. With
     * {@code durable=true} the answer waits for the flush that carries the like to commit. Each visitor (the page's
     * {@code X-Visitor} header, else the address) has the likes of the {@code likes} limiter in application.yml: one
     * more is answered 429, with {@code Retry-After}, and not counted.
     */
    @RateLimited(name = LIKES_LIMITER, key = "#header('X-Visitor') ?: #request.remoteAddr")
    @PostMapping("/like")
    Likes like(@PathVariable String id, @RequestParam(defaultValue = "false") boolean durable) {
        ArticleId article = new ArticleId(id);
        if (durable) {
            counters.incrementDurably(article.likesCounter(), 1).join();
            return new Likes(article.value(), counters.get(article.likesCounter()));
        }
        return new Likes(article.value(), counters.incrementAndGet(article.likesCounter(), 1));
    }
}
