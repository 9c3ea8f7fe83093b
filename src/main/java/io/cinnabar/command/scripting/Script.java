package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaValue;

/** A compiled script in the cache: its SHA1 (lower-case hex), its source, its flags and where it runs next. */
record Script(String sha, byte[] body, ScriptFlags flags, LuaValue function, RunPlace place) { }
