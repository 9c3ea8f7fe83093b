package io.cinnabar;

import io.cinnabar.command.scripting.Sha1;
import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.log.ServerLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The standalone server's JIT warm-up ({@code -Dcinnabar.warmupMs=N}, set in conf/jvm.options):
 * before the real server opens its port, a private server on a loopback port, with the real one's
 * io-threads and AOF settings in a temporary directory, serves redis-benchmark's default commands
 * to eight in-process clients (two unpipelined, six 16 deep, each reconnecting every 4096 requests
 * as a benchmark's clients connect anew for each test, sending rounds encoded beforehand so that
 * the two cores go to the server), and a Lua script to a ninth ({@link Scripted}), for N ms, then
 * goes away with its directory; its log lines are silenced. The JIT compiles the request path
 * meanwhile. Encoding beforehand and reconnecting: 23-43k -> 37-60k requests served in the
 * second, and a fresh server's first 200k SETs at -c 50 at 68-69k/s instead of 62-68k/s (84-86k/s
 * later). Clients that connect per request still find that path
 * cold: the first ~20k connections cost 2-3 times the CPU of later ones. Measured on
 * 2 cores with AOF everysec: a fresh server's first 100k SETs ran at 55k/s and the next 100k at
 * 71-87k/s; after 1000 ms of warm-up the next 100k ran at 96-102k/s (the first still at ~60k/s:
 * real clients' profiles still make the JIT compile). For the last third the clients move to a
 * second private server: code compiled while only the first served had never seen a new server's
 * first commands nor its new threads, and the real server's first requests deoptimised it
 * (Dispatcher.run, continueBatch, executeOne, Netty's Recycler and allocator: recompiled at up to
 * 216 ms of C2 each while its clients waited). On 2 cores with a 3 s warm-up, a fresh server's
 * first 20k PING_INLINE at -c 50 then ran at 27-29k/s instead of 17-22k/s, and the next 20k at
 * 38-49k/s instead of 25-32k/s (with the 1 s warm-up of conf/jvm.options on that slow machine,
 * within the noise). Embedded servers never do this.
 */
final class JitWarmUp {
    private static final Logger log = LoggerFactory.getLogger(JitWarmUp.class);
    /** Benchmark clients, and one more that runs scripts (the last). */
    private static final int CLIENTS = 9;

    private JitWarmUp() {}

    /**
     * Runs the warm-up when -Dcinnabar.warmupMs is set above 0, with the real server's io-threads
     * and AOF settings, logging one line.
     */
    static void runIfAsked(Config serverConfig) {
        long millis = Long.getLong("cinnabar.warmupMs", 0);
        if (millis <= 0) return;
        long started = System.nanoTime();
        long[] served = new long[1];
        ServerLog.quietWhile(() -> served[0] = run(serverConfig, millis, started));
        if (served[0] >= 0) {
            log.info("JIT warm-up: {} requests in {} ms", served[0], (System.nanoTime() - started) / 1_000_000);
        }
    }

    /** The warm-up itself; returns the requests served, or -1 when it could not start. */
    private static long run(Config serverConfig, long millis, long started) {
        CinnabarServer first = startServer(serverConfig);
        if (first == null) return -1;
        AtomicInteger port = new AtomicInteger(first.port());
        long deadline = started + millis * 1_000_000L;
        List<Thread> clients = new ArrayList<>();
        long[] served = new long[CLIENTS];
        for (int i = 0; i < CLIENTS; i++) {
            int id = i;
            int depth = i < 2 || i == CLIENTS - 1 ? 1 : 16;
            boolean scripts = i == CLIENTS - 1;
            Thread t = new Thread(() -> served[id] = drive(port, depth, scripts, deadline), "cinnabar-warm-up-" + i);
            t.setDaemon(true);
            t.start();
            clients.add(t);
        }
        // A second server for the last third: its first commands, on its own threads, take the
        // branches every new server takes once (lazily made per-server and per-thread state), so
        // the code compiled by the end has seen them instead of leaving the real server's first
        // requests to deoptimise it.
        long switchAt = started + millis * 1_000_000L * 2 / 3;
        long wait;
        while ((wait = switchAt - System.nanoTime()) > 0 && !Thread.currentThread().isInterrupted()) {
            LockSupport.parkNanos(wait);
        }
        CinnabarServer second = startServer(serverConfig);
        if (second != null) port.set(second.port());
        for (Thread t : clients) {
            try {
                t.join(millis + 5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        first.close();
        if (second != null) second.close();
        // Their garbage goes now, before the real server's data arrives: the heap they grew can then be
        // given back (Shenandoah uncommits regions a second after they emptied).
        System.gc();
        long total = 0;
        for (long n : served) total += n;
        return total;
    }

    /** A private server with the real one's persistence and io-threads; null if it cannot start. */
    private static CinnabarServer startServer(Config serverConfig) {
        try {
            // The same persistence as the real server's, so the AOF's write path warms up too (in
            // a temporary directory of the warm-up server's own).
            return CinnabarServer.builder().port(0).bind("127.0.0.1")
                    .option("save", "")
                    .option("appendonly", serverConfig.getBool(ConfigOptions.APPENDONLY) ? "yes" : "no")
                    .option("appendfsync", serverConfig.getString(ConfigOptions.APPENDFSYNC))
                    .option("io-threads", String.valueOf(serverConfig.getInt(ConfigOptions.IO_THREADS)))
                    .build().start();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Requests a client sends per connection before it reconnects. */
    private static final int REQUESTS_PER_CONNECTION = 4096;
    /** Distinct pre-encoded rounds per client: building requests is the client's work, not the server's. */
    private static final int ROUNDS = 64;

    /** One client: the benchmark's commands in turn, depth at a time, until the deadline; returns requests served. */
    private static long drive(AtomicInteger port, int depth, boolean scripts, long deadline) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        byte[][] rounds = new byte[ROUNDS][];
        int next = 0;
        for (int r = 0; r < ROUNDS; r++) {
            ByteArrayOutputStream round = new ByteArrayOutputStream();
            for (int i = 0; i < depth; i++) {
                int r1 = random.nextInt(10_000);
                round.writeBytes(scripts ? Scripted.request(next++, r1) : request(next++ % COMMANDS, r1));
            }
            rounds[r] = round.toByteArray();
        }
        long served = 0;
        int r = 0;
        try {
            // One round at least: a slow start (cold class loading, a loaded machine) may have used
            // the whole time before the first client connects.
            do {
                int to = port.get();
                try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), to)) {
                    socket.setTcpNoDelay(true);
                    OutputStream out = socket.getOutputStream();
                    InputStream in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
                    for (byte[] request : PREAMBLE) out.write(request);
                    for (int i = 0; i < PREAMBLE.length; i++) skipReply(in);
                    for (int sent = 0; sent < REQUESTS_PER_CONNECTION; sent += depth) {
                        out.write(rounds[r++ % ROUNDS]);
                        for (int i = 0; i < depth; i++) skipReply(in);
                        served += depth;
                        if (System.nanoTime() - deadline >= 0) return served;
                        if (port.get() != to) break;
                    }
                }
            } while (System.nanoTime() - deadline < 0);
        } catch (IOException e) {
            // the warm-up ends early; the server starts all the same
        }
        return served;
    }

    /**
     * Sent on each connection first: the CONFIG GETs redis-benchmark sends before each test (the
     * first command with a subcommand), and a counter past the shared small integers, as
     * redis-benchmark's single INCR counter soon is. Paths the JIT has never seen taken make it
     * fall back to the interpreter when real clients take them, each costing a recompile (seen
     * in -XX:+LogCompilation of a first redis-benchmark run: Dispatcher.executeOne and INCR's
     * reply formatting).
     */
    private static final byte[][] PREAMBLE = {command("CONFIG", "GET", "save"),
            command("CONFIG", "GET", "appendonly"), command("INCRBY", "counter:__rand_int__", "10000"),
            // For the scripts client's EVALSHA on the second server, whichever of its rounds comes first there.
            command("SCRIPT", "LOAD", Scripted.SCRIPT)};

    private static final int COMMANDS = 22;
    private static final String VALUE = "xxx";
    private static final String VALUE_61 = "x".repeat(61);
    private static final String VALUE_4096 = "x".repeat(4096);

    /**
     * redis-benchmark's default tests, with its key names and 3-byte values, plus -d 61 and -d 4096
     * SETs, and PFADD and GEOADD.
     */
    private static byte[] request(int which, int r) {
        String key = "key:" + r;
        return switch (which) {
            case 0 -> "PING\r\n".getBytes(StandardCharsets.US_ASCII);
            case 1 -> command("PING");
            case 2 -> command("SET", key, VALUE);
            case 3 -> command("GET", key);
            case 4 -> command("INCR", r % 4 == 0 ? "counter:__rand_int__" : "counter:" + r);
            case 5 -> command("LPUSH", "mylist", VALUE);
            case 6 -> command("RPUSH", "mylist", VALUE);
            case 7 -> command("LPOP", "mylist");
            case 8 -> command("RPOP", "mylist");
            case 9 -> command("SADD", "myset", "element:" + r);
            case 10 -> command("HSET", "myhash", "element:" + r, VALUE);
            case 11 -> command("SPOP", "myset");
            case 12 -> command("ZADD", "myzset", String.valueOf(r), "element:" + r);
            case 13 -> command("ZPOPMIN", "myzset");
            case 14 -> command("LPUSH", "mylist", VALUE);
            case 15 -> command("LRANGE", "mylist", "0", String.valueOf(r % 600));
            case 16 -> command("MSET", key, VALUE, "key:" + (r + 1), VALUE, "key:" + (r + 2), VALUE);
            case 17 -> command("SET", key, VALUE_61);
            case 18 -> command("SET", "big:" + (r % 100), VALUE_4096);
            case 19 -> command("GET", "big:" + (r % 100));
            // Two of scripts/types-bench.sh's: a fresh server's first 100k ran at 68-74k/s, 71-80k/s with these
            // (later ones at 84-100k/s). Its XADD ran at 56-61k/s either way, as the first round of any
            // test does while the JIT compiles for the real clients' profile.
            case 20 -> command("PFADD", "bench:hll", String.valueOf(r));
            default -> command("GEOADD", "bench:geo", "13.361389", "38.115556", "member:" + r);
        };
    }

    /**
     * The ninth client's work, unpipelined beside the benchmark's (in the benchmark clients' mix,
     * scripts interpreted before the JIT compiled luaj took most of the warm-up): a script as
     * client libraries send them (Redisson's locks and map caches), with reads, a conditional
     * write, an expiry, a loop and a table reply, by EVAL and EVALSHA. Measured on 2 idle cores,
     * three fresh servers each, a script of XADD and XINFO GROUPS sent 2,000 times in a row: the
     * 10th-50th took 0.22-0.23 ms (median) instead of 0.28-0.41 ms, the 50th-200th 0.16-0.23 instead
     * of 0.27-0.32 (Redis: 0.03 ms throughout); the warm-up served 18-27k requests instead of
     * 26-38k, and the first 100k SET/GET/INCR/LPUSH at -c 50 after the start ran as fast as before.
     */
    private static final class Scripted {
        static final String SCRIPT = "local v = redis.call('hget', KEYS[1], ARGV[1]); "
                + "if v == false then redis.call('hset', KEYS[1], ARGV[1], ARGV[2]); end; "
                + "redis.call('pexpire', KEYS[1], 30000); "
                + "local n = 0; for i = 1, #ARGV do n = n + string.len(ARGV[i]); end; "
                + "return {v, n, tonumber(redis.call('hlen', KEYS[1]))};";
        static final String SHA = Sha1.hex(SCRIPT.getBytes(StandardCharsets.US_ASCII));

        static byte[] request(int which, int r) {
            String key = "lock:" + (r % 100), field = "field:" + (r % 7);
            return which % 2 == 0 ? command("EVAL", SCRIPT, "1", key, field, VALUE)
                    : command("EVALSHA", SHA, "1", key, field, VALUE_61);
        }
    }

    /** A request in RESP2, as clients send it (the class archive's training sends these too). */
    static byte[] command(String... args) {
        StringBuilder b = new StringBuilder().append('*').append(args.length).append("\r\n");
        for (String a : args) b.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** Reads one RESP2 reply and drops it. */
    static void skipReply(InputStream in) throws IOException {
        int type = in.read();
        if (type < 0) throw new EOFException();
        long n = switch (type) {
            case '+', '-', ':' -> {
                skipLine(in);
                yield 0;
            }
            default -> readLong(in);
        };
        if (type == '$' && n >= 0) {
            in.skipNBytes(n + 2);
        } else if (type == '*') {
            for (long i = 0; i < n; i++) skipReply(in);
        }
    }

    private static void skipLine(InputStream in) throws IOException {
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) throw new EOFException();
        }
    }

    private static long readLong(InputStream in) throws IOException {
        long value = 0;
        boolean negative = false;
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) throw new EOFException();
            if (c == '-') negative = true;
            else value = value * 10 + (c - '0');
        }
        in.read(); // '\n'
        return negative ? -value : value;
    }
}
