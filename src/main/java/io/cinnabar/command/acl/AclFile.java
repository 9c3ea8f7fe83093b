package io.cinnabar.command.acl;

import io.cinnabar.command.Client;
import io.cinnabar.util.BinaryText;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;

/**
 * The ACL file (aclfile): "user name rules..." lines, loaded all or nothing (Redis's
 * ACLLoadFromFile) and written whole through a temporary file (ACLSaveToFile); also the "user"
 * lines of the config file at startup (ACLLoadConfiguredUsers).
 */
final class AclFile {
    private static final Logger log = LoggerFactory.getLogger(AclFile.class);

    private AclFile() {}

    /** Loads file into acl; null, or every problem found in one line of text (nothing changed then). */
    static String load(Acl acl, String file, Client caller) {
        String text;
        try {
            text = BinaryText.decode(Files.readAllBytes(acl.config().fileInDir(file)));
        } catch (IOException e) {
            String reason = e instanceof NoSuchFileException ? "No such file or directory" : String.valueOf(e.getMessage());
            return "Error loading ACLs, opening file '" + file + "': " + reason;
        }
        TreeMap<String, AclUser> users = new TreeMap<>();
        StringBuilder errors = new StringBuilder();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            int lineNo = i + 1;
            String line = strip(lines[i], " \t\r\n");
            if (line.isEmpty()) continue;
            String[] argv = line.split(" ", -1);
            if (!argv[0].equals("user") || argv.length < 2) {
                errors.append(file).append(':').append(lineNo).append(" should start with user keyword followed by the username. ");
                continue;
            }
            String name = argv[1];
            if (AclSelector.hasSpaces(name)) {
                errors.append('\'').append(file).append(':').append(lineNo).append(": username '").append(name)
                        .append("' contains invalid characters. ");
                continue;
            }
            if (users.containsKey(name)) {
                errors.append("WARNING: Duplicate user '").append(name).append("' found on line ").append(lineNo).append(". ");
                continue;
            }
            AclUser u = acl.newUser(name);
            users.put(name, u);
            List<byte[]> rules = new ArrayList<>();
            for (String a : Arrays.copyOfRange(argv, 2, argv.length)) rules.add(BinaryText.encode(a));
            List<byte[]> merged = Acl.mergeSelectors(rules, new String[1]);
            if (merged == null) {
                errors.append(file).append(':').append(lineNo).append(": Unmatched parenthesis in selector definition.");
                continue;
            }
            boolean syntaxError = false;
            for (byte[] op : merged) {
                String rule = strip(new String(op, StandardCharsets.ISO_8859_1), "\t\r\n");
                try {
                    acl.applyRule(u, rule.getBytes(StandardCharsets.ISO_8859_1));
                } catch (AclRuleException e) {
                    if (e.unknownName) {
                        errors.append(file).append(':').append(lineNo).append(": Error in applying operation '").append(rule)
                                .append("': ").append(e.getMessage()).append(". ");
                    } else if (!syntaxError) {
                        errors.append(file).append(':').append(lineNo).append(": ").append(e.getMessage()).append(". ");
                        syntaxError = true;
                    }
                }
            }
            u.rulesChanged();
        }
        if (errors.length() > 0) {
            return errors.append("WARNING: ACL errors detected, no change to the previously active ACL rules was performed").toString();
        }
        acl.replaceUsers(users, caller);
        return null;
    }

    /** Writes every user as a "user" line; false (logged) when the file could not be written. */
    static boolean save(Acl acl, String file) {
        StringBuilder out = new StringBuilder();
        for (AclUser u : acl.users()) {
            out.append("user ").append(u.name()).append(' ').append(AclDescription.user(u, acl)).append('\n');
        }
        Path target = acl.config().fileInDir(file).toAbsolutePath();
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp-" + ProcessHandle.current().pid() + "-" + System.currentTimeMillis());
        try {
            Files.write(tmp, BinaryText.encode(out.toString()));
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return true;
        } catch (IOException e) {
            log.warn("Writing ACL file for ACL SAVE: {}", e.getMessage());
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // nothing more to do: the save failed and says so
            }
            return false;
        }
    }

    /**
     * Redis's ACLLoadUsersAtStartup: the config file's "user" lines, or the ACL file, never both;
     * null, or why the server must not start.
     */
    static String loadAtStartup(Acl acl, List<String[]> configUsers, String aclFile) {
        if (!aclFile.isEmpty() && !configUsers.isEmpty()) {
            return "Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. "
                    + "This setup is very likely to lead to configuration errors and security holes, please define either "
                    + "an ACL file or declare users directly in your redis.conf, but not both.";
        }
        List<String> seen = new ArrayList<>();
        for (String[] line : configUsers) {
            String name = line[0];
            if (seen.contains(name)) {
                return "Error in user declaration '" + name + "': Duplicate user found. A user can only be defined once in config files";
            }
            seen.add(name);
            if (AclSelector.hasSpaces(name)) return "Spaces not allowed in ACL usernames";
            List<byte[]> rules = new ArrayList<>();
            for (String a : Arrays.copyOfRange(line, 1, line.length)) rules.add(BinaryText.encode(a));
            AclUser u = acl.user(name);
            if (u != null) rules.add(0, Acl.bytes("reset"));
            String err = acl.setUser(name, rules, null);
            if (err != null) return "Error loading ACL rules for the user named '" + name + "': " + err.substring(4);
        }
        if (!aclFile.isEmpty()) {
            String errors = load(acl, aclFile, null);
            if (errors != null) return "Aborting Redis startup because of ACL errors: " + errors;
        }
        return null;
    }

    private static String strip(String s, String chars) {
        int b = 0, e = s.length();
        while (b < e && chars.indexOf(s.charAt(b)) >= 0) b++;
        while (e > b && chars.indexOf(s.charAt(e - 1)) >= 0) e--;
        return s.substring(b, e);
    }
}
