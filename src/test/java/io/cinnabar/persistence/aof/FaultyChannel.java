package io.cinnabar.persistence.aof;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/** A real file channel that runs out of disk space, or fails to truncate or fsync, on demand. */
final class FaultyChannel extends FileChannel {
    private final FileChannel real;
    /** Bytes writes may still put on disk before "No space left on device"; negative for no limit. */
    long spaceLeft = -1;
    boolean failTruncate;
    boolean failForce;

    FaultyChannel(FileChannel real) {
        this.real = real;
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        if (spaceLeft < 0) return real.write(srcs, offset, length);
        long written = 0;
        for (int i = offset; i < offset + length && spaceLeft > 0; i++) {
            ByteBuffer src = srcs[i];
            int n = (int) Math.min(src.remaining(), spaceLeft);
            ByteBuffer part = src.slice();
            part.limit(n);
            int w = real.write(part);
            src.position(src.position() + w);
            written += w;
            spaceLeft -= w;
        }
        boolean more = false;
        for (int i = offset; i < offset + length; i++) more |= srcs[i].hasRemaining();
        if (more && written == 0) throw new IOException("No space left on device");
        return written;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return (int) write(new ByteBuffer[] {src}, 0, 1);
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        if (failTruncate) throw new IOException("Input/output error");
        real.truncate(size);
        return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
        if (failForce) throw new IOException("Input/output error");
        real.force(metaData);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return real.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        return real.read(dsts, offset, length);
    }

    @Override
    public long position() throws IOException {
        return real.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        real.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return real.size();
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        return real.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        return real.transferFrom(src, position, count);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        return real.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        return real.write(src, position);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        return real.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        return real.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        return real.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        real.close();
    }
}
