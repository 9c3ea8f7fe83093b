package io.cinnabar.persistence.aof;

import io.cinnabar.persistence.RespCommandBuffer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/** Builds AOF directories by hand, like the Redis test suite's create_aof / create_aof_manifest. */
final class AofTestFiles {
    private AofTestFiles() {}

    static byte[] cmd(String... args) {
        byte[][] argv = new byte[args.length][];
        for (int i = 0; i < args.length; i++) argv[i] = args[i].getBytes(StandardCharsets.UTF_8);
        return RespCommandBuffer.encode(argv);
    }

    static byte[] bytes(Object... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object p : parts) {
            out.writeBytes(p instanceof byte[] ? (byte[]) p : p.toString().getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }

    static Path write(AofLayout layout, String name, Object... parts) {
        try {
            Files.createDirectories(layout.aofDir());
            return Files.write(layout.file(name), bytes(parts));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void manifest(AofLayout layout, String... lines) {
        write(layout, layout.manifestName(), String.join("", Arrays.stream(lines).map(l -> l + "\n").toArray(String[]::new)));
    }

    /** Collects replayed commands as space-joined strings. */
    static final class Commands implements Consumer<byte[][]> {
        final List<String> seen = new ArrayList<>();

        @Override
        public void accept(byte[][] argv) {
            seen.add(Arrays.stream(argv).map(a -> new String(a, StandardCharsets.UTF_8)).collect(Collectors.joining(" ")));
        }
    }
}
