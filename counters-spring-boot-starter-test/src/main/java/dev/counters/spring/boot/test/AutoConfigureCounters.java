package dev.counters.spring.boot.test;

import dev.counters.spring.boot.CountersProperties;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.PropertyMapping;

/**
 * Adds counters to a test slice that does not include it (for example {@code @WebMvcTest}). The {@code @JdbcTest},
 * {@code @DataJpaTest} and {@code @JooqTest} slices include it already.
 *
 * <pre>{@code
 * @WebMvcTest(LikeController.class)
 * @AutoConfigureCounters(store = CountersProperties.Store.MEMORY)
 * class LikeControllerTest { ... }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
@PropertyMapping(value = "counters", skip = PropertyMapping.Skip.ON_DEFAULT_VALUE)
public @interface AutoConfigureCounters {

    /** Where the test's counters are kept ({@code counters.store}); the application's setting unless given. */
    CountersProperties.Store store() default CountersProperties.Store.JDBC;
}
