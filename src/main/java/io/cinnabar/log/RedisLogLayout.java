package io.cinnabar.log;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.LayoutBase;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Redis's log line, {@code <pid>:M <dd Mon yyyy HH:MM:SS.mmm> <level> <message>}, because the Redis
 * test suite and operators' tooling grep server logs in that shape. Level characters follow
 * Redis's verbosities as mapped onto slf4j by {@link ServerLog}: {@code .} trace (debug),
 * {@code -} debug (verbose), {@code *} info (notice), {@code #} warn and error (warning).
 * Events marked {@link ServerLog#RAW} are written as they are (the start-up banner).
 */
public final class RedisLogLayout extends LayoutBase<ILoggingEvent> {
    /**
     * Made with the first line written, not with the layout: java.time's formatter, the time zone
     * and the pid cost ~15 ms of an embedded server's start, which usually logs nothing.
     */
    private static final class LinePrefix {
        static final DateTimeFormatter TIME =
                DateTimeFormatter.ofPattern("dd MMM yyyy HH:mm:ss.SSS", Locale.ENGLISH).withZone(ZoneId.systemDefault());
        static final String PID = ProcessHandle.current().pid() + ":M ";
    }

    @Override
    public String doLayout(ILoggingEvent event) {
        if (event.getMarkerList() != null && event.getMarkerList().contains(ServerLog.RAW)) {
            return event.getFormattedMessage();
        }
        StringBuilder line = new StringBuilder(LinePrefix.PID);
        LinePrefix.TIME.formatTo(Instant.ofEpochMilli(event.getTimeStamp()), line);
        line.append(' ').append(levelChar(event.getLevel())).append(' ').append(event.getFormattedMessage()).append('\n');
        IThrowableProxy thrown = event.getThrowableProxy();
        if (thrown != null) line.append(ThrowableProxyUtil.asString(thrown)).append('\n');
        return line.toString();
    }

    static char levelChar(Level level) {
        if (level.isGreaterOrEqual(Level.WARN)) return '#';
        if (level.isGreaterOrEqual(Level.INFO)) return '*';
        if (level.isGreaterOrEqual(Level.DEBUG)) return '-';
        return '.';
    }
}
