package io.cinnabar.command.scripting;

import io.cinnabar.command.ClientChannel;

/** The socket-less side of the client scripts run their commands as (Redis's lua_client). */
enum ScriptChannel implements ClientChannel {
    INSTANCE;

    @Override public void send(byte[] replies, boolean closeAfterReply) { }
    @Override public Runnable delivery(byte[] replies, boolean closeAfterReply) { return () -> { }; }
    @Override public java.util.concurrent.Executor executor() { return Runnable::run; }
    @Override public void push(byte[] bytes) { }
    @Override public void close() { }
    @Override public String remoteAddress() { return ""; }
    @Override public String localAddress() { return ""; }
}
