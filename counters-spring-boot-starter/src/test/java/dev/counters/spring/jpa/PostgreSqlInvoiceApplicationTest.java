package dev.counters.spring.jpa;

import dev.counters.jdbc.testing.TestDatabase;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

class PostgreSqlInvoiceApplicationTest extends InvoiceApplicationContract {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        TestDatabases.register(registry, TestDatabase.POSTGRES);
    }
}
