package dev.counters.examples.webapp;

import dev.counters.CounterService;
import dev.counters.sequence.SequenceService;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
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

    record PlacedOrder(long orderNumber, long orders) {
    }

    private final SequenceService sequences;
    private final CounterService counters;

    OrderController(SequenceService sequences, CounterService counters) {
        this.sequences = sequences;
        this.counters = counters;
    }

    @PostMapping("/api/orders")
    @ResponseStatus(HttpStatus.CREATED)
    PlacedOrder place() {
        long orderNumber = sequences.next(ORDER_NUMBERS);
        return new PlacedOrder(orderNumber, counters.incrementAndGet(ORDERS, 1));
    }
}
