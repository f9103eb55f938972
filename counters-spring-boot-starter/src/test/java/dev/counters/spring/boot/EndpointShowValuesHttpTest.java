package dev.counters.spring.boot;

import dev.counters.CounterService;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.web.servlet.client.RestTestClient;

/**
 * {@code /actuator/counters} with Boot's default {@code show-values} (never): the rules are listed, the stored names
 * (user ids, perhaps) and values are not; a name the caller gives is echoed without its value.
 */
@SpringBootTest(
        classes = EndpointApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.generate-unique-name=true",
            "management.endpoints.web.exposure.include=counters",
            "counters.counters.[visits.*].strategy=sharded"
        })
@AutoConfigureRestTestClient
class EndpointShowValuesHttpTest {

    @Autowired
    RestTestClient http;

    @Autowired
    CounterService counters;

    @Test
    void storedNamesAndValuesAreHiddenByDefault() {
        counters.increment("visits.user-4711", 3);

        http.get()
                .uri("/actuator/counters")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.rules[?(@.rule == 'visits.*')].strategy")
                .isEqualTo("sharded")
                .jsonPath("$.rules[?(@.rule == 'visits.*')].increments")
                .isEqualTo(1)
                .jsonPath("$.counters")
                .doesNotExist()
                .jsonPath("$.next")
                .doesNotExist();

        http.get()
                .uri("/actuator/counters?after=visits")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.counters")
                .doesNotExist();

        http.get()
                .uri("/actuator/counters/visits.user-4711")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.name")
                .isEqualTo("visits.user-4711")
                .jsonPath("$.strategy")
                .isEqualTo("sharded")
                .jsonPath("$.value")
                .doesNotExist()
                .jsonPath("$.cells")
                .doesNotExist();

        http.get()
                .uri("/actuator/counters?names=visits.user-4711")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.counters[0].name")
                .isEqualTo("visits.user-4711")
                .jsonPath("$.counters[0].value")
                .doesNotExist();
    }
}
