package dev.counters.spring.boot;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * A write to {@code /actuator/counters} while the endpoint is read-only (its default) gets a 405 that says why and
 * how to allow writes, rather than a bare one: Actuator does not map write operations it does not allow, so the
 * request fails at handler lookup, before any endpoint code runs.
 */
final class CountersEndpointWritesOff implements HandlerExceptionResolver, Ordered {

    /** The methods of the endpoint's write and delete operations. */
    private static final Set<String> WRITES = Set.of("POST", "DELETE");

    static final String REASON = "Writes to the counters endpoint are off: it is read-only unless"
            + " management.endpoint.counters.access=unrestricted. Reads (GET) work.";

    /** The endpoint's path ({@code /actuator/counters} unless configured otherwise); null when not on the web. */
    private final Supplier<@Nullable String> path;

    CountersEndpointWritesOff(Supplier<@Nullable String> path) {
        this.path = path;
    }

    @Override
    public @Nullable ModelAndView resolveException(
            HttpServletRequest request, HttpServletResponse response, @Nullable Object handler, Exception exception) {
        if (!(exception instanceof HttpRequestMethodNotSupportedException)
                || !WRITES.contains(request.getMethod())
                || !isEndpointPath(request.getRequestURI()
                        .substring(request.getContextPath().length()))) {
            return null;
        }
        try {
            response.setStatus(HttpStatus.METHOD_NOT_ALLOWED.value());
            response.setHeader(HttpHeaders.ALLOW, "GET");
            response.setContentType(MediaType.APPLICATION_JSON_VALUE);
            response.setCharacterEncoding(StandardCharsets.UTF_8.name());
            response.getWriter()
                    .write("{\"status\":405,\"error\":\"Method Not Allowed\",\"message\":\"" + REASON + "\"}");
            return new ModelAndView();
        } catch (IOException e) {
            return null; // the default 405 then
        }
    }

    private boolean isEndpointPath(String requestPath) {
        String endpoint = path.get();
        return endpoint != null && (requestPath.equals(endpoint) || requestPath.startsWith(endpoint + "/"));
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 1; // after Boot's DefaultErrorAttributes, which only records the error
    }
}
