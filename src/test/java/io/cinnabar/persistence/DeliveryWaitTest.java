package io.cinnabar.persistence;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DeliveryWaitTest {
    private static final long MAX = DeliveryWait.MAX_WAIT_NANOS;
    private final DeliveryWait wait = new DeliveryWait();

    @Test
    void roundsAreWrittenAtOnceWhenNoDeliveryRuns() {
        assertEquals(0, wait.writeAfter(1_000));
    }

    @Test
    void roundsWaitWhileADeliveryRunsAndGoWhenItEnds() {
        wait.started();
        assertEquals(1_000 + MAX, wait.writeAfter(1_000));
        assertEquals(1_000 + MAX, wait.writeAfter(1_500), "the wait is counted from when it began");
        assertTrue(wait.ended());
        assertEquals(0, wait.writeAfter(2_000));
    }

    @Test
    void roundsWaitForTheLastOfSeveralDeliveries() {
        wait.started();
        wait.started();
        assertFalse(wait.ended());
        assertEquals(1_000 + MAX, wait.writeAfter(1_000));
        assertTrue(wait.ended());
        assertEquals(0, wait.writeAfter(1_100));
    }

    @Test
    void aDeliveryThatDoesNotEndHoldsRoundsBackAtMostTheLongestWait() {
        wait.started();
        assertEquals(1_000 + MAX, wait.writeAfter(1_000));
        assertEquals(0, wait.writeAfter(1_000 + MAX));
        long later = 1_000 + MAX + 10;
        assertEquals(later + MAX, wait.writeAfter(later), "rounds handed after that write wait afresh");
    }
}
