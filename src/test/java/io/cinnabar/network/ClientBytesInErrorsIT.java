package io.cinnabar.network;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Errors that quote what the client sent quote its bytes as they came, valid UTF-8 or not, as
 * redis-server 7.0.15 does (each expectation was read off it). Over a raw socket: Jedis decodes
 * error lines as UTF-8, which would hide the difference. Strings here hold one byte per char.
 */
@CinnabarTest
class ClientBytesInErrorsIT {
    private static final String BYTES = "\u00e9\u0080\u00ff"; // not UTF-8

    @Test
    void commandErrorsQuoteTheArgumentsBytes(CinnabarServer server) throws IOException {
        try (Socket s = RawSockets.connect(server)) {
            assertEquals("-ERR unknown command 'f\u00e9o', with args beginning with: '\u0080\u00ff' ",
                    reply(s, "f\u00e9o", "\u0080\u00ff"));
            assertEquals("-ERR unknown subcommand '" + BYTES + "'. Try OBJECT HELP.", reply(s, "OBJECT", BYTES));
            // valid UTF-8 ("é") stays as it was too
            assertEquals("-ERR unknown subcommand '\u00c3\u00a9'. Try OBJECT HELP.", reply(s, "OBJECT", "\u00c3\u00a9"));
            assertEquals("-ERR Unknown option or number of arguments for CONFIG SET - '" + BYTES + "'",
                    reply(s, "CONFIG", "SET", BYTES, "1"));
            assertEquals("-ERR Error in ACL SETUSER modifier '" + BYTES + "': Syntax error",
                    reply(s, "ACL", "SETUSER", "u", BYTES));
        }
    }

    @Test
    void optionsAndQuotedArgumentsEndAtANulAsCStrings(CinnabarServer server) throws IOException {
        // Redis compares options with strcasecmp and quotes arguments with %s: both stop at a NUL.
        try (Socket s = RawSockets.connect(server)) {
            assertEquals("-ERR Unsupported option a", reply(s, "EXPIREAT", "k", "1", "a\0b"));
            assertEquals("-ERR unknown subcommand 'a'. Try OBJECT HELP.", reply(s, "OBJECT", "a\0b"));
            assertEquals("+OK", reply(s, "SET", "k", "v", "EX\0junk", "100"));
            assertEquals(":100", reply(s, "TTL", "k"));
        }
    }

    @Test
    void aclSetUserQuotesItsModifierUpToANul(CinnabarServer server) throws IOException {
        // ACLStringSetUser formats the bad modifier with sdscatfmt's %s: Redis's text stops at the NUL.
        try (Socket s = RawSockets.connect(server)) {
            assertEquals("-ERR Error in ACL SETUSER modifier 'bad': Syntax error", reply(s, "ACL", "SETUSER", "u1", "bad\0z"));
            assertEquals("-ERR Unmatched parenthesis in acl selector starting at '(+get'.",
                    reply(s, "ACL", "SETUSER", "u1", "(+get\0x", "~k"));
        }
    }

    @Test
    void scriptErrorsKeepTheirBytes(CinnabarServer server) throws IOException {
        try (Socket s = RawSockets.connect(server)) {
            assertEquals("-ERR \u00c8\u00e9x", reply(s, "EVAL", "return redis.error_reply('\\200\\233x')", "0"));
            assertEquals("-\u00c8x", reply(s, "EVAL", "return {err='\\200x'}", "0"));
            assertEquals("+\u00c8x", reply(s, "EVAL", "return {ok='\\200x'}", "0"));
            assertEquals("$2", reply(s, "EVAL", "local ok, e = pcall(error, '\\200x') return e", "0"));
            assertEquals("\u00c8x", RawSockets.line(s));
            String sha = "929a53ce38bb213a0c60793ab8d4e7825675c974";
            assertEquals("-ERR user_script:1: \u00c8x script: " + sha + ", on @user_script:1.",
                    reply(s, "EVAL", "error('\\200x')", "0"));
            assertEquals("-ERR Error compiling script (new function): user_script:1: unexpected symbol near '\u00ff'",
                    reply(s, "EVAL", "\u00ff", "0"));
        }
    }

    @Test
    void anErrorTablesMessageLosesTheNewlinesAtItsEnd(CinnabarServer server) throws IOException {
        // addReplyErrorFormat trims them and blanks the others.
        try (Socket s = RawSockets.connect(server)) {
            assertEquals("-x", reply(s, "EVAL", "return {err='x\\n'}", "0"));
            assertEquals("- x", reply(s, "EVAL", "return {err='\\nx\\r\\n'}", "0"));
            assertEquals("-", reply(s, "EVAL", "return {err='\\n'}", "0"));
            assertEquals("-a b", reply(s, "EVAL", "return {err='a\\nb'}", "0"));
        }
    }

    /** Sends one request (each char one byte) and reads the first line of the reply. */
    private static String reply(Socket s, String... args) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        for (String a : args) {
            out.writeBytes(("$" + a.length() + "\r\n" + a + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        }
        s.getOutputStream().write(out.toByteArray());
        return RawSockets.line(s);
    }
}
