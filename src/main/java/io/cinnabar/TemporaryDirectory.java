package io.cinnabar;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A new directory under java.io.tmpdir that only this user can enter, as
 * Files.createTempDirectory makes, without the SecureRandom that names those: the first
 * SecureRandom of a JVM loads the security providers, ~13 ms of CPU in a first embedded start. The
 * name need not be unguessable: the directory is created, not looked up, so a name taken
 * (or a link planted there) fails the creation and another name is tried.
 */
final class TemporaryDirectory {
    private static final int ATTEMPTS = 100;

    private TemporaryDirectory() {}

    static Path create(String prefix) throws IOException {
        Path parent = Path.of(System.getProperty("java.io.tmpdir"));
        FileAttribute<?>[] ownerOnly = FileSystems.getDefault().supportedFileAttributeViews().contains("posix")
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))}
                : new FileAttribute<?>[0];
        for (int i = 0; ; i++) {
            Path dir = parent.resolve(prefix + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36));
            try {
                return Files.createDirectory(dir, ownerOnly);
            } catch (FileAlreadyExistsException taken) {
                if (i == ATTEMPTS) throw taken;
            }
        }
    }
}
