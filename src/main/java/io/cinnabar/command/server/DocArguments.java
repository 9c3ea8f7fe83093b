package io.cinnabar.command.server;

import io.cinnabar.protocol.Reply;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The "arguments" of COMMAND DOCS, as Redis 7.0.15 describes them: read from arguments.txt
 * (written by scripts/command-arguments.py from Redis's command descriptions) the first time
 * COMMAND DOCS is asked, so a server that is never asked does not pay for them at start.
 */
final class DocArguments {
    private static final String RESOURCE = "arguments.txt";

    /** One argument: name, type, then what Redis writes only when set. */
    record Argument(String name, String type, int keySpecIndex, String token, String since, String deprecatedSince,
                    List<String> flags, List<Argument> arguments) {
        void reply(Reply r) {
            boolean container = type.equals("oneof") || type.equals("block");
            r.map(2 + (keySpecIndex >= 0 ? 1 : 0) + (token != null ? 1 : 0) + (since != null ? 1 : 0)
                    + (deprecatedSince != null ? 1 : 0) + (flags.isEmpty() ? 0 : 1) + (container ? 1 : 0));
            r.bulk("name");
            r.bulk(name);
            r.bulk("type");
            r.bulk(type);
            if (keySpecIndex >= 0) {
                r.bulk("key_spec_index");
                r.integer(keySpecIndex);
            }
            if (token != null) {
                r.bulk("token");
                r.bulk(token);
            }
            if (since != null) {
                r.bulk("since");
                r.bulk(since);
            }
            if (deprecatedSince != null) {
                r.bulk("deprecated_since");
                r.bulk(deprecatedSince);
            }
            if (!flags.isEmpty()) {
                r.bulk("flags");
                r.set(flags.size());
                for (String f : flags) r.simple(f);
            }
            if (container) {
                r.bulk("arguments");
                replyList(r, arguments);
            }
        }
    }

    private static volatile Map<String, List<Argument>> byCommand;

    private DocArguments() {
    }

    /** The arguments of a command or subcommand by its full name ("config|get"), or null when Redis lists none. */
    static List<Argument> of(String fullName) {
        Map<String, List<Argument>> all = byCommand;
        if (all == null) byCommand = all = load();
        return all.get(fullName);
    }

    static void replyList(Reply r, List<Argument> args) {
        r.array(args.size());
        for (Argument a : args) a.reply(r);
    }

    private static Map<String, List<Argument>> load() {
        try (InputStream in = DocArguments.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException(RESOURCE + " is missing from the class path");
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            Map<String, List<Argument>> all = new HashMap<>();
            // The argument list being filled at each depth: [0] the command's, [1] its first container's...
            List<List<Argument>> open = new ArrayList<>();
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isEmpty() || line.startsWith("#")) continue;
                int depth = 0;
                while (line.charAt(depth) == '\t') depth++;
                if (depth == 0) {
                    open.clear();
                    open.add(new ArrayList<>());
                    all.put(line, open.get(0));
                    continue;
                }
                Argument a = parse(line.substring(depth).split("\t"));
                open.get(depth - 1).add(a);
                while (open.size() > depth) open.remove(open.size() - 1);
                open.add(a.arguments());
            }
            return all;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Argument parse(String[] fields) {
        int keySpecIndex = -1;
        String token = null, since = null, deprecatedSince = null;
        List<String> flags = new ArrayList<>(0);
        for (int i = 2; i < fields.length; i++) {
            String f = fields[i];
            int eq = f.indexOf('=');
            if (eq < 0) {
                flags.add(f);
                continue;
            }
            String value = f.substring(eq + 1);
            switch (f.substring(0, eq)) {
                case "key_spec_index" -> keySpecIndex = Integer.parseInt(value);
                case "token" -> token = value;
                case "since" -> since = value;
                case "deprecated_since" -> deprecatedSince = value;
                default -> throw new IllegalStateException("unknown attribute in " + RESOURCE + ": " + f);
            }
        }
        return new Argument(fields[0], fields[1], keySpecIndex, token, since, deprecatedSince, flags, new ArrayList<>(0));
    }
}
