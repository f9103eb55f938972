package dev.counters.examples.webapp;

import dev.counters.BoundedCounter;
import dev.counters.BoundedState;
import dev.counters.CounterService;
import dev.counters.Hold;
import dev.counters.HoldStatus;
import dev.counters.IdempotencyKey;
import java.time.Duration;
import java.time.Instant;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The flash sale: a gadget whose stock is a {@code bounded} counter ({@code min: 0}, in {@code application.yml}). Buying
 * holds one unit while the customer pays; paying confirms the hold, cancelling releases it, and a hold left alone
 * expires and goes back. The stock never goes below 0, however many click at once.
 */
@RestController
class FlashSaleController {

    static final String STOCK = "stock.gadget";
    /** Units sold: counted when a hold is confirmed, under the hold's key, so a repeated confirm counts once. */
    static final String SOLD = "sold.gadget";

    record Sale(long left, long held, long sold) {}

    record HoldAnswer(String key, HoldStatus status, Instant expiresAt, long left) {}

    private final CounterService counters;
    private final BoundedCounter stock;
    private final Duration holdTtl;

    FlashSaleController(CounterService counters, @Value("${example.flash-sale.hold-ttl:2m}") Duration holdTtl) {
        this.counters = counters;
        this.stock = counters.bounded(STOCK);
        this.holdTtl = holdTtl;
    }

    @GetMapping("/api/flash-sale")
    Sale sale() {
        BoundedState state = stock.state();
        return new Sale(state.value(), state.heldTowardMin(), counters.get(SOLD));
    }

    /**
     * Holds one unit under the key the page sends (a double click is one hold); 409 when sold out, with nothing held.
     */
    @PostMapping("/api/flash-sale/holds")
    ResponseEntity<HoldAnswer> buy(@RequestParam String key) {
        Hold hold = stock.reserve(-1, holdTtl, IdempotencyKey.of(key));
        HttpStatus status = hold.status() == HoldStatus.REFUSED ? HttpStatus.CONFLICT : HttpStatus.CREATED;
        return ResponseEntity.status(status).body(answer(hold));
    }

    /** Pays: the unit is sold. 410 if the hold expired first (buy again). */
    @PostMapping("/api/flash-sale/holds/{key}/confirm")
    ResponseEntity<HoldAnswer> pay(@PathVariable String key) {
        Hold hold = stock.confirm(IdempotencyKey.of(key));
        if (hold.status() == HoldStatus.CONFIRMED) {
            counters.increment(SOLD, 1, IdempotencyKey.of("sold-" + key));
        }
        HttpStatus status = hold.status() == HoldStatus.CONFIRMED ? HttpStatus.OK : HttpStatus.GONE;
        return ResponseEntity.status(status).body(answer(hold));
    }

    /** Cancels: the unit is for sale again. */
    @PostMapping("/api/flash-sale/holds/{key}/release")
    HoldAnswer cancel(@PathVariable String key) {
        return answer(stock.release(IdempotencyKey.of(key)));
    }

    /** Adds units to the stock: a change toward no bound, never refused. */
    @PostMapping("/api/flash-sale/restock")
    Sale restock(@RequestParam(defaultValue = "10") long units) {
        if (units < 1) {
            throw new IllegalArgumentException("A restock adds at least 1 unit, not " + units);
        }
        stock.tryIncrement(units);
        return sale();
    }

    private HoldAnswer answer(Hold hold) {
        return new HoldAnswer(
                hold.key().value(),
                hold.status(),
                hold.expiresAt(),
                stock.state().value());
    }
}
