package io.cinnabar;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** An event loop thread that ends without being told to is a crash, not a deaf server. */
class EventLoopDeathIT {
    @Test
    void aDeadEventLoopIsReportedAndTheServerStopsListening() throws Exception {
        Logger crashLog = (Logger) LoggerFactory.getLogger(io.cinnabar.log.CrashReport.class);
        List<String> report = new CopyOnWriteArrayList<>();
        AppenderBase<ILoggingEvent> capture = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent event) {
                report.add(event.getFormattedMessage());
            }
        };
        capture.start();
        crashLog.addAppender(capture);
        crashLog.setAdditive(false); // the report's every thread stack, kept out of the build's output
        CinnabarServer server = CinnabarServer.builder().port(0).build().start();
        try {
            try (Jedis jedis = new Jedis("127.0.0.1", server.port())) {
                assertEquals("PONG", jedis.ping());
            }
            // With one io thread the keyspace runs on the event loop: this is the loop's thread.
            Thread loop = server.onKeyspaceThread(context -> Thread.currentThread());
            assumeTrue(kill(loop), "this JDK cannot stop a thread (Thread.stop)");

            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
                while (report.stream().noneMatch(line -> line.contains("REDIS BUG REPORT END"))) Thread.onSpinWait();
                while (accepts(server.port())) Thread.onSpinWait();
            });
            assertTrue(report.stream().anyMatch(line -> line.startsWith(
                    "Guru Meditation: The event loop thread " + loop.getName() + " ended")), report.toString());
        } finally {
            // Without the dead loop's final save: close() does not wait a minute for it.
            assertTimeoutPreemptively(Duration.ofSeconds(20), server::close);
            crashLog.detachAppender(capture);
            crashLog.setAdditive(true);
        }
        assertFalse(server.isRunning());
    }

    /**
     * Thread.stop until the thread ends: a ThreadDeath that lands inside a handler or a task is
     * caught and logged by Netty, one raised in the loop itself (mostly: while it waits in
     * epoll) ends it. False where the JDK no longer supports Thread.stop. Each attempt waits a
     * second for the thread to end: a second ThreadDeath landing while the dying thread still
     * reports its end (a loaded machine: the whole build's tests at once) cut the report short.
     */
    @SuppressWarnings({"deprecation", "removal"})
    private static boolean kill(Thread thread) throws InterruptedException {
        for (int attempt = 0; attempt < 30 && thread.isAlive(); attempt++) {
            try {
                thread.stop();
            } catch (UnsupportedOperationException gone) {
                return false;
            }
            thread.join(1000);
        }
        return !thread.isAlive();
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (ConnectException refused) {
            return false;
        } catch (IOException other) {
            return true;
        }
    }
}
