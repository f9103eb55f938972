package dev.counters.examples.plain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import dev.counters.jdbc.JooqCounterStore;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Starts the example on a free port and an in-memory H2 database of each test's own, and uses it over HTTP. */
class PlainJavaExampleTest {

    private final HttpClient http = HttpClient.newHttpClient();
    // DB_CLOSE_DELAY=-1: the database outlives the example's connections, so a test can look at it after close.
    private final String jdbcUrl = "jdbc:h2:mem:plain-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    private PlainJavaExample example;

    @BeforeEach
    void start() throws IOException {
        example = PlainJavaExample.start(0, jdbcUrl);
    }

    @AfterEach
    void stop() {
        example.close();
    }

    @Test
    void incrementsAndReadsOverHttp() throws Exception {
        assertThat(call("POST", "/counters/downloads/increment"))
                .isEqualTo(new Reply(200, "{\"name\":\"downloads\",\"value\":1}"));
        assertThat(call("POST", "/counters/downloads/increment?by=41"))
                .isEqualTo(new Reply(200, "{\"name\":\"downloads\",\"value\":42}"));
        assertThat(call("POST", "/counters/downloads/increment?by=-2"))
                .isEqualTo(new Reply(200, "{\"name\":\"downloads\",\"value\":40}"));
        assertThat(call("GET", "/counters/downloads"))
                .isEqualTo(new Reply(200, "{\"name\":\"downloads\",\"value\":40}"));
        assertThat(call("GET", "/counters/never-incremented"))
                .isEqualTo(new Reply(200, "{\"name\":\"never-incremented\",\"value\":0}"));
    }

    @Test
    void eachStrategyCountsExactlyOnThisNode() throws Exception {
        for (String name : List.of("page-views.home", "likes.post-1", "downloads")) {
            for (int i = 1; i <= 3; i++) {
                assertThat(call("POST", "/counters/" + name + "/increment?by=10"))
                        .isEqualTo(new Reply(200, "{\"name\":\"" + name + "\",\"value\":" + (10 * i) + "}"));
            }
        }
    }

    @Test
    void badRequestsAreRefusedWithAMessageAndChangeNothing() throws Exception {
        Reply badName = call("POST", "/counters/bad%20name/increment");
        assertThat(badName.status()).isEqualTo(400);
        assertThat(badName.body()).startsWith("{\"error\":\"Counter name 'bad name' contains ' ' at index 3");
        assertThat(call("POST", "/counters/a%2Fb/increment").body()).contains("contains '/' at index 1");

        assertThat(call("POST", "/counters/downloads/increment?by=0").status()).isEqualTo(400);
        assertThat(call("POST", "/counters/downloads/increment?by=lots"))
                .isEqualTo(new Reply(400, "{\"error\":\"Query parameter 'by' must be a whole number, was 'lots'\"}"));
        assertThat(call("POST", "/counters/downloads/increment?by=" + Long.MAX_VALUE)
                        .status())
                .isEqualTo(200);
        assertThat(call("POST", "/counters/downloads/increment").status()).isEqualTo(400); // would overflow
        assertThat(call("GET", "/counters/downloads").body()).contains("\"value\":" + Long.MAX_VALUE);

        assertThat(call("GET", "/counters/downloads/increment").status()).isEqualTo(405);
        assertThat(call("DELETE", "/counters/downloads"))
                .isEqualTo(new Reply(405, "{\"error\":\"DELETE is not allowed here, only GET\"}"));
        assertThat(call("GET", "/orders").status()).isEqualTo(405);
        assertThat(call("GET", "/counters/downloads/reset").status()).isEqualTo(404);
        assertThat(call("POST", "/orders/1").status()).isEqualTo(404);
        assertThat(call("GET", "/elsewhere").status()).isEqualTo(404);
    }

    @Test
    void methodNotAllowedNamesTheAllowedMethod() throws Exception {
        HttpResponse<String> response = send("PUT", "/counters/downloads/increment");
        assertThat(response.statusCode()).isEqualTo(405);
        assertThat(response.headers().firstValue("Allow")).hasValue("POST");
    }

    @Test
    void orderNumbersAreUniqueAndIncreasing() throws Exception {
        List<Reply> orders = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            orders.add(call("POST", "/orders"));
        }
        // A fresh database, one caller: consecutive numbers from the first block.
        assertThat(orders)
                .containsExactly(
                        new Reply(201, "{\"orderNumber\":1}"),
                        new Reply(201, "{\"orderNumber\":2}"),
                        new Reply(201, "{\"orderNumber\":3}"),
                        new Reply(201, "{\"orderNumber\":4}"),
                        new Reply(201, "{\"orderNumber\":5}"));
    }

    @Test
    void closingWritesBufferedIncrementsToTheDatabase() throws Exception {
        for (int i = 0; i < 7; i++) {
            call("POST", "/counters/likes.post-1/increment");
        }
        call("POST", "/counters/likes.post-2/increment?by=5");
        assertThat(call("GET", "/counters/likes.post-1").body()).contains("\"value\":7");

        example.close();

        // A second process's view: the durable rows only, no buffer of its own.
        JdbcConnectionPool pool = JdbcConnectionPool.create(jdbcUrl, "sa", "");
        try (CounterService reader =
                CounterService.builder(JooqCounterStore.builder(pool).build()).build()) {
            assertThat(reader.get(List.of("likes.post-1", "likes.post-2")))
                    .containsEntry("likes.post-1", 7L)
                    .containsEntry("likes.post-2", 5L);
        } finally {
            pool.dispose();
        }
    }

    record Reply(int status, String body) {}

    private Reply call(String method, String path) throws IOException, InterruptedException {
        HttpResponse<String> response = send(method, path);
        return new Reply(response.statusCode(), response.body());
    }

    private HttpResponse<String> send(String method, String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + example.port() + path))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
