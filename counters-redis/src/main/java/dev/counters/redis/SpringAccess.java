package dev.counters.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@link RedisAccess} over a Spring Data Redis connection factory (the one Spring Boot configures from
 * {@code spring.data.redis.*}), with its command timeout. A connection per call: Lettuce's factory hands out one
 * shared native connection, so this costs no connect.
 */
final class SpringAccess implements RedisAccess {

    private final RedisConnectionFactory factory;
    private final String endpoint;

    SpringAccess(RedisConnectionFactory factory) {
        this.factory = Objects.requireNonNull(factory, "connectionFactory");
        this.endpoint = factory instanceof LettuceConnectionFactory lettuce
                ? lettuce.getHostName() + ":" + lettuce.getPort()
                : "(endpoint unknown)";
    }

    @Override
    public List<@Nullable String> eval(Script script, List<String> keys, String... args) {
        byte[][] keysAndArgs = new byte[keys.size() + args.length][];
        for (int i = 0; i < keys.size(); i++) {
            keysAndArgs[i] = bytes(keys.get(i));
        }
        for (int i = 0; i < args.length; i++) {
            keysAndArgs[keys.size() + i] = bytes(args[i]);
        }
        try (RedisConnection connection = factory.getConnection()) {
            Object reply;
            try {
                reply = connection
                        .scriptingCommands()
                        .evalSha(script.sha1(), ReturnType.MULTI, keys.size(), keysAndArgs);
            } catch (DataAccessException e) {
                if (!Script.isNoScript(e)) {
                    throw e;
                }
                reply = connection
                        .scriptingCommands()
                        .eval(bytes(script.source()), ReturnType.MULTI, keys.size(), keysAndArgs);
            }
            return Replies.strings(reply);
        }
    }

    @Override
    public @Nullable String get(String key) {
        try (RedisConnection connection = factory.getConnection()) {
            return string(connection.stringCommands().get(bytes(key)));
        }
    }

    @Override
    public List<@Nullable String> mget(List<String> keys) {
        try (RedisConnection connection = factory.getConnection()) {
            List<byte[]> replies = connection
                    .stringCommands()
                    .mGet(keys.stream().map(SpringAccess::bytes).toArray(byte[][]::new));
            List<@Nullable String> values = new ArrayList<>(keys.size());
            for (int i = 0; i < keys.size(); i++) {
                values.add(replies == null ? null : string(replies.get(i)));
            }
            return values;
        }
    }

    @Override
    public void set(String key, String value, long expiryMillis) {
        try (RedisConnection connection = factory.getConnection()) {
            // PSETEX, the same as SET PX, in every version of Spring Data Redis (SET's options changed in 4.1)
            connection.stringCommands().pSetEx(bytes(key), expiryMillis, bytes(value));
        }
    }

    @Override
    public @Nullable String hget(String key, String field) {
        try (RedisConnection connection = factory.getConnection()) {
            return string(connection.hashCommands().hGet(bytes(key), bytes(field)));
        }
    }

    @Override
    public void del(String key) {
        try (RedisConnection connection = factory.getConnection()) {
            connection.keyCommands().del(bytes(key));
        }
    }

    @Override
    public @Nullable String config(String parameter) {
        try (RedisConnection connection = factory.getConnection()) {
            Properties config = connection.serverCommands().getConfig(parameter);
            return config == null ? null : config.getProperty(parameter);
        }
    }

    @Override
    public String endpoint() {
        return endpoint;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static @Nullable String string(byte @Nullable [] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }
}
