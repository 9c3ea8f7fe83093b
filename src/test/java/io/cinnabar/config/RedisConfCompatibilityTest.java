package io.cinnabar.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Config files written for Redis 7.0 (like the Redis test suite's) load, with Redis's value rules. */
class RedisConfCompatibilityTest {
    @Test
    void theTestSuitesConfigLoadsAndMarksWhatHasNoEffect(@TempDir Path dir) throws Exception {
        Config c = load(dir, "always-show-logo yes", "notify-keyspace-events KEA", "daemonize no",
                "pidfile /var/run/redis.pid", "bind 127.0.0.1", "loglevel verbose", "logfile ''",
                "latency-monitor-threshold 1", "repl-diskless-sync-delay 0", "save 900 1", "dir ./",
                "slave-serve-stale-data yes", "activerehashing yes", "enable-protected-configs yes",
                "enable-debug-command yes", "enable-module-command yes", "propagation-error-behavior panic",
                "unixsocket /tmp/x.sock");
        assertTrue(c.getBool(ConfigOptions.ALWAYS_SHOW_LOGO));
        assertEquals("AKE", c.print(ConfigOptions.NOTIFY_KEYSPACE_EVENTS));
        assertEquals("yes", c.print(Config.option("replica-serve-stale-data")));
        List<String> inert = c.given().stream().filter(ConfigOption::inert).map(ConfigOption::name)
                .collect(Collectors.toList());
        assertTrue(inert.containsAll(List.of("propagation-error-behavior", "activerehashing")), inert.toString());
        assertFalse(inert.contains("replica-serve-stale-data"), "MASTERDOWN while a replica's link is down");
        assertFalse(inert.contains("repl-diskless-sync-delay"), "how long an RDB-only SYNC waits");
        assertFalse(inert.contains("unixsocket"));
        assertFalse(inert.contains("enable-module-command"));
        assertFalse(inert.contains("loglevel"));
    }

    @Test
    void saveLinesAfterTheFirstAddSavePoints(@TempDir Path dir) throws Exception {
        Path conf = write(dir, "save 900 1");
        assertEquals("900 1 100 100", ConfigLoader.fromArgs(new String[] {conf.toString(), "--save", "100 100"})
                .getString(ConfigOptions.SAVE));
        assertEquals("", ConfigLoader.fromArgs(new String[] {conf.toString(), "--save", ""})
                .getString(ConfigOptions.SAVE));
        assertEquals("900 1", ConfigLoader.fromArgs(new String[] {conf.toString()}).getString(ConfigOptions.SAVE));
    }

    @Test
    void aMultiWordOptionGivenAsOneArgumentIsSplitAsALine(@TempDir Path dir) throws Exception {
        Path conf = write(dir, "port 7000");
        // sdssplitargs, as for a line: runs of spaces and quotes, where CONFIG SET splits at each space.
        assertEquals("3600 1", ConfigLoader.fromArgs(new String[] {conf.toString(), "--save", "3600  1 "})
                .getString(ConfigOptions.SAVE));
        assertEquals("", ConfigLoader.fromArgs(new String[] {conf.toString(), "--save", " "})
                .getString(ConfigOptions.SAVE));
        assertReason(dir, "save \"0 200\"", "Invalid save parameters");
        assertReason(dir, "save 0 200", "Invalid save parameters");
        assertEquals("5 1", load(dir, "save \" 5 +1\"").getString(ConfigOptions.SAVE));
        assertReason(dir, "client-output-buffer-limit \"\"", "Wrong number of arguments in buffer limit configuration.");
    }

    @Test
    void directivesThatAreNotOptions(@TempDir Path dir) throws Exception {
        Config c = load(dir, "list-max-ziplist-entries 512", "lua-replicate-commands yes",
                "rename-command CONFIG \"\"", "user alice on >pw ~* +@all", "loadmodule /x/mod.so a b",
                "mymod.option 5", "sentinel");
        assertEquals(List.of("CONFIG", ""), c.directives().renames().stream()
                .flatMap(r -> java.util.stream.Stream.of(r.name(), r.newName())).toList());
        assertTrue(c.directives().renames().get(0).fatalText().apply("No such command in rename-command")
                .endsWith("at line 3\n>>> 'rename-command CONFIG \"\"'\nNo such command in rename-command"));
        assertEquals(List.of(List.of("alice", "on", ">pw", "~*", "+@all")),
                c.directives().users().stream().map(List::of).toList());
        assertEquals(List.of("/x/mod.so"), c.directives().modules());
        assertEquals(List.of("mymod.option"), c.directives().moduleConfigs());
        assertReason(dir, "sentinel monitor m 127.0.0.1 6379 2", "sentinel directive while not in sentinel mode");
        assertReason(dir, "mymod.option", "Module config specified without value");
        assertReason(dir, "list-max-ziplist-entries 1 2", "Bad directive or wrong number of arguments");
    }

    @Test
    void valueRulesOfRedisSpecialOptions(@TempDir Path dir) throws Exception {
        Config c = load(dir, "hz 1000", "unixsocketperm 700", "maxmemory-clients 10%", "replicaof 10.0.0.1 6380",
                "latency-tracking-info-percentiles \"50.0 99 99.90\"", "oom-score-adj-values 0 100 200",
                "proc-title-template \"{title} {port}\"");
        assertEquals(500, c.getLong(ConfigOptions.HZ));
        assertEquals("700", c.print(Config.option("unixsocketperm")));
        assertEquals("10%", c.print(Config.option("maxmemory-clients")));
        assertEquals("10.0.0.1 6380", c.print(Config.option("slaveof")));
        assertEquals("50 99 99.9", c.print(Config.option("latency-tracking-info-percentiles")));
        assertEquals("0 100 200", c.print(Config.option("oom-score-adj-values")));
        assertReason(dir, "notify-keyspace-events KEQ", "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
        assertReason(dir, "unixsocketperm 800", "argument couldn't be parsed as an octal number");
        assertReason(dir, "unixsocketperm 1000", "argument must be between 0 and 777 inclusive");
        assertReason(dir, "maxmemory-clients 101%", "percentage argument must be less or equal to 100");
        assertReason(dir, "replicaof localhost port", "Invalid master port");
        assertReason(dir, "oom-score-adj-values 0 100 3000",
                "Invalid oom-score-adj-values, elements must be between -2000 and 2000.");
        assertReason(dir, "proc-title-template \"{title} {nosuch}\"",
                "template format is invalid or contains unknown variables");
        assertReason(dir, "loglevel nothing", "argument(s) must be one of the following: debug, verbose, notice, warning");
        // As redis-server 7.0.15 starts with them: octal through strtoll, one empty word for replicaof.
        assertEquals("0", load(dir, "unixsocketperm \"\"").print(Config.option("unixsocketperm")));
        assertEquals("700", load(dir, "unixsocketperm \" +700\"").print(Config.option("unixsocketperm")));
        assertReason(dir, "unixsocketperm \"777 \"", "argument couldn't be parsed as an octal number");
        assertReason(dir, "unixsocketperm 0x1", "argument couldn't be parsed as an octal number");
        assertReason(dir, "replicaof \"\"", "wrong number of arguments");
    }

    @Test
    void hiddenOptionsNeedTheirExactName() {
        Config c = new Config();
        Map<String, String> all = c.matching(List.of("*"), RedisConfCompatibilityTest::glob).stream()
                .collect(Collectors.toMap(kv -> kv[0], kv -> kv[1]));
        assertFalse(all.containsKey("watchdog-period"));
        assertTrue(all.containsKey("repl-diskless-sync-delay"));
        assertEquals(1, c.matching(List.of("watchdog-period"), RedisConfCompatibilityTest::glob).size());
    }

    /** Names alone are looked up; the answer is the one the walk over every option gives (a glob that matches nothing forces it). */
    @Test
    void plainNamesAreLookedUpWithTheWalksAnswer() {
        Config c = new Config();
        List<String> names = new ArrayList<>();
        for (ConfigOption o : ConfigOptions.all()) {
            names.add(o.name);
            names.addAll(o.aliases);
        }
        names.add("no-such-option");
        Random random = new Random(4);
        for (int round = 0; round < 2000; round++) {
            List<String> asked = new ArrayList<>();
            for (int k = 1 + random.nextInt(round % 10 == 0 ? 40 : 4); k > 0; k--) {
                String n = names.get(random.nextInt(names.size()));
                asked.add(random.nextBoolean() ? n : n.toUpperCase(Locale.ROOT));
                if (random.nextInt(5) == 0) asked.add(asked.get(random.nextInt(asked.size())));
            }
            List<String> forced = new ArrayList<>(asked);
            forced.add("zz*nothing");
            assertEquals(render(c.matching(forced, RedisConfCompatibilityTest::glob)),
                    render(c.matching(asked, RedisConfCompatibilityTest::glob)), asked.toString());
        }
    }

    private static List<String> render(List<String[]> pairs) {
        return pairs.stream().map(kv -> kv[0] + "=" + kv[1]).collect(Collectors.toList());
    }

    @Test
    void anUnwritableLogFileStopsStartup() {
        ConfigLoader.FatalConfigError e = assertThrows(ConfigLoader.FatalConfigError.class,
                () -> ConfigLoader.fromArgs(new String[] {"--logfile", "/nonexistent-dir/redis.log"}));
        assertEquals("\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nCan't open the log file: No such file or directory",
                e.getMessage());
    }

    private static boolean glob(String pattern, String name) {
        return name.matches(pattern.replace("*", ".*"));
    }

    private static Config load(Path dir, String... lines) throws Exception {
        return ConfigLoader.fromArgs(new String[] {write(dir, lines).toString()});
    }

    private static Path write(Path dir, String... lines) throws Exception {
        Path conf = Files.createTempFile(dir, "redis", ".conf");
        Files.writeString(conf, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        return conf;
    }

    private static void assertReason(Path dir, String line, String reason) throws Exception {
        Path conf = write(dir, line);
        ConfigLoader.FatalConfigError e = assertThrows(ConfigLoader.FatalConfigError.class,
                () -> ConfigLoader.fromArgs(new String[] {conf.toString()}));
        assertTrue(e.getMessage().endsWith(">>> '" + line + "'\n" + reason), e.getMessage());
    }
}
