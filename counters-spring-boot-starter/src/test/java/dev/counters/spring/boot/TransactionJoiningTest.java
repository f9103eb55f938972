package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import dev.counters.sequence.SequenceService;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.transaction.support.TransactionTemplate;

/** Atomic and optimistic increments and gapless sequence numbers commit and roll back with a Spring transaction. */
class TransactionJoiningTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withPropertyValues(
                    "spring.datasource.generate-unique-name=true",
                    "counters.counters.[opt.*].strategy=optimistic",
                    "counters.sequences.invoices.mode=gapless")
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class,
                    TransactionAutoConfiguration.class,
                    CountersAutoConfiguration.class));

    @Test
    void writesInARolledBackTransactionAreUndone() {
        runner.run(context -> {
            CounterService counters = context.getBean(CounterService.class);
            SequenceService sequences = context.getBean(SequenceService.class);
            TransactionTemplate transactions = context.getBean(TransactionTemplate.class);

            transactions.executeWithoutResult(status -> {
                assertThat(sequences.next("invoices")).isEqualTo(1);
                counters.increment("atomic.orders", 10);
                assertThat(counters.incrementAndGet("opt.orders", 10)).isEqualTo(10);
            });
            transactions.executeWithoutResult(status -> {
                assertThat(sequences.next("invoices")).isEqualTo(2);
                counters.increment("atomic.orders", 5);
                counters.increment("opt.orders", 5);
                status.setRollbackOnly();
            });

            assertThat(counters.getExact("atomic.orders")).isEqualTo(10);
            assertThat(counters.getExact("opt.orders")).isEqualTo(10);
            assertThat(transactions.<Long>execute(status -> sequences.next("invoices")))
                    .as("the rolled-back number is handed out again")
                    .isEqualTo(2);
        });
    }

    @Test
    void joiningCanBeTurnedOff() {
        runner.withPropertyValues("counters.jdbc.join-transactions=false").run(context -> {
            CounterService counters = context.getBean(CounterService.class);
            SequenceService sequences = context.getBean(SequenceService.class);

            context.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                sequences.next("invoices");
                counters.increment("atomic.orders", 5);
                status.setRollbackOnly();
            });

            assertThat(counters.getExact("atomic.orders")).isEqualTo(5);
            assertThat(sequences.next("invoices")).isEqualTo(2);
        });
    }

    @Test
    void aReadOnlyTransactionIsNotJoined() {
        runner.run(context -> {
            CounterService counters = context.getBean(CounterService.class);
            TransactionTemplate readOnly = new TransactionTemplate(
                    context.getBean(TransactionTemplate.class).getTransactionManager());
            readOnly.setReadOnly(true);

            readOnly.executeWithoutResult(status -> counters.increment("atomic.views"));

            assertThat(counters.getExact("atomic.views")).isEqualTo(1);
        });
    }
}
