package io.cinnabar.command.tracking;

import io.cinnabar.command.Call;
import io.cinnabar.command.Client;
import io.cinnabar.command.CommandError;
import io.cinnabar.protocol.Reply;
import io.cinnabar.util.BinaryText;

import java.util.ArrayList;
import java.util.List;

/** CLIENT TRACKING, CLIENT CACHING, CLIENT GETREDIR and CLIENT TRACKINGINFO (declared in ClientCommands). */
public final class TrackingCommands {
    private TrackingCommands() {}

    private static Tracking tracking(Call c) {
        return c.server().tracking();
    }

    /** CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX prefix ...] [BCAST] [OPTIN] [OPTOUT] [NOLOOP] */
    public static void trackingCommand(Call c) {
        Client client = c.client();
        long redirect = 0;
        boolean bcast = false, optin = false, optout = false, noloop = false;
        List<byte[]> prefixes = new ArrayList<>();
        for (int j = 3; j < c.argCount(); j++) {
            boolean more = j + 1 < c.argCount();
            if (c.argIs(j, "REDIRECT") && more) {
                j++;
                if (redirect != 0) throw new CommandError("ERR A client can only redirect to a single other client");
                redirect = c.longArg(j);
                if (c.server().client(redirect) == null) {
                    throw new CommandError("ERR The client ID you want redirect to does not exist");
                }
            } else if (c.argIs(j, "BCAST")) {
                bcast = true;
            } else if (c.argIs(j, "OPTIN")) {
                optin = true;
            } else if (c.argIs(j, "OPTOUT")) {
                optout = true;
            } else if (c.argIs(j, "NOLOOP")) {
                noloop = true;
            } else if (c.argIs(j, "PREFIX") && more) {
                prefixes.add(c.arg(++j));
            } else {
                throw CommandError.syntax();
            }
        }
        ClientTracking t = client.tracking();
        boolean on = t != null && t.on;
        if (c.argIs(2, "ON")) {
            if (!bcast && !prefixes.isEmpty()) throw new CommandError("ERR PREFIX option requires BCAST mode to be enabled");
            if (on && t.bcast != bcast) {
                throw new CommandError("ERR You can't switch BCAST mode on/off before disabling tracking for this client, "
                        + "and then re-enabling it with a different mode.");
            }
            if (bcast && (optin || optout)) throw new CommandError("ERR OPTIN and OPTOUT are not compatible with BCAST");
            if (optin && optout) throw new CommandError("ERR You can't specify both OPTIN mode and OPTOUT mode");
            if (on && ((optin && t.optout) || (optout && t.optin))) {
                throw new CommandError("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, "
                        + "and then re-enabling it with a different mode.");
            }
            if (bcast) checkPrefixes(c, prefixes);
            tracking(c).enable(client, redirect, bcast, optin, optout, noloop, prefixes);
        } else if (c.argIs(2, "OFF")) {
            tracking(c).disable(client);
        } else {
            throw CommandError.syntax();
        }
        c.reply().ok();
    }

    private static void checkPrefixes(Call c, List<byte[]> prefixes) {
        for (int i = 0; i < prefixes.size(); i++) {
            byte[] p = prefixes.get(i);
            byte[] existing = tracking(c).overlappingPrefix(c.client(), p);
            if (existing != null) {
                throw new CommandError("ERR Prefix '" + text(p) + "' overlaps with an existing prefix '" + text(existing)
                        + "'. Prefixes for a single client must not overlap.");
            }
            for (int j = i + 1; j < prefixes.size(); j++) {
                if (Tracking.overlap(p, prefixes.get(j))) {
                    throw new CommandError("ERR Prefix '" + text(p) + "' overlaps with another provided prefix '"
                            + text(prefixes.get(j)) + "'. Prefixes for a single client must not overlap.");
                }
            }
        }
    }

    private static String text(byte[] b) {
        return BinaryText.decode(b);
    }

    /** CLIENT CACHING YES|NO */
    public static void caching(Call c) {
        ClientTracking t = c.client().tracking();
        if (t == null || !t.on) {
            throw new CommandError("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN "
                    + "or OPTOUT mode enabled");
        }
        if (c.argIs(2, "YES")) {
            if (!t.optin) throw new CommandError("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
        } else if (c.argIs(2, "NO")) {
            if (!t.optout) throw new CommandError("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
        } else {
            throw CommandError.syntax();
        }
        t.caching = true;
        c.reply().ok();
    }

    /** CLIENT GETREDIR */
    public static void getredir(Call c) {
        ClientTracking t = c.client().tracking();
        c.reply().integer(t == null ? -1 : t.redirectField());
    }

    /** CLIENT TRACKINGINFO */
    public static void trackingInfo(Call c) {
        ClientTracking t = c.client().tracking();
        boolean on = t != null && t.on;
        List<String> flags = new ArrayList<>();
        flags.add(on ? "on" : "off");
        if (on) {
            if (t.bcast) flags.add("bcast");
            if (t.optin) {
                flags.add("optin");
                if (t.caching) flags.add("caching-yes");
            }
            if (t.optout) {
                flags.add("optout");
                if (t.caching) flags.add("caching-no");
            }
            if (t.noloop) flags.add("noloop");
            if (t.brokenRedirect) flags.add("broken_redirect");
        }
        Reply r = c.reply();
        r.map(3);
        r.bulk("flags");
        r.set(flags.size());
        for (String f : flags) r.bulk(f);
        r.bulk("redirect");
        r.integer(on ? t.redirect : -1);
        r.bulk("prefixes");
        if (on) {
            r.array(t.prefixes.size());
            for (byte[] p : t.prefixes) r.bulk(p);
        } else {
            r.array(0);
        }
    }

    /**
     * Redis resets CLIENT CACHING after each command outside MULTI other than a CLIENT subcommand;
     * the Dispatcher calls this after such commands.
     */
    public static void commandDone(Client c) {
        ClientTracking t = c.tracking();
        if (t != null) t.caching = false;
    }
}
