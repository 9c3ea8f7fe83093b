package io.cinnabar.command;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** INFO commandstats' usec is the time commands took, those under a microsecond included. */
class CommandStatsTest {
    @Test
    void usecSumsTimesBelowAMicrosecond() {
        CommandStats stats = new CommandStats();
        for (int i = 0; i < 1000; i++) stats.addTime(600);
        stats.addTime(1_500);
        assertEquals(601, stats.usec(), "1,000 x 0.6 us + 1.5 us");
        stats.resetCounters();
        assertEquals(0, stats.usec());
    }
}
