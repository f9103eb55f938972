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

/** {@code /actuator/counters} with writes enabled by {@code management.endpoint.counters.access=unrestricted}. */
@SpringBootTest(
        classes = EndpointApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.generate-unique-name=true",
            "management.endpoints.web.exposure.include=counters",
            "management.endpoint.counters.access=unrestricted",
            "management.endpoint.counters.show-values=always"
        })
@AutoConfigureRestTestClient
class EndpointWritableHttpTest {

    @Autowired
    RestTestClient http;

    @Autowired
    CounterService counters;

    @Test
    void incrementsAndResetsACounter() {
        http.post()
                .uri("/actuator/counters/downloads")
                .contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("delta", 5))
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.value")
                .isEqualTo(5);
        http.post()
                .uri("/actuator/counters/downloads")
                .contentType(MediaType.APPLICATION_JSON)
                .body(Map.of())
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.value")
                .isEqualTo(6);
        assertThat(counters.getExact("downloads")).isEqualTo(6);

        http.delete()
                .uri("/actuator/counters/downloads")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.value")
                .isEqualTo(0);
        assertThat(counters.getExact("downloads")).isZero();
    }

    @Test
    void aZeroDeltaIsABadRequestAndWritesNothing() {
        counters.increment("uploads", 2);
        http.post()
                .uri("/actuator/counters/uploads")
                .contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("delta", 0))
                .exchange()
                .expectStatus()
                .isBadRequest();
        assertThat(counters.getExact("uploads")).isEqualTo(2);
    }
}
