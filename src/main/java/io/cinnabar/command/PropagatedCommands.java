package io.cinnabar.command;

import io.cinnabar.util.Numbers;

import java.nio.charset.StandardCharsets;

/**
 * Names and words of the commands writes are propagated as when they are not propagated as sent
 * (Redis's shared.pexpireat, shared.srem, ...), encoded once.
 */
public final class PropagatedCommands {
    private PropagatedCommands() {}

    public static final byte[] DEL = ascii("DEL");
    public static final byte[] UNLINK = ascii("UNLINK");
    public static final byte[] PEXPIREAT = ascii("PEXPIREAT");
    public static final byte[] PERSIST = ascii("PERSIST");
    public static final byte[] SET = ascii("SET");
    public static final byte[] PXAT = ascii("PXAT");
    public static final byte[] KEEPTTL = ascii("KEEPTTL");
    public static final byte[] HSET = ascii("HSET");
    public static final byte[] SREM = ascii("SREM");
    public static final byte[] LPOP = ascii("LPOP");
    public static final byte[] RPOP = ascii("RPOP");
    public static final byte[] LMOVE = ascii("LMOVE");
    public static final byte[] RPOPLPUSH = ascii("RPOPLPUSH");
    public static final byte[] ZPOPMIN = ascii("ZPOPMIN");
    public static final byte[] ZPOPMAX = ascii("ZPOPMAX");
    public static final byte[] ABSTTL = ascii("ABSTTL");

    /** DEL, or UNLINK when the deletion is lazy (lazyfree-lazy-expire / -user-del). */
    public static byte[] deletion(boolean lazy) {
        return lazy ? UNLINK : DEL;
    }

    public static byte[] number(long n) {
        return Numbers.toBytes(n);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
