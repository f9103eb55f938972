package dev.counters.examples.plain;

import java.net.HttpURLConnection;

/** A request this API refuses, with the status that says why; {@link JsonHandler} turns it into the reply. */
final class HttpProblem extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    /** For 405: the method the resource does accept, which the reply must name in its Allow header. */
    private final String allowedMethod;

    private HttpProblem(int status, String message, String allowedMethod) {
        super(message);
        this.status = status;
        this.allowedMethod = allowedMethod;
    }

    static HttpProblem badRequest(String message) {
        return new HttpProblem(HttpURLConnection.HTTP_BAD_REQUEST, message, null);
    }

    static HttpProblem notFound(String path) {
        return new HttpProblem(HttpURLConnection.HTTP_NOT_FOUND, "No resource at " + path, null);
    }

    static HttpProblem methodNotAllowed(String method, String allowedMethod) {
        return new HttpProblem(
                HttpURLConnection.HTTP_BAD_METHOD,
                method + " is not allowed here, only " + allowedMethod,
                allowedMethod);
    }

    int status() {
        return status;
    }

    /** The allowed method of a 405, or null. */
    String allowedMethod() {
        return allowedMethod;
    }
}
