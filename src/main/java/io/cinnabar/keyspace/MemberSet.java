package io.cinnabar.keyspace;

import java.util.function.Consumer;

/**
 * What ZUNIONSTORE, ZINTERSTORE, ZDIFF and friends need from a plain set to use it as an input
 * (every member with score 1): the set type implements it.
 */
public interface MemberSet {
    int size();

    boolean contains(byte[] member);

    /** Visits every member; the visitor must not modify the set. */
    void forEachMember(Consumer<byte[]> visitor);
}
