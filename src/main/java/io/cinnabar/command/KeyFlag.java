package io.cinnabar.command;

import java.util.ArrayList;
import java.util.List;

/**
 * Redis 7.0's key-spec flags: how a command uses a key. Declared in Redis's order, which is the
 * order COMMAND INFO and COMMAND GETKEYSANDFLAGS print them in.
 */
public enum KeyFlag {
    /** Read-only, read-write, overwrite (the old value is not read), remove. */
    RO("RO"), RW("RW"), OW("OW"), RM("RM"),
    ACCESS("access"), UPDATE("update"), INSERT("insert"), DELETE("delete"),
    /** The argument is not a key (a shard channel) though it sits where keys do. */
    NOT_KEY("not_key"),
    /** The spec may miss keys: a getkeys procedure must find them. */
    INCOMPLETE("incomplete"),
    /** The flags depend on the arguments (SET ... GET): a getkeys procedure says which. */
    VARIABLE_FLAGS("variable_flags");

    private final String wireName;

    KeyFlag(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public int bit() {
        return 1 << ordinal();
    }

    public boolean in(int bits) {
        return (bits & bit()) != 0;
    }

    /** The bits of flags, e.g. bits(RO, ACCESS). */
    public static int bits(KeyFlag... flags) {
        int b = 0;
        for (KeyFlag f : flags) b |= f.bit();
        return b;
    }

    /** The names of the flags in bits, in Redis's order. */
    public static List<String> names(int bits) {
        List<String> out = new ArrayList<>(4);
        for (KeyFlag f : values()) if (f.in(bits)) out.add(f.wireName);
        return out;
    }
}
