package dev.counters.spring.boot;

import dev.counters.CounterService;
import dev.counters.RateDecision;
import dev.counters.RateLimit;
import dev.counters.RateLimiter;
import dev.counters.spring.boot.CounterRules.InvalidPropertyException;
import dev.counters.spring.boot.CountersProperties.RouteProperties;
import dev.counters.spring.boot.RateLimitHeaders.Decided;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.PathContainer;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.handler.AbstractHandlerMethodMapping;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * Checks a request against the limits of {@code counters.rate-limits.routes} its path matches, then against the
 * {@link RateLimited} annotations of its handler (type, then method), in that order, stopping at the first refusal:
 * the limits before it keep what they took, the ones after it take nothing. An admitted request goes on, with the
 * {@code RateLimit-Policy} and {@code RateLimit} headers of every limit it passed (unless
 * {@code counters.rate-limits.headers} is false); a refused one is answered here, the handler not called: {@code 429}
 * over the limit, {@code 503} when the limiter's database did not answer and it fails closed, each with
 * {@code Retry-After}, the two headers and a problem detail (RFC 9457). Expressions are parsed and limiters made at
 * startup, so that a bad one fails it.
 */
final class RateLimitInterceptor implements HandlerInterceptor, SmartInitializingSingleton {

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();

    private static final Set<String> METHODS =
            Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE");

    /** {@code #header('X-Api-Key')}: the request's {@code getHeader}, bound to each request. */
    private static final MethodHandle HEADER;

    static {
        try {
            HEADER = MethodHandles.publicLookup()
                    .findVirtual(
                            HttpServletRequest.class, "getHeader", MethodType.methodType(String.class, String.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final CounterService counters;
    private final ListableBeanFactory beans;
    private final BeanFactoryResolver beanResolver;
    private final boolean headers;
    private final List<Route> routes;
    private final Map<HandlerKey, List<Check>> handlers = new ConcurrentHashMap<>();

    RateLimitInterceptor(CounterService counters, CountersProperties.RateLimits properties, ListableBeanFactory beans) {
        this.counters = counters;
        this.beans = beans;
        this.beanResolver = new BeanFactoryResolver((BeanFactory) beans);
        this.headers = properties.headers();
        List<Route> routes = new ArrayList<>();
        for (int i = 0; i < properties.routes().size(); i++) {
            routes.add(route(
                    "counters.rate-limits.routes[" + i + "]",
                    properties.routes().get(i)));
        }
        this.routes = List.copyOf(routes);
    }

    /** The annotations of every handler the application maps, read now: a bad one fails startup. */
    @Override
    public void afterSingletonsInstantiated() {
        for (AbstractHandlerMethodMapping<?> mapping :
                beans.getBeansOfType(AbstractHandlerMethodMapping.class).values()) {
            mapping.getHandlerMethods().values().forEach(this::checks);
        }
    }

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler)
            throws IOException {
        if (request.getDispatcherType() != DispatcherType.REQUEST) {
            return true; // an async or error dispatch of a request decided already
        }
        List<Check> checks = new ArrayList<>();
        if (!routes.isEmpty()) {
            PathContainer path = PathContainer.parsePath(
                    request.getRequestURI().substring(request.getContextPath().length()));
            for (Route route : routes) {
                if (route.matches(request.getMethod(), path)) {
                    checks.add(route.check());
                }
            }
        }
        if (handler instanceof HandlerMethod method) {
            checks.addAll(checks(method));
        }
        if (checks.isEmpty()) {
            return true;
        }
        StandardEvaluationContext context = context(request);
        List<Decided> decided = new ArrayList<>();
        for (Check check : checks) {
            Object key = check.key().getValue(context);
            if (key == null || key.toString().isBlank()) {
                continue; // documented: a request without a key is not limited by this check
            }
            RateDecision decision = check.limiter().tryAcquire(key.toString(), check.permits());
            decided.add(new Decided(check.limiter().name(), decision));
            if (!decision.allowed()) {
                refuse(request, response, decided, decision);
                return false;
            }
        }
        if (headers && !decided.isEmpty()) {
            limitHeaders(response, decided);
        }
        return true;
    }

    private StandardEvaluationContext context(HttpServletRequest request) {
        @SuppressWarnings("unchecked")
        Map<String, String> path =
                (Map<String, String>) request.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE);
        Principal principal = request.getUserPrincipal();
        StandardEvaluationContext context = new StandardEvaluationContext(request);
        context.setVariable("request", request);
        context.setVariable("principal", principal);
        context.setVariable("path", path != null ? path : Map.of());
        context.registerFunction("header", HEADER.bindTo(request));
        context.setBeanResolver(beanResolver);
        return context;
    }

    private static void limitHeaders(HttpServletResponse response, List<Decided> decided) {
        response.setHeader(RateLimitHeaders.POLICY, RateLimitHeaders.policy(decided));
        response.setHeader(RateLimitHeaders.CURRENT, RateLimitHeaders.current(decided));
    }

    private static void refuse(
            HttpServletRequest request, HttpServletResponse response, List<Decided> decided, RateDecision refusal)
            throws IOException {
        String limiter = decided.get(decided.size() - 1).limiter();
        long retryAfter = RateLimitHeaders.seconds(refusal.retryAfter());
        boolean failedClosed = refusal.outcome() == RateDecision.Outcome.FAIL_CLOSED;
        HttpStatus status = failedClosed ? HttpStatus.SERVICE_UNAVAILABLE : HttpStatus.TOO_MANY_REQUESTS;
        String detail = failedClosed
                ? "The rate limiter '" + limiter + "' could not reach its database and refuses until it can: retry"
                        + " after " + retryAfter + " s"
                : "Rate limit '" + limiter + "' reached: retry after " + retryAfter + " s";
        response.setStatus(status.value());
        response.setHeader(RateLimitHeaders.RETRY_AFTER, Long.toString(retryAfter));
        limitHeaders(response, decided);
        response.setContentType("application/problem+json");
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.getWriter()
                .write("{\"type\":\"about:blank\",\"title\":" + json(status.getReasonPhrase()) + ",\"status\":"
                        + status.value() + ",\"detail\":" + json(detail) + ",\"instance\":"
                        + json(request.getRequestURI()) + ",\"limiter\":" + json(limiter) + ",\"retryAfter\":"
                        + retryAfter + "}");
    }

    private static String json(String value) {
        StringBuilder quoted = new StringBuilder(value.length() + 2).append('"');
        for (char c : value.toCharArray()) {
            if (c == '"' || c == '\\') {
                quoted.append('\\').append(c);
            } else if (c < 0x20) {
                quoted.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                quoted.append(c);
            }
        }
        return quoted.append('"').toString();
    }

    /** The handler's limits: its type's annotations, then its method's. */
    private List<Check> checks(HandlerMethod handler) {
        return handlers.computeIfAbsent(new HandlerKey(handler.getBeanType(), handler.getMethod()), key -> {
            List<RateLimited> annotations = new ArrayList<>(
                    AnnotatedElementUtils.findMergedRepeatableAnnotations(key.type(), RateLimited.class));
            annotations.addAll(AnnotatedElementUtils.findMergedRepeatableAnnotations(key.method(), RateLimited.class));
            List<Check> checks = new ArrayList<>();
            for (RateLimited annotation : annotations) {
                String where = "@RateLimited(name = \"" + annotation.name() + "\") on "
                        + key.type().getSimpleName() + "." + key.method().getName();
                String spec = annotation.limit();
                RateLimit limit =
                        spec.isEmpty() ? null : made(where, IllegalStateException::new, () -> RateLimit.parse(spec));
                checks.add(check(
                        where,
                        annotation.name(),
                        limit,
                        where + ", key",
                        annotation.key(),
                        annotation.permits(),
                        IllegalStateException::new));
            }
            return List.copyOf(checks);
        });
    }

    private Route route(String property, RouteProperties route) {
        if (route.path().isEmpty()) {
            throw new InvalidPropertyException(property + ".path: a route needs a path pattern, such as /api/**", null);
        }
        List<PathPattern> patterns = route.path().stream()
                .map(pattern -> CounterRules.checked(
                        property + ".path", () -> PathPatternParser.defaultInstance.parse(pattern)))
                .toList();
        List<String> methods = route.methods().stream()
                .map(method -> method.toUpperCase(Locale.ROOT))
                .toList();
        for (String method : methods) {
            if (!METHODS.contains(method)) {
                throw new InvalidPropertyException(
                        property + ".methods: '" + method + "' is not an HTTP method (one of " + METHODS + ")", null);
            }
        }
        String limiter = route.limiter();
        if (limiter == null || limiter.isBlank()) {
            throw new InvalidPropertyException(property + ".limiter: a route needs a limiter's name", null);
        }
        String spec = route.limit();
        Check check = check(
                property,
                limiter,
                spec == null ? null : RateLimitRules.limit(property + ".limit", spec),
                property + ".key",
                route.key(),
                route.permits(),
                InvalidPropertyException::new);
        return new Route(patterns, Set.copyOf(methods), check);
    }

    /** A limit's check: the limiter made, the key parsed, the permits checked, or {@code failure} saying where. */
    private Check check(
            String where,
            String name,
            @Nullable RateLimit limit,
            String keyWhere,
            String key,
            long permits,
            BiFunction<String, @Nullable Throwable, RuntimeException> failure) {
        RateLimiter limiter = made(
                where, failure, () -> limit == null ? counters.rateLimiter(name) : counters.rateLimiter(name, limit));
        Expression expression = made(keyWhere, failure, () -> {
            try {
                return PARSER.parseExpression(key);
            } catch (ExpressionException e) {
                throw new IllegalArgumentException("'" + key + "' is not a SpEL expression: " + e.getMessage(), e);
            }
        });
        if (permits < 1 || permits > limiter.limit().burst()) {
            throw failure.apply(
                    where + ": permits must be from 1 to the burst of " + limiter.limit() + ", was " + permits, null);
        }
        return new Check(limiter, expression, permits);
    }

    private static <T> T made(
            String where, BiFunction<String, @Nullable Throwable, RuntimeException> failure, Supplier<T> making) {
        try {
            return making.get();
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw failure.apply(where + ": " + e.getMessage(), e);
        }
    }

    /** One limit on a request: a limiter, the expression of the key, the permits a request takes. */
    private record Check(RateLimiter limiter, Expression key, long permits) {}

    /** A route of {@code counters.rate-limits.routes}: no methods listed means every method. */
    private record Route(List<PathPattern> patterns, Set<String> methods, Check check) {

        boolean matches(String method, PathContainer path) {
            if (!methods.isEmpty() && !methods.contains(method)) {
                return false;
            }
            for (PathPattern pattern : patterns) {
                if (pattern.matches(path)) {
                    return true;
                }
            }
            return false;
        }
    }

    private record HandlerKey(Class<?> type, Method method) {}
}
