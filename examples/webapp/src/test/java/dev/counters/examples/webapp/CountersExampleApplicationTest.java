package dev.counters.examples.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.spi.MonotonicCache;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.test.web.servlet.client.RestTestClient;

/** Starts the example on a random port, on an in-memory H2 database, and uses it over HTTP. */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.datasource.url=jdbc:h2:mem:example-test;DB_CLOSE_DELAY=-1")
@AutoConfigureRestTestClient
class CountersExampleApplicationTest {

    @Autowired
    private RestTestClient http;

    @Autowired
    private ApplicationContext context;

    @Test
    void withoutTheRedisProfileNothingConnectsToRedis() {
        assertThat(context.getBeanNamesForType(RedisConnectionFactory.class)).isEmpty();
        assertThat(context.getBeanNamesForType(MonotonicCache.class)).isEmpty();
    }

    @Test
    void incrementsAndReadsOverHttp() {
        http.post()
                .uri("/counters/page-views/increment")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .json("{\"name\":\"page-views\",\"value\":1}");
        http.post()
                .uri("/counters/page-views/increment?by=41")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .json("{\"name\":\"page-views\",\"value\":42}");
        http.get()
                .uri("/counters/page-views")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .json("{\"name\":\"page-views\",\"value\":42}");
        http.get()
                .uri("/counters?names=page-views,likes")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .json("{\"page-views\":42,\"likes\":0}");
    }

    @Test
    void badInputIsABadRequestAndWritesNothing() {
        String body = http.post()
                .uri("/counters/{name}/increment", "bad name")
                .exchange()
                .expectStatus()
                .isBadRequest()
                .expectBody(String.class)
                .returnResult()
                .getResponseBody();
        assertThat(body).contains("' ' at index 3");
        http.post()
                .uri("/counters/likes/increment?by=0")
                .exchange()
                .expectStatus()
                .isBadRequest();
        http.get().uri("/counters/likes").exchange().expectBody().json("{\"name\":\"likes\",\"value\":0}");
    }
}
