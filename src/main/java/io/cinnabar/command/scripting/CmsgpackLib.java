package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaTable;

final class CmsgpackLib {
    private CmsgpackLib() {}

    static LuaTable table() {
        return new LuaTable();
    }
}
