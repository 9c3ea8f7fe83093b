package io.cinnabar.command;

import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static io.cinnabar.command.Raw.cmd;
import static io.cinnabar.command.Raw.error;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * notify-keyspace-events: which events each command fires, on which channels, in which order.
 * A subscriber on "*" reads everything published until a marker message, published last, so
 * "no other event" is asserted without waiting.
 */
@CinnabarTest(options = {"enable-debug-command", "yes", "enable-protected-configs", "yes"})
class KeyspaceNotificationsIT {
    @AfterEach
    void notificationsOff(Jedis jedis) {
        jedis.configSet("notify-keyspace-events", "");
        cmd(jedis, "DEBUG", "SET-ACTIVE-EXPIRE", "1");
    }

    /** The keyevent channels' messages of db 0 as "event key". */
    private static List<String> events(Subscriber s, Jedis jedis) throws IOException {
        List<String> out = new ArrayList<>();
        for (String[] m : s.untilMarker(jedis)) out.add(m[0].replaceFirst("^__keyevent@0__:", "") + " " + m[1]);
        return out;
    }

    /** What a subscriber to "*" reads ("channel message") while jedis runs SET foo bar under these flags. */
    private static List<String> afterSet(Jedis jedis, HostAndPort at, String flags) throws IOException {
        jedis.configSet("notify-keyspace-events", flags);
        try (Subscriber s = new Subscriber(at)) {
            jedis.set("foo", "bar");
            return s.lines(jedis);
        }
    }

    @Test
    void keyspaceAndKeyeventChannelsCarryEventAndKey(Jedis jedis, HostAndPort at) throws IOException {
        assertEquals(List.of("__keyspace@0__:foo set", "__keyevent@0__:set foo"), afterSet(jedis, at, "KEA"));
        assertEquals(List.of("__keyspace@0__:foo set"), afterSet(jedis, at, "K$"));
        jedis.select(3);
        assertEquals(List.of("__keyevent@3__:set foo"), afterSet(jedis, at, "E$"));
    }

    @Test
    void classesMaskEventsAndNothingFiresWithoutKOrE(Jedis jedis, HostAndPort at) throws IOException {
        jedis.configSet("notify-keyspace-events", "El");
        try (Subscriber s = new Subscriber(at)) {
            jedis.set("foo", "bar");
            jedis.lpush("mylist", "a");
            jedis.del("mylist");
            assertEquals(List.of("lpush mylist"), events(s, jedis));
        }
        assertEquals(List.of(), afterSet(jedis, at, "A"));
        assertEquals(List.of(), afterSet(jedis, at, "g$lshzxetdnm"));
        assertEquals(List.of(), afterSet(jedis, at, ""));
    }

    @Test
    void configReadsBackInRedisOrderAndKeepsNewBehindA(Jedis jedis, HostAndPort at) throws IOException {
        jedis.configSet("notify-keyspace-events", "KEA");
        assertEquals("AKE", jedis.configGet("notify-keyspace-events").get("notify-keyspace-events"));
        jedis.configSet("notify-keyspace-events", "$lshzxeKE");
        assertEquals("$lshzxeKE", jedis.configGet("notify-keyspace-events").get("notify-keyspace-events"));
        assertEquals("ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - "
                + "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.",
                error(() -> jedis.configSet("notify-keyspace-events", "KEQ")));
        assertEquals("$lshzxeKE", jedis.configGet("notify-keyspace-events").get("notify-keyspace-events"));
        // As in Redis, "n" does not show next to "A" but still fires.
        jedis.configSet("notify-keyspace-events", "EAn");
        assertEquals("AE", jedis.configGet("notify-keyspace-events").get("notify-keyspace-events"));
        try (Subscriber s = new Subscriber(at)) {
            jedis.set("foo", "bar");
            assertEquals(List.of("new foo", "set foo"), events(s, jedis));
        }
    }

    @Test
    void newFiresOnlyWhenAKeyIsCreated(Jedis jedis, HostAndPort at) throws IOException {
        jedis.configSet("notify-keyspace-events", "En");
        try (Subscriber s = new Subscriber(at)) {
            jedis.set("foo", "bar");
            jedis.set("foo", "baz");
            jedis.rpush("list", "a");
            jedis.rpush("list", "b");
            jedis.hset("h", "f", "v");
            jedis.rename("foo", "bar");
            assertEquals(List.of("new foo", "new list", "new h", "new bar"), events(s, jedis));
        }
    }

    @Test
    void keysLoadedFromAnRdbAreNotAnnounced(Jedis jedis, HostAndPort at, @TempDir Path dir) throws IOException {
        String oldDir = jedis.configGet("dir").get("dir");
        jedis.configSet("dir", dir.toString());
        jedis.configSet("notify-keyspace-events", "EAn");
        jedis.set("foo", "bar");
        try (Subscriber s = new Subscriber(at)) {
            assertEquals("OK", cmd(jedis, "DEBUG", "RELOAD"));
            jedis.set("foo", "baz");
            assertEquals(List.of("set foo"), events(s, jedis));
        } finally {
            jedis.configSet("dir", oldDir);
        }
    }

    @Test
    void keymissFiresForReadsOnly(Jedis jedis, HostAndPort at) throws IOException {
        jedis.configSet("notify-keyspace-events", "Em");
        try (Subscriber s = new Subscriber(at)) {
            jedis.get("a");
            jedis.exists("b");
            jedis.lrange("c", 0, -1);
            cmd(jedis, "OBJECT", "ENCODING", "d");
            jedis.lpush("e", "x");
            jedis.incr("f");
            jedis.get("f");
            assertEquals(List.of("keymiss a", "keymiss b", "keymiss c"), events(s, jedis));
        }
    }

    @Test
    void stringEvents(Jedis jedis, HostAndPort at) throws IOException {
        jedis.configSet("notify-keyspace-events", "E$g");
        try (Subscriber s = new Subscriber(at)) {
            cmd(jedis, "SET", "s", "v", "EX", "100");
            cmd(jedis, "SET", "s", "v", "NX");
            jedis.setrange("s", 1, "xy");
            jedis.setrange("s", 1, "");
            jedis.append("s", "z");
            jedis.incr("n");
            jedis.decrBy("n", 2);
            jedis.incrByFloat("n", 1.5);
            jedis.mset("a", "1", "b", "2");
            jedis.getSet("a", "3");
            cmd(jedis, "GETEX", "a", "PX", "100000");
            cmd(jedis, "GETEX", "a", "PERSIST");
            cmd(jedis, "GETEX", "a", "PERSIST");
            jedis.persist("a");
            jedis.setbit("bits", 3, true);
            jedis.setbit("bits", 3, true);
            jedis.getDel("b");
            jedis.getDel("b");
            assertEquals(List.of("set s", "expire s", "setrange s", "append s", "incrby n", "incrby n",
                    "incrbyfloat n", "set a", "set b", "set a", "expire a", "persist a", "setbit bits", "del b"),
                    events(s, jedis));
        }
    }

    @Test
    void genericKeyEvents(Jedis jedis, HostAndPort at) throws IOException {
        jedis.configSet("notify-keyspace-events", "KEA");
        jedis.set("k", "v");
        byte[] dump = jedis.dump("k");
        try (Subscriber s = new Subscriber(at)) {
            jedis.expire("k", 100);
            jedis.persist("k");
            jedis.rename("k", "r");
            jedis.copy("r", "c", false);
            cmd(jedis, "COPY", "r", "c2", "DB", "2");
            jedis.move("r", 1);
            jedis.del("c", "nokey");
            jedis.restore("k", 0, dump);
            jedis.pexpire("k", -1);
            assertEquals(List.of(
                    "__keyspace@0__:k expire", "__keyevent@0__:expire k",
                    "__keyspace@0__:k persist", "__keyevent@0__:persist k",
                    "__keyspace@0__:k rename_from", "__keyevent@0__:rename_from k",
                    "__keyspace@0__:r rename_to", "__keyevent@0__:rename_to r",
                    "__keyspace@0__:c copy_to", "__keyevent@0__:copy_to c",
                    "__keyspace@2__:c2 copy_to", "__keyevent@2__:copy_to c2",
                    "__keyspace@0__:r move_from", "__keyevent@0__:move_from r",
                    "__keyspace@1__:r move_to", "__keyevent@1__:move_to r",
                    "__keyspace@0__:c del", "__keyevent@0__:del c",
                    "__keyspace@0__:k restore", "__keyevent@0__:restore k",
                    "__keyspace@0__:k del", "__keyevent@0__:del k"), s.lines(jedis));
        }
    }

    @Test
    void listEventsIncludingMovesAndEmptiedLists(Jedis jedis, HostAndPort at) throws IOException {
        jedis.configSet("notify-keyspace-events", "Elg");
        try (Subscriber s = new Subscriber(at)) {
            jedis.lpush("l", "a", "b");
            jedis.rpush("l", "c");
            jedis.lpushx("nolist", "x");
            cmd(jedis, "LINSERT", "l", "BEFORE", "a", "z");
            cmd(jedis, "LINSERT", "l", "BEFORE", "nope", "z");
            jedis.lset("l", 0, "y");
            jedis.lrem("l", 0, "nope");
            jedis.lrem("l", 0, "z");
            jedis.ltrim("l", 0, 1);
            cmd(jedis, "LMOVE", "l", "m", "LEFT", "RIGHT");
            jedis.rpop("l");
            jedis.lpop("m", 0);
            cmd(jedis, "LMPOP", "1", "m", "LEFT", "COUNT", "5");
            assertEquals(List.of("lpush l", "rpush l", "linsert l", "lset l", "lrem l", "ltrim l",
                    "rpush m", "lpop l", "rpop l", "del l", "lpop m", "del m"), events(s, jedis));
        }
    }

    @Test
    void blockedPopsServedLaterFireTheirEvents(Jedis jedis, HostAndPort at) throws Exception {
        jedis.configSet("notify-keyspace-events", "Elg");
        try (Subscriber s = new Subscriber(at); Jedis blocked = new Jedis(at)) {
            Thread t = new Thread(() -> blocked.blpop(5, "q"));
            t.start();
            while (!jedis.clientList().contains("cmd=blpop")) Thread.onSpinWait();
            jedis.rpush("q", "x");
            t.join();
            assertEquals(List.of("rpush q", "lpop q", "del q"), events(s, jedis));
        }
    }

    @Test
    void hashSetAndZsetEvents(Jedis jedis, HostAndPort at) throws IOException {
        jedis.configSet("notify-keyspace-events", "Ehszg");
        try (Subscriber s = new Subscriber(at)) {
            jedis.hset("h", "a", "1");
            jedis.hsetnx("h", "a", "2");
            jedis.hincrBy("h", "a", 1);
            jedis.hincrByFloat("h", "a", 0.5);
            jedis.hdel("h", "nope");
            jedis.hdel("h", "a");
            jedis.sadd("s", "a", "b");
            jedis.sadd("s", "a");
            jedis.srem("s", "nope");
            jedis.smove("s", "t", "a");
            jedis.sinterstore("i", "s", "t");
            jedis.sinterstore("i", "s");
            jedis.sunionstore("u", "s", "t");
            jedis.sdiffstore("d", "s", "t");
            jedis.spop("t");
            jedis.zadd("z", 1, "a");
            jedis.zadd("z", 1, "a");
            jedis.zincrby("z", 2, "a");
            jedis.zadd("z", 5, "b");
            jedis.zrem("z", "nope");
            jedis.zunionstore("zu", "z");
            jedis.zinterstore("zu", "z", "nokey");
            cmd(jedis, "ZRANGESTORE", "zr", "z", "0", "-1");
            jedis.zremrangeByScore("z", 100, 200);
            jedis.zremrangeByRank("zr", 0, 0);
            jedis.zpopmax("z");
            jedis.zremrangeByLex("z", "-", "+");
            assertEquals(List.of("hset h", "hincrby h", "hincrbyfloat h", "hdel h", "del h",
                    "sadd s", "srem s", "sadd t", "sinterstore i", "sunionstore u", "sdiffstore d",
                    "spop t", "del t",
                    "zadd z", "zincr z", "zadd z", "zunionstore zu", "del zu", "zrangestore zr",
                    "zremrangebyrank zr", "zpopmax z", "zremrangebylex z", "del z"), events(s, jedis));
        }
    }

    @Test
    void expiredFiresWhenAnAccessFindsTheKeyStale(Jedis jedis, HostAndPort at) throws IOException {
        cmd(jedis, "DEBUG", "SET-ACTIVE-EXPIRE", "0");
        jedis.configSet("notify-keyspace-events", "Exm");
        // A PXAT in the past still stores the key, which is then stale from the first access on.
        cmd(jedis, "SET", "foo", "bar", "PXAT", "1");
        cmd(jedis, "SET", "other", "bar", "PXAT", "1");
        try (Subscriber s = new Subscriber(at)) {
            jedis.get("foo");
            jedis.set("other", "new");
            assertEquals(List.of("expired foo", "keymiss foo", "expired other"), events(s, jedis));
        }
    }

    @Test
    void expiredFiresFromTheActiveCycle(Jedis jedis, HostAndPort at) throws IOException {
        jedis.configSet("notify-keyspace-events", "Ex");
        try (Subscriber s = new Subscriber(at)) {
            jedis.psetex("foo", 1, "bar");
            // Nothing touches the key: only the active expire cycle can send this.
            assertEquals(List.of("__keyevent@0__:expired", "foo"), List.of(s.next()));
        }
    }

    @Test
    void aResp3ClientSeesItsOwnEventsWhereRedisPutsThemAmongItsReplies(Jedis jedis, HostAndPort at) throws IOException {
        jedis.configSet("notify-keyspace-events", "E$l");
        try (Subscriber self = new Subscriber(at, "HELLO 3", "__keyevent@0__:*")) {
            // SET announces before it replies, LPUSH after (t_string.c / t_list.c).
            self.send("SET foo bar", "LPUSH l a");
            assertEquals(List.of("pmessage", "__keyevent@0__:*", "__keyevent@0__:set", "foo"), self.read());
            assertEquals("OK", self.read());
            assertEquals(1L, self.read());
            assertEquals(List.of("pmessage", "__keyevent@0__:*", "__keyevent@0__:lpush", "l"), self.read());
        }
    }

    /** A second connection subscribed to every channel, reading messages as [channel, message]. */
    static final class Subscriber implements AutoCloseable {
        private static final String MARKER = "marker-channel";
        private final Socket socket;
        private final InputStream in;

        Subscriber(HostAndPort at) throws IOException {
            this(at, null, "*");
        }

        /** Sends hello first if not null (its reply is read), then PSUBSCRIBE pattern. */
        Subscriber(HostAndPort at, String hello, String pattern) throws IOException {
            socket = new Socket(at.getHost(), at.getPort());
            socket.setSoTimeout(5000);
            in = new BufferedInputStream(socket.getInputStream());
            if (hello != null) {
                send(hello);
                read();
            }
            send("PSUBSCRIBE " + pattern);
            read();
        }

        /** Inline commands, in one write. */
        void send(String... commands) throws IOException {
            OutputStream out = socket.getOutputStream();
            for (String command : commands) out.write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }

        /** The next message published: [channel, message]. */
        String[] next() throws IOException {
            @SuppressWarnings("unchecked")
            List<Object> m = (List<Object>) read();
            return new String[] {(String) m.get(2), (String) m.get(3)};
        }

        /** Every message published before a marker that jedis publishes now. */
        List<String[]> untilMarker(Jedis jedis) throws IOException {
            jedis.publish(MARKER, "end");
            List<String[]> out = new ArrayList<>();
            for (String[] m = next(); !m[0].equals(MARKER); m = next()) out.add(m);
            return out;
        }

        /** The messages as "channel message". */
        List<String> lines(Jedis jedis) throws IOException {
            List<String> out = new ArrayList<>();
            for (String[] m : untilMarker(jedis)) out.add(m[0] + " " + m[1]);
            return out;
        }

        /** One reply or push: arrays, pushes and maps as lists, strings, integers. */
        Object read() throws IOException {
            int type = in.read();
            String line = line();
            switch (type) {
                case '*', '>', '%' -> {
                    List<Object> items = new ArrayList<>();
                    for (int i = Integer.parseInt(line) * (type == '%' ? 2 : 1); i > 0; i--) items.add(read());
                    return items;
                }
                case '+' -> {
                    return line;
                }
                case '$' -> {
                    byte[] b = in.readNBytes(Integer.parseInt(line) + 2);
                    return new String(b, 0, b.length - 2, StandardCharsets.UTF_8);
                }
                case ':' -> {
                    return Long.parseLong(line);
                }
                default -> throw new IOException("unexpected reply type " + (char) type + line);
            }
        }

        private String line() throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (int ch = in.read(); ch != '\r'; ch = in.read()) {
                if (ch < 0) throw new IOException("connection closed");
                b.write(ch);
            }
            in.read();
            return b.toString(StandardCharsets.UTF_8);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
