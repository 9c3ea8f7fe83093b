package io.cinnabar.command.pubsub;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandSpec;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.cluster.ClusterMember;
import io.cinnabar.command.HelpReply;
import io.cinnabar.protocol.Reply;

import java.util.List;

import static io.cinnabar.command.CommandFlag.FAST;
import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.MAY_REPLICATE;
import static io.cinnabar.command.CommandFlag.NOSCRIPT;
import static io.cinnabar.command.CommandFlag.PUBSUB;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;
import static io.cinnabar.command.KeyFlag.NOT_KEY;
import static io.cinnabar.command.KeySpec.at;

/** SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE, their UNSUBSCRIBEs, PUBLISH, SPUBLISH and PUBSUB. */
public final class PubSubCommands implements CommandFamily {
    @Override
    public String group() {
        return "pubsub";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("SUBSCRIBE", -2, PUBSUB, NOSCRIPT, LOADING, STALE).channels(CommandSpec.ChannelArgs.SUBSCRIBE).allowedWhileSubscribed()
                .doc("2.0.0", "Listen for messages published to the given channels",
                        "O(N) where N is the number of channels to subscribe to."), this::subscribe);
        t.add(spec("UNSUBSCRIBE", -1, PUBSUB, NOSCRIPT, LOADING, STALE).allowedWhileSubscribed()
                .doc("2.0.0", "Stop listening for messages posted to the given channels",
                        "O(N) where N is the number of clients already subscribed to a channel."), this::unsubscribe);
        t.add(spec("PSUBSCRIBE", -2, PUBSUB, NOSCRIPT, LOADING, STALE).channels(CommandSpec.ChannelArgs.PSUBSCRIBE).allowedWhileSubscribed()
                .doc("2.0.0", "Listen for messages published to channels matching the given patterns",
                        "O(N) where N is the number of patterns the client is already subscribed to."), this::psubscribe);
        t.add(spec("PUNSUBSCRIBE", -1, PUBSUB, NOSCRIPT, LOADING, STALE).allowedWhileSubscribed()
                .doc("2.0.0", "Stop listening for messages posted to channels matching the given patterns",
                        "O(N+M) where N is the number of patterns the client is already subscribed and M is the number of total patterns subscribed in the system (by any client)."), this::punsubscribe);
        t.add(spec("SSUBSCRIBE", -2, PUBSUB, NOSCRIPT, LOADING, STALE).channels(CommandSpec.ChannelArgs.SUBSCRIBE).keys(at(1, NOT_KEY).range(-1, 1)).allowedWhileSubscribed()
                .doc("7.0.0", "Listen for messages published to the given shard channels",
                        "O(N) where N is the number of shard channels to subscribe to."), this::ssubscribe);
        t.add(spec("SUNSUBSCRIBE", -1, PUBSUB, NOSCRIPT, LOADING, STALE).keys(at(1, NOT_KEY).range(-1, 1)).allowedWhileSubscribed()
                .doc("7.0.0", "Stop listening for messages posted to the given shard channels",
                        "O(N) where N is the number of clients already subscribed to a shard channel."), this::sunsubscribe);
        t.add(spec("PUBLISH", 3, PUBSUB, LOADING, STALE, FAST, MAY_REPLICATE).channels(CommandSpec.ChannelArgs.PUBLISH).doc("2.0.0", "Post a message to a channel",
                        "O(N+M) where N is the number of clients subscribed to the receiving channel and M is the total number of subscribed patterns (by any client)."),
                this::publish);
        t.add(spec("SPUBLISH", 3, PUBSUB, LOADING, STALE, FAST, MAY_REPLICATE).channels(CommandSpec.ChannelArgs.PUBLISH).keys(at(1, NOT_KEY))
                .doc("7.0.0", "Post a message to a shard channel",
                        "O(N) where N is the number of clients subscribed to the receiving shard channel."),
                c -> c.reply().integer(pubSub(c).spublish(c.arg(1), c.arg(2))));
        t.add(spec("PUBSUB", -2).doc("2.8.0", "A container for Pub/Sub commands", "Depends on subcommand.")
                .sub(spec("CHANNELS", -2, PUBSUB, LOADING, STALE).doc("2.8.0", "List active channels",
                                "O(N) where N is the number of active channels, and assuming constant time pattern matching (relatively short channels and patterns)"), c -> channels(c, PubSub.Kind.CHANNEL))
                .sub(spec("NUMPAT", 2, PUBSUB, LOADING, STALE).doc("2.8.0", "Get the count of unique patterns pattern subscriptions", "O(1)"),
                        c -> c.reply().integer(pubSub(c).patternCount()))
                .sub(spec("NUMSUB", -2, PUBSUB, LOADING, STALE).doc("2.8.0", "Get the count of subscribers for channels",
                                "O(N) for the NUMSUB subcommand, where N is the number of requested channels"), c -> numsub(c, PubSub.Kind.CHANNEL))
                .sub(spec("SHARDCHANNELS", -2, PUBSUB, LOADING, STALE).doc("7.0.0", "List active shard channels",
                                "O(N) where N is the number of active shard channels, and assuming constant time pattern matching (relatively short shard channels)."), c -> channels(c, PubSub.Kind.SHARD))
                .sub(spec("SHARDNUMSUB", -2, PUBSUB, LOADING, STALE).doc("7.0.0", "Get the count of subscribers for shard channels",
                                "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested shard channels"), c -> numsub(c, PubSub.Kind.SHARD))
                .sub(spec("HELP", 2, LOADING, STALE).withoutGroupCategory().doc("6.2.0", "Show helpful text about the different subcommands", "O(1)"),
                        c -> HelpReply.reply(c,
                                "CHANNELS [<pattern>]",
                                "    Return the currently active channels matching a <pattern> (default: '*').",
                                "NUMPAT",
                                "    Return number of subscriptions to patterns.",
                                "NUMSUB [<channel> ...]",
                                "    Return the number of subscribers for the specified channels, excluding",
                                "    pattern subscriptions(default: no channels).",
                                "SHARDCHANNELS [<pattern>]",
                                "    Return the currently active shard level channels matching a <pattern> (default: '*').",
                                "SHARDNUMSUB [<shardchannel> ...]",
                                "    Return the number of subscribers for the specified shard level channel(s)")), null);
    }

    /** PUBLISH channel message: in cluster mode also to the subscribers of every other node; the count is this node's. */
    private void publish(Call c) {
        ClusterMember cluster = c.server().cluster();
        if (cluster != null) cluster.state().publishFrom(cluster.myself(), c.arg(1), c.arg(2));
        c.reply().integer(pubSub(c).publish(c.arg(1), c.arg(2)));
        // For the replicas' subscribers, as Redis's forceCommandPropagation(c, PROPAGATE_REPL); a
        // cluster's bus carries it instead.
        io.cinnabar.command.ReplicaLinks replicas = c.server().component(io.cinnabar.command.ReplicaLinks.class, null);
        if (replicas != null && cluster == null) replicas.toReplicasOnly(c.args());
    }

    private static PubSub pubSub(Call c) {
        return c.server().pubSub();
    }

    /** SUBSCRIBE channel [channel ...] */
    private void subscribe(Call c) {
        for (int i = 1; i < c.argCount(); i++) pubSub(c).subscribe(c.client(), c.arg(i), PubSub.Kind.CHANNEL);
    }

    /** UNSUBSCRIBE [channel ...] */
    private void unsubscribe(Call c) {
        if (c.argCount() == 1) pubSub(c).unsubscribeAll(c.client(), PubSub.Kind.CHANNEL, true);
        for (int i = 1; i < c.argCount(); i++) pubSub(c).unsubscribe(c.client(), c.arg(i), PubSub.Kind.CHANNEL, true);
    }

    /** PSUBSCRIBE pattern [pattern ...] */
    private void psubscribe(Call c) {
        for (int i = 1; i < c.argCount(); i++) pubSub(c).psubscribe(c.client(), c.arg(i));
    }

    /** PUNSUBSCRIBE [pattern ...] */
    private void punsubscribe(Call c) {
        if (c.argCount() == 1) pubSub(c).punsubscribeAll(c.client(), true);
        for (int i = 1; i < c.argCount(); i++) pubSub(c).punsubscribe(c.client(), c.arg(i), true);
    }

    /** SSUBSCRIBE shardchannel [shardchannel ...] */
    private void ssubscribe(Call c) {
        // Redis's CLIENT_DENY_BLOCKING: a client that expects one reply per command (inside EXEC).
        if (c.inExec()) throw new CommandError("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client");
        for (int i = 1; i < c.argCount(); i++) pubSub(c).subscribe(c.client(), c.arg(i), PubSub.Kind.SHARD);
    }

    /** SUNSUBSCRIBE [shardchannel ...] */
    private void sunsubscribe(Call c) {
        if (c.argCount() == 1) pubSub(c).unsubscribeAll(c.client(), PubSub.Kind.SHARD, true);
        for (int i = 1; i < c.argCount(); i++) pubSub(c).unsubscribe(c.client(), c.arg(i), PubSub.Kind.SHARD, true);
    }

    /** PUBSUB CHANNELS [pattern] / PUBSUB SHARDCHANNELS [pattern] */
    private void channels(Call c, PubSub.Kind kind) {
        if (c.argCount() > 3) throw CommandError.subcommandSyntax(c.args());
        List<byte[]> names = pubSub(c).channelNames(c.argCount() == 3 ? c.arg(2) : null, kind);
        Reply r = c.reply();
        r.array(names.size());
        for (byte[] n : names) r.bulk(n);
    }

    /** PUBSUB NUMSUB [channel ...] / PUBSUB SHARDNUMSUB [shardchannel ...] */
    private void numsub(Call c, PubSub.Kind kind) {
        Reply r = c.reply();
        r.array((c.argCount() - 2) * 2);
        for (int i = 2; i < c.argCount(); i++) {
            r.bulk(c.arg(i));
            r.integer(pubSub(c).subscriberCount(c.arg(i), kind));
        }
    }
}
