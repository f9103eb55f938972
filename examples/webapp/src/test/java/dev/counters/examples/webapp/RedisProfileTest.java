package dev.counters.examples.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.redis.RedisMonotonicCache;
import dev.counters.redis.testing.RedisServer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

/** The redis profile, on a real redis-server: ticket ids come from the shared cache, and health shows it. */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.datasource.url=jdbc:h2:mem:example-redis-test;DB_CLOSE_DELAY=-1")
@ActiveProfiles("redis")
@AutoConfigureRestTestClient
class RedisProfileTest {

    private static final RedisServer REDIS = RedisServer.shared();

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry properties) {
        properties.add("spring.data.redis.port", REDIS::port);
    }

    @Autowired
    private RestTestClient http;

    @Autowired
    private ApplicationContext context;

    @Test
    void ticketIdsComeFromRedis() {
        assertThat(context.getBeansOfType(RedisMonotonicCache.class)).hasSize(1);
        http.post()
                .uri("/counters/ticket-ids.main/increment")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .json("{\"name\":\"ticket-ids.main\",\"value\":1}");
        http.post()
                .uri("/counters/ticket-ids.main/increment")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .json("{\"name\":\"ticket-ids.main\",\"value\":2}");
        assertThat((String) REDIS.command("HGET", "counters-example:monotonic:ticket-ids.main", "v"))
                .isEqualTo("2");
        http.get()
                .uri("/actuator/health")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.components.counters.details.sharedCaches['counters-monotonic-cache[ticket-ids.*]']")
                .isEqualTo("CLOSED");
    }
}
