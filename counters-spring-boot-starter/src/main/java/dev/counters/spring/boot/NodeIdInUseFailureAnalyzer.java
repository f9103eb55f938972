package dev.counters.spring.boot;

import dev.counters.NodeIdInUseException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Startup failed because another live instance holds this one's node id: says how to give each its own. */
final class NodeIdInUseFailureAnalyzer extends AbstractFailureAnalyzer<NodeIdInUseException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, NodeIdInUseException cause) {
        return new FailureAnalysis(
                cause.getMessage() + ".\n\nEach instance of the application writes its own rows"
                        + " of node counters under its node id, so two live instances cannot share one.",
                "Give each instance its own node id: remove counters.node.id (each process then generates one), or"
                        + " derive it from something unique to the instance, for example:\n\n"
                        + "    counters.node.id: ${HOSTNAME}\n\nIf the instance that held this id has just stopped:"
                        + " on MariaDB, MySQL and PostgreSQL its claim ends with its database session; on other"
                        + " databases it runs out after counters.node.lease-ttl (30 seconds unless set).",
                cause);
    }
}
