package io.cinnabar.persistence.aof;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import static io.cinnabar.persistence.aof.AofTestFiles.bytes;
import static io.cinnabar.persistence.aof.AofTestFiles.cmd;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AofFilesTest {
    private static final byte[] EMPTY_RDB = "REDIS0010-empty".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;
    AofLayout layout;
    long now = 1_000;
    List<FaultyChannel> channels;

    @BeforeEach
    void setUp() {
        layout = AofLayout.defaults(dir);
        channels = new ArrayList<>();
    }

    private AofFiles files(AofManifest manifest) {
        return new AofFiles(layout, manifest, () -> now, path -> {
            FaultyChannel ch = new FaultyChannel(FileChannel.open(path, StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE, StandardOpenOption.APPEND));
            channels.add(ch);
            return ch;
        });
    }

    private AofFiles started() throws IOException {
        AofFiles f = files(AofManifest.loadFromDisk(layout));
        f.openOnStartup(true, out -> out.write(EMPTY_RDB));
        return f;
    }

    private FaultyChannel current() {
        return channels.get(channels.size() - 1);
    }

    private String manifestText() throws IOException {
        return Files.readString(layout.manifestPath());
    }

    private byte[] read(String name) throws IOException {
        return Files.readAllBytes(layout.file(name));
    }

    private boolean exists(String name) {
        return Files.exists(layout.file(name));
    }

    /** Stands in for the lead's snapshot writer: a BASE file at the place startRewrite named. */
    private static Path writeBase(AofFiles.RewriteTarget target, String content) throws IOException {
        return Files.writeString(target.tempFile(), content);
    }

    private void rewriteOk(AofFiles f) throws IOException {
        f.finishRewrite(writeBase(f.startRewrite(), "REDIS0010-snapshot"), true);
    }

    @Test
    void startsFromNothingWithABaseAnIncrFileAndAManifest() throws IOException {
        try (LogCapture logs = new LogCapture(); AofFiles f = started()) {
            assertEquals(AofFiles.State.ON, f.state());
            assertEquals("file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n",
                    manifestText());
            assertArrayEquals(EMPTY_RDB, read("appendonly.aof.1.base.rdb"));
            assertEquals(0, read("appendonly.aof.1.incr.aof").length);
            assertEquals(EMPTY_RDB.length, f.baseSize());
            assertEquals(EMPTY_RDB.length, f.currentSize());
            assertTrue(logs.lines().contains("Creating AOF base file appendonly.aof.1.base.rdb on server start"));
            assertTrue(logs.lines().contains("Creating AOF incr file appendonly.aof.1.incr.aof on server start"));
        }
        assertFalse(Files.exists(layout.syncRewriteTempFile()));
    }

    @Test
    void anAofFormatBaseWhenThePreambleIsOff() throws IOException {
        try (AofFiles f = files(AofManifest.empty())) {
            f.openOnStartup(false, out -> { });
            assertEquals("file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n",
                    manifestText());
        }
    }

    @Test
    void reopensTheLastIncrFileAndAppendsAfterItsBytes() throws IOException {
        try (AofFiles f = started()) {
            f.append(cmd("set", "a", "1"));
        }
        byte[] before = read("appendonly.aof.1.incr.aof");
        try (LogCapture logs = new LogCapture(); AofFiles f = started()) {
            assertTrue(logs.lines().contains("Opening AOF incr file appendonly.aof.1.incr.aof on server start"));
            assertEquals(before.length, f.incrSize());
            assertEquals(EMPTY_RDB.length + before.length, f.currentSize());
            f.append(cmd("set", "b", "2"));
        }
        assertArrayEquals(bytes(before, cmd("set", "b", "2")), read("appendonly.aof.1.incr.aof"));
    }

    @Test
    void appendCountsBytesAndFsyncCoversThem() throws IOException {
        try (AofFiles f = started()) {
            byte[] batch = bytes(cmd("set", "a", "1"), cmd("set", "b", "2"));
            f.append(batch);
            assertEquals(batch.length, f.incrSize());
            assertEquals(EMPTY_RDB.length + batch.length, f.currentSize());
            assertTrue(f.hasUnsyncedBytes());
            f.fsync();
            assertFalse(f.hasUnsyncedBytes());
            assertArrayEquals(batch, read("appendonly.aof.1.incr.aof"));
        }
    }

    @Test
    void autoRewriteIsDueOnceTheAofGrewByThePercentageOverItsBase() throws IOException {
        try (AofFiles f = started()) {
            long base = f.baseSize();
            assertEquals(-1, f.autoRewriteGrowth(100, 0));
            f.append(new byte[(int) base - 1]);
            assertEquals(-1, f.autoRewriteGrowth(100, 0));
            f.append(new byte[1]);
            assertEquals(100, f.autoRewriteGrowth(100, 0));
            assertEquals(-1, f.autoRewriteGrowth(100, 1024), "below auto-aof-rewrite-min-size");
            assertEquals(-1, f.autoRewriteGrowth(0, 0), "percentage 0 disables it");
            f.startRewrite();
            assertEquals(-1, f.autoRewriteGrowth(100, 0), "not while a rewrite runs");
            f.abortRewrite();
        }
    }

    @Test
    void switchingOnAbandonsARewriteStartedWhileOff() throws IOException {
        try (AofFiles f = files(AofManifest.empty())) {
            AofFiles.RewriteTarget t = f.startRewrite();
            writeBase(t, "partial");
            f.startAppendOnly();
            assertFalse(f.isRewriting());
            assertFalse(Files.exists(t.tempFile()));
            rewriteOk(f);
            assertEquals(AofFiles.State.ON, f.state());
            assertEquals("file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n",
                    manifestText());
        }
    }

    @Test
    void timestampAnnotationsPrecedeTheFirstWriteOfEachSecond() throws IOException {
        try (AofFiles f = started()) {
            f.setTimestampsEnabled(true);
            f.append(cmd("set", "a", "1"));
            f.append(cmd("set", "b", "2"));
            now++;
            f.append(cmd("set", "c", "3"));
            assertArrayEquals(bytes("#TS:1000\r\n", cmd("set", "a", "1"), cmd("set", "b", "2"), "#TS:1001\r\n",
                    cmd("set", "c", "3")), read("appendonly.aof.1.incr.aof"));
        }
    }

    @Test
    void aNewIncrFileStartsWithASelectOfTheFeedsDatabase() throws IOException {
        try (AofFiles f = started()) {
            f.append(bytes(AofTestFiles.cmd("SELECT", "5"), cmd("set", "a", "1")), -1);
            f.startRewrite();
            f.append(cmd("set", "b", "2"), 5);
            f.append(cmd("set", "c", "3"), 5);
            assertArrayEquals(bytes(cmd("SELECT", "5"), cmd("set", "b", "2"), cmd("set", "c", "3")),
                    read("appendonly.aof.2.incr.aof"));
        }
    }

    @Test
    void aRewriteSwitchesIncrFilesThenSwapsTheBaseAndDeletesHistory() throws IOException {
        try (LogCapture logs = new LogCapture(); AofFiles f = started()) {
            f.append(cmd("set", "a", "1"));
            AofFiles.RewriteTarget target = f.startRewrite();
            assertTrue(f.isRewriting());
            assertEquals(dir, target.tempFile().getParent());
            assertEquals("file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"
                    + "file appendonly.aof.2.incr.aof seq 2 type i\n", manifestText());
            assertTrue(logs.lines().contains("Creating AOF incr file appendonly.aof.2.incr.aof on background rewrite"));

            f.append(cmd("set", "b", "2"));
            assertArrayEquals(cmd("set", "b", "2"), read("appendonly.aof.2.incr.aof"));
            f.finishRewrite(writeBase(target, "REDIS0010-snapshot"), true);

            assertFalse(f.isRewriting());
            assertEquals("file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n",
                    manifestText());
            assertFalse(exists("appendonly.aof.1.base.rdb"));
            assertFalse(exists("appendonly.aof.1.incr.aof"));
            assertFalse(Files.exists(target.tempFile()));
            assertEquals("REDIS0010-snapshot", Files.readString(layout.file("appendonly.aof.2.base.rdb")));
            long expected = "REDIS0010-snapshot".length() + cmd("set", "b", "2").length;
            assertEquals(expected, f.currentSize());
            assertEquals(expected, f.baseSize());
            assertTrue(logs.lines().contains("Removing the history file appendonly.aof.1.incr.aof in the background"));

            f.append(cmd("set", "c", "3"));
            assertArrayEquals(bytes(cmd("set", "b", "2"), cmd("set", "c", "3")), read("appendonly.aof.2.incr.aof"));
        }
    }

    @Test
    void failedRewritesLeaveOneIncrFileEach() throws IOException {
        // aof-multi-part.tcl "AOF multiple rewrite failures will open multiple INCR AOFs".
        try (AofFiles f = started()) {
            rewriteOk(f);
            for (int i = 0; i < 3; i++) {
                AofFiles.RewriteTarget t = f.startRewrite();
                writeBase(t, "partial");
                f.abortRewrite();
                assertFalse(Files.exists(t.tempFile()));
            }
            assertEquals("file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n"
                    + "file appendonly.aof.3.incr.aof seq 3 type i\nfile appendonly.aof.4.incr.aof seq 4 type i\n"
                    + "file appendonly.aof.5.incr.aof seq 5 type i\n", manifestText());
            rewriteOk(f);
            assertEquals("file appendonly.aof.3.base.rdb seq 3 type b\nfile appendonly.aof.6.incr.aof seq 6 type i\n",
                    manifestText());
            for (int i = 2; i <= 5; i++) assertFalse(exists("appendonly.aof." + i + ".incr.aof"));
        }
    }

    @Test
    void aRewriteWhileOffProducesOnlyABase() throws IOException {
        // aof-multi-part.tcl "AOF rewrite doesn't open new aof when AOF turn off".
        try (AofFiles f = started()) {
            f.stopAppendOnly();
            assertEquals(AofFiles.State.OFF, f.state());
            f.append(cmd("set", "ignored", "1"));
            rewriteOk(f);
            assertEquals("file appendonly.aof.2.base.rdb seq 2 type b\n", manifestText());
            assertFalse(exists("appendonly.aof.1.incr.aof"));
        }
    }

    @Test
    void switchingOnAtRunTimeCollectsWritesInATempFileUntilTheRewriteSucceeds() throws IOException {
        try (LogCapture logs = new LogCapture(); AofFiles f = files(AofManifest.empty())) {
            f.startAppendOnly();
            assertEquals(AofFiles.State.WAIT_REWRITE, f.state());
            f.append(cmd("set", "before", "1"));
            assertFalse(exists("temp-appendonly.aof.incr"));

            f.startRewrite();
            f.append(cmd("set", "during", "1"), 0);
            assertTrue(exists("temp-appendonly.aof.incr"));
            f.abortRewrite();
            assertFalse(exists("temp-appendonly.aof.incr"));
            assertFalse(Files.exists(layout.manifestPath()));
            assertEquals(1, logs.count("Removing the temp incr aof file"));
            assertEquals(AofFiles.State.WAIT_REWRITE, f.state());

            AofFiles.RewriteTarget t = f.startRewrite();
            f.append(cmd("set", "during", "2"), 0);
            f.finishRewrite(writeBase(t, "REDIS0010-snapshot"), true);
            assertEquals(AofFiles.State.ON, f.state());
            assertEquals(1, logs.count("Removing the temp incr aof file"));
            assertEquals("file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n",
                    manifestText());
            assertFalse(exists("temp-appendonly.aof.incr"));
            f.append(cmd("set", "after", "3"), 0);
            assertArrayEquals(bytes(cmd("SELECT", "0"), cmd("set", "during", "2"), cmd("set", "after", "3")),
                    read("appendonly.aof.1.incr.aof"));
        }
    }

    @Test
    void withoutAutoGcHistoryStaysUntilItIsSwitchedBackOn() throws IOException {
        // aof-multi-part.tcl "AOF enable/disable auto gc", from BASE 5 and INCR 1.
        try (AofFiles f = started()) {
            for (int i = 0; i < 4; i++) rewriteOk(f);
            assertEquals("file appendonly.aof.5.base.rdb seq 5 type b\nfile appendonly.aof.5.incr.aof seq 5 type i\n",
                    manifestText());
            f.setAutoGc(false);
            rewriteOk(f);
            rewriteOk(f);
            assertEquals("file appendonly.aof.7.base.rdb seq 7 type b\n"
                    + "file appendonly.aof.6.incr.aof seq 6 type h\n"
                    + "file appendonly.aof.6.base.rdb seq 6 type h\n"
                    + "file appendonly.aof.5.incr.aof seq 5 type h\n"
                    + "file appendonly.aof.5.base.rdb seq 5 type h\n"
                    + "file appendonly.aof.7.incr.aof seq 7 type i\n", manifestText());
            assertTrue(exists("appendonly.aof.5.base.rdb"));
            f.setAutoGc(true);
            assertEquals("file appendonly.aof.7.base.rdb seq 7 type b\nfile appendonly.aof.7.incr.aof seq 7 type i\n",
                    manifestText());
            assertFalse(exists("appendonly.aof.5.base.rdb"));
            assertFalse(exists("appendonly.aof.6.incr.aof"));
        }
    }

    @Test
    void aFailedFinishLeavesTheManifestAsItWas() throws IOException {
        try (AofFiles f = started()) {
            AofFiles.RewriteTarget t = f.startRewrite();
            String before = manifestText();
            assertThrows(IOException.class, () -> f.finishRewrite(t.tempFile(), true));
            assertFalse(f.isRewriting());
            assertEquals(before, manifestText());
            assertEquals(before, f.manifest().toString());
            rewriteOk(f);
        }
    }

    @Test
    void upgradedFilesCarryOnWithTheirNumbering() throws IOException {
        Files.write(layout.oldStyleFile(), cmd("set", "k1", "v1"));
        AofLoader.Result r = new AofLoader(layout, false, in -> -1L, argv -> { }).loadAll(AofManifest.loadFromDisk(layout));
        try (AofFiles f = files(r.manifest())) {
            f.openOnStartup(true, out -> { });
            assertEquals("file appendonly.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n", manifestText());
            rewriteOk(f);
            assertEquals("file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n",
                    manifestText());
            assertFalse(exists("appendonly.aof"));
        }
    }

    // ---- write errors ----

    @Test
    void aShortWriteIsTruncatedAwayAndRetriedWhole() throws IOException {
        try (LogCapture logs = new LogCapture(); AofFiles f = started()) {
            byte[] first = cmd("set", "a", "1");
            f.append(first);
            byte[] batch = bytes(cmd("set", "b", "2"), cmd("set", "c", "3"));
            current().spaceLeft = 10;
            AofWriteException e = assertThrows(AofWriteException.class, () -> f.append(batch));
            assertEquals("No space left on device", e.strerror());
            assertArrayEquals(first, read("appendonly.aof.1.incr.aof"), "the partial write is cut away");
            assertEquals(first.length, f.incrSize());
            assertEquals(batch.length, f.pendingBytes());
            assertEquals("No space left on device", IoErrors.strerror(f.lastError()));
            assertTrue(logs.lines().contains("Short write while writing to the AOF file: (nwritten=10, expected="
                    + batch.length + ")"));

            byte[] next = cmd("set", "d", "4");
            assertThrows(AofWriteException.class, () -> f.append(next));
            assertEquals(batch.length + next.length, f.pendingBytes());

            current().spaceLeft = -1;
            f.flushPending();
            assertNull(f.lastError());
            assertEquals(0, f.pendingBytes());
            assertArrayEquals(bytes(first, batch, next), read("appendonly.aof.1.incr.aof"));
            assertEquals(1, logs.count("AOF write error looks solved, Redis can write again."));
        }
    }

    @Test
    void whenTruncatingFailsThePartialWriteCountsAndOnlyTheRestIsRetried() throws IOException {
        try (LogCapture logs = new LogCapture(); AofFiles f = started()) {
            byte[] batch = bytes(cmd("set", "b", "2"), cmd("set", "c", "3"));
            current().spaceLeft = 10;
            current().failTruncate = true;
            assertThrows(AofWriteException.class, () -> f.append(batch));
            assertEquals(10, f.incrSize());
            assertEquals(batch.length - 10, f.pendingBytes());
            assertEquals(1, logs.count("Could not remove short write from the append-only file."));
            current().spaceLeft = -1;
            f.append(cmd("set", "d", "4"));
            assertArrayEquals(bytes(batch, cmd("set", "d", "4")), read("appendonly.aof.1.incr.aof"));
        }
    }

    @Test
    void aWriteOfNothingAtAllReportsTheOsError() throws IOException {
        try (LogCapture logs = new LogCapture(); AofFiles f = started()) {
            current().spaceLeft = 0;
            assertThrows(AofWriteException.class, () -> f.append(cmd("set", "a", "1")));
            assertEquals(1, logs.count("Error writing to the AOF file: No space left on device"));
            assertThrows(AofWriteException.class, () -> f.append(cmd("set", "a", "1")));
            assertEquals(1, logs.count("Error writing to the AOF file"), "at most one line per 30 seconds");
            now += 31;
            assertThrows(AofWriteException.class, () -> f.flushPending());
            assertEquals(2, logs.count("Error writing to the AOF file"));
            assertThrows(AofWriteException.class, f::close, "closing cannot write what is pending either");
            current().spaceLeft = -1;
        }
    }

    @Test
    void aRewriteDoesNotStartWhileWritesFail() throws IOException {
        try (AofFiles f = started()) {
            current().spaceLeft = 0;
            assertThrows(AofWriteException.class, () -> f.append(cmd("set", "a", "1")));
            assertThrows(AofWriteException.class, f::startRewrite);
            assertFalse(f.isRewriting());
            assertEquals("file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n",
                    manifestText());
            current().spaceLeft = -1;
        }
    }

    @Test
    void anFsyncFailureStaysReportedUntilAnFsyncSucceeds() throws IOException {
        try (AofFiles f = started()) {
            f.append(cmd("set", "a", "1"));
            current().failForce = true;
            assertThrows(IOException.class, f::fsync);
            assertEquals("Input/output error", IoErrors.strerror(f.lastError()));
            current().failForce = false;
            f.fsync();
            assertNull(f.lastError());
        }
    }

    @Test
    void aBackgroundFsyncReportsItsOutcomeWhenDone() throws IOException {
        try (AofFiles f = started()) {
            assertNull(f.startFsync(), "nothing to sync yet");
            f.append(cmd("set", "a", "1"));
            AofFiles.Fsync failing = f.startFsync();
            current().failForce = true;
            IOException error = assertThrows(IOException.class, () -> failing.channel().force(true));
            failing.done(error);
            assertEquals("Input/output error", IoErrors.strerror(f.lastError()));
            assertTrue(f.hasUnsyncedBytes());
            current().failForce = false;
            AofFiles.Fsync retry = f.startFsync();
            f.append(cmd("set", "b", "2"));
            retry.channel().force(true);
            retry.done(null);
            assertNull(f.lastError());
            assertTrue(f.hasUnsyncedBytes(), "bytes written after the fsync began are not covered");
            f.fsync();
            assertFalse(f.hasUnsyncedBytes());
        }
    }

    @Test
    void rotatingAtRewriteStartHandsTheOldFileToTheCloser() throws IOException {
        try (AofFiles f = started()) {
            List<java.io.Closeable> handed = new ArrayList<>();
            f.closeFilesWith(handed::add);
            f.append(cmd("set", "a", "1"));
            FaultyChannel old = current();
            f.startRewrite();
            assertEquals(1, handed.size());
            assertTrue(old.isOpen(), "closed by the closer, not inline");
            handed.get(0).close();
            assertFalse(old.isOpen());
        }
    }

    @Test
    void stoppingReportsAFailedFinalFsyncButStillStops() throws IOException {
        AofFiles f = started();
        f.append(cmd("set", "a", "1"));
        current().failForce = true;
        assertThrows(IOException.class, f::stopAppendOnly);
        assertEquals(AofFiles.State.OFF, f.state());
        assertFalse(current().isOpen());
    }
}
