package io.cinnabar.command.tracking;

import java.util.ArrayList;
import java.util.List;

/** One client's CLIENT TRACKING mode (Redis's CLIENT_TRACKING_* flags, redirection and prefixes). */
public final class ClientTracking {
    boolean on, bcast, optin, optout, noloop, caching, brokenRedirect;
    long redirect;
    /** BCAST prefixes, in the order given. */
    final List<byte[]> prefixes = new ArrayList<>();

    /** How many BCAST prefixes are registered (client memory accounting). */
    public int prefixCount() {
        return prefixes.size();
    }

    public boolean on() {
        return on;
    }

    /** Flags for CLIENT LIST: t (tracking), R (redirect broken). */
    public String listFlags() {
        if (!on) return "";
        return brokenRedirect ? "tR" : "t";
    }

    /** CLIENT LIST's redir field: the redirection client id, -1 when not tracking. */
    public long redirectField() {
        return on ? redirect : -1;
    }
}
