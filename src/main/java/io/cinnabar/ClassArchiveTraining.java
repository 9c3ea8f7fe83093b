package io.cinnabar;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The training run behind the class data sharing archive that conf/jvm.options names
 * (target/cinnabar.jsa): {@code mvn package} runs it right after building the jar, in a JVM started
 * with {@code -XX:ArchiveClassesAtExit}, which writes every class it loaded into the archive as it
 * exits. It starts the server as {@code java -jar} would, with the JIT warm-up, the AOF and an RDB
 * save, sends it a few of the commands clients and Sentinel send first, and shuts it down.
 * <p>
 * A server started with the archive maps those classes instead of loading, verifying and linking
 * them from the jar (measurements in conf/jvm.options). Whatever goes wrong here ends the run with
 * status 1, which the build lets pass: the server then starts without the archive's help.
 * <p>
 * {@code java -XX:ArchiveClassesAtExit=FILE -cp cinnabar.jar io.cinnabar.ClassArchiveTraining WORKDIR}
 */
public final class ClassArchiveTraining {
    private static final String[][] COMMANDS = {
        {"PING"}, {"CLIENT", "SETNAME", "training"}, {"INFO"}, {"CONFIG", "GET", "*"}, {"SET", "k", "v"},
        {"GET", "k"}, {"INCR", "n"}, {"LPUSH", "l", "a", "b"}, {"LRANGE", "l", "0", "-1"}, {"HSET", "h", "f", "v"},
        {"SADD", "s", "m"}, {"ZADD", "z", "1", "m"}, {"EXPIRE", "k", "100"}, {"TTL", "k"}, {"MULTI"},
        {"SET", "k", "w"}, {"EXEC"}, {"SUBSCRIBE", "c"}, {"UNSUBSCRIBE"}, {"PUBLISH", "c", "m"}, {"CLIENT", "LIST"},
        {"COMMAND", "DOCS", "GET"}, {"SCAN", "0"}, {"DBSIZE"}, {"EVAL", "return redis.call('get', KEYS[1])", "1", "k"},
        // One or a few of each family's commands, so that a server's first use of them (a client
        // library's test class on a fresh server) does not load their classes from the jar.
        {"SET", "k", "v", "EX", "100", "NX"}, {"GETEX", "k", "PERSIST"}, {"APPEND", "k", "x"}, {"SETRANGE", "k", "1", "y"},
        {"GETRANGE", "k", "0", "-1"}, {"MSET", "a", "1", "b", "2"}, {"MGET", "a", "b"}, {"INCRBYFLOAT", "f", "1.5"},
        {"DEL", "a"}, {"EXISTS", "b"}, {"TYPE", "b"}, {"RENAME", "b", "c"}, {"PEXPIRE", "c", "100000"}, {"PTTL", "c"},
        {"PERSIST", "c"}, {"OBJECT", "ENCODING", "c"}, {"DUMP", "c"}, {"MEMORY", "USAGE", "c"}, {"KEYS", "*"},
        {"RANDOMKEY"}, {"SCAN", "0", "MATCH", "*", "COUNT", "10", "TYPE", "string"}, {"COPY", "c", "d"},
        {"RPUSH", "l", "c"}, {"LPOP", "l"}, {"RPOP", "l"}, {"LINDEX", "l", "0"}, {"LLEN", "l"}, {"LMOVE", "l", "l2", "LEFT", "RIGHT"},
        {"LPOS", "l2", "a"}, {"SORT", "l2", "ALPHA"}, {"DUMP", "l2"}, {"DUMP", "h"}, {"DUMP", "s"}, {"DUMP", "z"},
        {"BLPOP", "l2", "1"},
        {"HGET", "h", "f"}, {"HGETALL", "h"}, {"HINCRBY", "h", "n", "1"}, {"HDEL", "h", "f"}, {"HSCAN", "h", "0"},
        {"SADD", "s2", "m", "n"}, {"SMEMBERS", "s"}, {"SISMEMBER", "s", "m"}, {"SINTER", "s", "s2"}, {"SUNIONSTORE", "s3", "s", "s2"}, {"SREM", "s", "m"},
        {"ZSCORE", "z", "m"}, {"ZINCRBY", "z", "1", "m"}, {"ZRANGE", "z", "0", "-1", "WITHSCORES"},
        {"ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "0", "10"}, {"ZRANK", "z", "m"}, {"ZREM", "z", "m"},
        {"ZUNIONSTORE", "z2", "1", "z"},
        {"XGROUP", "CREATE", "x", "g", "0", "MKSTREAM"}, {"XADD", "x", "*", "m", "1"}, {"XLEN", "x"},
        {"XREADGROUP", "GROUP", "g", "c", "COUNT", "10", "STREAMS", "x", ">"}, {"XPENDING", "x", "g", "-", "+", "10"},
        {"XACK", "x", "g", "0-1"}, {"XRANGE", "x", "-", "+"}, {"XREAD", "COUNT", "1", "STREAMS", "x", "0"},
        {"XINFO", "GROUPS", "x"}, {"XINFO", "STREAM", "x"}, {"XTRIM", "x", "MAXLEN", "0"},
        {"GEOADD", "geo", "13.361389", "38.115556", "a", "15.087269", "37.502669", "b"}, {"GEODIST", "geo", "a", "b"},
        {"GEOSEARCH", "geo", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC", "WITHDIST"},
        {"SETBIT", "bits", "7", "1"}, {"BITCOUNT", "bits"}, {"BITPOS", "bits", "1"}, {"BITFIELD", "bits", "INCRBY", "u8", "0", "1"},
        {"PFADD", "hll", "a", "b"}, {"PFCOUNT", "hll"}, {"PFMERGE", "hll2", "hll"},
        {"SCRIPT", "LOAD", "return cjson.encode({redis.call('ping')})"}, {"EVAL", "return cmsgpack.pack(ARGV[1])", "0", "x"},
        {"FUNCTION", "LOAD", "#!lua name=training\nredis.register_function('training', function(keys, args) return #args end)"},
        {"FCALL", "training", "0"}, {"FUNCTION", "DELETE", "training"},
        {"WATCH", "k"}, {"UNWATCH"}, {"CLIENT", "INFO"}, {"CLIENT", "TRACKING", "ON"}, {"CLIENT", "TRACKING", "OFF"},
        {"ACL", "WHOAMI"}, {"SLOWLOG", "GET"}, {"LATENCY", "LATEST"},
        {"TIME"}, {"FLUSHALL"},
        {"SAVE"}, {"INFO", "everything"},
    };

    private ClassArchiveTraining() {}

    public static void main(String[] args) {
        try {
            train(args);
        } catch (IOException | RuntimeException e) {
            System.err.println("class archive training failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Here only when the server did not end the process: its threads would keep it running.
        System.exit(1);
    }

    private static void train(String[] args) throws IOException, InterruptedException {
        Path dir = Path.of(args.length > 0 ? args[0] : "target/class-archive-training").toAbsolutePath();
        Files.createDirectories(dir);
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        String[] serverArgs = {"--port", Integer.toString(port), "--bind", "127.0.0.1", "--dir", dir.toString(),
            "--appendonly", "yes", "--logfile", dir.resolve("server.log").toString()};
        Thread server = new Thread(() -> {
            try {
                Cinnabar.main(serverArgs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "class-archive-training-server");
        server.start();
        try (Socket socket = connect(port, System.nanoTime() + 60_000_000_000L)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            for (String[] command : COMMANDS) {
                out.write(JitWarmUp.command(command));
                out.flush();
                JitWarmUp.skipReply(in);
            }
            // SHUTDOWN ends the process through System.exit, which writes the archive.
            out.write(JitWarmUp.command("SHUTDOWN", "NOSAVE"));
            out.flush();
        }
        server.join(30_000);
        System.err.println("class archive training: the server did not exit after SHUTDOWN");
    }

    private static Socket connect(int port, long deadline) throws IOException, InterruptedException {
        while (true) {
            try {
                return new Socket(InetAddress.getLoopbackAddress(), port);
            } catch (IOException e) {
                if (System.nanoTime() > deadline) throw e;
                Thread.sleep(20);
            }
        }
    }
}
