package dev.counters.benchmarks.jpa;

import jakarta.persistence.EntityManagerFactory;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A Spring application with Spring Data JPA on Hibernate, as Spring Boot's JPA auto-configuration would wire it
 * (without Boot, whose start-up the benchmark does not need): an entity manager factory on the given pool, the
 * repositories of {@link Orders}, a JPA transaction manager. Hibernate finds beans through Spring
 * ({@code SpringBeanContainer}, which the factory bean installs), as under Boot.
 */
@Configuration(proxyBeanMethods = false)
@EnableJpaRepositories(basePackageClasses = Orders.class, considerNestedRepositories = true)
public class JpaApplication {

    /** The pool and Hibernate's settings, registered before the context starts. */
    public record Settings(DataSource dataSource, Map<String, Object> hibernate) {}

    /** Starts an application on {@code settings}. */
    public static AnnotationConfigApplicationContext start(Settings settings) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.registerBean(Settings.class, () -> settings);
        context.register(JpaApplication.class);
        context.refresh();
        return context;
    }

    @Bean
    LocalContainerEntityManagerFactoryBean entityManagerFactory(Settings settings) {
        LocalContainerEntityManagerFactoryBean factory = new LocalContainerEntityManagerFactoryBean();
        factory.setDataSource(settings.dataSource());
        factory.setPackagesToScan(Orders.class.getPackageName());
        factory.setJpaVendorAdapter(new HibernateJpaVendorAdapter());
        factory.setJpaPropertyMap(settings.hibernate());
        return factory;
    }

    @Bean
    JpaTransactionManager transactionManager(EntityManagerFactory entityManagerFactory) {
        return new JpaTransactionManager(entityManagerFactory);
    }

    @Bean
    TransactionTemplate transactionTemplate(JpaTransactionManager transactionManager) {
        return new TransactionTemplate(transactionManager);
    }
}
