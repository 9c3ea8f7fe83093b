package io.cinnabar.persistence.aof;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;

/**
 * Buffered reading of one AOF file with the C stdio calls Redis's loader is written against
 * (fgets, fread, feof), so that edge cases of a damaged file behave the same. Tracks the offset of
 * the next byte, which becomes the truncation point after the last whole command.
 */
final class AofInput {
    private final FileChannel channel;
    private final InputStream in;
    private final long size;
    private final byte[] buf = new byte[1 << 16];
    private int pos, limit;
    private long offset;
    private boolean eof;

    AofInput(FileChannel channel) throws IOException {
        this.channel = channel;
        this.in = Channels.newInputStream(channel);
        this.size = channel.size();
    }

    /** Goes on reading at position, dropping what was buffered (the AOF tail after an RDB preamble). */
    void seek(long position) throws IOException {
        channel.position(position);
        pos = limit = 0;
        offset = position;
        eof = false;
    }

    /** Offset of the next unread byte. */
    long offset() {
        return offset;
    }

    /** feof(): a read has run into the end of the file. */
    boolean atEof() {
        return eof;
    }

    /**
     * Whether the file starts with these bytes, consuming nothing (Redis reads the "REDIS"
     * signature and seeks back to 0). Call before any other read.
     */
    boolean startsWith(byte[] prefix) throws IOException {
        while (limit < prefix.length) {
            int k = in.read(buf, limit, buf.length - limit);
            if (k <= 0) break;
            limit += k;
        }
        if (limit < prefix.length) return false;
        return java.util.Arrays.equals(buf, 0, prefix.length, prefix, 0, prefix.length);
    }

    /**
     * fgets(line, line.length): at most {@code line.length - 1} bytes, up to and including the
     * first newline. Returns how many were read; 0 means the file ended before any byte.
     */
    int fgets(byte[] line) throws IOException {
        int max = line.length - 1, n = 0;
        while (n < max && fill()) {
            byte b = buf[pos++];
            offset++;
            line[n++] = b;
            if (b == '\n') break;
        }
        return n;
    }

    /**
     * fread of exactly n bytes. Returns null if the file ends first; a length beyond what the file
     * holds is treated as that end without allocating it, since a corrupt length must not size a
     * buffer.
     */
    byte[] readExactly(long n) throws IOException {
        if (n > size - offset || n > Integer.MAX_VALUE - 8) {
            skipToEnd();
            return null;
        }
        byte[] out = new byte[(int) n];
        int got = read(out, 0, out.length);
        return got == out.length ? out : null;
    }

    /** Consumes n bytes whatever they are (Redis does not check the CRLF after a bulk). */
    boolean discard(int n) throws IOException {
        for (int i = 0; i < n; i++) {
            if (!fill()) return false;
            pos++;
            offset++;
        }
        return true;
    }

    /** Reads up to n bytes; fewer only at the end of the file. */
    private int read(byte[] dst, int off, int n) throws IOException {
        int done = 0;
        while (done < n) {
            if (pos < limit) {
                int k = Math.min(n - done, limit - pos);
                System.arraycopy(buf, pos, dst, off + done, k);
                pos += k;
                offset += k;
                done += k;
            } else if (n - done >= buf.length) {
                int k = in.read(dst, off + done, n - done);
                if (k <= 0) {
                    eof = true;
                    break;
                }
                offset += k;
                done += k;
            } else if (!fill()) {
                break;
            }
        }
        return done;
    }

    private void skipToEnd() throws IOException {
        while (fill()) {
            offset += limit - pos;
            pos = limit;
        }
    }

    private boolean fill() throws IOException {
        if (pos < limit) return true;
        int k = in.read(buf, 0, buf.length);
        if (k <= 0) {
            eof = true;
            return false;
        }
        pos = 0;
        limit = k;
        return true;
    }

    /**
     * A view for the RDB loader: reads come from this same buffer and advance the same offset,
     * so the AOF tail starts at the first byte the RDB loader did not take.
     */
    InputStream asStream() {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                if (!fill()) return -1;
                offset++;
                return buf[pos++] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (len == 0) return 0;
                int k = AofInput.this.read(b, off, len);
                return k == 0 ? -1 : k;
            }

            @Override
            public long skip(long n) throws IOException {
                long skipped = 0;
                while (skipped < n && fill()) {
                    int k = (int) Math.min(n - skipped, limit - pos);
                    pos += k;
                    offset += k;
                    skipped += k;
                }
                return skipped;
            }

            @Override
            public int available() {
                return limit - pos;
            }
        };
    }
}
