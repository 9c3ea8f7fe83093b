package io.cinnabar.command.server;

import io.cinnabar.command.ReplicaFlags;

import io.cinnabar.command.Client;
import io.cinnabar.command.ClientMemory;

/** One CLIENT LIST / CLIENT INFO line, with Redis 7.0's fields in Redis 7.0's order. */
public final class ClientInfo {
    private ClientInfo() {}

    /** c's CLIENT INFO line outside any command of its own (ACL LOG's client-info), ages at nowMs of the server's clock. */
    public static String line(Client c, long nowMs) {
        return append(new StringBuilder(), c, null, null, nowMs).toString();
    }

    /**
     * Appends the line for c (without the newline). For the calling client, qbuf is the size of
     * the command being run, as Redis still holds it in its query buffer while running it.
     */
    static StringBuilder append(StringBuilder sb, Client c, Client caller, byte[][] currentArgs, long nowMs) {
        long qbuf = c == caller ? io.cinnabar.protocol.Request.multibulkLength(currentArgs) : c.channel().pendingInputBytes();
        long argvMem = 0;
        if (c == caller) for (byte[] a : currentArgs) argvMem += a.length;
        java.util.List<byte[][]> transaction = c.transaction();
        boolean multi = transaction != null;
        io.cinnabar.command.pubsub.Subscriptions subs = c.subscriptions();
        StringBuilder flags = new StringBuilder(4);
        if ((c.replicaFlags() & ReplicaFlags.SYNCING) != 0) flags.append('S');
        if ((c.replicaFlags() & ReplicaFlags.MASTER) != 0) flags.append('M');
        if (c.monitor()) flags.append('O');
        if (c.subscribed()) flags.append('P');
        if (multi) flags.append('x');
        if (c.blocked() || c.postponedByPause()) flags.append('b');
        if (c.tracking() != null) flags.append(c.tracking().listFlags());
        if (c.watch() != null && c.watch().isDirty()) flags.append('d');
        if (c.closing()) flags.append('A');
        if (c.channel().unixSocket()) flags.append('U');
        if (c.clusterReadonly()) flags.append('r');
        if (c.noEvict()) flags.append('e');
        if (flags.length() == 0) flags.append('N');
        long omem = c.channel().pendingOutputBytes();
        long multiMem = multiMem(c);
        return sb.append("id=").append(c.id())
                .append(" addr=").append(c.channel().remoteAddress())
                .append(" laddr=").append(c.channel().localAddress())
                .append(" fd=").append(fd(c))
                .append(" name=").append(c.nameString())
                .append(" age=").append(Math.max(0, (nowMs - c.createdAtMs()) / 1000))
                .append(" idle=").append(Math.max(0, (nowMs - c.lastInteractionMs()) / 1000))
                .append(" flags=").append(flags)
                .append(" db=").append(c.db())
                .append(" sub=").append(subs == null ? 0 : subs.channels())
                .append(" psub=").append(subs == null ? 0 : subs.patterns())
                .append(" ssub=").append(subs == null ? 0 : subs.shardChannels())
                .append(" multi=").append(multi ? transaction.size() : -1)
                .append(" qbuf=").append(qbuf)
                .append(" qbuf-free=").append(qbuf == 0 ? 0 : Math.max(0, 20474 - qbuf))
                .append(" argv-mem=").append(argvMem)
                .append(" multi-mem=").append(multiMem)
                .append(" rbs=1024 rbp=0 obl=0 oll=").append(omem == 0 ? 0 : 1).append(" omem=").append(omem)
                .append(" tot-mem=").append(ClientMemory.of(c, c == caller ? currentArgs : null))
                .append(" events=r")
                .append(" cmd=").append(c.lastCommand())
                .append(" user=").append(c.user())
                .append(" redir=").append(c.tracking() == null ? -1 : c.tracking().redirectField())
                .append(" resp=").append(c.protocol());
    }

    /** Sockets have no fd in the JVM; a stable per-connection number keeps the field's shape. */
    private static long fd(Client c) {
        return c.id() + 7;
    }

    private static long multiMem(Client c) {
        if (c.transaction() == null) return 0;
        long n = 0;
        for (byte[][] args : c.transaction()) for (byte[] a : args) n += a.length;
        return n;
    }
}
