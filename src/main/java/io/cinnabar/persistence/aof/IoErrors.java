package io.cinnabar.persistence.aof;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * The strerror() text of an IOException, so log lines and MISCONF replies read as Redis's do
 * ("No such file or directory", "No space left on device"). Java's file-system exceptions carry
 * the path as their message and keep the OS reason apart, or imply it by their class.
 */
public final class IoErrors {
    private IoErrors() {}

    public static String strerror(IOException e) {
        if (e instanceof NoSuchFileException) return "No such file or directory";
        if (e instanceof AccessDeniedException) return "Permission denied";
        if (e instanceof FileAlreadyExistsException) return "File exists";
        if (e instanceof DirectoryNotEmptyException) return "Directory not empty";
        if (e instanceof NotDirectoryException) return "Not a directory";
        if (e instanceof FileSystemException && ((FileSystemException) e).getReason() != null) {
            return ((FileSystemException) e).getReason();
        }
        if (e instanceof AofWriteException) return ((AofWriteException) e).strerror();
        String m = e.getMessage();
        return m != null ? m : e.getClass().getSimpleName();
    }
}
