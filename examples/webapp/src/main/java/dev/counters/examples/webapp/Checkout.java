package dev.counters.examples.webapp;

import dev.counters.CounterService;
import dev.counters.sequence.SequenceService;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A payment in one database transaction: it counts the paid order and takes the invoice's number, then records the
 * payment. Both the counter ({@code atomic}) and the sequence ({@code gapless}) take part in the transaction, so a
 * payment that fails takes them with it: the count does not move and no invoice number is lost.
 */
@Service
class Checkout {

    static final String PAID_ORDERS = "orders.paid";
    static final String INVOICE_NUMBERS = "invoice-numbers";

    record Paid(long invoiceNumber, long paidOrders) {}

    /** Thrown after the counter and the sequence were written: the transaction rolls both back. */
    static final class PaymentDeclined extends RuntimeException {

        private static final long serialVersionUID = 1L;

        PaymentDeclined(long invoiceNumber) {
            super("The payment was declined: invoice #" + invoiceNumber + " and the paid order were rolled back");
        }
    }

    private final CounterService counters;
    private final SequenceService sequences;

    Checkout(CounterService counters, SequenceService sequences) {
        this.counters = counters;
        this.sequences = sequences;
    }

    @Transactional
    Paid pay(boolean declined) {
        long paidOrders = counters.incrementAndGet(PAID_ORDERS, 1);
        long invoiceNumber = sequences.next(INVOICE_NUMBERS);
        if (declined) {
            throw new PaymentDeclined(invoiceNumber);
        }
        return new Paid(invoiceNumber, paidOrders);
    }
}
