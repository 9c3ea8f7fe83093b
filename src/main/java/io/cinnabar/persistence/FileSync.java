package io.cinnabar.persistence;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** fsync of a directory, so a rename in it survives a crash (Redis's fsyncFileDir). */
final class FileSync {
    private FileSync() {}

    static void directory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // Some file systems refuse to open or sync directories; Redis ignores EINVAL/EBADF there too.
            if (!(e.getMessage() != null && e.getMessage().contains("Is a directory"))) throw e;
        }
    }
}
