package io.cinnabar.network;

import io.netty.handler.ssl.CipherSuiteConverter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * tls-ciphers and tls-ciphersuites as OpenSSL reads them, over the JDK's cipher suites.
 * tls-ciphers is an OpenSSL cipher string ("DEFAULT:-AES128-SHA256", "HIGH:!aNULL",
 * "ECDHE-RSA-AES128-GCM-SHA256:AES256-SHA256"): names are OpenSSL's (the JDK's IANA names are
 * accepted too), a word matches the suites having it as a part of their OpenSSL name ("AES128",
 * "ECDHE", "GCM"), "a+b" both parts, DEFAULT/HIGH the JDK's defaults, ALL every authenticated
 * suite; a '-' prefix removes, '!' removes for good, '+' moves to the end, "@..." is ignored.
 * As in OpenSSL, the string fails only when it selects no suite at all. It applies to TLS 1.2 and
 * below; tls-ciphersuites (a ':' list of TLS 1.3 names) to TLS 1.3.
 */
final class OpenSslCipherList {
    private final List<String> defaults;
    private final List<String> supported;

    OpenSslCipherList(String[] defaults, String[] supported) {
        this.defaults = Arrays.asList(defaults);
        this.supported = Arrays.asList(supported);
    }

    static boolean isTls13(String suite) {
        // TLS 1.3 suites name no key exchange: TLS_AES_128_GCM_SHA256, TLS_CHACHA20_POLY1305_SHA256
        return suite.startsWith("TLS_") && !suite.contains("_WITH_");
    }

    /** The TLS 1.2-and-below suites tls-ciphers selects, or null when it selects none. */
    List<String> ciphers(String spec) {
        if (spec.isEmpty()) return pre13(defaults);
        List<String> result = new ArrayList<>();
        Set<String> banned = new LinkedHashSet<>();
        for (String token : spec.split("[:, ]+")) {
            if (token.isEmpty()) continue;
            char op = token.charAt(0);
            String name = op == '!' || op == '-' || op == '+' ? token.substring(1) : token;
            if (name.startsWith("@")) continue;
            List<String> matches = matching(name);
            switch (op) {
                case '!' -> { banned.addAll(matches); result.removeAll(matches); }
                case '-' -> result.removeAll(matches);
                case '+' -> {
                    List<String> moved = new ArrayList<>(result);
                    moved.retainAll(matches);
                    result.removeAll(moved);
                    result.addAll(moved);
                }
                default -> {
                    for (String m : matches) if (!banned.contains(m) && !result.contains(m)) result.add(m);
                }
            }
        }
        return result.isEmpty() ? null : result;
    }

    /** The TLS 1.3 suites tls-ciphersuites names, or null when one is unknown or none is named. */
    List<String> ciphersuites(String spec) {
        if (spec.isEmpty()) return tls13(defaults);
        List<String> result = new ArrayList<>();
        for (String name : spec.split(":")) {
            if (name.isEmpty()) continue;
            if (!isTls13(name) || !supported.contains(name)) return null;
            if (!result.contains(name)) result.add(name);
        }
        return result.isEmpty() ? null : result;
    }

    private List<String> matching(String name) {
        String upper = name.toUpperCase(Locale.ROOT);
        switch (upper) {
            case "DEFAULT", "HIGH" -> { return pre13(defaults); }
            case "ALL" -> {
                List<String> all = new ArrayList<>();
                for (String s : pre13(supported)) if (!s.contains("_anon_") && !s.contains("NULL")) all.add(s);
                return all;
            }
            case "COMPLEMENTOFDEFAULT" -> {
                List<String> rest = new ArrayList<>(pre13(supported));
                rest.removeAll(defaults);
                return rest;
            }
            default -> { }
        }
        List<String> out = new ArrayList<>();
        String[] parts = upper.split("\\+");
        for (String suite : pre13(supported)) {
            String openSsl = CipherSuiteConverter.toOpenSsl(suite, false);
            if (suite.equalsIgnoreCase(name) || (openSsl != null && openSsl.equalsIgnoreCase(name))) {
                out.add(suite);
                continue;
            }
            if (openSsl == null) continue;
            List<String> words = Arrays.asList(openSsl.toUpperCase(Locale.ROOT).split("-"));
            boolean all = true;
            for (String p : parts) all &= hasPart(words, openSsl, p);
            if (all) out.add(suite);
        }
        return out;
    }

    /** Whether a suite (its OpenSSL name split at '-') has part p, with OpenSSL's usual aliases. */
    private static boolean hasPart(List<String> words, String openSsl, String p) {
        switch (p) {
            case "EECDH", "KECDHE", "ECDH" -> p = "ECDHE";
            case "EDH", "KDHE", "DH" -> p = "DHE";
            case "SHA1" -> p = "SHA";
            case "AESGCM" -> { return openSsl.contains("AES") && words.contains("GCM"); }
            case "AES" -> { return openSsl.toUpperCase(Locale.ROOT).contains("AES"); }
            case "CHACHA20" -> { return openSsl.contains("CHACHA20"); }
            case "KRSA" -> { return !words.contains("ECDHE") && !words.contains("DHE") && !words.contains("PSK"); }
            case "ARSA" -> { return words.contains("RSA") || (!words.contains("ECDSA") && !words.contains("DSS")); }
            case "AECDSA", "ECDSA" -> p = "ECDSA";
            default -> { }
        }
        return words.contains(p);
    }

    private static List<String> pre13(List<String> suites) {
        List<String> out = new ArrayList<>();
        for (String s : suites) if (!isTls13(s) && !s.equals("TLS_EMPTY_RENEGOTIATION_INFO_SCSV")) out.add(s);
        return out;
    }

    private static List<String> tls13(List<String> suites) {
        List<String> out = new ArrayList<>();
        for (String s : suites) if (isTls13(s)) out.add(s);
        return out;
    }
}
