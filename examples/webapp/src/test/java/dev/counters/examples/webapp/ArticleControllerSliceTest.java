package dev.counters.examples.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.counters.CounterService;
import dev.counters.spring.boot.CountersProperties;
import dev.counters.spring.boot.test.AutoConfigureCounters;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.test.web.servlet.MockMvc;

/**
 * The article controller alone, in Boot's {@code @WebMvcTest} slice, with counters in memory from
 * {@code counters-spring-boot-starter-test}'s {@code @AutoConfigureCounters}: no database, no other controller; the
 * likes' rate limit (application.yml) applies, as in the application.
 */
@WebMvcTest(ArticleController.class)
@AutoConfigureCounters(store = CountersProperties.Store.MEMORY)
class ArticleControllerSliceTest {

    @Autowired
    private MockMvc mvc;

    @Autowired
    private CounterService counters;

    @Test
    void aViewAnswersTheNewTotal() throws Exception {
        mvc.perform(post("/api/articles/slice/view"))
                .andExpect(status().isOk())
                .andExpect(content().json("{\"article\":\"slice\",\"views\":1}"));
        mvc.perform(post("/api/articles/slice/view")).andExpect(content().json("{\"views\":2}"));
        assertThat(counters.get(new ArticleId("slice").viewsCounter())).isEqualTo(2);
    }

    @Test
    void theSixthLikeOfAVisitorInAMinuteIsRefusedAndNotCounted() throws Exception {
        for (int i = 1; i <= 5; i++) {
            mvc.perform(post("/api/articles/limited/like").header("X-Visitor", "v-1"))
                    .andExpect(status().isOk())
                    .andExpect(content().json("{\"likes\":" + i + "}"))
                    .andExpect(header().string("RateLimit-Policy", "\"likes\";q=5;w=60"))
                    .andExpect(header().string("RateLimit", Matchers.startsWith("\"likes\";r=" + (5 - i) + ";t=")));
        }
        mvc.perform(post("/api/articles/limited/like").header("X-Visitor", "v-1"))
                .andExpect(status().isTooManyRequests())
                .andExpect(header().string("Retry-After", Matchers.matchesRegex("[1-9][0-9]*")))
                .andExpect(header().string("RateLimit-Policy", "\"likes\";q=5;w=60"))
                .andExpect(header().string("RateLimit", Matchers.matchesRegex("\"likes\";r=0;t=[1-9][0-9]*")))
                .andExpect(jsonPath("$.status").value(429))
                .andExpect(jsonPath("$.limiter").value("likes"));
        assertThat(counters.get(new ArticleId("limited").likesCounter()))
                .as("the refused like")
                .isEqualTo(5);
        mvc.perform(post("/api/articles/limited/like").header("X-Visitor", "v-2"))
                .andExpect(status().isOk())
                .andExpect(content().json("{\"likes\":6}"));
    }
}
