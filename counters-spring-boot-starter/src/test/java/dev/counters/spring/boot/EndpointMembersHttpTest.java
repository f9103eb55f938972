package dev.counters.spring.boot;

import dev.counters.CounterService;
import dev.counters.MembershipCounter;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.web.servlet.client.RestTestClient;

/** A membership counter in {@code /actuator/counters} over HTTP, on the application's database. */
@SpringBootTest(
        classes = EndpointApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.generate-unique-name=true",
            "management.endpoints.web.exposure.include=counters",
            "management.endpoint.counters.show-values=always",
            "counters.counters.[post.*.likes].strategy=sharded",
            "counters.counters.[post.*.likes].members=true"
        })
@AutoConfigureRestTestClient
class EndpointMembersHttpTest {

    @Autowired
    RestTestClient http;

    @Autowired
    CounterService counters;

    @Test
    void readsTheCountAPageOfMembersAndWhetherOneIsAMember() {
        MembershipCounter likes = counters.members("post.7.likes");
        likes.add("ann");
        likes.add("bob");

        http.get()
                .uri("/actuator/counters/post.7.likes")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .json("{\"name\":\"post.7.likes\",\"strategy\":\"sharded\",\"members\":true,\"value\":2}");
        http.get()
                .uri("/actuator/counters/members/post.7.likes")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .json("{\"name\":\"post.7.likes\",\"count\":2,\"members\":[\"ann\",\"bob\"]}");
        http.get()
                .uri("/actuator/counters/members/post.7.likes?member=bob")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .json("{\"member\":\"bob\",\"contains\":true,\"count\":2}");
        http.get()
                .uri("/actuator/counters/members/post.7.views")
                .exchange()
                .expectStatus()
                .isNotFound();
        http.get()
                .uri("/actuator/counters/likers/post.7.likes")
                .exchange()
                .expectStatus()
                .isBadRequest();
    }
}
