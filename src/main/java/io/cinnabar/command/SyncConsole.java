package io.cinnabar.command;

import java.io.IOException;

/**
 * A client's socket read and written directly by the keyspace thread, which holds the whole
 * server meanwhile: the Lua debugger's SCRIPT DEBUG SYNC session, for which Redis puts the
 * connection in blocking mode and talks to it from inside the script's line hook.
 */
public interface SyncConsole {
    /** Waits for bytes from the client; -1 once it has closed the connection. */
    int read(byte[] into) throws IOException;

    /** Writes all of bytes, or gives up after Redis's 5 s send timeout for the session. */
    void write(byte[] bytes) throws IOException;
}
