package io.cinnabar.persistence.aof;

import io.cinnabar.util.ArgSplitter;
import io.cinnabar.util.SdsQuoting;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Redis 7.0's AOF manifest: at most one BASE file, the HISTORY files a rewrite left behind, and
 * the INCR files in load order, one line each: {@code file <name> seq <n> type <b|h|i>}.
 * Immutable: each change returns a new manifest, so a failed step (a rename, a write of the
 * manifest) leaves the one in use untouched, as Redis does with its dup-modify-swap.
 */
public final class AofManifest {
    private static final Logger log = LoggerFactory.getLogger(AofManifest.class);
    /** Redis reads the manifest with fgets into a buffer of this many characters plus the NUL. */
    private static final int MAX_LINE = 1024;

    public enum FileType {
        BASE('b'), HISTORY('h'), INCR('i');

        private final char code;

        FileType(char code) {
            this.code = code;
        }

        public char code() {
            return code;
        }
    }

    /** One line of the manifest. */
    public record FileInfo(String fileName, long seq, FileType type) {
        FileInfo as(FileType t) {
            return new FileInfo(fileName, seq, t);
        }
    }

    private static final AofManifest EMPTY = new AofManifest(null, List.of(), List.of(), 0, 0);

    private final FileInfo base;
    private final List<FileInfo> history;
    private final List<FileInfo> incrs;
    private final long baseSeq;
    private final long incrSeq;

    private AofManifest(FileInfo base, List<FileInfo> history, List<FileInfo> incrs, long baseSeq, long incrSeq) {
        this.base = base;
        this.history = Collections.unmodifiableList(history);
        this.incrs = Collections.unmodifiableList(incrs);
        this.baseSeq = baseSeq;
        this.incrSeq = incrSeq;
    }

    public static AofManifest empty() {
        return EMPTY;
    }

    /** The BASE file, or null. */
    public FileInfo base() {
        return base;
    }

    public List<FileInfo> history() {
        return history;
    }

    /** INCR files in load order. */
    public List<FileInfo> incrs() {
        return incrs;
    }

    /** The INCR file being appended to, or null when there is none. */
    public FileInfo lastIncr() {
        return incrs.isEmpty() ? null : incrs.get(incrs.size() - 1);
    }

    /** True when there is neither a BASE nor an INCR file: nothing to load. */
    public boolean hasNoData() {
        return base == null && incrs.isEmpty();
    }

    /** Sequence of the current BASE file; the next one gets this plus one. */
    public long baseSeq() {
        return baseSeq;
    }

    /** Sequence of the last INCR file; the next one gets this plus one. */
    public long incrSeq() {
        return incrSeq;
    }

    // ---- changes, each returning a new manifest ----

    /** getNewBaseFileNameAndMarkPreAsHistory: a new BASE; the previous one heads the history. */
    AofManifest withNewBase(AofLayout layout, boolean rdb) {
        List<FileInfo> h = new ArrayList<>(history);
        if (base != null) h.add(0, base.as(FileType.HISTORY));
        long seq = baseSeq + 1;
        return new AofManifest(new FileInfo(layout.baseName(seq, rdb), seq, FileType.BASE), h, incrs, seq, incrSeq);
    }

    /** getNewIncrAofName: a new INCR file at the end of the list. */
    AofManifest withNewIncr(AofLayout layout) {
        List<FileInfo> i = new ArrayList<>(incrs);
        long seq = incrSeq + 1;
        i.add(new FileInfo(layout.incrName(seq), seq, FileType.INCR));
        return new AofManifest(base, history, i, baseSeq, seq);
    }

    /**
     * markRewrittenIncrAofAsHistory: after a rewrite, the INCR files it covers become HISTORY
     * (each one placed at the head, as Redis walks them from the tail). The file still being
     * appended to, the last one, stays INCR when {@code keepLast}.
     */
    AofManifest withRewrittenIncrsAsHistory(boolean keepLast) {
        List<FileInfo> h = new ArrayList<>(history);
        List<FileInfo> i = new ArrayList<>(incrs);
        int stop = keepLast && !i.isEmpty() ? i.size() - 1 : i.size();
        for (int k = stop - 1; k >= 0; k--) h.add(0, i.get(k).as(FileType.HISTORY));
        i.subList(0, stop).clear();
        return new AofManifest(base, h, i, baseSeq, incrSeq);
    }

    AofManifest withoutHistory() {
        return new AofManifest(base, List.of(), incrs, baseSeq, incrSeq);
    }

    /** aofUpgradePrepare: the Redis 6 single file becomes BASE number 1, under its own name. */
    AofManifest withUpgradedBase(String oldStyleName) {
        return new AofManifest(new FileInfo(oldStyleName, 1, FileType.BASE), history, incrs, 1, incrSeq);
    }

    // ---- text form ----

    /** getAofManifestAsString: BASE first, then HISTORY, then INCR files. */
    public byte[] format() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (base != null) formatLine(out, base);
        for (FileInfo f : history) formatLine(out, f);
        for (FileInfo f : incrs) formatLine(out, f);
        return out.toByteArray();
    }

    private static void formatLine(ByteArrayOutputStream out, FileInfo f) {
        byte[] name = f.fileName().getBytes(StandardCharsets.UTF_8);
        out.writeBytes("file ".getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(SdsQuoting.needsQuoting(name) ? SdsQuoting.quote(name) : name);
        out.writeBytes((" seq " + f.seq() + " type " + f.type().code() + "\n").getBytes(StandardCharsets.US_ASCII));
    }

    @Override
    public String toString() {
        return new String(format(), StandardCharsets.UTF_8);
    }

    /**
     * Parses a manifest with aofLoadManifestFromFile's rules and error texts: '#' lines are
     * comments, keys are case-insensitive and unknown ones ignored, every line must end in a newline
     * within 1024 characters, INCR sequences must grow.
     */
    public static AofManifest parse(byte[] content) throws AofManifestException {
        FileInfo base = null;
        List<FileInfo> history = new ArrayList<>();
        List<FileInfo> incrs = new ArrayList<>();
        long baseSeq = 0, incrSeq = 0, maxIncrSeq = 0;
        int pos = 0, lineNumber = 0;
        while (true) {
            if (pos >= content.length) {
                if (lineNumber == 0) throw new AofManifestException("Found an empty AOF manifest", 0, null);
                break;
            }
            int end = fgetsEnd(content, pos);
            int start = pos;
            pos = end;
            lineNumber++;
            if (content[start] == '#') continue;
            // fgets stops at a newline; a line without one within the buffer is too long (so is an
            // unterminated last line, and one with a NUL, which C string functions stop at).
            int newline = indexOf(content, start, end, (byte) '\n');
            int nul = indexOf(content, start, end, (byte) 0);
            if (newline < 0 || (nul >= 0 && nul < newline)) {
                throw new AofManifestException("The AOF manifest file contains too long line", 0, null);
            }
            byte[] line = trim(content, start, newline + 1);
            String shown = new String(line, StandardCharsets.UTF_8);
            if (line.length == 0) throw invalidFormat(lineNumber, shown);
            byte[][] argv = ArgSplitter.split(line);
            // 'argc < 6' keeps older servers able to read lines with more keys (forward compatibility).
            if (argv == null || argv.length < 6 || argv.length % 2 != 0) throw invalidFormat(lineNumber, shown);

            String name = null;
            long seq = 0;
            int type = 0;
            for (int i = 0; i < argv.length; i += 2) {
                String key = new String(argv[i], StandardCharsets.ISO_8859_1);
                if (key.equalsIgnoreCase("file")) {
                    name = new String(argv[i + 1], StandardCharsets.UTF_8);
                    if (name.indexOf('/') >= 0 || name.indexOf('\\') >= 0) {
                        throw new AofManifestException("File can't be a path, just a filename", lineNumber, shown);
                    }
                } else if (key.equalsIgnoreCase("seq")) {
                    seq = CNumbers.strtol(argv[i + 1], 0, argv[i + 1].length);
                } else if (key.equalsIgnoreCase("type")) {
                    type = argv[i + 1].length == 0 ? 0 : argv[i + 1][0];
                }
            }
            if (name == null || seq == 0 || type == 0) throw invalidFormat(lineNumber, shown);

            if (type == FileType.BASE.code) {
                if (base != null) throw new AofManifestException("Found duplicate base file information", lineNumber, shown);
                base = new FileInfo(name, seq, FileType.BASE);
                baseSeq = seq;
            } else if (type == FileType.HISTORY.code) {
                history.add(new FileInfo(name, seq, FileType.HISTORY));
            } else if (type == FileType.INCR.code) {
                if (seq <= maxIncrSeq) throw new AofManifestException("Found a non-monotonic sequence number", lineNumber, shown);
                incrs.add(new FileInfo(name, seq, FileType.INCR));
                incrSeq = seq;
                maxIncrSeq = seq;
            } else {
                throw new AofManifestException("Unknown AOF file type", lineNumber, shown);
            }
        }
        return new AofManifest(base, history, incrs, baseSeq, incrSeq);
    }

    /**
     * aofLoadManifestFromDisk: the manifest in the AOF directory, or an empty one when the
     * directory or the manifest does not exist (a fresh start, or an upgrade from Redis 6).
     */
    public static AofManifest loadFromDisk(AofLayout layout) throws AofManifestException {
        if (!Files.isDirectory(layout.aofDir())) {
            log.debug("The AOF directory {} doesn't exist", layout.dirName());
            return EMPTY;
        }
        if (!Files.exists(layout.manifestPath())) {
            log.debug("The AOF manifest file {} doesn't exist", layout.manifestName());
            return EMPTY;
        }
        return load(layout.manifestPath());
    }

    /**
     * Reads and parses one manifest file. On failure this logs Redis's FATAL AOF MANIFEST FILE
     * ERROR block (the Redis test suite counts those lines) and throws; the caller should stop
     * without logging the same text again.
     */
    public static AofManifest load(Path manifestFile) throws AofManifestException {
        byte[] content;
        try {
            content = Files.readAllBytes(manifestFile);
        } catch (NoSuchFileException e) {
            throw cannotOpen(manifestFile, e);
        } catch (IOException e) {
            if (!Files.isReadable(manifestFile)) throw cannotOpen(manifestFile, e);
            AofManifestException failure = new AofManifestException("Read AOF manifest failed", e);
            logFatal(failure);
            throw failure;
        }
        try {
            return parse(content);
        } catch (AofManifestException e) {
            logFatal(e);
            throw e;
        }
    }

    private static AofManifestException cannotOpen(Path manifestFile, IOException e) {
        String text = "Fatal error: can't open the AOF manifest file " + manifestFile + " for reading: "
                + IoErrors.strerror(e);
        log.warn(text);
        return new AofManifestException(text, e);
    }

    private static void logFatal(AofManifestException e) {
        log.warn("*** FATAL AOF MANIFEST FILE ERROR ***");
        if (e.line() != null) {
            log.warn("Reading the manifest file, at line {}", e.lineNumber());
            log.warn(">>> '{}'", e.line());
        }
        log.warn(e.getMessage());
    }

    /**
     * writeAofManifestFile: written to a temp file, fsynced, renamed over the manifest, and the
     * directory fsynced, so a crash leaves either the old manifest or the new one. Failures are
     * logged with Redis's texts and thrown.
     */
    public void persist(AofLayout layout) throws IOException {
        Path tmp = layout.file(layout.tempManifestName());
        byte[] bytes = format();
        try (FileChannel ch = openForWrite(tmp, layout)) {
            try {
                ByteBuffer b = ByteBuffer.wrap(bytes);
                while (b.hasRemaining()) ch.write(b);
            } catch (IOException e) {
                log.warn("Error trying to write the temporary AOF manifest file {}: {}",
                        layout.tempManifestName(), IoErrors.strerror(e));
                throw e;
            }
            try {
                ch.force(true);
            } catch (IOException e) {
                log.warn("Fail to fsync the temp AOF file {}: {}.", layout.tempManifestName(), IoErrors.strerror(e));
                throw e;
            }
        }
        try {
            Files.move(tmp, layout.manifestPath(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            log.warn("Error trying to rename the temporary AOF manifest file {} into {}: {}",
                    layout.tempManifestName(), layout.manifestName(), IoErrors.strerror(e));
            throw e;
        }
        try {
            fsyncDirectory(layout.aofDir());
        } catch (IOException e) {
            log.warn("Fail to fsync AOF directory {}: {}.", layout.manifestPath(), IoErrors.strerror(e));
            throw e;
        }
    }

    private static FileChannel openForWrite(Path tmp, AofLayout layout) throws IOException {
        try {
            return FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING);
        } catch (IOException e) {
            log.warn("Can't open the AOF manifest file {}: {}", layout.tempManifestName(), IoErrors.strerror(e));
            throw e;
        }
    }

    /** Makes renames and new files in a directory durable (fsync on the directory itself). */
    static void fsyncDirectory(Path dir) throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    // ---- parsing helpers ----

    private static AofManifestException invalidFormat(int lineNumber, String line) {
        return new AofManifestException("Invalid AOF manifest file format", lineNumber, line);
    }

    /** End (exclusive) of what one fgets call with a 1025-byte buffer takes from pos. */
    private static int fgetsEnd(byte[] c, int pos) {
        int limit = Math.min(c.length, pos + MAX_LINE);
        for (int i = pos; i < limit; i++) {
            if (c[i] == '\n') return i + 1;
        }
        return limit;
    }

    private static int indexOf(byte[] c, int from, int to, byte b) {
        for (int i = from; i < to; i++) {
            if (c[i] == b) return i;
        }
        return -1;
    }

    /** sdstrim(line, " \t\r\n"). */
    private static byte[] trim(byte[] c, int from, int to) {
        while (from < to && isTrimmed(c[from])) from++;
        while (to > from && isTrimmed(c[to - 1])) to--;
        byte[] out = new byte[to - from];
        System.arraycopy(c, from, out, 0, out.length);
        return out;
    }

    private static boolean isTrimmed(byte b) {
        return b == ' ' || b == '\t' || b == '\r' || b == '\n';
    }
}
