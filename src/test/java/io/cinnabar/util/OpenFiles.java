package io.cinnabar.util;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/** The file descriptors this JVM holds, from /proc/self/fd (Linux), for tests that look for leaks. */
public final class OpenFiles {
    private static final Path FDS = Path.of("/proc/self/fd");

    private OpenFiles() {}

    /** Whether this system tells (/proc exists). */
    public static boolean listed() {
        return Files.isDirectory(FDS);
    }

    /**
     * Each open descriptor with what it is ("41->socket:[123]", "42->anon_inode:[eventpoll]",
     * "43->/path"): by number too, so that a second socket is seen beside one of the same name.
     */
    public static Set<String> list() throws IOException {
        Set<String> out = new TreeSet<>();
        try (Stream<Path> fds = Files.list(FDS)) {
            for (Path p : (Iterable<Path>) fds::iterator) {
                try {
                    out.add(p.getFileName() + "->" + Files.readSymbolicLink(p));
                } catch (IOException e) {
                    // closed meanwhile (the listing's own descriptor)
                }
            }
        }
        return out;
    }

    public static long count() throws IOException {
        try (Stream<Path> fds = Files.list(FDS)) {
            return fds.count();
        }
    }
}
