package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaTable;

final class StructLib {
    private StructLib() {}

    static LuaTable table() {
        return new LuaTable();
    }
}
