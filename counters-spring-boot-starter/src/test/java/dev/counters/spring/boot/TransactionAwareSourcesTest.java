package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterService;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.sequence.SequenceService;
import dev.counters.spi.CounterStore;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jooq.autoconfigure.JooqAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.annotation.Transactional;

/**
 * Issue 31, item 5: connections that join Spring transactions (Spring Boot's jOOQ {@code DSLContext}, an application
 * {@code DataSource} that is a {@code TransactionAwareDataSourceProxy}) never carry the library's own writes. A
 * {@code @Transactional} method reserves sequence numbers and increments a sharded counter, then throws: after the
 * rollback no number is handed out twice and no acknowledged increment is lost, while the method's own write is undone.
 */
class TransactionAwareSourcesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withPropertyValues(
                    "spring.datasource.generate-unique-name=true",
                    "counters.counters.[views.*].strategy=sharded",
                    "counters.sequences.invoices.mode=gapless")
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class,
                    TransactionAutoConfiguration.class,
                    JooqAutoConfiguration.class,
                    CountersAutoConfiguration.class))
            .withUserConfiguration(Checkout.class);

    /** The application's store, built on the DSLContext of Spring Boot's jOOQ, as the builder's javadoc allows. */
    @Configuration(proxyBeanMethods = false)
    static class StoreOnBootsDslContext {

        @Bean
        CounterStore counterStore(DSLContext dsl) {
            return JooqCounterStore.builder(dsl).migrateSchema(true).build();
        }
    }

    /** The application's DataSource is transaction-aware itself. */
    @Configuration(proxyBeanMethods = false)
    static class TransactionAwareDataSource {

        @Bean
        DataSource dataSource() {
            return new TransactionAwareDataSourceProxy(new EmbeddedDatabaseBuilder()
                    .setType(EmbeddedDatabaseType.H2)
                    .generateUniqueName(true)
                    .build());
        }
    }

    /** An application service whose transaction fails after counting and numbering. */
    static class Checkout {

        private final CounterService counters;
        private final SequenceService sequences;
        private final JdbcTemplate jdbc;
        volatile long ticket;
        volatile long invoice;

        Checkout(CounterService counters, SequenceService sequences, DataSource dataSource) {
            this.counters = counters;
            this.sequences = sequences;
            this.jdbc = new JdbcTemplate(dataSource);
        }

        @Transactional
        public void checkOut() {
            // The invoice first: before any of the application's own statements has bound a connection to the proxy.
            invoice = sequences.next("invoices");
            ticket = sequences.next("tickets");
            jdbc.update("insert into app_orders (id) values (1)");
            counters.increment("views.checkout");
            throw new IllegalStateException("payment refused");
        }
    }

    @Test
    void aStoreOnBootsJooqContextKeepsItsWritesOutOfTheCallersTransaction() {
        runner.withUserConfiguration(StoreOnBootsDslContext.class).run(context -> {
            checkOutAndRollBack(context);
            // A gapless number joins a caller's transaction only through CallerTransactions, not configured here.
            assertThat(context.getBean(SequenceService.class).next("invoices")).isEqualTo(2);
        });
    }

    @Test
    void aTransactionAwareApplicationDataSourceIsUsedThroughItsTarget() {
        runner.withUserConfiguration(TransactionAwareDataSource.class)
                .withPropertyValues("counters.jdbc.initialize-schema=always")
                .run(context -> {
                    checkOutAndRollBack(context);
                    // Joining stays what it is configured to be: the gapless number went with the rollback.
                    assertThat(context.getBean(SequenceService.class).next("invoices"))
                            .isEqualTo(1);
                });
    }

    private static void checkOutAndRollBack(AssertableApplicationContext context) {
        assertThat(context).hasNotFailed();
        JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
        jdbc.execute("create table app_orders (id bigint primary key)");
        Checkout checkout = context.getBean(Checkout.class);

        assertThatThrownBy(checkout::checkOut).hasMessage("payment refused");

        assertThat(jdbc.queryForObject("select count(*) from app_orders", Long.class))
                .as("the method's own write is rolled back")
                .isZero();
        // A new service (a restart) reserves a block of its own: above the number handed out in the transaction.
        try (SequenceService restarted =
                SequenceService.builder(context.getBean(CounterStore.class)).build()) {
            assertThat(restarted.next("tickets")).isGreaterThan(checkout.ticket);
        }
        CounterService counters = context.getBean(CounterService.class);
        assertThat(counters.getExact("views.checkout"))
                .as("the acknowledged increment")
                .isEqualTo(1);
    }
}
