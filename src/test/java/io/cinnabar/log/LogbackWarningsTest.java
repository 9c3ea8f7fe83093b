package io.cinnabar.log;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.core.status.ErrorStatus;
import ch.qos.logback.core.status.InfoStatus;
import ch.qos.logback.core.status.StatusUtil;
import ch.qos.logback.core.status.WarnStatus;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LogbackWarningsTest {
    private final LoggerContext context = new LoggerContext();
    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);

    @Test
    void warningsFromBeforeAndAfterArePrintedAndInformationIsNot() {
        context.getStatusManager().add(new InfoStatus("configurator ran", this));
        context.getStatusManager().add(new WarnStatus("no such property", "origin"));
        LogbackWarnings.install(context, out);
        context.getStatusManager().add(new InfoStatus("appender started", this));
        context.getStatusManager().add(new ErrorStatus("openFile(/nope/x.log) call failed", "appender",
                new IOException("No such file or directory")));

        String[] lines = text().split("\n");
        assertEquals("|-WARN in origin - no such property", lines[0]);
        assertEquals("|-ERROR in appender - openFile(/nope/x.log) call failed java.io.IOException: No such file or directory", lines[1]);
        assertEquals("java.io.IOException: No such file or directory", lines[2]);
        assertTrue(lines[3].startsWith("\tat "), lines[3]);
        assertFalse(text().contains("INFO"), text());
    }

    @Test
    void childrenOfAWarningAreIndented() {
        WarnStatus parent = new WarnStatus("appender failed", "origin");
        parent.add(new WarnStatus("cause", "origin"));
        LogbackWarnings.install(context, out);
        context.getStatusManager().add(parent);
        assertEquals("+ WARN in origin - appender failed\n  |-WARN in origin - cause\n", text());
    }

    @Test
    void logbackSeesAListenerSoDoesNotPrintItself() {
        LogbackWarnings.install(context, out);
        assertTrue(StatusUtil.contextHasStatusListener(context));
    }

    private String text() {
        return printed.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n");
    }
}
