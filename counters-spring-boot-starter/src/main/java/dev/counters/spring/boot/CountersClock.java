package dev.counters.spring.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.beans.factory.annotation.Qualifier;

/**
 * Marks the {@code java.time.Clock} counters should time leases, expiries, windows and intervals by. Any other
 * {@code Clock} bean is ignored, so that an application's (or a test's) {@code Clock.fixed(...)} does not freeze them;
 * a {@link CounterServiceBuilderCustomizer} may also set one with {@code builder.clock(...)}. Without either, counters
 * use the system clock.
 */
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Qualifier
public @interface CountersClock {}
