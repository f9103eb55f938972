package dev.counters.examples.plain;

import com.sun.net.httpserver.HttpExchange;
import dev.counters.sequence.SequenceService;
import java.net.HttpURLConnection;

/**
 * {@code POST /orders}: the next order number, as {@code {"orderNumber":...}}. The numbers come from a block sequence:
 * unique and increasing, handed out from memory, reserved in the database 1,000 at a time; a restart leaves a gap
 * (the unused rest of the block).
 */
final class OrderHandler extends JsonHandler {

    static final String PATH = "/orders";
    static final String ORDER_NUMBERS = "order-numbers";

    private final SequenceService sequences;

    OrderHandler(SequenceService sequences) {
        this.sequences = sequences;
    }

    @Override
    Reply reply(HttpExchange exchange) {
        // A context matches every path that starts with its own: /orders/x and /ordersx arrive here too.
        String path = exchange.getRequestURI().getPath();
        if (!path.equals(PATH)) {
            throw HttpProblem.notFound(path);
        }
        requireMethod(exchange, "POST");
        return new Reply(
                HttpURLConnection.HTTP_CREATED, new JsonObject().add("orderNumber", sequences.next(ORDER_NUMBERS)));
    }
}
