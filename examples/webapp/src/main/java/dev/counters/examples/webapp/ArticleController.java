package dev.counters.examples.webapp;

import dev.counters.CounterService;
import dev.counters.MembershipCounter;
import dev.counters.spring.boot.RateLimited;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/articles/{id}/view} and {@code POST /api/articles/{id}/like}: each answers the new total.
 * {@code PUT} and {@code DELETE /api/articles/{id}/liked}: the visitor likes the article, or no longer does.
 */
@RestController
@RequestMapping("/api/articles/{id}")
class ArticleController {

    /** The header with the visitor's id, which the page keeps in its {@code localStorage}. */
    static final String VISITOR = "X-Visitor";

    /** The rate limiter of likes per visitor. */
    static final String LIKES_LIMITER = "likes";

    record Views(String article, long views) {}

    record Likes(String article, long likes) {}

    /** Whether the visitor likes the article now, and how many visitors do. */
    record Liked(String article, boolean liked, long likedBy) {}

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

    /**
     * The visitor ({@code X-Visitor}) likes the article: a member of its {@code liked-by} membership counter. This sets
     * a state rather than flipping it, so a repeat (a retry, a second tab) changes nothing; the count moves only when
     * the visitor's membership does, by exactly one, in the same transaction. The page's toggle sends the state it
     * shows, one request at a time.
     */
    @PutMapping("/liked")
    Liked addLike(@PathVariable String id, @RequestHeader(VISITOR) String visitor) {
        return liked(new ArticleId(id), visitor, true);
    }

    /** The visitor no longer likes the article; a repeat changes nothing. */
    @DeleteMapping("/liked")
    Liked removeLike(@PathVariable String id, @RequestHeader(VISITOR) String visitor) {
        return liked(new ArticleId(id), visitor, false);
    }

    private Liked liked(ArticleId article, String visitor, boolean liked) {
        MembershipCounter likedBy = counters.members(article.likedByCounter());
        if (liked) {
            likedBy.add(visitor);
        } else {
            likedBy.remove(visitor);
        }
        return new Liked(article.value(), liked, likedBy.count());
    }
}
