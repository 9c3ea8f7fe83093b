package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import io.lettuce.core.RedisURI;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.ClientOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.resps.AccessControlLogEntry;
import redis.clients.jedis.resps.AccessControlUser;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.cinnabar.command.Raw.cmd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@CinnabarTest
class AclIT {
    private static final String NO_KEY = "NOPERM this user has no permissions to access one of the keys used as arguments";
    private static final String NO_CHANNEL = "NOPERM this user has no permissions to access one of the channels used as arguments";

    private final CinnabarServer server;

    AclIT(CinnabarServer server) {
        this.server = server;
    }

    @AfterEach
    void dropUsers() {
        try (Jedis admin = new Jedis("127.0.0.1", server.port())) {
            for (String u : admin.aclUsers()) if (!u.equals("default")) admin.aclDelUser(u);
            admin.aclLogReset();
        }
    }

    private Jedis connect() {
        return new Jedis("127.0.0.1", server.port());
    }

    @Test
    void aSelectorIsSplitAsSdssplitargsSplits(Jedis jedis) {
        // Quotes and \xHH escapes are read, tabs separate, unbalanced quotes give an empty selector.
        assertEquals("OK", cmd(jedis, "ACL", "SETUSER", "u4", "(+get \"~x\")", "(+get \"~x)", "(+get \"~\\x41\"\t%R~q)"));
        assertTrue(jedis.aclList().contains(
                "user u4 off resetchannels -@all (~x resetchannels -@all +get) (resetchannels -@all) (~A %R~q resetchannels -@all +get)"));
        assertEquals("ERR Error in ACL SETUSER modifier '(+get '~a b')': Syntax error",
                Raw.error(() -> cmd(jedis, "ACL", "SETUSER", "u4", "(+get '~a b')")));
        assertEquals("ERR Error in ACL SETUSER modifier '(+get \"\")': Syntax error",
                Raw.error(() -> cmd(jedis, "ACL", "SETUSER", "u4", "(+get \"\")")));
    }

    @Test
    void anOpeningArgumentStartsASelectorAgain(Jedis jedis) {
        // Redis's ACLMergeSelectorArguments drops what an earlier "(" gathered and appends the next
        // arguments with " %s" (diff-fuzz -n 40000 --resp3, seed 226).
        assertEquals("ERR Error in ACL SETUSER modifier '(+get (~k* +get)': Syntax error",
                Raw.error(() -> cmd(jedis, "ACL", "SETUSER", "u2", "(+get", "(+get", "(~k* +get)")));
        assertEquals("ERR Unmatched parenthesis in acl selector starting at '(+set'.",
                Raw.error(() -> cmd(jedis, "ACL", "SETUSER", "u2", "(+get", "(+set", "~a")));
        assertEquals("ERR Error in ACL SETUSER modifier '(+get ~a': Syntax error",
                Raw.error(() -> cmd(jedis, "ACL", "SETUSER", "u2", "(+get", "~a\0)", "~b)")));
        assertEquals("OK", cmd(jedis, "ACL", "SETUSER", "u3", "(+get", "(+set", "~a)"));
        assertTrue(jedis.aclList().contains("user u3 off resetchannels -@all (~a resetchannels -@all +set)"));
    }

    @Test
    void namesInRulesAndAclCatEndAtANulByte(Jedis jedis) {
        // Redis reads them as C strings: strcasecmp, command and category lookups, "%.128s" in the
        // error (diff-fuzz --families acl,config,server,function,scripts2 -n 30000, seed 211:
        // ACL CAT "\xff\xfe\0z"). Key patterns and passwords keep their whole length.
        assertEquals(jedis.aclCat("string").size(), ((List<?>) cmd(jedis, "ACL", "CAT", "string\0z")).size());
        assertEquals("ERR Unknown category 'no'", Raw.error(() -> cmd(jedis, "ACL", "CAT", "no\0z")));
        assertEquals("OK", cmd(jedis, "ACL", "SETUSER", "u9", "+@hash\0z", "+get\0z", "on\0x", "-hset\0q"));
        assertTrue(jedis.aclList().contains("user u9 on resetchannels -@all +@hash +get -hset"));
        assertEquals("ERR Error in ACL SETUSER modifier '+': Unknown command or category name in ACL",
                Raw.error(() -> cmd(jedis, "ACL", "SETUSER", "u9", "+\0get")));
    }

    @Test
    void jedisCreatesReadsAndAuthenticatesAUser(Jedis jedis) {
        assertEquals("OK", jedis.aclSetUser("alice", "on", ">s3cret", "~app:*", "+@string", "-set", "&news.*"));
        AccessControlUser alice = jedis.aclGetUser("alice");
        assertEquals(List.of("on"), alice.getFlags());
        assertEquals(1, alice.getPassword().size());
        assertEquals(64, alice.getPassword().get(0).length());
        assertEquals("-@all +@string -set", alice.getCommands());
        assertEquals("~app:*", alice.getKeys());
        assertEquals("&news.*", alice.getChannels());
        assertEquals(List.of("alice", "default"), jedis.aclUsers());
        assertTrue(jedis.aclList().contains("user alice on #" + alice.getPassword().get(0)
                + " ~app:* resetchannels &news.* -@all +@string -set"));

        try (Jedis client = connect()) {
            JedisDataException wrong = assertThrows(JedisDataException.class, () -> client.auth("alice", "nope"));
            assertEquals("WRONGPASS invalid username-password pair or user is disabled.", wrong.getMessage());
            assertEquals("OK", client.auth("alice", "s3cret"));
            assertTrue(jedis.clientList().contains(" user=alice "));
            assertEquals("NOPERM this user has no permissions to run the 'set' command",
                    assertThrows(JedisDataException.class, () -> client.set("app:greeting", "hi")).getMessage());
            assertEquals("OK", client.append("app:greeting", "hi") == 2L ? "OK" : "append failed");
        }
        assertEquals(1, jedis.aclLog().stream().filter(e -> e.getReason().equals("auth")).count());
    }

    @Test
    void userRestrictedToAppKeysGetsNopermElsewhere(Jedis jedis) {
        jedis.aclSetUser("app", "on", ">pw", "~app:*", "+@all");
        jedis.set("other", "x");
        try (Jedis client = connect()) {
            client.auth("app", "pw");
            assertEquals("OK", client.set("app:1", "v"));
            assertEquals("v", client.get("app:1"));
            JedisDataException get = assertThrows(JedisDataException.class, () -> client.get("other"));
            assertEquals(NO_KEY, get.getMessage());
            JedisDataException mset = assertThrows(JedisDataException.class, () -> client.mset("app:2", "a", "b", "c"));
            assertEquals(NO_KEY, mset.getMessage());
            assertEquals(null, client.get("app:2"));
        }
        AccessControlLogEntry entry = jedis.aclLog().get(0);
        assertEquals("key", entry.getReason());
        assertEquals("toplevel", entry.getContext());
        assertEquals("b", entry.getObject());
        assertEquals("app", entry.getUsername());
        assertEquals("This user has no permissions to access the 'other' key", cmd(jedis, "ACL", "DRYRUN", "app", "GET", "other"));
        assertEquals("OK", cmd(jedis, "ACL", "DRYRUN", "app", "GET", "app:x"));
    }

    @Test
    void aFailedAuthInsideExecIsLoggedInContextMulti(Jedis jedis) {
        // Found by diff-fuzz seed 101 (all families): MULTI, AUTH u3 bad, EXEC logged context "toplevel".
        cmd(jedis, "ACL", "LOG", "RESET");
        cmd(jedis, "MULTI");
        cmd(jedis, "AUTH", "u3", "bad");
        cmd(jedis, "EXEC");
        AccessControlLogEntry entry = jedis.aclLog().get(0);
        assertEquals("auth", entry.getReason());
        assertEquals("multi", entry.getContext());
        assertEquals("u3", entry.getUsername());
    }

    @Test
    void dryrunOfAContainerAloneIsItsArityError(Jedis jedis) {
        // Found by diff-fuzz --families acl, seed 3: ACL DRYRUN u1 CONFIG said "Command 'CONFIG' not found".
        cmd(jedis, "ACL", "SETUSER", "u1", "on", "+@all");
        assertEquals("ERR wrong number of arguments for 'config' command",
                assertThrows(JedisDataException.class, () -> cmd(jedis, "ACL", "DRYRUN", "u1", "CONFIG")).getMessage());
        assertEquals("ERR Command 'CONFIG' not found",
                assertThrows(JedisDataException.class, () -> cmd(jedis, "ACL", "DRYRUN", "u1", "CONFIG", "NOPE")).getMessage());
        assertEquals("OK", cmd(jedis, "ACL", "DRYRUN", "u1", "CONFIG", "GET", "hz"));
        cmd(jedis, "ACL", "DELUSER", "u1");
    }

    @Test
    void aPermissionPrefixWithoutTildeIsAnEmptyPattern(Jedis jedis) {
        jedis.aclSetUser("p", "reset", "%R", "(%W)");
        assertTrue(jedis.aclList().contains("user p off sanitize-payload %R~ resetchannels -@all (%W~ resetchannels -@all)"),
                jedis.aclList().toString());
        jedis.aclSetUser("p", "reset", "%wr");
        assertTrue(jedis.aclList().contains("user p off sanitize-payload ~ resetchannels -@all"), jedis.aclList().toString());
        for (String rule : new String[] {"%", "%~x", "%Rx", "%RWR~a"}) {
            assertEquals("ERR Error in ACL SETUSER modifier '" + rule + "': Syntax error",
                    assertThrows(JedisDataException.class, () -> jedis.aclSetUser("p", rule)).getMessage());
        }
    }

    @Test
    void readAndWritePermissionsFollowKeySpecs(Jedis jedis) {
        jedis.aclSetUser("rw", "on", "nopass", "+@all", "%R~r:*", "%W~w:*");
        jedis.set("r:1", "read me");
        try (Jedis client = connect()) {
            client.auth("rw", "any");
            assertEquals("read me", client.get("r:1"));
            assertEquals(NO_KEY, assertThrows(JedisDataException.class, () -> client.set("r:1", "x")).getMessage());
            assertEquals("OK", client.set("w:1", "x"));
            assertEquals(NO_KEY, assertThrows(JedisDataException.class, () -> client.get("w:1")).getMessage());
            // COPY reads its source and writes its destination.
            assertEquals(true, client.copy("r:1", "w:2", false));
            assertEquals(NO_KEY, assertThrows(JedisDataException.class, () -> client.copy("w:1", "r:2", false)).getMessage());
        }
    }

    @Test
    void commandRulesAndTransactions(Jedis jedis) {
        jedis.aclSetUser("ro", "on", "nopass", "allkeys", "+@read", "+multi", "+exec");
        try (Jedis client = connect()) {
            client.auth("ro", "x");
            assertEquals("NOPERM this user has no permissions to run the 'set' command",
                    assertThrows(JedisDataException.class, () -> client.set("k", "v")).getMessage());
            // Refused at queue time: EXEC then aborts the whole transaction.
            assertEquals("OK", cmd(client, "MULTI"));
            JedisDataException queued = assertThrows(JedisDataException.class, () -> cmd(client, "SET", "k", "v"));
            assertEquals("NOPERM this user has no permissions to run the 'set' command", queued.getMessage());
            JedisDataException exec = assertThrows(JedisDataException.class, () -> cmd(client, "EXEC"));
            assertEquals("EXECABORT Transaction discarded because of previous errors.", exec.getMessage());
        }
        assertEquals("multi", jedis.aclLog().get(0).getContext());
        assertFalse(jedis.exists("k"));
    }

    @Test
    void scriptsRunCommandsAsTheCaller(Jedis jedis) {
        jedis.aclSetUser("lua", "on", "nopass", "allkeys", "+eval", "+get");
        try (Jedis client = connect()) {
            client.auth("lua", "x");
            JedisDataException e = assertThrows(JedisDataException.class, () -> client.eval("return redis.call('set', 'k', 'v')"));
            assertTrue(e.getMessage().contains("The user executing the script can't run this command or subcommand"), e.getMessage());
            // Lua's false comes back as a nil reply.
            assertEquals(null, client.eval("return redis.acl_check_cmd('set', 'k', 'v')"));
            assertEquals(1L, client.eval("return redis.acl_check_cmd('get', 'k')"));
        }
        assertEquals("lua", jedis.aclLog().get(0).getContext());
    }

    @Test
    void channelPermissionsForPublishAndSubscribe(Jedis jedis) throws Exception {
        jedis.aclSetUser("sub", "on", "nopass", "+@all", "resetchannels", "&news.*");
        try (Jedis client = connect()) {
            client.auth("sub", "x");
            assertEquals(0L, client.publish("news.today", "hello"));
            assertEquals(NO_CHANNEL, assertThrows(JedisDataException.class, () -> client.publish("sports", "x")).getMessage());
            // A pattern is allowed only when it is literally one of the user's patterns.
            assertEquals(NO_CHANNEL, assertThrows(JedisDataException.class,
                    () -> client.psubscribe(new JedisPubSub() { }, "news.t*")).getMessage());
        }
        // Revoking the channel disconnects the subscriber.
        try (Jedis subscriber = connect()) {
            subscriber.auth("sub", "x");
            CountDownLatch subscribed = new CountDownLatch(1);
            Thread t = new Thread(() -> {
                try {
                    subscriber.subscribe(new JedisPubSub() {
                        @Override
                        public void onSubscribe(String channel, int count) {
                            subscribed.countDown();
                        }
                    }, "news.today");
                } catch (RuntimeException closed) {
                    // the server closing the connection ends subscribe()
                }
            });
            t.start();
            assertTrue(subscribed.await(10, TimeUnit.SECONDS));
            assertEquals(1L, jedis.publish("news.today", "one"));
            jedis.aclSetUser("sub", "resetchannels", "&weather");
            t.join(10_000);
            assertFalse(t.isAlive());
            assertEquals(0L, jedis.publish("news.today", "two"));
        }
    }

    @Test
    void deletingAUserDisconnectsItsClients(Jedis jedis) {
        jedis.aclSetUser("gone", "on", "nopass", "+@all", "~*");
        try (Jedis client = connect()) {
            client.auth("gone", "x");
            assertEquals("PONG", client.ping());
            assertEquals(1L, jedis.aclDelUser("gone"));
            assertThrows(RuntimeException.class, client::ping);
        }
        jedis.aclSetUser("killme", "on", "nopass", "+@all");
        try (Jedis client = connect()) {
            client.auth("killme", "x");
            assertEquals(1L, cmd(jedis, "CLIENT", "KILL", "USER", "killme"));
            assertThrows(RuntimeException.class, client::ping);
        }
        assertEquals("ERR No such user 'nosuch'",
                assertThrows(JedisDataException.class, () -> cmd(jedis, "CLIENT", "KILL", "USER", "nosuch")).getMessage());
        assertEquals("ERR The 'default' user cannot be removed",
                assertThrows(JedisDataException.class, () -> jedis.aclDelUser("default")).getMessage());
    }

    @Test
    void lettuceAuthenticatesWithUsernameOverResp3Hello(Jedis jedis) {
        jedis.aclSetUser("lettuce", "on", ">pw", "~app:*", "+@all");
        RedisClient client = Lettuce.client(server.port());
        client.setOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP3).build());
        try (var conn = client.connect(RedisURI.builder().withHost("127.0.0.1").withPort(server.port())
                .withAuthentication("lettuce", "pw").build())) {
            assertEquals("lettuce", conn.sync().aclWhoami());
            assertEquals("OK", conn.sync().set("app:k", "v"));
            RedisCommandExecutionException e = assertThrows(RedisCommandExecutionException.class, () -> conn.sync().get("other"));
            assertEquals(NO_KEY, e.getMessage());
        } finally {
            client.shutdown();
        }
        RedisClient bad = Lettuce.client(server.port());
        try {
            assertThrows(RuntimeException.class, () -> bad.connect(RedisURI.builder().withHost("127.0.0.1")
                    .withPort(server.port()).withAuthentication("lettuce", "wrong").build()));
        } finally {
            bad.shutdown();
        }
    }

    @Test
    void requirepassIsTheDefaultUsersPassword(Jedis jedis) {
        jedis.configSet("requirepass", "topsecret");
        try (Jedis client = connect()) {
            assertEquals("NOAUTH Authentication required.",
                    assertThrows(JedisDataException.class, client::ping).getMessage());
            assertEquals("OK", client.auth("topsecret"));
            assertEquals("PONG", client.ping());
            assertTrue(jedis.aclGetUser("default").getPasswords().size() == 1);
        } finally {
            jedis.configSet("requirepass", "");
        }
        assertEquals(List.of("on", "nopass"), jedis.aclGetUser("default").getFlags());
    }

    @Test
    void setuserIsAllOrNothingWithRedisErrors(Jedis jedis) {
        JedisDataException e = assertThrows(JedisDataException.class, () -> jedis.aclSetUser("x", "on", "+nosuchcommand"));
        assertEquals("ERR Error in ACL SETUSER modifier '+nosuchcommand': Unknown command or category name in ACL", e.getMessage());
        assertEquals(List.of("default"), jedis.aclUsers());
        assertEquals("ERR Unmatched parenthesis in acl selector starting at '(+get'.",
                assertThrows(JedisDataException.class, () -> jedis.aclSetUser("x", "(+get", "~k")).getMessage());
        jedis.aclSetUser("sel", "on", "nopass", "(+get", "~k)", "(+set ~w)");
        AccessControlUser sel = jedis.aclGetUser("sel");
        assertEquals("-@all", sel.getCommands());
        assertEquals(2, sel.getSelectors().size());
        assertEquals("OK", cmd(jedis, "ACL", "DRYRUN", "sel", "GET", "k"));
        // The first selector allows GET but not the key: the key is what Redis reports.
        assertEquals("This user has no permissions to access the 'w' key", cmd(jedis, "ACL", "DRYRUN", "sel", "GET", "w"));
        assertEquals("This user has no permissions to run the 'del' command", cmd(jedis, "ACL", "DRYRUN", "sel", "DEL", "k"));
        assertEquals(64, jedis.aclGenPass().length());
        assertEquals(3, jedis.aclGenPass(9).length());
    }

    @Test
    void randomRulesNeverBreakTheServer(Jedis jedis) {
        String[] tokens = {"on", "off", "nopass", "resetpass", ">", "<", "#", "!", "~", "%", "%R~", "%W~", "%RW~", "%X",
                "&", "*", "+", "-", "@", "@all", "@read", "get", "config", "|", "client|kill", "select|0", "(", ")",
                "allkeys", "resetkeys", "allchannels", "resetchannels", "allcommands", "nocommands", "reset",
                "clearselectors", "a", "0", " "};
        java.util.Random random = new java.util.Random(42);
        for (int i = 0; i < 500; i++) {
            String[] rules = new String[1 + random.nextInt(4)];
            for (int r = 0; r < rules.length; r++) {
                StringBuilder rule = new StringBuilder();
                for (int n = 1 + random.nextInt(4); n > 0; n--) rule.append(tokens[random.nextInt(tokens.length)]);
                rules[r] = rule.toString();
            }
            try {
                jedis.aclSetUser("fuzz", rules);
            } catch (JedisDataException e) {
                assertTrue(e.getMessage().startsWith("ERR Error in ACL SETUSER modifier")
                        || e.getMessage().startsWith("ERR Unmatched parenthesis"), e.getMessage());
            }
            if (jedis.aclUsers().contains("fuzz")) {
                assertTrue(jedis.aclList().stream().anyMatch(l -> l.startsWith("user fuzz ")));
                jedis.aclGetUser("fuzz");
                assertEquals(String.class, cmd(jedis, "ACL", "DRYRUN", "fuzz", "GET", "k").getClass());
            }
        }
        assertEquals("PONG", jedis.ping());
    }
}
