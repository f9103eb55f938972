package dev.counters.redis.testing;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Clients of a {@link RedisServer} as an application would configure them: a short command timeout (what
 * docs/redis.md recommends instead of Lettuce's 60 seconds), and reconnect attempts every 100 ms so that a test does
 * not wait out Lettuce's exponential backoff after a restart.
 */
public final class RedisClients {

    /** The command timeout of the tests' clients. */
    public static final Duration TIMEOUT = Duration.ofMillis(500);

    private RedisClients() {}

    /** A plain Lettuce client and one connection of strings. */
    public record Lettuce(
            ClientResources resources, RedisClient client, StatefulRedisConnection<String, String> connection)
            implements AutoCloseable {

        @Override
        public void close() {
            connection.close();
            client.shutdown();
            resources.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    /** Spring Data Redis's Lettuce connection factory, started. */
    public record Spring(ClientResources resources, LettuceConnectionFactory factory) implements AutoCloseable {

        @Override
        public void close() {
            factory.destroy();
            resources.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    public static Lettuce lettuce(RedisServer server) {
        return lettuce(server.host(), server.port(), TIMEOUT);
    }

    public static Lettuce lettuce(String host, int port, Duration timeout) {
        ClientResources resources = resources();
        RedisClient client = RedisClient.create(
                resources,
                RedisURI.builder()
                        .withHost(host)
                        .withPort(port)
                        .withTimeout(timeout)
                        .build());
        return new Lettuce(resources, client, client.connect());
    }

    public static Spring spring(RedisServer server) {
        ClientResources resources = resources();
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(server.host(), server.port()),
                LettuceClientConfiguration.builder()
                        .commandTimeout(TIMEOUT)
                        .clientResources(resources)
                        .build());
        factory.afterPropertiesSet();
        factory.start();
        return new Spring(resources, factory);
    }

    private static ClientResources resources() {
        return ClientResources.builder()
                .reconnectDelay(Delay.constant(Duration.ofMillis(100)))
                .build();
    }
}
