package io.cinnabar.command.acl;

import io.cinnabar.command.AclCategories;
import io.cinnabar.command.CommandSpec;
import io.cinnabar.util.BinaryText;

import java.util.BitSet;
import java.util.List;
import java.util.Map;

/**
 * Users and selectors as text, the way ACL LIST, GETUSER and SAVE show them (Redis's
 * ACLDescribeUser): command rules are rebuilt from the bitmap, starting from +@all or -@all,
 * adding the best-fitting categories, then single commands until the bitmap is exact.
 */
final class AclDescription {
    private AclDescription() {}

    /** Redis's ACLDescribeSelectorCommandRules. */
    static String commandRules(AclSelector selector, Acl acl) {
        StringBuilder rules = new StringBuilder();
        boolean additive = !selector.future;
        AclSelector fake = new AclSelector(0);
        fake.apply(additive ? "-@all" : "+@all", acl);
        rules.append(additive ? "-@all " : "+@all ");
        AclSelector temp = new AclSelector(0);
        temp.commands = (BitSet) selector.commands.clone();
        List<String> names = AclCategories.NAMES;
        boolean[] applied = new boolean[names.size()];
        List<CommandSpec> all = acl.all();
        while (true) {
            int best = -1;
            long minDiff = Integer.MAX_VALUE, maxSame = 0;
            for (int j = 0; j < names.size(); j++) {
                if (applied[j]) continue;
                long bit = 1L << j, on = 0, off = 0;
                for (CommandSpec s : all) {
                    if ((s.categoryBits() & bit) == 0) continue;
                    if (temp.commands.get(s.aclId())) on++; else off++;
                }
                long diff = additive ? off : on, same = additive ? on : off;
                if (same > diff && (diff < minDiff || (diff == minDiff && same > maxSame))) {
                    best = j;
                    minDiff = diff;
                    maxSame = same;
                }
            }
            if (best == -1) break;
            String cat = names.get(best);
            fake.apply((additive ? "+@" : "-@") + cat, acl);
            temp.apply((additive ? "-@" : "+@") + cat, acl);
            rules.append(additive ? "+@" : "-@").append(cat).append(' ');
            applied[best] = true;
        }
        for (CommandSpec s : all) {
            boolean userBit = selector.commands.get(s.aclId());
            if (userBit != fake.commands.get(s.aclId())) {
                rules.append(userBit ? '+' : '-').append(s.fullName()).append(' ');
                fake.change(s, userBit);
            }
            Map<Integer, List<String>> firstArgs = selector.firstArgs;
            List<String> args = firstArgs == null ? null : firstArgs.get(s.aclId());
            if (!userBit && args != null) {
                for (String a : args) rules.append('+').append(s.fullName()).append('|').append(a).append(' ');
            }
        }
        rules.setLength(rules.length() - 1);
        return rules.toString();
    }

    /** Redis's ACLDescribeSelector: keys, channels, then command rules. */
    static String selector(AclSelector s, Acl acl) {
        StringBuilder out = new StringBuilder();
        if (s.has(AclSelector.ALLKEYS)) {
            out.append("~* ");
        } else {
            for (AclSelector.KeyPattern p : s.patterns) out.append(p.describe()).append(' ');
        }
        if (s.has(AclSelector.ALLCHANNELS)) {
            out.append("&* ");
        } else {
            out.append("resetchannels ");
            for (byte[] c : s.channels) out.append('&').append(BinaryText.decode(c)).append(' ');
        }
        return out.append(commandRules(s, acl)).toString();
    }

    /** Redis's ACLDescribeUser: flags, password hashes, then each selector (the non-root ones in parentheses). */
    static String user(AclUser u, Acl acl) {
        if (u.description != null) return u.description;
        StringBuilder out = new StringBuilder();
        for (int j = 0; j < AclUser.FLAG_NAMES.length; j++) {
            if (u.has(1 << j)) out.append(AclUser.FLAG_NAMES[j]).append(' ');
        }
        for (String p : u.passwords) out.append('#').append(p).append(' ');
        for (AclSelector s : u.selectors) {
            if (s.has(AclSelector.ROOT)) out.append(selector(s, acl));
            else out.append(" (").append(selector(s, acl)).append(')');
        }
        u.description = out.toString();
        return u.description;
    }

    /** Key patterns as GETUSER's "keys" field. */
    static String keys(AclSelector s) {
        if (s.has(AclSelector.ALLKEYS)) return "~*";
        StringBuilder out = new StringBuilder();
        for (AclSelector.KeyPattern p : s.patterns) {
            if (out.length() > 0) out.append(' ');
            out.append(p.describe());
        }
        return out.toString();
    }

    /** Channel patterns as GETUSER's "channels" field. */
    static String channels(AclSelector s) {
        if (s.has(AclSelector.ALLCHANNELS)) return "&*";
        StringBuilder out = new StringBuilder();
        for (byte[] c : s.channels) {
            if (out.length() > 0) out.append(' ');
            out.append('&').append(BinaryText.decode(c));
        }
        return out.toString();
    }
}
