package io.cinnabar.command.server;

import io.cinnabar.command.ReplicaFlags;

import io.cinnabar.Version;
import io.cinnabar.command.Call;
import io.cinnabar.command.Client;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.MasterLink;
import io.cinnabar.command.keys.DumpCommands;
import io.cinnabar.util.ArgSplitter;
import io.cinnabar.util.BinaryText;

import static io.cinnabar.command.CommandFlag.ADMIN;
import static io.cinnabar.command.CommandFlag.ALLOW_BUSY;
import static io.cinnabar.command.CommandFlag.ASKING;
import static io.cinnabar.command.CommandFlag.DENYOOM;
import static io.cinnabar.command.CommandFlag.FAST;
import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.NOSCRIPT;
import static io.cinnabar.command.CommandFlag.NO_ASYNC_LOADING;
import static io.cinnabar.command.CommandFlag.NO_MULTI;
import static io.cinnabar.command.CommandFlag.READONLY;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandFlag.WRITE;
import static io.cinnabar.command.CommandSpec.spec;
import static io.cinnabar.command.KeyFlag.OW;
import static io.cinnabar.command.KeyFlag.UPDATE;
import static io.cinnabar.command.KeySpec.at;

/**
 * The replication commands as a Redis 7.0 master without replicas answers them (ROLE, REPLICAOF,
 * FAILOVER, REPLCONF), plus LOLWUT and RESTORE-ASKING, which live in Redis's "server" group.
 * As a replica it follows its master through MasterLink. As a master it serves replicas: SYNC and PSYNC (full
 * resynchronisation) and the stream after it, see Replicas.
 */
public final class ReplicationCommands implements CommandFamily {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ReplicationCommands.class);

    @Override
    public String group() {
        return "server";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("ROLE", 1, NOSCRIPT, LOADING, STALE, FAST).acl("@admin", "@dangerous")
                .doc("2.8.12", "Return the role of the instance in the context of replication", "O(1)"), this::role);
        t.add(spec("REPLICAOF", 3, ADMIN, NOSCRIPT, STALE, NO_ASYNC_LOADING)
                .doc("5.0.0", "Make the server a replica of another instance, or promote it as master.", "O(1)"), this::replicaof);
        t.add(spec("SLAVEOF", 3, ADMIN, NOSCRIPT, STALE, NO_ASYNC_LOADING)
                .doc("1.0.0", "Make the server a replica of another instance, or promote it as master.", "O(1)")
                .deprecated("5.0.0", "`REPLICAOF`"), this::replicaof);
        t.add(spec("FAILOVER", -1, ADMIN, NOSCRIPT, STALE)
                .doc("6.2.0", "Start a coordinated failover between this server and one of its replicas.", "O(1)"), this::failover);
        t.add(spec("REPLCONF", -1, ADMIN, NOSCRIPT, LOADING, STALE, ALLOW_BUSY).syscmd()
                .doc("3.0.0", "An internal command for configuring the replication stream", "O(1)"), this::replconf);
        t.add(spec("SYNC", 1, ADMIN, NOSCRIPT, NO_ASYNC_LOADING, NO_MULTI).doc("1.0.0", "Internal command used for replication"),
                c -> sync(c, false));
        t.add(spec("PSYNC", -3, ADMIN, NOSCRIPT, NO_ASYNC_LOADING, NO_MULTI).doc("2.8.0", "Internal command used for replication"),
                c -> sync(c, true));
        t.add(DumpCommands.restoreDocs(spec("RESTORE-ASKING", -4, WRITE, DENYOOM, ASKING).keys(at(1, OW, UPDATE))
                        .acl("@keyspace", "@dangerous").syscmd(), "3.0.0", "An internal command for migrating keys in a cluster"),
                DumpCommands::restore);
        t.add(spec("LOLWUT", -1, READONLY, FAST).doc("5.0.0", "Display some computer art and the Redis version"), this::lolwut);
    }

    /**
     * ROLE: a master with its offset (INFO replication's master_repl_offset) and replicas, or the
     * replica of the master REPLICAOF named, with its link's state and offset.
     */
    private void role(Call c) {
        MasterLink master = c.server().masterLink();
        if (master.host() != null) {
            c.reply().array(5);
            c.reply().bulk("slave");
            c.reply().bulk(master.host());
            c.reply().integer(master.port());
            c.reply().bulk(master.roleState());
            c.reply().integer(master.masterOffset());
            return;
        }
        Replicas replicas = Replicas.ifAny(c.server());
        java.util.List<java.util.List<String>> entries = replicas == null ? java.util.List.of() : replicas.roleEntries();
        c.reply().array(3);
        c.reply().bulk("master");
        c.reply().integer(c.server().history().offset());
        c.reply().array(entries.size());
        for (java.util.List<String> e : entries) {
            c.reply().array(3);
            for (String field : e) c.reply().bulk(field);
        }
    }

    /**
     * REPLICAOF|SLAVEOF host port | NO ONE. Following a master replies OK at once, as in Redis; the
     * link connects and syncs meanwhile (see MasterLink).
     */
    private void replicaof(Call c) {
        if (c.server().cluster() != null) throw new CommandError("ERR REPLICAOF not allowed in cluster mode.");
        if (Failover.running(c.server())) throw new CommandError("ERR REPLICAOF not allowed while failing over.");
        MasterLink master = c.server().masterLink();
        String from = ClientInfo.line(c.client(), c.mstime());
        if (c.argIs(1, "NO") && c.argIs(2, "ONE")) {
            if (master.host() != null) {
                master.drop();
                log.info("MASTER MODE enabled (user request from '{}')", from);
            }
            c.reply().ok();
            return;
        }
        long port = c.longArg(2, "ERR Invalid master port");
        if (port < 0 || port > 65535) throw new CommandError("ERR Invalid master port");
        String host = c.argString(1);
        if (host.equalsIgnoreCase(master.host()) && port == master.port()) {
            log.info("REPLICAOF would result into synchronization with the master we are already connected with. "
                    + "No operation performed.");
            c.reply().simple("OK Already connected to specified master");
            return;
        }
        master.follow(host, (int) port);
        log.info("REPLICAOF {}:{} enabled (user request from '{}')", host, port, from);
        c.reply().ok();
    }

    /**
     * FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT milliseconds], with failoverCommand's checks
     * in its order; the failover itself runs in {@link Failover}.
     */
    private void failover(Call c) {
        if (c.server().cluster() != null) {
            throw new CommandError("ERR FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command instead.");
        }
        if (c.argCount() == 2 && c.argIs(1, "ABORT")) {
            if (!Failover.running(c.server())) throw new CommandError("ERR No failover in progress.");
            Failover.of(c.server()).abort("Failover manually aborted");
            c.reply().ok();
            return;
        }
        long timeout = 0, port = 0;
        boolean force = false;
        String host = null;
        for (int j = 1; j < c.argCount(); j++) {
            if (c.argIs(j, "TIMEOUT") && j + 1 < c.argCount() && timeout == 0) {
                timeout = c.longArg(++j);
                if (timeout <= 0) throw new CommandError("ERR FAILOVER timeout must be greater than 0");
            } else if (c.argIs(j, "TO") && j + 2 < c.argCount() && host == null) {
                port = c.longArg(j + 2);
                host = c.argString(j + 1);
                j += 2;
            } else if (c.argIs(j, "FORCE") && !force) {
                force = true;
            } else {
                throw CommandError.syntax();
            }
        }
        if (Failover.running(c.server())) throw new CommandError("ERR FAILOVER already in progress.");
        if (c.server().masterLink().host() != null) throw new CommandError("ERR FAILOVER is not valid when server is a replica.");
        Replicas replicas = Replicas.ifAny(c.server());
        if (replicas == null || replicas.none()) throw new CommandError("ERR FAILOVER requires connected replicas.");
        if (force && (timeout == 0 || host == null)) {
            throw new CommandError("ERR FAILOVER with force option requires both a timeout and target HOST and IP.");
        }
        if (host != null) {
            Replicas.Target target = replicas.at(host, (int) port);
            if (target == null || port != (int) port) throw new CommandError("ERR FAILOVER target HOST and PORT is not a replica.");
            if (!target.online()) throw new CommandError("ERR FAILOVER target replica is not online.");
        }
        Failover.of(c.server()).start(host, (int) port, force, timeout);
        c.reply().ok();
    }

    /**
     * REPLCONF option value [option value ...]: what a coming SYNC needs is kept on the client
     * (listening-port, capa eof, rdb-only, rdb-filter-only), the rest checked; ACK (a replica's
     * offset) and GETACK end the command without any reply, as in Redis.
     */
    private void replconf(Call c) {
        if (c.argCount() % 2 == 0) throw CommandError.syntax();
        Client client = c.client();
        for (int j = 1; j < c.argCount(); j += 2) {
            if (c.argIs(j, "listening-port")) {
                client.replicaPort((int) c.longArg(j + 1));
            } else if (c.argIs(j, "ip-address")) {
                // Redis's NET_HOST_STR_LEN, which includes the C string's terminator.
                if (c.arg(j + 1).length >= 256) {
                    throw new CommandError("ERR REPLCONF ip-address provided by replica instance is too long: "
                            + c.arg(j + 1).length + " bytes");
                }
            } else if (c.argIs(j, "capa")) {
                // Other capabilities are ignored, as Redis ignores those it does not know.
                if (c.argIs(j + 1, "eof")) client.replicaFlags(client.replicaFlags() | ReplicaFlags.CAPA_EOF);
                if (c.argIs(j + 1, "psync2")) client.replicaFlags(client.replicaFlags() | ReplicaFlags.CAPA_PSYNC2);
            } else if (c.argIs(j, "ack")) {
                // replconfCommand: only a replica's counts, and a bad offset is ignored without a reply.
                Replicas replicas = Replicas.ifAny(c.server());
                long[] offset = new long[1];
                if (replicas != null && (client.replicaFlags() & ReplicaFlags.SYNCING) != 0
                        && io.cinnabar.util.Numbers.parseLong(c.arg(j + 1), offset)) {
                    replicas.ack(client, offset[0]);
                }
                return;
            } else if (c.argIs(j, "getack")) {
                c.server().masterLink().getAck(client);
                return;
            } else if (c.argIs(j, "rdb-only")) {
                long v = c.longArg(j + 1);
                if (v < 0 || v > 1) throw new CommandError("ERR value is out of range, value must between 0 and 1");
                client.replicaFlags(v == 1 ? client.replicaFlags() | ReplicaFlags.RDB_ONLY : client.replicaFlags() & ~ReplicaFlags.RDB_ONLY);
            } else if (c.argIs(j, "rdb-filter-only")) {
                byte[][] filters = ArgSplitter.split(c.arg(j + 1));
                if (filters == null) throw new CommandError("ERR Missing rdb-filter-only values");
                int wanted = 0;
                for (byte[] f : filters) {
                    String name = BinaryText.decode(f);
                    if (!name.equalsIgnoreCase("functions")) throw new CommandError("ERR Unsupported rdb-filter-only option: " + name);
                    wanted = ReplicaFlags.FUNCTIONS_ONLY;
                }
                client.replicaFlags(client.replicaFlags() & ~ReplicaFlags.FUNCTIONS_ONLY | wanted);
            } else {
                throw new CommandError("ERR Unrecognized REPLCONF option: " + c.quoted(j));
            }
        }
        c.reply().ok();
    }

    /**
     * SYNC / PSYNC replid offset [FAILOVER], with syncCommand's checks in its order: ignored from
     * a client already syncing, then failover, a replica's missing master link, a filter without
     * the EOF capability; then a PSYNC the backlog can continue, else a full sync.
     */
    private void sync(Call c, boolean psync) {
        Client client = c.client();
        int flags = client.replicaFlags();
        if ((flags & ReplicaFlags.SYNCING) != 0) return;
        MasterLink master = c.server().masterLink();
        if (psync && c.argCount() > 3 && c.argIs(3, "failover")) {
            if (master.host() == null) throw new CommandError("ERR PSYNC FAILOVER can't be sent to a master.");
            if (!c.argString(1).equalsIgnoreCase(c.server().history().id())) {
                throw new CommandError("ERR PSYNC FAILOVER replid must match my replid.");
            }
            master.drop();
            log.info("MASTER MODE enabled (failover request from '{}')", ClientInfo.line(client, c.mstime()));
        }
        if (Failover.running(c.server())) throw new CommandError("NOMASTERLINK Can't SYNC while failing over");
        if (master.host() != null && !master.linkUp()) throw new CommandError("NOMASTERLINK Can't SYNC while not connected with my master");
        if ((flags & ReplicaFlags.FUNCTIONS_ONLY) != 0 && (flags & ReplicaFlags.CAPA_EOF) == 0) {
            throw new CommandError("ERR Filtered replica requires EOF capability");
        }
        Replicas replicas = Replicas.of(c.server());
        if (psync) {
            long offset = c.longArg(2);
            String replid = c.argString(1);
            if (replicas.tryContinue(client, replid, offset)) {
                c.server().stats().syncPartialOk++;
                return;
            }
            if (!replid.startsWith("?")) c.server().stats().syncPartialErr++;
        }
        c.server().stats().syncFull++;
        replicas.add(client, psync);
    }

    /** LOLWUT [VERSION version] [art arguments...]: Redis 7.0's own version draws nothing. */
    private void lolwut(Call c) {
        int version = 7;
        int first = 1;
        if (c.argCount() >= 3 && c.argIs(1, "VERSION")) {
            // Redis prints the number as a C unsigned int and looks at its first characters.
            long v = c.longArg(2) & 0xffffffffL;
            version = v == 5 || v == 6 ? (int) v : 7;
            first = 3;
        }
        String text = switch (version) {
            case 5 -> LolwutArt.schotter(c, first);
            case 6 -> LolwutArt.skyscrapers(c, first);
            default -> "Redis ver. " + Version.REDIS_VERSION + "\n";
        };
        c.reply().verbatim("txt", text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
}
