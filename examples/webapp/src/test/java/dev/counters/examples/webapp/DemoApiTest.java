package dev.counters.examples.webapp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.HttpMethod;
import org.springframework.test.json.JsonCompareMode;
import org.springframework.test.web.servlet.client.RestTestClient;

/**
 * The demo API and page over HTTP, on an in-memory H2 database of their own. Each test uses articles of its own, only
 * {@link #ordersGetUniqueIncreasingNumbersAndAreCounted()} places orders and only
 * {@link #aDeclinedPaymentRollsBackItsCountAndItsInvoiceNumber()} pays, so the exact values hold in any order.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.datasource.url=jdbc:h2:mem:demo-api-test;DB_CLOSE_DELAY=-1")
@AutoConfigureRestTestClient
class DemoApiTest {

    /** The header the page sends: each test that likes is a visitor of its own, with 5 likes a minute. */
    private static final String VISITOR = "X-Visitor";

    @Autowired
    private RestTestClient http;

    @Autowired
    private CounterService counters;

    @Test
    void viewsAndLikesAnswerTheNewTotalAndShowInTheStats() {
        for (int i = 1; i <= 3; i++) {
            http.post()
                    .uri("/api/articles/intro/view")
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody()
                    .json("{\"article\":\"intro\",\"views\":" + i + "}");
        }
        for (int i = 1; i <= 2; i++) {
            // Buffered: the like is in memory, and reads on this node already include it.
            http.post()
                    .uri("/api/articles/intro/like")
                    .header(VISITOR, "likes-and-views")
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody()
                    .json("{\"article\":\"intro\",\"likes\":" + i + "}");
        }
        http.post()
                .uri("/api/articles/other/like")
                .header(VISITOR, "likes-and-views")
                .exchange()
                .expectStatus()
                .isOk();

        http.get()
                .uri("/api/stats?articles=intro,other,never-seen")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .json("""
                        {"articles": {
                            "intro": {"views": 3, "likes": 2},
                            "other": {"views": 0, "likes": 1},
                            "never-seen": {"views": 0, "likes": 0}}}
                        """);
    }

    /**
     * A like of the toggle sets a state: repeated, it changes nothing, and the count is the number of visitors who
     * like the article, as the stats say to each of them.
     */
    @Test
    void aVisitorsLikeIsAStateThatRepeatsDoNotCountTwice() {
        for (int i = 0; i < 2; i++) {
            liked("PUT", "toggled", "ann").json("{\"article\":\"toggled\",\"liked\":true,\"likedBy\":1}");
        }
        liked("PUT", "toggled", "bob").json("{\"liked\":true,\"likedBy\":2}");
        for (int i = 0; i < 2; i++) {
            liked("DELETE", "toggled", "ann").json("{\"liked\":false,\"likedBy\":1}");
        }
        liked("DELETE", "toggled", "carl").json("{\"liked\":false,\"likedBy\":1}");
        assertThat(counters.members(new ArticleId("toggled").likedByCounter()).members(null, 10))
                .containsExactly("bob");
        assertThat(counters.counter("liked-by.toggled").strategy()).isEqualTo("sharded");

        http.get()
                .uri("/api/stats?articles=toggled")
                .header(VISITOR, "bob")
                .exchange()
                .expectBody()
                .json("{\"articles\": {\"toggled\": {\"likedBy\": 1, \"liked\": true}}}");
        http.get()
                .uri("/api/stats?articles=toggled")
                .header(VISITOR, "ann")
                .exchange()
                .expectBody()
                .json("{\"articles\": {\"toggled\": {\"likedBy\": 1, \"liked\": false}}}");
    }

    @Test
    void aLikeWithoutAVisitorOrWithABadOneIsRefusedAndChangesNothing() {
        http.put().uri("/api/articles/unliked/liked").exchange().expectStatus().isBadRequest();
        http.put()
                .uri("/api/articles/unliked/liked")
                .header(VISITOR, "two words")
                .exchange()
                .expectStatus()
                .isBadRequest();
        assertThat(counters.get("liked-by.unliked")).isZero();
    }

    private RestTestClient.BodyContentSpec liked(String method, String article, String visitor) {
        return http.method(HttpMethod.valueOf(method))
                .uri("/api/articles/" + article + "/liked")
                .header(VISITOR, visitor)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody();
    }

    @Test
    void readsAreCountedPerWindowForTheChart() {
        long before = counters.windowed(StatsController.READS).current();
        http.post().uri("/api/articles/charted/view").exchange().expectStatus().isOk();
        http.get()
                .uri("/api/stats")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.readsPerWindow.length()")
                .isEqualTo(StatsController.CHART_WINDOWS)
                .jsonPath("$.readsPerWindow[23].start")
                .isNotEmpty();
        // The window may have turned between the two reads: then the view is in the window before.
        List<Long> lastTwo = counters.windowed(StatsController.READS).last(2).stream()
                .map(dev.counters.WindowedCounter.Window::value)
                .toList();
        assertThat(lastTwo.get(1) == before + 1 || lastTwo.get(0) >= 1).isTrue();
        assertThat(counters.counter(StatsController.READS).strategy()).isEqualTo("sharded");
    }

    @Test
    void countersUseTheStrategiesConfiguredInApplicationYml() {
        http.post()
                .uri("/api/articles/configured/view")
                .exchange()
                .expectStatus()
                .isOk();
        http.post()
                .uri("/api/articles/configured/like")
                .header(VISITOR, "configured")
                .exchange()
                .expectStatus()
                .isOk();

        assertThat(counters.counter("page-views.configured").strategy()).isEqualTo("sharded");
        assertThat(counters.counter("likes.configured").strategy()).isEqualTo("buffered");
        assertThat(counters.counter(OrderController.ORDERS).strategy()).isEqualTo("atomic");
        // One view, so one shard row written: s0, s1, ... whichever the random selection chose.
        assertThat(counters.admin().cells("page-views.configured")).hasSize(1).allSatisfy((cell, value) -> {
            assertThat(cell).matches("s\\d+");
            assertThat(value).isEqualTo(1L);
        });
    }

    /** The only test that touches the flash sale's stock (20 at the start, application.yml). */
    @Test
    void theFlashSaleHoldsSellsAndRefusesOnceSoldOut() {
        assertThat(counters.counter(FlashSaleController.STOCK).strategy()).isEqualTo("bounded");
        http.get().uri("/api/flash-sale").exchange().expectBody().json("{\"left\": 20, \"held\": 0, \"sold\": 0}");

        // A hold, and its repeat under the same key (a double click): one unit held.
        for (int i = 0; i < 2; i++) {
            http.post()
                    .uri("/api/flash-sale/holds?key=first")
                    .exchange()
                    .expectStatus()
                    .isCreated()
                    .expectBody()
                    .json("{\"key\": \"first\", \"status\": \"HELD\", \"left\": 19}");
        }
        http.get().uri("/api/flash-sale").exchange().expectBody().json("{\"left\": 19, \"held\": 1, \"sold\": 0}");

        // Paid, twice (a retried request): sold once; a release after it changes nothing.
        for (int i = 0; i < 2; i++) {
            http.post()
                    .uri("/api/flash-sale/holds/first/confirm")
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody()
                    .json("{\"status\": \"CONFIRMED\"}");
        }
        http.post()
                .uri("/api/flash-sale/holds/first/release")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .json("{\"status\": \"CONFIRMED\"}");
        http.get().uri("/api/flash-sale").exchange().expectBody().json("{\"left\": 19, \"held\": 0, \"sold\": 1}");

        // Cancelled: back for sale.
        http.post()
                .uri("/api/flash-sale/holds?key=second")
                .exchange()
                .expectStatus()
                .isCreated();
        http.post()
                .uri("/api/flash-sale/holds/second/release")
                .exchange()
                .expectBody()
                .json("{\"status\": \"RELEASED\", \"left\": 19}");

        // Sold out: the 20th hold is the last, the next is refused with nothing held.
        for (int i = 0; i < 19; i++) {
            http.post()
                    .uri("/api/flash-sale/holds?key=bulk-" + i)
                    .exchange()
                    .expectStatus()
                    .isCreated();
        }
        http.post()
                .uri("/api/flash-sale/holds?key=too-late")
                .exchange()
                .expectStatus()
                .isEqualTo(409)
                .expectBody()
                .json("{\"status\": \"REFUSED\", \"left\": 0}");
        http.get().uri("/api/flash-sale").exchange().expectBody().json("{\"left\": 0, \"held\": 19, \"sold\": 1}");

        http.post()
                .uri("/api/flash-sale/holds/never-held/confirm")
                .exchange()
                .expectStatus()
                .isBadRequest();
        http.post()
                .uri("/api/flash-sale/restock?units=5")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .json("{\"left\": 5, \"held\": 19}");
    }

    @Test
    void ordersGetUniqueIncreasingNumbersAndAreCounted() {
        List<Long> orderNumbers = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            OrderController.PlacedOrder order = http.post()
                    .uri("/api/orders")
                    .exchange()
                    .expectStatus()
                    .isCreated()
                    .expectBody(OrderController.PlacedOrder.class)
                    .returnResult()
                    .getResponseBody();
            assertThat(order.orders()).isEqualTo(i);
            orderNumbers.add(order.orderNumber());
        }
        // A fresh database: the sequence starts at 1 and this one caller gets consecutive numbers from its block.
        assertThat(orderNumbers).containsExactly(1L, 2L, 3L, 4L, 5L);

        // A request repeated with its Idempotency-Key counts once, and answers what the first answered.
        for (int i = 0; i < 3; i++) {
            http.post()
                    .uri("/api/orders")
                    .header("Idempotency-Key", "checkout-attempt-42")
                    .exchange()
                    .expectStatus()
                    .isCreated()
                    .expectBody()
                    .json("{\"orders\":6}", JsonCompareMode.LENIENT);
        }

        http.get()
                .uri("/api/stats")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .json("{\"articles\":{},\"orders\":6}", JsonCompareMode.LENIENT);
    }

    @Test
    void aDeclinedPaymentRollsBackItsCountAndItsInvoiceNumber() {
        http.post()
                .uri("/api/checkout?declined=true")
                .exchange()
                .expectStatus()
                .isEqualTo(402)
                .expectBody()
                .jsonPath("$.detail")
                .value(detail -> assertThat((String) detail)
                        .contains("declined")
                        .contains("invoice #1")
                        .contains("rolled back"));
        assertThat(counters.getExact(Checkout.PAID_ORDERS))
                .as("the count went with the transaction")
                .isZero();

        Checkout.Paid paid = http.post()
                .uri("/api/checkout")
                .exchange()
                .expectStatus()
                .isCreated()
                .expectBody(Checkout.Paid.class)
                .returnResult()
                .getResponseBody();
        assertThat(paid.invoiceNumber())
                .as("gapless: the declined payment's number is taken again")
                .isEqualTo(1);
        assertThat(paid.paidOrders()).isEqualTo(1);
    }

    @Test
    void aDurableLikeIsInTheDatabaseWhenItAnswers() {
        http.post()
                .uri("/api/articles/durable/like?durable=true")
                .header(VISITOR, "durable")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .json("{\"article\":\"durable\",\"likes\":1}");
        assertThat(counters.admin().cells("likes.durable").values()).containsExactly(1L);
        http.get()
                .uri("/api/stats?articles=durable")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .json("{\"articles\": {\"durable\": {\"likes\": 1, \"likesInDatabase\": 1}}}");
    }

    @Test
    void badIdsAreBadRequestsAndCountNothing() {
        String body = http.post()
                .uri("/api/articles/{id}/view", "no spaces")
                .exchange()
                .expectStatus()
                .isBadRequest()
                .expectBody(String.class)
                .returnResult()
                .getResponseBody();
        assertThat(body).contains("\"status\":400").contains("Article id 'no spaces' must be 1 to 64");
        http.post()
                .uri("/api/articles/{id}/like", "x".repeat(65))
                .header(VISITOR, "bad-ids")
                .exchange()
                .expectStatus()
                .isBadRequest();
        http.post()
                .uri("/api/articles/{id}/like", "a.b")
                .header(VISITOR, "bad-ids")
                .exchange()
                .expectStatus()
                .isBadRequest();
        http.get()
                .uri("/api/stats?articles=fine,not*fine")
                .exchange()
                .expectStatus()
                .isBadRequest()
                .expectBody()
                .jsonPath("$.detail")
                .isEqualTo("Article id 'not*fine' must be 1 to 64 ASCII letters, digits, '_' or '-'");

        String tooMany = String.join(
                ",",
                IntStream.rangeClosed(0, StatsController.MAX_ARTICLES)
                        .mapToObj(i -> "a" + i)
                        .toList());
        http.get()
                .uri("/api/stats?articles=" + tooMany)
                .exchange()
                .expectStatus()
                .isBadRequest()
                .expectBody()
                .jsonPath("$.detail")
                .isEqualTo("At most 100 articles at once, got 101");

        // "a.b" would be a valid counter name: the API's own check refused it before anything was counted.
        assertThat(counters.get("likes.a.b")).isZero();
    }

    @Test
    void thePageIsServedAndPollsTheStats() {
        for (String path : List.of("/", "/index.html")) {
            String page = http.get()
                    .uri(path)
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody(String.class)
                    .returnResult()
                    .getResponseBody();
            assertThat(page)
                    .contains("<title>counters example</title>")
                    .contains("fetch(url")
                    .contains("/api/stats?articles=")
                    .contains("/api/flash-sale")
                    .contains("setInterval(poll, POLL_MILLIS)")
                    .contains("const POLL_MILLIS = 1000;")
                    .doesNotContain("<script src=");
        }
    }

    @Test
    void healthShowsTheDatabaseInDetail() {
        http.get()
                .uri("/actuator/health")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.components.db.status")
                .isEqualTo("UP")
                .jsonPath("$.components.db.details.database")
                .isEqualTo("H2");
    }
}
