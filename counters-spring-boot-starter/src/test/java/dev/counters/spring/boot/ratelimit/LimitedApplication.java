package dev.counters.spring.boot.ratelimit;

import dev.counters.spring.boot.RateLimited;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** A web application whose handlers are rate limited, for the interceptor's tests. */
@SpringBootApplication
class LimitedApplication {

    @RestController
    static class LimitedController {

        @RateLimited(name = "likes", key = "#header('X-Visitor') ?: #request.remoteAddr", limit = "5/1m")
        @PostMapping("/articles/{id}/like")
        String like(@PathVariable String id) {
            return "liked " + id;
        }

        /** Two limits: the narrow one (per article) first, the wide one (per address) after it. */
        @RateLimited(name = "article", key = "#path['id']", limit = "1/1m")
        @RateLimited(name = "wide", limit = "100/1m")
        @GetMapping("/articles/{id}")
        String read(@PathVariable String id) {
            return "article " + id;
        }

        @GetMapping("/open")
        String open() {
            return "open";
        }

        @GetMapping("/routed/{id}")
        String routed(@PathVariable String id) {
            return "routed " + id;
        }
    }
}
