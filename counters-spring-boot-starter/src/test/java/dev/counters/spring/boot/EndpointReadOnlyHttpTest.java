package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

/** {@code /actuator/counters} over HTTP with its default access: reads work, writes are refused with the reason. */
@SpringBootTest(
        classes = EndpointApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.generate-unique-name=true",
            "management.endpoints.web.exposure.include=counters,health",
            "management.endpoint.counters.show-values=always",
            "counters.counters.[page-views.*].strategy=sharded",
            "counters.counters.[api.*].window=1m",
            "counters.counters.[api.*].retained-windows=5"
        })
@AutoConfigureRestTestClient
class EndpointReadOnlyHttpTest {

    @Autowired
    RestTestClient http;

    @Autowired
    CounterService counters;

    @Test
    void listsRulesAndStoredCountersAndReadsOneOrSeveral() {
        counters.increment("page-views.home", 3);
        counters.increment("likes", 2);

        http.get()
                .uri("/actuator/counters")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.rules[?(@.rule == 'page-views.*')].strategy")
                .isEqualTo("sharded")
                .jsonPath("$.rules[?(@.rule == '(default)')].strategy")
                .isEqualTo("atomic")
                .jsonPath("$.counters[?(@.name == 'page-views.home')].value")
                .isEqualTo(3)
                .jsonPath("$.counters[?(@.name == 'likes')].strategy")
                .isEqualTo("atomic");

        http.get()
                .uri("/actuator/counters/page-views.home")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.value")
                .isEqualTo(3)
                .jsonPath("$.strategy")
                .isEqualTo("sharded")
                .jsonPath("$.cells")
                .isMap();

        http.get()
                .uri("/actuator/counters?names=likes,never-used")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.counters.length()")
                .isEqualTo(2)
                .jsonPath("$.counters[0].value")
                .isEqualTo(2)
                .jsonPath("$.counters[1].value")
                .isEqualTo(0);
    }

    @Test
    void aWindowedCounterShowsItsRecentWindowsAndEachStoredWindowIsListed() {
        counters.increment("api.calls", 4);

        http.get()
                .uri("/actuator/counters/api.calls")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.value")
                .isEqualTo(4)
                .jsonPath("$.windows.length()")
                .isEqualTo(5)
                .jsonPath("$.windows[4].value")
                .isEqualTo(4)
                .jsonPath("$.windows[4].start")
                .isNotEmpty();

        http.get()
                .uri("/actuator/counters?after=api")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.counters[0].name")
                .value(name -> assertThat((String) name).startsWith("api.calls:w:"))
                .jsonPath("$.counters[0].value")
                .isEqualTo(4);
    }

    @Test
    void aBadNameIsABadRequest() {
        http.get().uri("/actuator/counters/bad$name").exchange().expectStatus().isBadRequest();
    }

    @Test
    void writesAreRefusedUnlessEnabled() {
        counters.increment("downloads", 7);

        http.post()
                .uri("/actuator/counters/downloads")
                .contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("delta", 5))
                .exchange()
                .expectStatus()
                .isEqualTo(405)
                .expectHeader()
                .valueEquals("Allow", "GET")
                .expectBody()
                .jsonPath("$.message")
                .value(message -> assertThat((String) message)
                        .contains("read-only")
                        .contains("management.endpoint.counters.access=unrestricted"));
        http.delete()
                .uri("/actuator/counters/downloads")
                .exchange()
                .expectStatus()
                .isEqualTo(405)
                .expectBody()
                .jsonPath("$.message")
                .isEqualTo(CountersEndpointWritesOff.REASON);

        assertThat(counters.getExact("downloads")).isEqualTo(7);
    }
}
