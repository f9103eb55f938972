package dev.counters.spring.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Startup failed because a {@code counters.*} property cannot be used: says which and why, as Boot does for a property
 * that does not bind, rather than the stack trace of the bean that mapped it.
 */
final class InvalidCountersPropertyFailureAnalyzer
        extends AbstractFailureAnalyzer<CounterRules.InvalidPropertyException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, CounterRules.InvalidPropertyException cause) {
        return new FailureAnalysis(
                "Invalid counters configuration:\n\n    " + cause.getMessage(),
                "Update the counters.* properties of your application's configuration.",
                cause);
    }
}
