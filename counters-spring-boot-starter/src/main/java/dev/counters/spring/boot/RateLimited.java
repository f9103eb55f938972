package dev.counters.spring.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits how often a Spring MVC handler method (or every handler of a controller, on the type) may be called per key,
 * by the {@code CounterService}'s rate limiter {@link #name}. A request over the limit is answered {@code 429 Too Many
 * Requests} with {@code Retry-After} and the {@code RateLimit-Policy} and {@code RateLimit} headers, and the handler
 * is not called. Repeatable: the type's limits are checked first, then the method's, in their order; the first
 * refusal answers, and the limits after it take nothing.
 *
 * <pre>{@code
 * @RateLimited(name = "likes", key = "#header('X-Visitor') ?: #request.remoteAddr", limit = "5/1m")
 * @PostMapping("/articles/{id}/like")
 * Likes like(@PathVariable String id) { ... }
 * }</pre>
 *
 * The expressions are parsed, and the limiters made, when the application starts: a bad one fails startup.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
@Repeatable(RateLimited.List.class)
public @interface RateLimited {

    /** The rate limiter's name; its limit is {@link #limit}, or else its rule under {@code counters.rate-limits}. */
    String name();

    /**
     * What each request is counted under: a SpEL expression on the request. {@code #request} is the
     * {@code HttpServletRequest}, {@code #principal} the authenticated user (or null), {@code #path} the path
     * variables by name, {@code #header('X-Api-Key')} a request header, and {@code @bean} a bean of the application.
     * A request whose key is null or blank is not limited by this annotation.
     */
    String key() default "#request.remoteAddr";

    /**
     * The limit, as {@code RateLimit.parse} reads it ({@code 100/1m}, {@code 5/s}, {@code 10000/month}); empty, the
     * limit of the limiter's rule under {@code counters.rate-limits.limiters}.
     */
    String limit() default "";

    /** Permits one request takes. */
    long permits() default 1;

    /** Several limits on one handler. */
    @Documented
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.METHOD, ElementType.TYPE})
    @interface List {
        RateLimited[] value();
    }
}
