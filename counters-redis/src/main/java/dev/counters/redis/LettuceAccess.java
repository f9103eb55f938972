package dev.counters.redis;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** {@link RedisAccess} over a Lettuce connection, with its command timeout. */
final class LettuceAccess implements RedisAccess {

    private static final Pattern SERVER_ADDRESS = Pattern.compile("\\bladdr=(\\S+)");

    private final RedisCommands<String, String> commands;
    /**
     * Lettuce does not expose the address of a connection: it tells it on every reconnect, and the server tells it
     * now (CLIENT INFO's {@code laddr}, asked without waiting; unknown if that fails).
     */
    private volatile String endpoint = "(endpoint unknown)";

    LettuceAccess(StatefulRedisConnection<String, String> connection) {
        this.commands = Objects.requireNonNull(connection, "connection").sync();
        connection.addListener(new RedisConnectionStateListener() {
            @Override
            public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress address) {
                endpoint = address.toString();
            }
        });
        connection.async().clientInfo().thenAccept(info -> {
            Matcher address = SERVER_ADDRESS.matcher(info);
            if (address.find() && endpoint.startsWith("(")) {
                endpoint = address.group(1);
            }
        });
    }

    @Override
    public List<@Nullable String> eval(Script script, List<String> scriptKeys, String... args) {
        String[] keys = scriptKeys.toArray(String[]::new);
        Object reply;
        try {
            reply = commands.evalsha(script.sha1(), ScriptOutputType.MULTI, keys, args);
        } catch (RedisNoScriptException e) {
            reply = commands.eval(script.source(), ScriptOutputType.MULTI, keys, args);
        }
        return Replies.strings(reply);
    }

    @Override
    public @Nullable String get(String key) {
        return commands.get(key);
    }

    @Override
    public List<@Nullable String> mget(List<String> keys) {
        List<@Nullable String> values = new ArrayList<>(keys.size());
        for (KeyValue<String, String> value : commands.mget(keys.toArray(String[]::new))) {
            values.add(value.hasValue() ? value.getValue() : null);
        }
        return values;
    }

    @Override
    public void set(String key, String value, long expiryMillis) {
        commands.set(key, value, SetArgs.Builder.px(expiryMillis));
    }

    @Override
    public @Nullable String hget(String key, String field) {
        return commands.hget(key, field);
    }

    @Override
    public void del(String key) {
        commands.del(key);
    }

    @Override
    public @Nullable String config(String parameter) {
        Map<String, String> config = commands.configGet(parameter);
        return config.get(parameter);
    }

    @Override
    public String endpoint() {
        return endpoint;
    }
}
