package io.cinnabar.persistence.aof;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AofManifestTest {
    @TempDir
    Path dir;

    private static AofManifest parse(String text) throws AofManifestException {
        return AofManifest.parse(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String error(String text) {
        return assertThrows(AofManifestException.class, () -> parse(text)).getMessage();
    }

    @Test
    void parsesBaseHistoryAndIncrFilesAndFormatsThemBack() throws Exception {
        String text = "file appendonly.aof.2.base.rdb seq 2 type b\n"
                + "file appendonly.aof.1.incr.aof seq 1 type h\n"
                + "file appendonly.aof.2.incr.aof seq 2 type i\n"
                + "file appendonly.aof.3.incr.aof seq 3 type i\n";
        AofManifest m = parse(text);
        assertEquals("appendonly.aof.2.base.rdb", m.base().fileName());
        assertEquals(2, m.baseSeq());
        assertEquals(3, m.incrSeq());
        assertEquals(List.of(new AofManifest.FileInfo("appendonly.aof.1.incr.aof", 1, AofManifest.FileType.HISTORY)), m.history());
        assertEquals("appendonly.aof.3.incr.aof", m.lastIncr().fileName());
        assertEquals(text, m.toString());
    }

    @Test
    void baseIsWrittenFirstWhereverItWasRead() throws Exception {
        AofManifest m = parse("file a.1.incr.aof seq 1 type i\nfile a.1.base.aof seq 1 type b\n");
        assertEquals("file a.1.base.aof seq 1 type b\nfile a.1.incr.aof seq 1 type i\n", m.toString());
    }

    @Test
    void namesWithBlanksAndNewlinesAreQuotedAsRedisDoes() throws Exception {
        // aof-multi-part.tcl "appendfilename contains whitespaces" expects exactly these lines.
        AofLayout layout = new AofLayout(dir, "appendonlydir", " file seq \n\n.aof ");
        AofManifest m = AofManifest.empty().withNewBase(layout, true).withNewBase(layout, true).withNewIncr(layout);
        m = m.withNewIncr(layout).withRewrittenIncrsAsHistory(true).withoutHistory();
        String text = m.toString();
        assertEquals("file \" file seq \\n\\n.aof .2.base.rdb\" seq 2 type b\n"
                + "file \" file seq \\n\\n.aof .2.incr.aof\" seq 2 type i\n", text);
        assertEquals(" file seq \n\n.aof .2.base.rdb", parse(text).base().fileName());
    }

    @Test
    void nonAsciiAndControlBytesRoundTripThroughHexEscapes() throws Exception {
        AofLayout layout = new AofLayout(dir, "d", "caf\u00e9\t\"x");
        AofManifest m = AofManifest.empty().withNewIncr(layout);
        String text = m.toString();
        assertEquals("file \"caf\\xc3\\xa9\\t\\\"x.1.incr.aof\" seq 1 type i\n", text);
        assertEquals(m.lastIncr(), parse(text).lastIncr());
    }

    @Test
    void unknownKeysAreIgnoredAndKeysAreCaseInsensitive() throws Exception {
        AofManifest m = parse("FILE a.1.base.aof Seq 1 TYPE b newkey newvalue\nfile a.1.incr.aof seq 1 type i\n");
        assertEquals("a.1.base.aof", m.base().fileName());
        assertEquals(1, m.incrs().size());
    }

    @Test
    void commentLinesAreSkipped() throws Exception {
        AofManifest m = parse("# a comment\nfile a.1.incr.aof seq 1 type i\n#another");
        assertEquals(1, m.incrs().size());
        assertTrue(parse("# only a comment\n").hasNoData());
    }

    @Test
    void errorsUseRedisTexts() {
        assertEquals("Found an empty AOF manifest", error(""));
        assertEquals("Invalid AOF manifest file format", error("file a.1.incr.aof seq 1 type i\n\nfile a.3.incr.aof seq 3 type i\n"));
        assertEquals("Invalid AOF manifest file format", error("filx a.1.base.aof seq 1 type b\n"));
        assertEquals("Invalid AOF manifest file format", error("file a.1.incr.aof type i\n"));
        assertEquals("Invalid AOF manifest file format", error("file a.1.incr.aof seq 1 type i newkey\n"));
        assertEquals("Invalid AOF manifest file format", error("file a.1.incr.aof seq abc type i\n"));
        assertEquals("Invalid AOF manifest file format", error("file a.1.incr.aof seq 1 type \"\"\n"));
        assertEquals("Invalid AOF manifest file format", error("file \"a.1.incr.aof seq 1 type i\n"));
        assertEquals("Invalid AOF manifest file format", error("   \t\r\n"));
        assertEquals("Found duplicate base file information",
                error("file a.1.base.aof seq 1 type b\nfile a.2.base.aof seq 2 type b\n"));
        assertEquals("Unknown AOF file type", error("file a.1.base.aof seq 1 type x\n"));
        assertEquals("Found a non-monotonic sequence number",
                error("file a.2.incr.aof seq 2 type i\nfile a.1.incr.aof seq 1 type i\n"));
        assertEquals("Found a non-monotonic sequence number",
                error("file a.2.incr.aof seq 2 type i\nfile a.2b.incr.aof seq 2 type i\n"));
        assertEquals("File can't be a path, just a filename", error("file ../a.1.base.aof seq 1 type b\n"));
        assertEquals("File can't be a path, just a filename", error("file a\\b seq 1 type b\n"));
    }

    @Test
    void aLineMustEndInANewlineWithin1024Characters() {
        String longLine = "file appendonly.aof.1.base.aof seq 1 type b ".repeat(40) + "\n";
        assertEquals("The AOF manifest file contains too long line", error(longLine));
        // fgets gives the unterminated last line without a newline: Redis calls that too long.
        assertEquals("The AOF manifest file contains too long line", error("file a.1.incr.aof seq 1 type i"));
        // 1023 characters and the newline fit exactly.
        String padded = "file a.1.incr.aof seq 1 type i";
        padded = padded + " ".repeat(1023 - padded.length()) + "\n";
        assertEquals(1, assertDoesNotThrowParse(padded).incrs().size());
    }

    private static AofManifest assertDoesNotThrowParse(String text) {
        try {
            return parse(text);
        } catch (AofManifestException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void errorsCarryTheLineAndLoadLogsRedissFatalBlockOnce() throws Exception {
        Path file = dir.resolve("m.manifest");
        Files.writeString(file, "file a.1.incr.aof seq 1 type i\nfilx a.2.incr.aof seq 2 type i\n");
        try (LogCapture logs = new LogCapture()) {
            AofManifestException e = assertThrows(AofManifestException.class, () -> AofManifest.load(file));
            assertEquals(2, e.lineNumber());
            assertEquals("filx a.2.incr.aof seq 2 type i", e.line());
            assertEquals(1, logs.count("Invalid AOF manifest file format"));
            assertEquals(1, logs.count("*** FATAL AOF MANIFEST FILE ERROR ***"));
            assertEquals(1, logs.count("Reading the manifest file, at line 2"));
            assertEquals(1, logs.count(">>> 'filx a.2.incr.aof seq 2 type i'"));
        }
    }

    @Test
    void loadFromDiskIsEmptyWithoutDirectoryOrManifest() throws Exception {
        AofLayout layout = AofLayout.defaults(dir);
        assertSame(AofManifest.empty(), AofManifest.loadFromDisk(layout));
        Files.createDirectories(layout.aofDir());
        assertSame(AofManifest.empty(), AofManifest.loadFromDisk(layout));
    }

    @Test
    void persistWritesAtomicallyAndLeavesNoTempFile() throws IOException {
        AofLayout layout = AofLayout.defaults(dir);
        Files.createDirectories(layout.aofDir());
        AofManifest m = AofManifest.empty().withNewBase(layout, true).withNewIncr(layout);
        m.persist(layout);
        assertEquals("file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n",
                Files.readString(layout.manifestPath()));
        assertFalse(Files.exists(layout.file(layout.tempManifestName())));
        assertArrayEquals(m.format(), AofManifest.loadFromDisk(layout).format());
    }

    @Test
    void persistFailsLoudlyWhenTheDirectoryIsMissing() {
        AofLayout layout = AofLayout.defaults(dir.resolve("missing"));
        try (LogCapture logs = new LogCapture()) {
            assertThrows(IOException.class, () -> AofManifest.empty().withNewIncr(layout).persist(layout));
            assertEquals(1, logs.count("Can't open the AOF manifest file temp-appendonly.aof.manifest"));
        }
    }

    @Test
    void rewrittenIncrFilesBecomeHistoryInRedisOrder() {
        AofLayout layout = AofLayout.defaults(dir);
        AofManifest m = AofManifest.empty().withNewBase(layout, true).withNewIncr(layout).withNewIncr(layout);
        m = m.withNewBase(layout, true).withRewrittenIncrsAsHistory(true);
        assertEquals("file appendonly.aof.2.base.rdb seq 2 type b\n"
                + "file appendonly.aof.1.incr.aof seq 1 type h\n"
                + "file appendonly.aof.1.base.rdb seq 1 type h\n"
                + "file appendonly.aof.2.incr.aof seq 2 type i\n", m.toString());
        AofManifest off = m.withRewrittenIncrsAsHistory(false);
        assertNull(off.lastIncr());
        assertEquals(2, off.incrSeq(), "the sequence keeps counting until the manifest is read again");
    }
}
