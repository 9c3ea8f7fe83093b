package io.cinnabar.command.scripting;

/**
 * Where a script or function starts its next run: on the keyspace thread itself when its last run
 * ended within the Dispatcher's inline budget, else on the helper thread (see
 * Dispatcher#runLong). A new one starts on the helper: a script that loops forever after a write
 * could not be moved once started here, and other clients must get BUSY meanwhile.
 */
final class RunPlace {
    private boolean quick;

    boolean startsHere() {
        return quick;
    }

    /** A run ended (or moved to the helper: moved, which says nothing of how long it takes). */
    void ran(long nanos, long budgetNanos, boolean moved) {
        quick = !moved && nanos < budgetNanos;
    }
}
