package dev.counters.spring.boot;

import dev.counters.CounterService;
import dev.counters.RateLimit;
import dev.counters.RateLimiter;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.web.servlet.client.RestTestClient;

/** The rate limiters in {@code /actuator/counters} over HTTP: listed, a key peeked and reset. */
@SpringBootTest(
        classes = EndpointApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "counters.store=memory",
            "management.endpoints.web.exposure.include=counters",
            "management.endpoint.counters.access=unrestricted",
            "management.endpoint.counters.show-values=always"
        })
@AutoConfigureRestTestClient
class EndpointLimitersHttpTest {

    @Autowired
    RestTestClient http;

    @Autowired
    CounterService counters;

    @Test
    void listsTheLimitersAndPeeksAndResetsAKey() {
        RateLimiter limiter = counters.rateLimiter("http.api", RateLimit.parse("2/1m"));
        limiter.tryAcquire("k");
        limiter.tryAcquire("k");

        http.get()
                .uri("/actuator/counters")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.limiters[0].limit")
                .isEqualTo("2/1m")
                .jsonPath("$.limiters[0].decisions.allowed")
                .isEqualTo(2);
        http.get()
                .uri("/actuator/counters/limiters/http.api/k")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.remaining")
                .isEqualTo(0)
                .jsonPath("$.admitted")
                .isEqualTo(false);
        http.delete()
                .uri("/actuator/counters/limiters/http.api/k")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.remaining")
                .isEqualTo(2);
        http.get()
                .uri("/actuator/counters/limiters/never-made/k")
                .exchange()
                .expectStatus()
                .isNotFound();
    }
}
