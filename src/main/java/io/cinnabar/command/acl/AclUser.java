package io.cinnabar.command.acl;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A user (Redis's user): enabled or not, its passwords as SHA-256 hex, and its selectors, the root
 * one first. Connections hold the user object itself, so changes reach them at once; the ACL
 * registry copies new rules into it in place (Redis's ACLCopyUser).
 */
public final class AclUser {
    static final int ENABLED = 1, DISABLED = 2, NOPASS = 4, SKIP_SANITIZE = 8, SANITIZE = 16;
    /** Redis's ACLUserFlags order, which ACL GETUSER and LIST follow. */
    static final String[] FLAG_NAMES = {"on", "off", "nopass", "skip-sanitize-payload", "sanitize-payload"};

    final String name;
    int flags = DISABLED;
    List<String> passwords = new ArrayList<>();
    List<AclSelector> selectors = new ArrayList<>();
    /**
     * Every command, key and channel allowed: the check before each command is this one read.
     * Recomputed whenever the rules change (on the keyspace thread, the only one that reads it).
     */
    boolean allowsEverything;
    /** ACL LIST's text, cached until the rules change (Redis's acl_string). */
    String description;

    AclUser(String name, int pubsubDefault) {
        this.name = name;
        selectors.add(new AclSelector(AclSelector.ROOT | pubsubDefault));
    }

    public String name() {
        return name;
    }

    /** Every command, key and channel allowed (the default user as it starts). */
    public boolean allowsEverything() {
        return allowsEverything;
    }

    /** Any password works (Redis's nopass flag). */
    public boolean nopass() {
        return has(NOPASS);
    }

    boolean has(int flag) {
        return (flags & flag) != 0;
    }

    AclSelector root() {
        return selectors.get(0);
    }

    /** Redis's ACLCopyUser: src's rules into this user, which keeps its name. */
    void copyFrom(AclUser src) {
        flags = src.flags;
        passwords = new ArrayList<>(src.passwords);
        List<AclSelector> s = new ArrayList<>();
        for (AclSelector sel : src.selectors) s.add(sel.copy());
        selectors = s;
        description = null;
        rulesChanged();
    }

    void rulesChanged() {
        description = null;
        boolean all = false;
        for (AclSelector s : selectors) all |= s.allowsEverything();
        allowsEverything = all;
    }

    /** Redis's ACLCheckUserCredentials once the user is found: enabled, and nopass or a password matches. */
    boolean passwordMatches(byte[] password) {
        if (has(DISABLED)) return false;
        if (has(NOPASS)) return true;
        byte[] hashed = hash(password).getBytes(StandardCharsets.US_ASCII);
        boolean ok = false;
        for (String p : passwords) ok |= MessageDigest.isEqual(hashed, p.getBytes(StandardCharsets.US_ASCII));
        return ok;
    }

    /** SHA-256 of the password as lower-case hex (Redis's ACLHashPassword). */
    static String hash(byte[] password) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(password));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Redis's ACLCheckPasswordHash: 64 lower-case hex digits. */
    static boolean validHash(String h) {
        if (h.length() != 64) return false;
        for (int i = 0; i < h.length(); i++) {
            char c = h.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
        }
        return true;
    }
}
