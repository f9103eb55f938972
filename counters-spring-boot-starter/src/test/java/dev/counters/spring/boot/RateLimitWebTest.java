package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.counters.contract.FaultyRateLimits;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.spi.CounterStore;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The interceptor's setup: a bad expression, limit or route fails startup saying where it is; without Spring MVC, or
 * outside a web application, there is no interceptor; {@code headers: false} keeps the headers to refusals.
 */
class RateLimitWebTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withPropertyValues("counters.store=memory")
            .withConfiguration(AutoConfigurations.of(
                    DispatcherServletAutoConfiguration.class,
                    WebMvcAutoConfiguration.class,
                    CountersAutoConfiguration.class,
                    CountersRateLimitAutoConfiguration.class));

    @RestController
    static class BadKey {
        @RateLimited(name = "bad-key", key = "#request.", limit = "1/s")
        @GetMapping("/bad-key")
        String handle() {
            return "";
        }
    }

    @RestController
    static class BadLimit {
        @RateLimited(name = "bad-limit", limit = "5 per minute")
        @GetMapping("/bad-limit")
        String handle() {
            return "";
        }
    }

    @RestController
    static class NoRule {
        @RateLimited(name = "unruled")
        @GetMapping("/no-rule")
        String handle() {
            return "";
        }
    }

    @RestController
    static class TooManyPermits {
        @RateLimited(name = "costly", limit = "5/1m burst 2", permits = 3)
        @GetMapping("/costly")
        String handle() {
            return "";
        }
    }

    @RestController
    @RateLimited(name = "ruled", key = "'everyone'")
    static class Ruled {
        @GetMapping("/ruled")
        String handle() {
            return "ruled";
        }
    }

    @Test
    void aBadExpressionInAnAnnotationFailsStartupNamingTheAnnotation() {
        runner.withUserConfiguration(BadKey.class)
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining(
                                "@RateLimited(name = \"bad-key\") on BadKey.handle, key: '#request.' is not a"
                                        + " SpEL expression"));
    }

    @Test
    void aBadLimitInAnAnnotationFailsStartupNamingTheAnnotation() {
        runner.withUserConfiguration(BadLimit.class)
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining(
                                "@RateLimited(name = \"bad-limit\") on BadLimit.handle: '5 per minute' is not"
                                        + " a rate limit"));
    }

    @Test
    void anAnnotationWithoutALimitNeedsARule() {
        runner.withUserConfiguration(NoRule.class)
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("@RateLimited(name = \"unruled\") on NoRule.handle: "));
    }

    @Test
    void permitsBeyondTheBurstFailStartup() {
        runner.withUserConfiguration(TooManyPermits.class)
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining(
                                "@RateLimited(name = \"costly\") on TooManyPermits.handle: permits must be"
                                        + " from 1 to the burst of 5/1m burst 2, was 3"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            counters.rate-limits.routes[0].path=/a & counters.rate-limits.routes[0].limiter=r & counters.rate-limits.routes[0].limit=1/s & counters.rate-limits.routes[0].key=#request. | counters.rate-limits.routes[0].key: '#request.' is not a SpEL expression
            counters.rate-limits.routes[0].path=/a/**/b & counters.rate-limits.routes[0].limiter=r & counters.rate-limits.routes[0].limit=1/s | counters.rate-limits.routes[0].path:
            counters.rate-limits.routes[0].path=/a & counters.rate-limits.routes[0].limiter=r & counters.rate-limits.routes[0].limit=1/s & counters.rate-limits.routes[0].methods=FETCH | counters.rate-limits.routes[0].methods: 'FETCH' is not an HTTP method
            counters.rate-limits.routes[0].path=/a & counters.rate-limits.routes[0].limit=1/s | counters.rate-limits.routes[0].limiter: a route needs a limiter's name
            counters.rate-limits.routes[0].limiter=r & counters.rate-limits.routes[0].limit=1/s | counters.rate-limits.routes[0].path: a route needs a path pattern
            counters.rate-limits.routes[0].path=/a & counters.rate-limits.routes[0].limiter=r & counters.rate-limits.routes[0].limit=1/fortnight | counters.rate-limits.routes[0].limit: '1/fortnight'
            """)
    void aBadRouteFailsStartupNamingTheProperty(String properties, String problem) {
        runner.withPropertyValues(properties.split(" & ")).run(context -> {
            assertThat(context.getStartupFailure()).hasStackTraceContaining(problem);
            assertThat(context.getStartupFailure()).hasStackTraceContaining("InvalidPropertyException");
        });
    }

    @Test
    void aLimitFromTheRuleAndHeadersOnlyOnRefusalsWhenHeadersAreOff() {
        runner.withUserConfiguration(Ruled.class)
                .withPropertyValues(
                        "counters.rate-limits.limiters.[rul*].limit=1/1m", "counters.rate-limits.headers=false")
                .run(context -> {
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
                    mvc.perform(get("/ruled")).andExpect(status().isOk()).andExpect(header().doesNotExist("RateLimit"));
                    mvc.perform(get("/ruled"))
                            .andExpect(status().isTooManyRequests())
                            .andExpect(header().string("RateLimit-Policy", "\"ruled\";q=1;w=60"))
                            .andExpect(header().exists("Retry-After"));
                });
    }

    /** A store whose GCRA writes fail: no connection. */
    @Configuration(proxyBeanMethods = false)
    static class DownStore {
        @Bean
        CounterStore counterStore() {
            FaultyRateLimits store = new FaultyRateLimits(new InMemoryCounterStore());
            store.fault = FaultyRateLimits.Fault.DOWN;
            return store;
        }
    }

    @Test
    void aLimiterFailingClosedAnswers503AndOneFailingOpenAdmitsItsBudgetFirst() {
        runner.withUserConfiguration(Ruled.class, DownStore.class)
                .withPropertyValues("counters.rate-limits.limiters.[ruled].limit=5/1m")
                .run(context -> {
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
                    mvc.perform(get("/ruled"))
                            .andExpect(status().isServiceUnavailable())
                            .andExpect(header().string("Retry-After", Matchers.matchesRegex("[1-9][0-9]*")))
                            .andExpect(header().string("RateLimit-Policy", "\"ruled\";q=5;w=60"))
                            .andExpect(jsonPath("$.status").value(503))
                            .andExpect(jsonPath("$.detail")
                                    .value(Matchers.containsString("could not reach its database")));
                });
        runner.withUserConfiguration(Ruled.class, DownStore.class)
                .withPropertyValues(
                        "counters.rate-limits.limiters.[ruled].limit=5/1m",
                        "counters.rate-limits.on-store-failure=open",
                        "counters.rate-limits.fail-open-permits=1")
                .run(context -> {
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
                    mvc.perform(get("/ruled")).andExpect(status().isOk());
                    mvc.perform(get("/ruled")).andExpect(status().isServiceUnavailable());
                });
    }

    @Test
    void noInterceptorOutsideAWebApplication() {
        new org.springframework.boot.test.context.runner.ApplicationContextRunner()
                .withPropertyValues("counters.store=memory")
                .withConfiguration(AutoConfigurations.of(
                        CountersAutoConfiguration.class, CountersRateLimitAutoConfiguration.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitInterceptor.class));
    }
}
