package io.cinnabar.command.tracking;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** One client's CLIENT TRACKING mode (Redis's CLIENT_TRACKING_* flags, redirection and prefixes). */
public final class ClientTracking {
    boolean on, bcast, optin, optout, noloop, caching, brokenRedirect;
    long redirect;
    /** BCAST prefixes in byte order, as Redis's radix tree of them lists them (CLIENT TRACKINGINFO). */
    final List<byte[]> prefixes = new ArrayList<>();

    void addPrefix(byte[] p) {
        int at = 0;
        while (at < prefixes.size() && Arrays.compareUnsigned(prefixes.get(at), p) < 0) at++;
        prefixes.add(at, p);
    }

    /** How many BCAST prefixes are registered (client memory accounting). */
    public int prefixCount() {
        return prefixes.size();
    }

    public boolean on() {
        return on;
    }

    /** Flags for CLIENT LIST: t (tracking), R (redirect broken), B (BCAST), in Redis's order. */
    public String listFlags() {
        if (!on) return "";
        return "t" + (brokenRedirect ? "R" : "") + (bcast ? "B" : "");
    }

    /** CLIENT LIST's redir field: the redirection client id, -1 when not tracking. */
    public long redirectField() {
        return on ? redirect : -1;
    }
}
