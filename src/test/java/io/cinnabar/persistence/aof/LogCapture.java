package io.cinnabar.persistence.aof;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.stream.Collectors;

/** Collects what the AOF classes log, to check Redis's texts (the Redis test suite greps them). */
final class LogCapture implements AutoCloseable {
    private final Logger logger = (Logger) LoggerFactory.getLogger("io.cinnabar.persistence.aof");
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    LogCapture() {
        appender.start();
        logger.addAppender(appender);
    }

    List<String> lines() {
        return appender.list.stream().map(ILoggingEvent::getFormattedMessage).collect(Collectors.toList());
    }

    String last() {
        List<String> l = lines();
        return l.isEmpty() ? "" : l.get(l.size() - 1);
    }

    long count(String fragment) {
        return lines().stream().filter(s -> s.contains(fragment)).count();
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
    }
}
