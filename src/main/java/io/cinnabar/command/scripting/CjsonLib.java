package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaTable;

final class CjsonLib {
    private CjsonLib() {}

    static LuaTable table() {
        return new LuaTable();
    }
}
