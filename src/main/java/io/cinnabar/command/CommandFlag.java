package io.cinnabar.command;

import java.util.Locale;

/** Redis 7.0's command flags, named as COMMAND INFO prints them. */
public enum CommandFlag {
    WRITE, READONLY, DENYOOM, MODULE, ADMIN, PUBSUB, NOSCRIPT, BLOCKING, LOADING, STALE, SKIP_MONITOR,
    SKIP_SLOWLOG, ASKING, FAST, NO_AUTH, MAY_REPLICATE, NO_MANDATORY_KEYS, NO_ASYNC_LOADING, NO_MULTI,
    MOVABLEKEYS, ALLOW_BUSY, PROTECTED;

    private final String wireName = name().toLowerCase(Locale.ROOT);

    public String wireName() {
        return wireName;
    }
}
