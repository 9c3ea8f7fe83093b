package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaString;

/**
 * The fields of the tables Redis uses for replies in Lua ({ok=...}, {err=...}, {double=...}...),
 * made once: a field named by a Java String is a new LuaString, its text encoded again, at every
 * use, and these are read or written for every reply a script gets or returns.
 */
final class ReplyFields {
    static final LuaString OK = LuaString.valueOf("ok");
    static final LuaString ERR = LuaString.valueOf("err");
    static final LuaString DOUBLE = LuaString.valueOf("double");
    static final LuaString BIG_NUMBER = LuaString.valueOf("big_number");
    static final LuaString VERBATIM_STRING = LuaString.valueOf("verbatim_string");
    static final LuaString FORMAT = LuaString.valueOf("format");
    static final LuaString STRING = LuaString.valueOf("string");
    static final LuaString MAP = LuaString.valueOf("map");
    static final LuaString SET = LuaString.valueOf("set");
    static final LuaString IGNORE_ERROR_STATS_UPDATE = LuaString.valueOf("ignore_error_stats_update");

    private ReplyFields() {}
}
