package dev.counters.redis;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The few Redis commands the caches use, over whichever client the application has: Lettuce ({@link LettuceAccess})
 * or Spring Data Redis ({@link SpringAccess}). Methods throw the client's own exceptions; the caches translate them.
 */
interface RedisAccess {

    /**
     * Runs {@code script} on {@code key} (EVALSHA, falling back to EVAL when the server does not have it yet). Every
     * script of this module replies with a flat array; integers and bulk strings both come back as strings.
     */
    default List<@Nullable String> eval(Script script, String key, String... args) {
        return eval(script, List.of(key), args);
    }

    /** {@link #eval(Script, String, String...)} on several keys. */
    List<@Nullable String> eval(Script script, List<String> keys, String... args);

    @Nullable
    String get(String key);

    /** One value per key, null for those absent. */
    List<@Nullable String> mget(List<String> keys);

    /** SET with PX. */
    void set(String key, String value, long expiryMillis);

    @Nullable
    String hget(String key, String field);

    void del(String key);

    /** CONFIG GET of one parameter, null if the server has no such parameter. */
    @Nullable
    String config(String parameter);

    /** Where the server is, for messages; {@code "(endpoint unknown)"} when the client does not tell. */
    String endpoint();
}
