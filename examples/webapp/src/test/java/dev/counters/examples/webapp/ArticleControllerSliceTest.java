package dev.counters.examples.webapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.counters.CounterService;
import dev.counters.spring.boot.CountersProperties;
import dev.counters.spring.boot.test.AutoConfigureCounters;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.test.web.servlet.MockMvc;

/**
 * The article controller alone, in Boot's {@code @WebMvcTest} slice, with counters in memory from
 * {@code counters-spring-boot-starter-test}'s {@code @AutoConfigureCounters}: no database, no other controller.
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
}
