package io.cinnabar.command;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static io.cinnabar.command.CommandFlag.DENYOOM;
import static io.cinnabar.command.CommandFlag.WRITE;
import static io.cinnabar.command.CommandSpec.spec;
import static io.cinnabar.command.KeyFlag.ACCESS;
import static io.cinnabar.command.KeyFlag.DELETE;
import static io.cinnabar.command.KeyFlag.INCOMPLETE;
import static io.cinnabar.command.KeyFlag.INSERT;
import static io.cinnabar.command.KeyFlag.OW;
import static io.cinnabar.command.KeyFlag.RO;
import static io.cinnabar.command.KeyFlag.RW;
import static io.cinnabar.command.KeyFlag.UPDATE;
import static io.cinnabar.command.KeySpec.after;
import static io.cinnabar.command.KeySpec.at;
import static io.cinnabar.command.KeySpec.unknown;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The key-spec engine against what Redis 7.0.15 derives and finds for the same declarations. */
class KeySpecTest {
    private static CommandSpec build(CommandSpec.Builder b) {
        return b.build("generic", c -> { }, null);
    }

    private static String triple(CommandSpec s) {
        return s.firstKey() + "," + s.lastKey() + "," + s.keyStep() + (s.hasFlag(CommandFlag.MOVABLEKEYS) ? " movable" : "");
    }

    @Test
    void legacyTripleAsPopulateCommandLegacyRangeSpec() {
        assertEquals("1,2,1", triple(build(spec("LMOVE", 5, WRITE).keys(at(1, RW, ACCESS, DELETE), at(2, RW, INSERT)))));
        assertEquals("1,-1,2", triple(build(spec("MSET", -3, WRITE).keys(at(1, OW, UPDATE).range(-1, 2)))));
        assertEquals("1,-1,1", triple(build(spec("SDIFFSTORE", -3, WRITE).keys(at(1, OW, UPDATE), at(2, RO, ACCESS).range(-1, 1)))));
        assertEquals("1,1,1 movable", triple(build(spec("ZUNIONSTORE", -4, WRITE)
                .keys(at(1, OW, UPDATE), at(2, RO, ACCESS).keynum(0, 1, 1)))));
        assertEquals("0,0,0 movable", triple(build(spec("EVAL", -3).keys(at(2, RW, ACCESS, UPDATE).keynum(0, 1, 1)))));
        assertEquals("1,1,1 movable", triple(build(spec("SORT", -2, WRITE, DENYOOM).keys(at(1, RO, ACCESS), unknown(OW, UPDATE)))));
        assertEquals("1,1,1 movable", triple(build(spec("X", -2).keys(at(1, RO, INCOMPLETE)))));
        assertEquals("0,0,0", triple(build(spec("PING", -1))));
    }

    @Test
    void keynumFindsTheCountedKeysOrFails() {
        KeySpec numkeys = at(2, RO, ACCESS).keynum(0, 1, 1);
        assertEquals(List.of(3, 4), found(numkeys, "zunionstore d 2 a b weights 1 2"));
        assertFalse(numkeys.find(argv("eval s 0"), new KeyRefs()), "no keys: Redis calls the spec invalid");
        assertFalse(numkeys.find(argv("zunionstore d 3 a b"), new KeyRefs()), "more keys than arguments");
        assertFalse(numkeys.find(argv("zunionstore d x a"), new KeyRefs()), "numkeys not a number");
        assertFalse(numkeys.find(argv("zunionstore d -1 a"), new KeyRefs()));
    }

    @Test
    void keywordSearchesForwardOrBackward() {
        KeySpec store = after("STORE", 6, OW, UPDATE);
        assertEquals(List.of(7), found(store, "georadius k 0 0 1 km store d"));
        assertEquals(List.of(), found(store, "georadius k 0 0 1 km"));
        assertEquals(List.of(), found(store, "georadius k 0 0 1 km store"), "no key after the keyword");
        KeySpec streams = after("STREAMS", -2, RO).range(-1, 1, 2);
        assertEquals(List.of(4, 5), found(streams, "xread count 1 streams a b 0 0"));
    }

    @Test
    void unknownAndIncompleteSpecsDeferToTheProcedure() {
        assertFalse(unknown(RO, ACCESS).find(argv("sort k by x"), new KeyRefs()));
        KeyRefs out = new KeyRefs();
        assertFalse(at(1, RO, INCOMPLETE).find(argv("x k"), out));
        assertEquals(1, out.size(), "the keys found so far are kept");
    }

    @Test
    void keysWithFlagsFallsBackToTheProcedure() {
        CommandSpec z = build(spec("ZUNIONSTORE", -4, WRITE).keys(at(1, OW, UPDATE), at(2, RO, ACCESS).keynum(0, 1, 1))
                .keyFinder(KeyProcs.numKeys(1, 2, 3)));
        KeyRefs out = new KeyRefs();
        z.keysWithFlags(argv("zunionstore d 2 a b"), out);
        assertEquals(3, out.size());
        assertEquals(1, out.position(0));
        assertEquals(KeyFlag.bits(OW, UPDATE), out.flags(0));
        // "1x" is no number for the spec but C's atoi reads 1: the procedure's keys, without flags.
        z.keysWithFlags(argv("zunionstore d 1x a"), out);
        assertEquals(2, out.size());
        assertEquals(3, out.position(0));
        assertEquals(0, out.flags(0));
        assertEquals(1, out.position(1));
        assertTrue(z.hasKeys());
    }

    private static List<Integer> found(KeySpec k, String call) {
        KeyRefs out = new KeyRefs();
        assertTrue(k.find(argv(call), out), call);
        List<Integer> positions = new ArrayList<>();
        for (int i = 0; i < out.size(); i++) positions.add(out.position(i));
        return positions;
    }

    private static byte[][] argv(String call) {
        String[] words = call.split(" ");
        byte[][] out = new byte[words.length][];
        for (int i = 0; i < words.length; i++) out[i] = words[i].getBytes(StandardCharsets.UTF_8);
        return out;
    }
}
