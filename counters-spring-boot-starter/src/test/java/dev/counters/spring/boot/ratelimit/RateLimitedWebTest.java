package dev.counters.spring.boot.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.counters.CounterService;
import dev.counters.RateLimit;
import dev.counters.spring.boot.CountersAutoConfiguration;
import dev.counters.spring.boot.CountersRateLimitAutoConfiguration;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;

/**
 * {@code @RateLimited} and {@code counters.rate-limits.routes} in Boot's {@code @WebMvcTest} slice, counters in memory:
 * the headers of an admitted request, the 429 of a refused one, keys from headers and path variables, the first refusal
 * stopping the checks, route limits without annotations.
 */
@WebMvcTest(
        controllers = LimitedApplication.LimitedController.class,
        properties = {
            "counters.store=memory",
            "counters.rate-limits.routes[0].path=/routed/**",
            "counters.rate-limits.routes[0].methods=GET",
            "counters.rate-limits.routes[0].limiter=routed",
            "counters.rate-limits.routes[0].limit=2/1m",
            "counters.rate-limits.routes[0].key=#path['id']"
        })
@ImportAutoConfiguration({CountersAutoConfiguration.class, CountersRateLimitAutoConfiguration.class})
class RateLimitedWebTest {

    /** An sf-string member with integer parameters, draft-ietf-httpapi-ratelimit-headers-11. */
    private static final String POLICY = "\"likes\";q=5;w=60";

    @Autowired
    private MockMvc mvc;

    @Autowired
    private CounterService counters;

    @Test
    void theSixthLikeOfAVisitorInAMinuteIsRefusedWithRetryAfterAndBothHeaders() throws Exception {
        for (int i = 1; i <= 5; i++) {
            mvc.perform(post("/articles/a/like").header("X-Visitor", "ann"))
                    .andExpect(status().isOk())
                    .andExpect(content().string("liked a"))
                    .andExpect(header().string("RateLimit-Policy", POLICY))
                    .andExpect(header().string(
                                    "RateLimit", Matchers.matchesRegex("\"likes\";r=" + (5 - i) + ";t=[1-9][0-9]*")));
        }
        mvc.perform(post("/articles/a/like").header("X-Visitor", "ann"))
                .andExpect(status().isTooManyRequests())
                .andExpect(header().string("Retry-After", Matchers.matchesRegex("[1-9][0-9]*")))
                .andExpect(header().string("RateLimit-Policy", POLICY))
                .andExpect(header().string("RateLimit", Matchers.matchesRegex("\"likes\";r=0;t=[1-9][0-9]*")))
                .andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
                .andExpect(jsonPath("$.status").value(429))
                .andExpect(jsonPath("$.title").value("Too Many Requests"))
                .andExpect(jsonPath("$.limiter").value("likes"))
                .andExpect(jsonPath("$.instance").value("/articles/a/like"))
                .andExpect(jsonPath("$.retryAfter").isNumber());
        mvc.perform(post("/articles/a/like").header("X-Visitor", "bob"))
                .andExpect(status().isOk())
                .andExpect(header().string("RateLimit", Matchers.startsWith("\"likes\";r=4;")));
        // Without the header, the key is the address.
        mvc.perform(post("/articles/a/like")).andExpect(status().isOk());
        assertThat(counters.rateLimiter("likes", RateLimit.parse("5/1m"))
                        .peek("127.0.0.1")
                        .remaining())
                .isEqualTo(4);
        assertThat(counters.rateLimiter("likes", RateLimit.parse("5/1m"))
                        .peek("ann")
                        .remaining())
                .isZero();
    }

    @Test
    void theFirstRefusalStopsTheChecksAndTheLimitsAfterItTakeNothing() throws Exception {
        mvc.perform(get("/articles/x"))
                .andExpect(status().isOk())
                .andExpect(header().string("RateLimit-Policy", "\"article\";q=1;w=60, \"wide\";q=100;w=60"))
                .andExpect(header().string(
                                "RateLimit",
                                Matchers.matchesRegex("\"article\";r=0;t=[0-9]+, \"wide\";r=99;t=[0-9]+")));
        mvc.perform(get("/articles/x"))
                .andExpect(status().isTooManyRequests())
                .andExpect(jsonPath("$.limiter").value("article"))
                .andExpect(header().string("RateLimit-Policy", "\"article\";q=1;w=60"));
        assertThat(counters.rateLimiter("wide", RateLimit.parse("100/1m"))
                        .peek("127.0.0.1")
                        .remaining())
                .as("the refused request took nothing from the limit after the refusing one")
                .isEqualTo(99);
        mvc.perform(get("/articles/y")).andExpect(status().isOk());
    }

    @Test
    void aRouteFromPropertiesLimitsWithoutAnAnnotation() throws Exception {
        mvc.perform(get("/routed/r1")).andExpect(status().isOk()).andExpect(header().exists("RateLimit"));
        mvc.perform(get("/routed/r1")).andExpect(status().isOk());
        mvc.perform(get("/routed/r1"))
                .andExpect(status().isTooManyRequests())
                .andExpect(header().string("RateLimit-Policy", "\"routed\";q=2;w=60"));
        mvc.perform(get("/routed/r2")).andExpect(status().isOk());
    }

    @Test
    void anUnlimitedHandlerGetsNoHeaders() throws Exception {
        mvc.perform(get("/open"))
                .andExpect(status().isOk())
                .andExpect(header().doesNotExist("RateLimit"))
                .andExpect(header().doesNotExist("RateLimit-Policy"));
    }
}
