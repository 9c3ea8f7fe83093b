package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.util.function.BooleanSupplier;

import static io.cinnabar.command.scripting.RedisApi.fn;

/**
 * math.random and math.randomseed as Redis has them: Lua 5.1's functions over rand.c, lrand48's
 * 48-bit linear congruential generator. One per server, shared by scripts and functions and kept
 * across SCRIPT FLUSH, so a script that calls math.randomseed(n) draws what it draws on Redis.
 */
final class MathRandom {
    private static final long MASK = (1L << 48) - 1;
    private static final long MULTIPLIER = 0x5DEECE66DL;
    private static final long INCREMENT = 0xB;
    /** The low 16 bits of every seeded state (rand.c's X0). */
    private static final long LOW = 0x330E;

    private long state = 0x1234ABCD0000L | LOW;

    /** Puts both functions in math; they refuse to run where running says no script runs (FUNCTION LOAD). */
    void install(LuaTable math, BooleanSupplier running) {
        math.rawset("random", fn(a -> {
            if (!running.getAsBoolean()) throw new LuaError("math.random can only be called inside a script invocation");
            return random(a);
        }));
        math.rawset("randomseed", fn(a -> {
            if (!running.getAsBoolean()) throw new LuaError("math.randomseed can only be called inside a script invocation");
            seed(ArgumentErrors.integer(a, 1, "randomseed"));
            return LuaValue.NONE;
        }));
    }

    /** redis_math_random: the number is drawn before the arguments are checked. */
    private Varargs random(Varargs a) {
        double r = (next() % Integer.MAX_VALUE) / (double) Integer.MAX_VALUE;
        switch (a.narg()) {
            case 0:
                return LuaValue.valueOf(r);
            case 1: {
                int u = ArgumentErrors.integer(a, 1, "random");
                if (u < 1) throw new LuaError("bad argument #1 to 'random' (interval is empty)");
                return LuaValue.valueOf(Math.floor(r * u) + 1);
            }
            case 2: {
                int l = ArgumentErrors.integer(a, 1, "random"), u = ArgumentErrors.integer(a, 2, "random");
                if (l > u) throw new LuaError("bad argument #2 to 'random' (interval is empty)");
                return LuaValue.valueOf(Math.floor(r * (u - l + 1)) + l);
            }
            default:
                throw new LuaError("wrong number of arguments");
        }
    }

    /** redisLrand48: the next number, 0 to 2^31 - 1. */
    int next() {
        state = (state * MULTIPLIER + INCREMENT) & MASK;
        return (int) (state >>> 17);
    }

    /** redisSrand48. */
    void seed(int seed) {
        state = ((seed & 0xFFFFFFFFL) << 16) | LOW;
    }
}
