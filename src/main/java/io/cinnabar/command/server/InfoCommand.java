package io.cinnabar.command.server;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;

import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;

/** INFO [section ...] */
public final class InfoCommand implements CommandFamily {
    @Override
    public String group() {
        return "server";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("INFO", -1, LOADING, STALE).doc("1.0.0", "Get information and statistics about the server"), this::info);
    }

    private void info(Call c) {
        c.reply().verbatim("txt", ("# Server\r\nredis_version:" + io.cinnabar.Version.REDIS_VERSION + "\r\n")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
}
