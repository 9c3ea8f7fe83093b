package io.cinnabar.command.cluster;

import java.security.SecureRandom;
import java.util.HexFormat;

/** One master of a {@link ClusterState}: its 40-hex id, address and health, as CLUSTER NODES shows them. */
public final class ClusterNode {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String id;
    private final String ip;
    private volatile int port;
    private volatile long configEpoch;
    private volatile boolean failed;

    ClusterNode(String ip, long configEpoch) {
        this(randomId(), ip, configEpoch);
    }

    ClusterNode(String id, String ip, long configEpoch) {
        this.id = id;
        this.ip = ip;
        this.configEpoch = configEpoch;
    }

    static String randomId() {
        byte[] bytes = new byte[20];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    public String id() { return id; }
    public String ip() { return ip; }
    public int port() { return port; }
    /** The cluster bus port Redis would announce (port + 10000); there is no bus, clients only show it. */
    public int busPort() { return port + 10000 <= 65535 ? port + 10000 : 0; }
    public long configEpoch() { return configEpoch; }
    public boolean failed() { return failed; }

    void port(int p) { port = p; }
    void configEpoch(long e) { configEpoch = e; }
    void failed(boolean f) { failed = f; }

    @Override
    public String toString() {
        return id + " " + ip + ":" + port;
    }
}
