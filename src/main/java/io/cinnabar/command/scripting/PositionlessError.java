package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaValue;

/** error(message, 0): a message Lua 5.1 does not prefix with the position it was raised at. */
final class PositionlessError extends LuaError {
    final LuaValue raw;
    /** Raised by a Java function a Java function called (gsub's replacement): Redis's reply says "on =[C]:-1". */
    final boolean raisedInC;

    PositionlessError(LuaValue message) {
        this(message, false);
    }

    PositionlessError(LuaValue message, boolean raisedInC) {
        super(message.tojstring());
        this.raw = message;
        this.raisedInC = raisedInC;
    }
}
