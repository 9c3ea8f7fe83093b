package io.cinnabar.persistence.aof;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.cinnabar.persistence.aof.AofTestFiles.cmd;
import static io.cinnabar.persistence.aof.AofTestFiles.manifest;
import static io.cinnabar.persistence.aof.AofTestFiles.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AofLoaderTest {
    private static final String BASE = "appendonly.aof.1.base.aof";
    private static final String INCR1 = "appendonly.aof.1.incr.aof";
    private static final String INCR2 = "appendonly.aof.2.incr.aof";

    @TempDir
    Path dir;
    AofLayout layout;
    AofTestFiles.Commands seen;
    List<byte[]> rdbPayloads;
    /** How many bytes the fake RDB loader reads; -1 to read to the end. */
    int rdbLength = -1;

    @BeforeEach
    void setUp() {
        layout = AofLayout.defaults(dir);
        seen = new AofTestFiles.Commands();
        rdbPayloads = new ArrayList<>();
    }

    private AofLoader loader(boolean loadTruncated) {
        return new AofLoader(layout, loadTruncated, this::fakeRdb, seen);
    }

    private long fakeRdb(InputStream in) throws IOException {
        byte[] b = rdbLength < 0 ? in.readAllBytes() : in.readNBytes(rdbLength);
        if (rdbLength >= 0 && b.length < rdbLength) throw new EOFException("short RDB");
        rdbPayloads.add(b);
        return -1;
    }

    private AofLoader.Result loadAll(boolean loadTruncated) throws IOException {
        return loader(loadTruncated).loadAll(AofManifest.loadFromDisk(layout));
    }

    @Test
    void loadsBaseThenIncrFilesInManifestOrder() throws Exception {
        write(layout, BASE, cmd("set", "k1", "v1"));
        write(layout, INCR1, cmd("set", "k2", "v2"));
        write(layout, "appendonly.aof.3.incr.aof", cmd("set", "k3", "v3"));
        manifest(layout, "file " + BASE + " seq 1 type b", "file " + INCR1 + " seq 1 type i",
                "file appendonly.aof.3.incr.aof seq 3 type i");
        AofLoader.Result r = loadAll(false);
        assertEquals(AofLoadStatus.OK, r.status());
        assertEquals(List.of("set k1 v1", "set k2 v2", "set k3 v3"), seen.seen);
        assertEquals(Files.size(layout.file(BASE)), r.baseSize());
        assertEquals(3 * Files.size(layout.file(BASE)), r.totalSize());
    }

    @Test
    void skipsTimestampAnnotations() throws Exception {
        write(layout, INCR1, "#TS:1628217470\r\n", cmd("set", "foo1", "bar1"), "#TS:1628217471\r\n",
                cmd("set", "foo2", "bar2"), "#TS:1628217472\r\n", "#TS:1628217473\r\n", cmd("set", "foo3", "bar3"),
                "#TS:1628217474\r\n");
        manifest(layout, "file " + INCR1 + " seq 1 type i");
        assertEquals(AofLoadStatus.OK, loadAll(false).status());
        assertEquals(List.of("set foo1 bar1", "set foo2 bar2", "set foo3 bar3"), seen.seen);
    }

    @Test
    void binaryArgumentsArriveUnchanged() throws Exception {
        byte[][] got = new byte[1][];
        byte[] value = {0, '\r', '\n', (byte) 0xff, '*', '$'};
        write(layout, INCR1, io.cinnabar.persistence.RespCommandBuffer.encode("SET".getBytes(), "k".getBytes(), value));
        manifest(layout, "file " + INCR1 + " seq 1 type i");
        new AofLoader(layout, false, this::fakeRdb, argv -> got[0] = argv[2]).loadAll(AofManifest.loadFromDisk(layout));
        assertArrayEquals(value, got[0]);
    }

    @Test
    void shortReadIsTruncatedAwayWhenAllowed() throws Exception {
        byte[] incr = cmd("incr", "foo");
        byte[] partial = java.util.Arrays.copyOf(incr, incr.length - 1);
        Path file = write(layout, INCR1, incr, incr, incr, incr, incr, partial);
        manifest(layout, "file " + INCR1 + " seq 1 type i");
        try (LogCapture logs = new LogCapture()) {
            assertEquals(AofLoadStatus.TRUNCATED, loadAll(true).status());
            assertTrue(logs.lines().contains("!!! Warning: short read while loading the AOF file " + INCR1 + "!!!"));
            assertTrue(logs.lines().contains("!!! Truncating the AOF " + INCR1 + " at offset " + 5 * incr.length + " !!!"));
            assertTrue(logs.lines().contains("AOF " + INCR1 + " loaded anyway because aof-load-truncated is enabled"));
        }
        assertEquals(5, seen.seen.size());
        assertEquals(5L * incr.length, Files.size(file));
    }

    @Test
    void shortReadFailsWithoutLoadTruncatedAndLeavesTheFile() throws Exception {
        byte[] set = cmd("set", "bar", "world");
        Path file = write(layout, INCR1, cmd("set", "foo", "hello"), java.util.Arrays.copyOf(set, set.length - 1));
        long size = Files.size(file);
        manifest(layout, "file " + INCR1 + " seq 1 type i");
        try (LogCapture logs = new LogCapture()) {
            assertEquals(AofLoadStatus.FAILED, loadAll(false).status());
            assertTrue(logs.last().startsWith("Unexpected end of file reading the append only file " + INCR1 + ". You can: "
                    + "1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>."));
        }
        assertEquals(size, Files.size(file));
    }

    @Test
    void onlyTheLastFileMayBeTruncated() throws Exception {
        byte[] set = cmd("set", "bar", "world");
        Path base = write(layout, BASE, cmd("set", "foo", "hello"), java.util.Arrays.copyOf(set, 10));
        write(layout, INCR1, cmd("set", "k", "v"));
        manifest(layout, "file " + BASE + " seq 1 type b", "file " + INCR1 + " seq 1 type i");
        long size = Files.size(base);
        try (LogCapture logs = new LogCapture()) {
            assertEquals(AofLoadStatus.FAILED, loadAll(true).status());
            assertEquals("Fatal error: the truncated file is not the last file", logs.last());
        }
        assertEquals(size, Files.size(base), "a file that is not the last one is never cut");
    }

    @Test
    void unfinishedMultiIsDroppedAndCutAtTheMulti() throws Exception {
        byte[] first = cmd("set", "foo", "hello");
        Path file = write(layout, INCR1, first, cmd("multi"), cmd("set", "bar", "world"));
        manifest(layout, "file " + INCR1 + " seq 1 type i");
        try (LogCapture logs = new LogCapture()) {
            assertEquals(AofLoadStatus.TRUNCATED, loadAll(true).status());
            assertEquals(1, logs.count("Revert incomplete MULTI/EXEC transaction in AOF file " + INCR1));
        }
        assertEquals(List.of("set foo hello"), seen.seen);
        assertEquals(first.length, Files.size(file));
    }

    @Test
    void aShortReadInsideMultiCutsAtTheMulti() throws Exception {
        byte[] first = cmd("set", "foo", "hello");
        byte[] set = cmd("set", "bar", "world");
        Path file = write(layout, INCR1, first, cmd("multi"), cmd("incr", "x"), java.util.Arrays.copyOf(set, 7));
        manifest(layout, "file " + INCR1 + " seq 1 type i");
        assertEquals(AofLoadStatus.TRUNCATED, loadAll(true).status());
        assertEquals(List.of("set foo hello"), seen.seen);
        assertEquals(first.length, Files.size(file));
    }

    @Test
    void unfinishedMultiFailsWithoutLoadTruncated() throws Exception {
        write(layout, INCR1, cmd("set", "foo", "hello"), cmd("multi"), cmd("set", "bar", "world"));
        manifest(layout, "file " + INCR1 + " seq 1 type i");
        try (LogCapture logs = new LogCapture()) {
            assertEquals(AofLoadStatus.FAILED, loadAll(false).status());
            assertTrue(logs.last().startsWith("Unexpected end of file reading the append only file"));
        }
    }

    @Test
    void aCompleteTransactionIsReplayedWithItsMultiAndExec() throws Exception {
        write(layout, INCR1, cmd("MULTI"), cmd("set", "a", "1"), cmd("incr", "a"), cmd("EXEC"), cmd("set", "b", "2"));
        manifest(layout, "file " + INCR1 + " seq 1 type i");
        assertEquals(AofLoadStatus.OK, loadAll(false).status());
        assertEquals(List.of("MULTI", "set a 1", "incr a", "EXEC", "set b 2"), seen.seen);
    }

    @Test
    void badFormatNamesFileAndOffsetAndEndsWithRedissLine() throws Exception {
        byte[] first = cmd("set", "foo", "hello");
        write(layout, INCR1, first, "!!!", cmd("set", "foo", "hello"));
        manifest(layout, "file " + INCR1 + " seq 1 type i");
        try (LogCapture logs = new LogCapture()) {
            assertEquals(AofLoadStatus.FAILED, loadAll(true).status());
            assertTrue(logs.lines().contains("Bad file format at offset " + first.length + " of the append only file " + INCR1));
            assertEquals("Bad file format reading the append only file " + INCR1 + ": make a backup of your AOF file, "
                    + "then use ./redis-check-aof --fix <filename.manifest>", logs.last());
        }
        assertEquals(List.of("set foo hello"), seen.seen);
    }

    @Test
    void malformedHeadersAreFormatErrors() throws Exception {
        for (String bad : new String[] {"*0\r\n", "*abc\r\n", "*-3\r\n", "*1\r\n!3\r\nset\r\n", "*1\r\n$-1\r\n",
                "*99999999999999999999\r\n"}) {
            write(layout, INCR1, bad);
            manifest(layout, "file " + INCR1 + " seq 1 type i");
            assertEquals(AofLoadStatus.FAILED, loadAll(true).status(), bad);
            assertEquals(bad.length(), Files.size(layout.file(INCR1)), "format errors never truncate: " + bad);
        }
    }

    @Test
    void corruptLengthsDoNotAllocateAndCountAsShortReads() throws Exception {
        for (String tail : new String[] {"*2147483647\r\n$3\r\nset\r\n", "*1\r\n$9223372036854775807\r\nabc",
                "*1\r\n$99999999999999999999999\r\n", "*1\r\n$3\r\nabc", "*1\r\n$3\r\n", "*", "*3"}) {
            byte[] good = cmd("set", "a", "b");
            write(layout, INCR1, good, tail);
            manifest(layout, "file " + INCR1 + " seq 1 type i");
            assertEquals(AofLoadStatus.TRUNCATED, loadAll(true).status(), tail);
            assertEquals(good.length, Files.size(layout.file(INCR1)), tail);
        }
    }

    @Test
    void theCrlfAfterABulkIsNotCheckedAsInRedis() throws Exception {
        write(layout, INCR1, "*1\r\n$4\r\nPINGxx");
        manifest(layout, "file " + INCR1 + " seq 1 type i");
        assertEquals(AofLoadStatus.OK, loadAll(false).status());
        assertEquals(List.of("PING"), seen.seen);
    }

    @Test
    void unknownCommandFailsTheLoadWithRedissText() throws Exception {
        write(layout, INCR1, cmd("set", "foo", "hello"), cmd("bla", "foo", "hello"), cmd("set", "foo", "hello"));
        manifest(layout, "file " + INCR1 + " seq 1 type i");
        AofLoader l = new AofLoader(layout, true, this::fakeRdb, argv -> {
            if (new String(argv[0], StandardCharsets.UTF_8).equals("bla")) throw AofReplayException.unknownCommand(argv[0]);
            seen.accept(argv);
        });
        try (LogCapture logs = new LogCapture()) {
            assertEquals(AofLoadStatus.FAILED, l.loadAll(AofManifest.loadFromDisk(layout)).status());
            assertEquals("Unknown command 'bla' reading the append only file " + INCR1, logs.last());
        }
        assertEquals(1, seen.seen.size());
    }

    @Test
    void rdbBaseIsHandedToTheRdbLoader() throws Exception {
        write(layout, "appendonly.aof.1.base.rdb", "REDIS0010-payload");
        write(layout, INCR1, cmd("set", "k", "v"));
        manifest(layout, "file appendonly.aof.1.base.rdb seq 1 type b", "file " + INCR1 + " seq 1 type i");
        try (LogCapture logs = new LogCapture()) {
            assertEquals(AofLoadStatus.OK, loadAll(false).status());
            assertEquals(1, logs.count("Reading RDB base file on AOF loading..."));
        }
        assertEquals("REDIS0010-payload", new String(rdbPayloads.get(0), StandardCharsets.UTF_8));
        assertEquals(List.of("set k v"), seen.seen);
    }

    @Test
    void oldStylePreambleIsFollowedByItsAofTail() throws Exception {
        String rdb = "REDIS0009\u00fa-fake-rdb-\u00ff12345678";
        byte[] rdbBytes = rdb.getBytes(StandardCharsets.ISO_8859_1);
        rdbLength = rdbBytes.length;
        Files.write(layout.oldStyleFile(), AofTestFiles.bytes(rdbBytes, cmd("set", "k3", "v3")));
        try (LogCapture logs = new LogCapture()) {
            AofLoader.Result r = loadAll(false);
            assertEquals(AofLoadStatus.OK, r.status());
            assertTrue(logs.lines().contains("Reading RDB preamble from AOF file..."));
            assertTrue(logs.lines().contains("Reading the remaining AOF tail..."));
        }
        assertArrayEquals(rdbBytes, rdbPayloads.get(0));
        assertEquals(List.of("set k3 v3"), seen.seen);
    }

    @Test
    void truncatedRdbIsAShortRead() throws Exception {
        rdbLength = 100;
        write(layout, "appendonly.aof.1.base.rdb", "REDIS0010-cut");
        manifest(layout, "file appendonly.aof.1.base.rdb seq 1 type b");
        try (LogCapture logs = new LogCapture()) {
            assertEquals(AofLoadStatus.FAILED, loadAll(false).status());
            assertTrue(logs.lines().contains("Error reading the RDB base file appendonly.aof.1.base.rdb, AOF loading aborted"));
            assertTrue(logs.last().startsWith("Unexpected end of file reading the append only file"));
        }
    }

    @Test
    void aShortTailAfterAPreambleKeepsThePreamble() throws Exception {
        byte[] rdb = "REDIS0009-fake".getBytes(StandardCharsets.ISO_8859_1);
        rdbLength = rdb.length;
        byte[] set = cmd("set", "a", "b");
        write(layout, "appendonly.aof.1.base.rdb", rdb, java.util.Arrays.copyOf(set, 5));
        manifest(layout, "file appendonly.aof.1.base.rdb seq 1 type b");
        assertEquals(AofLoadStatus.TRUNCATED, loadAll(true).status());
        assertEquals(rdb.length, Files.size(layout.file("appendonly.aof.1.base.rdb")));
    }

    @Test
    void emptyFiles() throws Exception {
        write(layout, BASE);
        write(layout, INCR1);
        manifest(layout, "file " + BASE + " seq 1 type b", "file " + INCR1 + " seq 1 type i");
        assertEquals(AofLoadStatus.EMPTY, loadAll(false).status());

        write(layout, BASE, cmd("set", "k1", "v1"));
        write(layout, INCR2, cmd("set", "k3", "v3"));
        manifest(layout, "file " + BASE + " seq 1 type b", "file " + INCR1 + " seq 1 type i", "file " + INCR2 + " seq 2 type i");
        assertEquals(AofLoadStatus.OK, loadAll(false).status());
        assertEquals(List.of("set k1 v1", "set k3 v3"), seen.seen);

        assertEquals(AofLoadStatus.EMPTY, loader(false).loadFile(INCR1, true));
    }

    @Test
    void nothingToLoad() throws Exception {
        assertEquals(AofLoadStatus.NOT_EXIST, loadAll(false).status());
        Files.createDirectories(layout.aofDir());
        assertEquals(AofLoadStatus.NOT_EXIST, loadAll(false).status());
        assertEquals(AofLoadStatus.NOT_EXIST, loader(false).loadFile("nope.aof", true));
    }

    @Test
    void aMissingFileListedInTheManifestIsFatal() throws Exception {
        write(layout, BASE, cmd("set", "k1", "v1"));
        write(layout, INCR2, cmd("set", "k2", "v2"));
        manifest(layout, "file " + BASE + " seq 1 type b", "file " + INCR1 + " seq 1 type i", "file " + INCR2 + " seq 2 type i");
        try (LogCapture logs = new LogCapture()) {
            assertEquals(AofLoadStatus.FAILED, loadAll(false).status());
            assertTrue(logs.lines().stream().anyMatch(l -> l.matches(".*appendonly.aof.1.incr.aof .*No such file or directory")));
        }
        assertTrue(seen.seen.isEmpty(), "nothing is loaded when a file is missing");
    }

    @Test
    void damagedFilesNeverThrowNorHang() throws Exception {
        java.util.Random random = new java.util.Random(42);
        byte[] valid = AofTestFiles.bytes("#TS:1\r\n", cmd("set", "a", "1"), cmd("multi"), cmd("rpush", "l", "x", "y"),
                cmd("exec"), "REDIS", cmd("hset", "h", "f", "v"));
        for (int round = 0; round < 200; round++) {
            byte[] damaged = java.util.Arrays.copyOf(valid, random.nextInt(valid.length + 1));
            for (int flips = random.nextInt(4); flips > 0 && damaged.length > 0; flips--) {
                damaged[random.nextInt(damaged.length)] = (byte) random.nextInt(256);
            }
            write(layout, INCR1, damaged);
            manifest(layout, "file " + INCR1 + " seq 1 type i");
            AofLoadStatus status = loader(random.nextBoolean()).loadAll(AofManifest.loadFromDisk(layout)).status();
            assertTrue(status != AofLoadStatus.OPEN_ERR && status != AofLoadStatus.NOT_EXIST, status.toString());
        }
    }

    // ---- Redis 6 single file (aof-multi-part.tcl's upgrade tests) ----

    @Test
    void upgradesAnOldStyleFile() throws Exception {
        Files.write(layout.oldStyleFile(), AofTestFiles.bytes(cmd("set", "k1", "v1"), cmd("set", "k2", "v2")));
        try (LogCapture logs = new LogCapture()) {
            AofLoader.Result r = loadAll(false);
            assertEquals(AofLoadStatus.OK, r.status());
            assertEquals("file appendonly.aof seq 1 type b\n", r.manifest().toString());
            assertTrue(logs.lines().contains(
                    "Successfully migrated an old-style AOF file (appendonly.aof) into the AOF directory (appendonlydir)."));
        }
        assertFalse(Files.exists(layout.oldStyleFile()));
        assertTrue(Files.exists(layout.file("appendonly.aof")));
        assertEquals("file appendonly.aof seq 1 type b\n", Files.readString(layout.manifestPath()));
        assertEquals(List.of("set k1 v1", "set k2 v2"), seen.seen);
    }

    @Test
    void finishesAnUpgradeInterruptedBeforeTheRename() throws Exception {
        Files.write(layout.oldStyleFile(), cmd("set", "k1", "v1"));
        manifest(layout, "file appendonly.aof seq 1 type b");
        assertEquals(AofLoadStatus.OK, loadAll(false).status());
        assertFalse(Files.exists(layout.oldStyleFile()));
        assertEquals(List.of("set k1 v1"), seen.seen);
    }

    @Test
    void anOldFileBesidesAnUpgradedOneIsLeftAlone() throws Exception {
        Files.write(layout.oldStyleFile(), cmd("set", "k1", "v1"));
        manifest(layout, "file appendonly.aof seq 1 type b");
        write(layout, "appendonly.aof", cmd("set", "k4", "v4"));
        assertEquals(AofLoadStatus.OK, loadAll(false).status());
        assertTrue(Files.exists(layout.oldStyleFile()));
        assertEquals(List.of("set k4 v4"), seen.seen);
    }

    @Test
    void aManifestNamingAnOldFileThatIsNowhereFails() throws Exception {
        manifest(layout, "file appendonly.aof seq 1 type b");
        try (LogCapture logs = new LogCapture()) {
            assertEquals(AofLoadStatus.FAILED, loadAll(false).status());
            assertTrue(logs.lines().stream().anyMatch(l -> l.matches(".*appendonly.aof .*No such file or directory")));
        }
    }
}
