package io.cinnabar.persistence.rdb;

/** Value type bytes and opcodes of the RDB format (Redis 7.0's rdb.h). */
public final class RdbType {
    public static final int STRING = 0;
    public static final int LIST = 1;
    public static final int SET = 2;
    public static final int ZSET = 3;
    public static final int HASH = 4;
    public static final int ZSET_2 = 5;
    public static final int MODULE = 6;
    public static final int MODULE_2 = 7;
    public static final int HASH_ZIPMAP = 9;
    public static final int LIST_ZIPLIST = 10;
    public static final int SET_INTSET = 11;
    public static final int ZSET_ZIPLIST = 12;
    public static final int HASH_ZIPLIST = 13;
    public static final int LIST_QUICKLIST = 14;
    public static final int STREAM_LISTPACKS = 15;
    public static final int HASH_LISTPACK = 16;
    public static final int ZSET_LISTPACK = 17;
    public static final int LIST_QUICKLIST_2 = 18;
    public static final int STREAM_LISTPACKS_2 = 19;
    /**
     * Written by Redis 7.2+ only (RDB 11, which is refused first), named here for the error
     * message; 20, 7.2's listpack set, stays an unknown type as it is for Redis 7.0.
     */
    public static final int STREAM_LISTPACKS_3 = 21;

    public static final int OPCODE_FUNCTION2 = 245;
    public static final int OPCODE_FUNCTION = 246;
    public static final int OPCODE_MODULE_AUX = 247;
    public static final int OPCODE_IDLE = 248;
    public static final int OPCODE_FREQ = 249;
    public static final int OPCODE_AUX = 250;
    public static final int OPCODE_RESIZEDB = 251;
    public static final int OPCODE_EXPIRETIME_MS = 252;
    public static final int OPCODE_EXPIRETIME = 253;
    public static final int OPCODE_SELECTDB = 254;
    public static final int OPCODE_EOF = 255;

    /** The newest format version this codec reads and the one it writes. */
    public static final int RDB_VERSION = 10;

    /** Quicklist node containers in LIST_QUICKLIST_2. */
    static final int CONTAINER_PLAIN = 1;
    static final int CONTAINER_PACKED = 2;

    private RdbType() {
    }

    /** Redis's rdbIsObjectType for version 10: the bytes RESTORE accepts as a value type. */
    public static boolean isObjectType(int t) {
        return (t >= 0 && t <= 7) || (t >= 9 && t <= 19);
    }
}
