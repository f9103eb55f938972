package dev.counters.examples.webapp;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/checkout}: pays an order in one transaction ({@link Checkout}); with {@code declined=true} the
 * payment fails after the counter and the invoice number were written, and a 402 says what was rolled back.
 */
@RestController
class CheckoutController {

    private final Checkout checkout;

    CheckoutController(Checkout checkout) {
        this.checkout = checkout;
    }

    @PostMapping("/api/checkout")
    @ResponseStatus(HttpStatus.CREATED)
    Checkout.Paid pay(@RequestParam(defaultValue = "false") boolean declined) {
        return checkout.pay(declined);
    }

    @ExceptionHandler(Checkout.PaymentDeclined.class)
    ProblemDetail declined(Checkout.PaymentDeclined declined) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.PAYMENT_REQUIRED, declined.getMessage());
    }
}
