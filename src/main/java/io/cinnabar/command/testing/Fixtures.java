package io.cinnabar.command.testing;

import io.cinnabar.command.Client;
import io.cinnabar.command.ClientChannel;
import io.cinnabar.command.Dispatcher;
import io.cinnabar.command.ServerContext;
import io.cinnabar.util.ArgSplitter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Loads a fixture file into a running server: an RDB file (a dump.rdb from Redis or Cinnabar), or
 * a file of commands, either one per line as redis-cli takes them (quotes and escapes as in
 * redis.conf; blank lines and lines starting with '#' skipped) or RESP arrays as an AOF holds
 * them. Commands run as the AOF loader runs them, by a client of their own, after the name and
 * arity checks; the first that fails stops the load. Keyspace thread.
 */
final class Fixtures {
    private static final byte[] RDB_SIGNATURE = "REDIS".getBytes(StandardCharsets.US_ASCII);

    private Fixtures() {}

    static void load(ServerContext server, Dispatcher dispatcher, Path file) {
        byte[] content;
        try {
            content = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("Can't read fixture " + file + ": " + e.getMessage(), e);
        }
        if (content.length >= RDB_SIGNATURE.length && Arrays.equals(content, 0, RDB_SIGNATURE.length, RDB_SIGNATURE, 0, RDB_SIGNATURE.length)) {
            String error = server.dataSets().loadRdbFixture(file);
            if (error != null) throw new IllegalArgumentException("Fixture " + file + ": " + error);
            return;
        }
        Client client = new Client(-1, ClientChannel.NOWHERE, true);
        List<byte[][]> commands = isResp(content) ? resp(content, file) : lines(content, file);
        for (int i = 0; i < commands.size(); i++) {
            String error = dispatcher.replayChecked(client, commands.get(i));
            if (error != null) {
                throw new IllegalArgumentException("Fixture " + file + ", command " + (i + 1) + " ("
                        + new String(commands.get(i)[0], StandardCharsets.UTF_8) + "): " + error);
            }
        }
    }

    private static boolean isResp(byte[] content) {
        for (byte b : content) {
            if (b == ' ' || b == '\t' || b == '\r' || b == '\n') continue;
            return b == '*';
        }
        return false;
    }

    private static List<byte[][]> lines(byte[] content, Path file) {
        List<byte[][]> out = new ArrayList<>();
        int start = 0, lineNo = 0;
        while (start < content.length) {
            int end = start;
            while (end < content.length && content[end] != '\n') end++;
            lineNo++;
            int stop = end > start && content[end - 1] == '\r' ? end - 1 : end;
            int first = start;
            while (first < stop && (content[first] == ' ' || content[first] == '\t')) first++;
            // A comment is skipped whole: its text need not split into arguments.
            if (first < stop && content[first] != '#') {
                byte[][] args = ArgSplitter.split(Arrays.copyOfRange(content, first, stop));
                if (args == null) throw new IllegalArgumentException("Fixture " + file + ", line " + lineNo + ": unbalanced quotes");
                if (args.length > 0) out.add(args);
            }
            start = end + 1;
        }
        return out;
    }

    /** RESP arrays of bulk strings, one per command. */
    private static List<byte[][]> resp(byte[] content, Path file) {
        List<byte[][]> out = new ArrayList<>();
        int[] pos = {0};
        while (true) {
            while (pos[0] < content.length && Character.isWhitespace(content[pos[0]])) pos[0]++;
            if (pos[0] >= content.length) return out;
            long n = header(content, pos, '*', file);
            if (n < 1 || n > 1024 * 1024) throw malformed(file, pos[0]);
            byte[][] argv = new byte[(int) n][];
            for (int i = 0; i < n; i++) {
                long len = header(content, pos, '$', file);
                if (len < 0 || pos[0] + len + 2 > content.length) throw malformed(file, pos[0]);
                argv[i] = Arrays.copyOfRange(content, pos[0], pos[0] + (int) len);
                pos[0] += (int) len + 2;
            }
            out.add(argv);
        }
    }

    /** Reads "<type><number>\r\n" at pos, moving past it. */
    private static long header(byte[] content, int[] pos, char type, Path file) {
        int p = pos[0];
        if (p >= content.length || content[p] != type) throw malformed(file, p);
        int end = p + 1;
        while (end < content.length && content[end] != '\r') end++;
        if (end + 1 >= content.length || content[end + 1] != '\n') throw malformed(file, p);
        try {
            long n = Long.parseLong(new String(content, p + 1, end - p - 1, StandardCharsets.US_ASCII));
            pos[0] = end + 2;
            return n;
        } catch (NumberFormatException e) {
            throw malformed(file, p);
        }
    }

    private static IllegalArgumentException malformed(Path file, int offset) {
        return new IllegalArgumentException("Fixture " + file + ": malformed RESP at offset " + offset);
    }
}
