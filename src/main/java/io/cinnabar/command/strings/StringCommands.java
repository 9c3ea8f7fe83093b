package io.cinnabar.command.strings;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.keyspace.Database;

import static io.cinnabar.command.CommandFlag.DENYOOM;
import static io.cinnabar.command.CommandFlag.FAST;
import static io.cinnabar.command.CommandFlag.READONLY;
import static io.cinnabar.command.CommandFlag.WRITE;
import static io.cinnabar.command.CommandSpec.spec;

/** String commands. */
public final class StringCommands implements CommandFamily {
    @Override
    public String group() {
        return "string";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("GET", 2, READONLY, FAST).keys(1, 1, 1).doc("1.0.0", "Get the value of a key"), this::get);
        t.add(spec("SET", -3, WRITE, DENYOOM).keys(1, 1, 1).doc("1.0.0", "Set the string value of a key"), this::set);
    }

    /** GET key */
    private void get(Call c) {
        byte[] value = c.db().getString(c.arg(1));
        if (value == null) c.reply().nullBulk(); else c.reply().bulk(value);
    }

    /** SET key value [NX | XX] [GET] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL] */
    private void set(Call c) {
        if (c.argCount() != 3) throw CommandError.syntax();
        Database db = c.db();
        db.set(c.arg(1), c.arg(2));
        c.reply().ok();
    }
}
