package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaValue;

/** error(message, 0): a message Lua 5.1 does not prefix with the position it was raised at. */
final class PositionlessError extends LuaError {
    final LuaValue raw;

    PositionlessError(LuaValue message) {
        super(message.tojstring());
        this.raw = message;
    }
}
