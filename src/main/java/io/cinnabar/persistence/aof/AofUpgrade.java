package io.cinnabar.persistence.aof;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;

/**
 * Moves a Redis 6 single append-only file ({@code <dir>/<appendfilename>}) into the Redis 7
 * layout as BASE file number 1, as aofUpgradePrepare does. The manifest is written before the
 * file is moved, so a crash in between is finished on the next start.
 */
public final class AofUpgrade {
    private static final Logger log = LoggerFactory.getLogger(AofUpgrade.class);

    private AofUpgrade() {}

    /**
     * Upgrades when the old file exists and the directory holds no AOF of its own: no directory,
     * a manifest without files, or a manifest naming only the old file which was not moved yet.
     * Returns the manifest to use. Failures are logged with Redis's texts and thrown; Redis exits.
     */
    public static AofManifest prepareIfNeeded(AofLayout layout, AofManifest manifest) throws IOException {
        if (!Files.isRegularFile(layout.oldStyleFile())) return manifest;
        AofManifest.FileInfo base = manifest.base();
        boolean interrupted = base != null && manifest.incrs().isEmpty()
                && base.fileName().equals(layout.fileName()) && !Files.exists(layout.file(layout.fileName()));
        if (Files.isDirectory(layout.aofDir()) && !manifest.hasNoData() && !interrupted) return manifest;
        return prepare(layout, manifest);
    }

    private static AofManifest prepare(AofLayout layout, AofManifest manifest) throws IOException {
        AofFiles.createDirIfMissing(layout);
        AofManifest upgraded = manifest.withUpgradedBase(layout.fileName());
        upgraded.persist(layout);
        try {
            Files.move(layout.oldStyleFile(), layout.file(layout.fileName()), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            log.warn("Error trying to move the old AOF file {} into dir {}: {}",
                    layout.fileName(), layout.dirName(), IoErrors.strerror(e));
            throw e;
        }
        log.info("Successfully migrated an old-style AOF file ({}) into the AOF directory ({}).",
                layout.fileName(), layout.dirName());
        return upgraded;
    }
}
