package io.cinnabar.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfigLoaderTest {
    private static final Path SHIPPED = Path.of("conf/cinnabar.conf");

    @Test
    void shippedConfDocumentsEveryOptionWithItsDefault() throws Exception {
        Set<String> directives = new HashSet<>();
        for (String line : Files.readAllLines(SHIPPED, StandardCharsets.UTF_8)) {
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#")) continue;
            directives.add(t.split("\\s+")[0].toLowerCase(Locale.ROOT));
        }
        Config loaded = ConfigLoader.fromArgs(new String[] {SHIPPED.toString()});
        Config defaults = new Config();
        for (ConfigOption o : ConfigOptions.all()) {
            assertTrue(directives.contains(o.name()), "conf/cinnabar.conf lacks " + o.name());
            assertEquals(defaults.print(o), loaded.print(o), "default of " + o.name() + " differs in the shipped conf");
        }
    }

    @Test
    void argvOverridesFollowTheFile(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("a.conf");
        Files.writeString(conf, "port 7000\nmaxmemory 1gb\n");
        Config c = ConfigLoader.fromArgs(new String[] {conf.toString(), "--port", "6380", "--save", "",
                "--appendonly", "no", "--requirepass", "x y"});
        assertEquals(6380, c.getLong(ConfigOptions.PORT));
        assertEquals(1024L * 1024 * 1024, c.getLong(ConfigOptions.MAXMEMORY));
        assertEquals("", c.getString(ConfigOptions.SAVE));
        assertFalse(c.getBool(ConfigOptions.APPENDONLY));
        assertEquals("x y", c.getString(ConfigOptions.REQUIREPASS));
    }

    @Test
    void saveWithoutValueMeansNoSnapshots() throws Exception {
        assertEquals("", ConfigLoader.fromArgs(new String[] {"--save"}).getString(ConfigOptions.SAVE));
        Config c = ConfigLoader.fromArgs(new String[] {"--save", "--port", "7001"});
        assertEquals("", c.getString(ConfigOptions.SAVE));
        assertEquals(7001, c.getLong(ConfigOptions.PORT));
        assertEquals("900 1 300 10", ConfigLoader.fromArgs(new String[] {"--save", "900", "1", "300", "10"})
                .getString(ConfigOptions.SAVE));
    }

    @Test
    void unknownDirectiveIsFatalWithRedisMessage() {
        ConfigLoader.FatalConfigError e = assertThrows(ConfigLoader.FatalConfigError.class,
                () -> ConfigLoader.fromArgs(new String[] {"--port", "6380", "--nosuch", "1"}));
        assertEquals("\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n"
                + "Reading the configuration file, at line 3\n"
                + ">>> 'nosuch \"1\"'\n"
                + "Bad directive or wrong number of arguments", e.getMessage());
    }

    @Test
    void badValuesGiveRedisReasons(@TempDir Path dir) throws IOException {
        assertReason(dir, "port 70000", "argument must be between 0 and 65535 inclusive");
        assertReason(dir, "port abc", "argument couldn't be parsed into an integer");
        assertReason(dir, "appendonly maybe", "argument must be 'yes' or 'no'");
        assertReason(dir, "appendfsync sometimes", "argument(s) must be one of the following: everysec, always, no");
        assertReason(dir, "port 1 2", "wrong number of arguments");
        assertReason(dir, "requirepass \"unbalanced", "Unbalanced quotes in configuration line");
        assertReason(dir, "save 900", "Invalid save parameters");
    }

    @Test
    void includeAndQuotes(@TempDir Path dir) throws Exception {
        Path inc = dir.resolve("inc.conf");
        Files.writeString(inc, "hz 50\n");
        Path conf = dir.resolve("main.conf");
        Files.writeString(conf, "# comment\n  include " + inc + "\nrequirepass \"a\\x41 b\"\nbind '127.0.0.1' -::1\n");
        Config c = ConfigLoader.fromArgs(new String[] {conf.toString()});
        assertEquals(50, c.getLong(ConfigOptions.HZ));
        assertEquals("aA b", c.getString(ConfigOptions.REQUIREPASS));
        assertEquals("127.0.0.1 -::1", c.getString(ConfigOptions.BIND));
    }

    @Test
    void configSetIsAllOrNothing() {
        Config c = new Config();
        String err = c.configSet(List.of(bytes("hz"), bytes("20"), bytes("maxmemory"), bytes("lots")), true);
        assertEquals("ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value", err);
        assertEquals(10, c.getLong(ConfigOptions.HZ));
        assertEquals(null, c.configSet(List.of(bytes("hz"), bytes("20"), bytes("maxmemory"), bytes("10mb")), true));
        assertEquals(20, c.getLong(ConfigOptions.HZ));
        assertEquals(10L * 1024 * 1024, c.getLong(ConfigOptions.MAXMEMORY));
        assertEquals("ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'",
                c.configSet(List.of(bytes("nosuch"), bytes("1")), true));
        assertEquals("ERR CONFIG SET failed (possibly related to argument 'daemonize') - can't set immutable config",
                c.configSet(List.of(bytes("daemonize"), bytes("yes")), true));
    }

    @Test
    void configsDeniedWhileLoadingFailTheWholeSetWithLoading() {
        Config c = new Config();
        String loading = "LOADING Redis is loading the dataset in memory";
        assertEquals(loading, c.configSet(List.of(bytes("hz"), bytes("20"), bytes("appendonly"), bytes("yes")), true, true));
        assertEquals(10, c.getLong(ConfigOptions.HZ));
        // As real Redis 7.0.15 answers: the first argument that cannot be set names the error.
        assertEquals(loading, c.configSet(List.of(bytes("appendonly"), bytes("yes"), bytes("nosuch"), bytes("1")), true, true));
        assertEquals("ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'",
                c.configSet(List.of(bytes("nosuch"), bytes("1"), bytes("appendonly"), bytes("yes")), true, true));
        assertEquals("ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config",
                c.configSet(List.of(bytes("dir"), bytes("/nowhere")), true, true));
        assertEquals("ERR CONFIG SET failed (possibly related to argument 'daemonize') - can't set immutable config",
                c.configSet(List.of(bytes("daemonize"), bytes("yes"), bytes("nosuch"), bytes("1")), true, false));
        assertEquals(null, c.configSet(List.of(bytes("hz"), bytes("20")), true, true));
        assertEquals(20, c.getLong(ConfigOptions.HZ));
    }

    @Test
    void failedApplyRestoresEveryValueAndAppliesThemAgain() {
        Config c = new Config();
        List<Long> applied = new java.util.ArrayList<>();
        c.onApply(ConfigOptions.PORT, () -> {
            applied.add(c.getLong(ConfigOptions.PORT));
            return c.getLong(ConfigOptions.PORT) == 7001 ? "Unable to listen on this port. Check server logs." : null;
        });
        assertEquals("ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs.",
                c.configSet(List.of(bytes("maxmemory"), bytes("1mb"), bytes("port"), bytes("7001")), true));
        assertEquals(0, c.getLong(ConfigOptions.MAXMEMORY));
        assertEquals(6379, c.getLong(ConfigOptions.PORT));
        assertEquals(List.of(7001L, 6379L), applied);
        // An unchanged value applies nothing.
        applied.clear();
        assertEquals(null, c.configSet(List.of(bytes("port"), bytes("6379")), true));
        assertEquals(List.of(), applied);
        assertEquals(null, c.configSet(List.of(bytes("port"), bytes("7002")), true));
        assertEquals(List.of(7002L), applied);
    }

    @Test
    void rewriteKeepsCommentsAndUpdatesValues(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("r.conf");
        Files.writeString(conf, "# my comment\nhz 10\nport 7002\n");
        Config c = ConfigLoader.fromArgs(new String[] {conf.toString()});
        assertEquals(null, c.configSet(List.of(bytes("hz"), bytes("33"), bytes("maxmemory"), bytes("1mb")), true));
        ConfigRewriter.rewrite(c, c.configFile());
        List<String> lines = Files.readAllLines(conf);
        assertEquals("# my comment", lines.get(0));
        assertEquals("hz 33", lines.get(1));
        assertEquals("port 7002", lines.get(2));
        assertTrue(lines.contains("maxmemory 1mb"), lines.toString()); // Redis writes memory in units
        Config reloaded = ConfigLoader.fromArgs(new String[] {conf.toString()});
        assertEquals(33, reloaded.getLong(ConfigOptions.HZ));
    }

    private static void assertReason(Path dir, String line, String reason) throws IOException {
        Path conf = dir.resolve("bad.conf");
        Files.writeString(conf, "\n" + line + "\n");
        ConfigLoader.FatalConfigError e = assertThrows(ConfigLoader.FatalConfigError.class,
                () -> ConfigLoader.fromArgs(new String[] {conf.toString()}));
        assertTrue(e.getMessage().contains("at line 2\n>>> '" + line + "'\n" + reason), e.getMessage());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
