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
