package dev.counters.examples.plain;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.counters.CounterOverflowException;
import java.io.IOException;
import java.net.HttpURLConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A handler that answers in JSON, and answers refusals too: an {@link HttpProblem} with its status, and the library's
 * {@link IllegalArgumentException} or {@link CounterOverflowException} (a bad name or delta, an overflow: checked before
 * anything is written) with 400 and the library's message, as {@code {"error":"..."}}.
 */
abstract class JsonHandler implements HttpHandler {

    private static final Logger LOG = LoggerFactory.getLogger(JsonHandler.class);

    /** A status and the JSON body that goes with it. */
    record Reply(int status, JsonObject body) {

        static Reply error(int status, String message) {
            return new Reply(status, new JsonObject().add("error", message));
        }
    }

    /** The reply to a request; throws to refuse it. */
    abstract Reply reply(HttpExchange exchange);

    @Override
    public final void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            send(exchange, replyOrRefusal(exchange));
        }
    }

    private Reply replyOrRefusal(HttpExchange exchange) {
        try {
            return reply(exchange);
        } catch (HttpProblem e) {
            if (e.allowedMethod() != null) {
                exchange.getResponseHeaders().set("Allow", e.allowedMethod());
            }
            return Reply.error(e.status(), e.getMessage());
        } catch (IllegalArgumentException | CounterOverflowException e) {
            return Reply.error(HttpURLConnection.HTTP_BAD_REQUEST, e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("{} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
            return Reply.error(HttpURLConnection.HTTP_INTERNAL_ERROR, "Internal error; the server's log has the cause");
        }
    }

    private static void send(HttpExchange exchange, Reply reply) throws IOException {
        byte[] body = reply.body().toString().getBytes(UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        if (exchange.getRequestMethod().equals("HEAD")) {
            exchange.sendResponseHeaders(reply.status(), -1); // a reply to HEAD has no body
            return;
        }
        exchange.sendResponseHeaders(reply.status(), body.length);
        exchange.getResponseBody().write(body);
    }

    static void requireMethod(HttpExchange exchange, String method) {
        if (!exchange.getRequestMethod().equals(method)) {
            throw HttpProblem.methodNotAllowed(exchange.getRequestMethod(), method);
        }
    }
}
