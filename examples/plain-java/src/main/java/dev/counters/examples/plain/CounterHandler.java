package dev.counters.examples.plain;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.sun.net.httpserver.HttpExchange;
import dev.counters.CounterService;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLDecoder;
import java.util.Arrays;
import java.util.List;

/**
 * {@code POST /counters/{name}/increment[?by=n]} adds {@code n} (1 unless given) and answers the new value;
 * {@code GET /counters/{name}} answers the value. Both as {@code {"name":"...","value":...}}.
 */
final class CounterHandler extends JsonHandler {

    static final String PATH = "/counters/";

    private final CounterService counters;

    CounterHandler(CounterService counters) {
        this.counters = counters;
    }

    @Override
    Reply reply(HttpExchange exchange) {
        URI uri = exchange.getRequestURI();
        List<String> segments = segmentsAfterPath(uri);
        if (segments.size() == 1) {
            requireMethod(exchange, "GET");
            String name = segments.get(0);
            return counterValue(name, counters.get(name));
        }
        if (segments.size() == 2 && segments.get(1).equals("increment")) {
            requireMethod(exchange, "POST");
            String name = segments.get(0);
            return counterValue(name, counters.incrementAndGet(name, by(uri)));
        }
        throw HttpProblem.notFound(uri.getPath());
    }

    private static Reply counterValue(String name, long value) {
        return new Reply(
                HttpURLConnection.HTTP_OK, new JsonObject().add("name", name).add("value", value));
    }

    /**
     * The decoded path segments after {@link #PATH}, split before decoding so that an encoded {@code /} stays in its
     * segment (and is then refused as part of a name).
     */
    private static List<String> segmentsAfterPath(URI uri) {
        String rest = uri.getRawPath().substring(PATH.length());
        // URLDecoder decodes form data, where '+' means a space; in a path it is a '+'.
        return Arrays.stream(rest.split("/", -1))
                .map(segment -> URLDecoder.decode(segment.replace("+", "%2B"), UTF_8))
                .toList();
    }

    /** The {@code by} query parameter; 1 when absent. */
    private static long by(URI uri) {
        String query = uri.getRawQuery();
        if (query == null) {
            return 1;
        }
        for (String parameter : query.split("&", -1)) {
            if (parameter.startsWith("by=")) {
                String value = URLDecoder.decode(parameter.substring("by=".length()), UTF_8);
                try {
                    return Long.parseLong(value);
                } catch (NumberFormatException e) {
                    throw HttpProblem.badRequest("Query parameter 'by' must be a whole number, was '" + value + "'");
                }
            }
        }
        return 1;
    }
}
