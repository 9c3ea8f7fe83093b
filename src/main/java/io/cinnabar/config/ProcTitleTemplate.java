package io.cinnabar.config;

import java.util.Set;

/**
 * The "proc-title-template" option: text with {variable} placeholders ("{{" and "}}" escape
 * braces). Checked as Redis does: known variables only, and not empty once expanded.
 */
final class ProcTitleTemplate {
    private static final Set<String> VARIABLES = Set.of("title", "listen-addr", "server-mode", "port", "tls-port",
            "unixsocket", "config-file");
    /** Variables that may expand to nothing (a standalone server, no unix socket, the empty test title). */
    private static final Set<String> MAYBE_EMPTY = Set.of("title", "server-mode", "unixsocket");

    private ProcTitleTemplate() {}

    static Object parse(String[] words) throws ConfigException {
        String template = ConfigOption.single(words);
        boolean nonEmpty = false;
        for (int i = 0; i < template.length(); i++) {
            char ch = template.charAt(i);
            boolean doubled = i + 1 < template.length() && template.charAt(i + 1) == ch;
            if ((ch == '{' || ch == '}') && doubled) {
                nonEmpty = true;
                i++;
            } else if (ch == '{') {
                int end = template.indexOf('}', i);
                if (end < 0 || !VARIABLES.contains(template.substring(i + 1, end))) throw invalid();
                nonEmpty |= !MAYBE_EMPTY.contains(template.substring(i + 1, end));
                i = end;
            } else if (ch == '}') {
                throw invalid();
            } else if (ch != ' ') {
                nonEmpty = true; // Redis trims the expanded title's spaces before it checks
            }
        }
        if (!nonEmpty) throw invalid();
        return template;
    }

    private static ConfigException invalid() {
        return new ConfigException("template format is invalid or contains unknown variables");
    }
}
