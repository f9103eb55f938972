package dev.counters.examples.compat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import dev.counters.jdbc.testing.EmbeddedMariaDb;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.flywaydb.core.Flyway;
import org.jooq.DSLContext;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The application on the Java, Spring Boot, jOOQ and Flyway its build chose (the versions it expects come from its
 * pom), against a real MariaDB server: visits counted through HTTP requests are stored and read back.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class CompatApplicationTest {

    @DynamicPropertySource
    static void mariaDb(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", () -> EmbeddedMariaDb.shared().jdbcUrl());
        registry.add("spring.datasource.username", () -> EmbeddedMariaDb.USER);
    }

    @LocalServerPort
    int port;

    @Autowired
    CounterService counters;

    @Test
    void runsOnTheVersionsItsBuildChose() {
        assertThat(Runtime.version().feature()).as("Java").isEqualTo(17);
        assertThat(SpringBootVersion.getVersion()).isEqualTo(System.getProperty("compat.boot"));
        assertThat(jarOf(DSLContext.class)).startsWith("jooq-" + System.getProperty("compat.jooq") + ".");
        assertThat(jarOf(Flyway.class)).startsWith("flyway-core-" + System.getProperty("compat.flyway") + ".");
    }

    @Test
    void countsVisitsInMariaDb() throws Exception {
        assertThat(post("/visits/home")).isEqualTo("1");
        assertThat(post("/visits/home")).isEqualTo("2");
        assertThat(post("/visits/about")).isEqualTo("1");
        assertThat(post("/visits/home")).isEqualTo("3");
        assertThat(get("/visits/home")).isEqualTo("3");
        assertThat(counters.getExact("visits.home")).isEqualTo(3);
        assertThat(counters.getExact("visits.about")).isEqualTo(1);
    }

    private String post(String path) throws Exception {
        return send(HttpRequest.newBuilder(uri(path))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());
    }

    private String get(String path) throws Exception {
        return send(HttpRequest.newBuilder(uri(path)).GET().build());
    }

    private String send(HttpRequest request) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + port + path);
    }

    /** The file name of the jar a class was loaded from: jooq-3.19.35.jar. */
    private static String jarOf(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain()
                            .getCodeSource()
                            .getLocation()
                            .toURI())
                    .getFileName()
                    .toString();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
