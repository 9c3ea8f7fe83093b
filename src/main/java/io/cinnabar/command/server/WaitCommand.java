package io.cinnabar.command.server;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;

import static io.cinnabar.command.CommandFlag.NOSCRIPT;
import static io.cinnabar.command.CommandSpec.spec;

/**
 * WAIT numreplicas timeout: the number of replicas whose REPLCONF ACK reached the replication
 * stream's offset when WAIT ran, at once when enough already have (or inside MULTI), else once
 * enough have (the replicas are asked, REPLCONF GETACK) or at its timeout on the server's clock
 * (0: until CLIENT UNBLOCK). Redis waits for the offset of the client's own last write; the
 * stream's offset when WAIT runs is never earlier, so it waits for that write too.
 */
public final class WaitCommand implements CommandFamily {
    private static final byte[][] NO_KEYS = new byte[0][];

    @Override
    public String group() {
        return "generic";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("WAIT", 3, NOSCRIPT).withoutGroupCategory().acl("@connection")
                .tips("request_policy:all_shards", "response_policy:agg_min")
                .doc("3.0.0", "Wait for the synchronous replication of all the write commands sent in the context of the current connection",
                        "O(1)"), this::waitForReplicas);
    }

    private void waitForReplicas(Call c) {
        if (c.server().masterLink().host() != null) {
            throw new CommandError("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a "
                    + "replica is configured to be writable (which is not the default) writes to replicas are just local "
                    + "and are not propagated.");
        }
        long numReplicas = c.longArg(1);
        long timeout = c.longArg(2, "ERR timeout is not an integer or out of range");
        if (timeout < 0) throw new CommandError("ERR timeout is negative");
        Replicas replicas = Replicas.ifAny(c.server());
        // What this client ran is in the stream by now, and no later than this offset.
        long target = replicas == null ? 0 : replicas.offsetNow();
        long acked = replicas == null ? 0 : replicas.acknowledged(target);
        if (acked >= numReplicas || !c.mayBlock()) {
            c.reply().integer(acked);
            return;
        }
        long deadline = 0;
        if (timeout > 0) {
            deadline = timeout + c.mstime();
            // Redis's sum wraps to a time long past, which its next check times out.
            if (deadline < 0) deadline = c.mstime();
        }
        c.block(NO_KEYS, deadline, r -> r.integer(replicas == null ? 0 : replicas.acknowledged(target)));
        if (replicas != null) replicas.waitFor(c.client(), target, numReplicas);
    }
}
