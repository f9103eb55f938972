package dev.counters.spring.jpa;

import java.util.function.LongConsumer;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** The application's service: an invoice saved, then a failure that rolls its transaction back. */
@Service
public class Invoices {

    private final InvoiceRepository repository;

    Invoices(InvoiceRepository repository) {
        this.repository = repository;
    }

    /** Saves and flushes an invoice, tells its id, then fails. */
    @Transactional
    public void saveThenFail(String customer, LongConsumer id) {
        Invoice invoice = repository.saveAndFlush(new Invoice(customer));
        id.accept(invoice.getId());
        throw new IllegalStateException("payment refused");
    }
}
