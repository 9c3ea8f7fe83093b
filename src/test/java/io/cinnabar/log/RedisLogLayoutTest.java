package io.cinnabar.log;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RedisLogLayoutTest {
    private final LoggerContext context = new LoggerContext();
    private final RedisLogLayout layout = new RedisLogLayout();

    @Test
    void linesHaveRedisShape() {
        String line = layout.doLayout(event(Level.INFO, "Ready to accept connections"));
        String pid = Long.toString(ProcessHandle.current().pid());
        assertTrue(line.matches(pid + ":M \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2}\\.\\d{3} \\* "
                + "Ready to accept connections\n"), line);
    }

    @Test
    void levelCharactersFollowRedisVerbosities() {
        assertEquals('.', RedisLogLayout.levelChar(Level.TRACE));
        assertEquals('-', RedisLogLayout.levelChar(Level.DEBUG));
        assertEquals('*', RedisLogLayout.levelChar(Level.INFO));
        assertEquals('#', RedisLogLayout.levelChar(Level.WARN));
        assertEquals('#', RedisLogLayout.levelChar(Level.ERROR));
    }

    @Test
    void rawEventsAreWrittenAsTheyAre() {
        LoggingEvent e = event(Level.INFO, "\n  PID: 42\n\n");
        e.addMarker(ServerLog.RAW);
        assertEquals("\n  PID: 42\n\n", layout.doLayout(e));
    }

    private LoggingEvent event(Level level, String message) {
        return new LoggingEvent(getClass().getName(), context.getLogger("test"), level, message, null, null);
    }
}
