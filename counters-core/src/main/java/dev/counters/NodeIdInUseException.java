package dev.counters;

/**
 * Another live process holds the node id this one was configured with. Two processes sharing a node id would write
 * the same rows and lose what makes the {@code node} strategy contention-free, so the second one refuses to start
 * (and one that lost its claim refuses further increments). Give each process its own node id.
 */
public class NodeIdInUseException extends CountersException {

    private static final long serialVersionUID = 1L;

    public NodeIdInUseException(String message) {
        super(message, null);
    }
}
