package dev.counters.examples.webapp;

import dev.counters.CounterOverflowException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Bad ids, names and deltas are the client's mistake: 400 with the message that names the problem. The library
 * validates before it writes, so such a request has changed nothing.
 */
@RestControllerAdvice
class BadRequestAdvice {

    @ExceptionHandler({IllegalArgumentException.class, CounterOverflowException.class})
    ProblemDetail badRequest(RuntimeException e) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, e.getMessage());
    }
}
