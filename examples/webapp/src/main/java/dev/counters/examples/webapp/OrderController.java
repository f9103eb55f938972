package dev.counters.examples.webapp;

import dev.counters.CounterService;
import dev.counters.IdempotencyKey;
import dev.counters.sequence.SequenceService;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/orders}: takes the next order number and counts the order. The numbers come from a block
 * sequence: unique and increasing, from memory, with a gap after a restart (the unused rest of a block).
 */
@RestController
class OrderController {

    static final String ORDER_NUMBERS = "order-numbers";
    static final String ORDERS = "orders";

    record PlacedOrder(long orderNumber, long orders) {}

    private final SequenceService sequences;
    private final CounterService counters;

    OrderController(SequenceService sequences, CounterService counters) {
        this.sequences = sequences;
        this.counters = counters;
    }

    /**
     * With an {@code Idempotency-Key} header, a request the client repeats (after a timeout, say) counts the order
     * once, and answers the count the first request answered. (It still takes a new order number: a real shop would
     * keep the number with the order it stores under the same key.)
     */
    @PostMapping("/api/orders")
    @ResponseStatus(HttpStatus.CREATED)
    PlacedOrder place(@RequestHeader(name = "Idempotency-Key", required = false) @Nullable String key) {
        long orderNumber = sequences.next(ORDER_NUMBERS);
        long orders = key == null
                ? counters.incrementAndGet(ORDERS, 1)
                : counters.incrementAndGet(ORDERS, 1, IdempotencyKey.of(key));
        return new PlacedOrder(orderNumber, orders);
    }
}
