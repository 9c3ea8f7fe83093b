#!/usr/bin/env python3
"""Random command streams sent to real Redis 7.0 and to Cinnabar, compared reply by reply.

    scripts/diff-fuzz.py                        # 20000 commands, seed from the clock
    scripts/diff-fuzz.py -n 100000 --seed 7     # reproducible
    scripts/diff-fuzz.py --families list,zset   # only some command families
    scripts/diff-fuzz.py --cinnabar-port 7000 --redis-port 7001   # servers already running

Both servers start empty (FLUSHALL first) and get the same commands over one connection each,
on a small key space so that commands meet existing keys of every type. Replies are compared
exactly, except for commands whose reply Redis itself leaves unordered or random (SMEMBERS,
SRANDMEMBER...), which are normalised or only compared by shape. Each mismatch prints the
command, both replies and the commands that led to it (the last --context commands touching the
same key). Exit status 1 when any reply differed.
"""
import argparse
import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "scripts", "lib"))
import resp  # noqa: E402


class Error(str):
    """An error reply."""


class Resp:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.settimeout(10)
        self.buf = b""

    def call(self, args):
        self.sock.sendall(resp.command(args))
        return self.read()

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def read(self):
        line = self._line()
        t, rest = line[:1], line[1:]
        if t == b"+":
            return rest.decode("latin-1")
        if t == b"-":
            return Error(rest.decode("latin-1"))
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if t == b"*":
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise ValueError("unexpected reply %r" % line)


# ---- the command grammar ----

KEYS = ["k%d" % i for i in range(6)]
FIELDS = ["f%d" % i for i in range(5)]
MEMBERS = ["a", "b", "c", "d", "1", "2", "10", "-3"]
VALUES = ["", "0", "1", "-1", "7", "10", "3.5", "-0.25", "abc", "hello world", "1e3", "inf", "-inf", "nan",
          "9223372036854775807", "-9223372036854775808", "9223372036854775808", " 1", "0x10", "00", "x" * 70]
NUMS = ["0", "1", "2", "-1", "-2", "3", "10", "-10", "100", "abc", "1.5", "9223372036854775807", "-9223372036854775808"]
SCORES = ["0", "1", "-1", "1.5", "2", "10", "-inf", "+inf", "inf", "1e2", "abc", "nan", "(1", "(2"]
LEX_KEYS = ["z0", "z1"]
LEX = ["-", "+", "[a", "(a", "[c", "(c", "[1", "a", "[", "("]


def pick(seq):
    return random.choice(seq)


def some(seq, lo=1, hi=3):
    return [pick(seq) for _ in range(random.randint(lo, hi))]


def key():
    return pick(KEYS)


def opts(*groups):
    out = []
    for g in groups:
        if random.random() < 0.3:
            out += list(pick(g)) if isinstance(pick(g), tuple) else [pick(g)]
    return out


def strings():
    r = random.random
    return pick([
        lambda: ["SET", key(), pick(VALUES)] + opts(["NX", "XX"], ["GET"], [("EX", "100"), ("PX", "100000"), ("KEEPTTL",), ("EX", "0"), ("EX", "-1"), ("EX", "abc")]),
        lambda: ["GET", key()],
        lambda: ["GETSET", key(), pick(VALUES)],
        lambda: ["GETDEL", key()],
        lambda: ["GETEX", key()] + opts([("EX", "100"), ("PERSIST",), ("PX", "0"), ("EXAT", "1")]),
        lambda: ["APPEND", key(), pick(VALUES)],
        lambda: ["STRLEN", key()],
        lambda: ["INCR", key()],
        lambda: ["DECR", key()],
        lambda: ["INCRBY", key(), pick(NUMS)],
        lambda: ["DECRBY", key(), pick(NUMS)],
        lambda: ["INCRBYFLOAT", key(), pick(VALUES)],
        lambda: ["SETRANGE", key(), pick(["0", "1", "5", "-1", "abc"]), pick(VALUES)],
        lambda: ["GETRANGE", key(), pick(NUMS), pick(NUMS)],
        lambda: ["MSET"] + sum([[key(), pick(VALUES)] for _ in range(random.randint(1, 3))], []),
        lambda: ["MSETNX"] + sum([[key(), pick(VALUES)] for _ in range(random.randint(1, 3))], []),
        lambda: ["MGET"] + some(KEYS),
        lambda: ["SETNX", key(), pick(VALUES)],
        lambda: ["SETEX", key(), pick(["1000", "0", "-5", "abc"]), pick(VALUES)],
        lambda: ["LCS", key(), key()] + opts(["LEN", "IDX"], [("MINMATCHLEN", "1")], ["WITHMATCHLEN"]),
        lambda: ["SETBIT", key(), pick(["0", "7", "100", "-1"]), pick(["0", "1", "2"])],
        lambda: ["GETBIT", key(), pick(["0", "7", "100", "-1"])],
        lambda: ["BITCOUNT", key()] + (list(some(NUMS, 2, 2)) if r() < 0.5 else []),
        lambda: ["BITPOS", key(), pick(["0", "1"])] + (some(NUMS, 1, 2) if r() < 0.5 else []),
    ])()


def keys_family():
    return pick([
        lambda: ["DEL"] + some(KEYS),
        lambda: ["UNLINK"] + some(KEYS),
        lambda: ["EXISTS"] + some(KEYS),
        lambda: ["TYPE", key()],
        lambda: ["RENAME", key(), key()],
        lambda: ["RENAMENX", key(), key()],
        lambda: ["COPY", key(), key()] + opts(["REPLACE"]),
        lambda: ["EXPIRE", key(), pick(["100", "1000", "-1", "abc", "0"])] + opts(["NX", "XX", "GT", "LT"]),
        lambda: ["PEXPIRE", key(), pick(["100000", "5000000", "abc"])] + opts(["NX", "XX", "GT", "LT"]),
        lambda: ["PERSIST", key()],
        lambda: ["TTL", key()],
        lambda: ["EXPIRETIME", key()],
        lambda: ["TOUCH"] + some(KEYS),
        lambda: ["DBSIZE"],
        lambda: ["KEYS", pick(["*", "k[0-2]", "k?", "x*"])],
        lambda: ["OBJECT", "ENCODING", key()],
        lambda: ["DUMP", key()],
    ])()


def lists():
    return pick([
        lambda: [pick(["LPUSH", "RPUSH"]), key()] + some(VALUES[:12]),
        lambda: [pick(["LPUSHX", "RPUSHX"]), key()] + some(VALUES[:12]),
        lambda: [pick(["LPOP", "RPOP"]), key()] + ([pick(NUMS)] if random.random() < 0.4 else []),
        lambda: ["LRANGE", key(), pick(NUMS), pick(NUMS)],
        lambda: ["LINDEX", key(), pick(NUMS)],
        lambda: ["LSET", key(), pick(NUMS), pick(VALUES)],
        lambda: ["LINSERT", key(), pick(["BEFORE", "AFTER", "MIDDLE"]), pick(VALUES[:12]), pick(VALUES)],
        lambda: ["LREM", key(), pick(NUMS), pick(VALUES[:12])],
        lambda: ["LTRIM", key(), pick(NUMS), pick(NUMS)],
        lambda: ["LLEN", key()],
        lambda: ["LPOS", key(), pick(VALUES[:12])] + opts([("RANK", "1"), ("RANK", "-1"), ("RANK", "0")], [("COUNT", "0"), ("COUNT", "2")], [("MAXLEN", "3")]),
        lambda: ["LMOVE", key(), key(), pick(["LEFT", "RIGHT"]), pick(["LEFT", "RIGHT"])],
        lambda: ["RPOPLPUSH", key(), key()],
        lambda: ["LMPOP", pick(["1", "2"]), key(), key(), pick(["LEFT", "RIGHT"])][:random.choice([4, 5])] + opts([("COUNT", "2")]),
        lambda: ["BLPOP", key(), "0.01"],
    ])()


def hashes():
    return pick([
        lambda: ["HSET", key()] + sum([[pick(FIELDS), pick(VALUES)] for _ in range(random.randint(1, 3))], []),
        lambda: ["HSETNX", key(), pick(FIELDS), pick(VALUES)],
        lambda: ["HGET", key(), pick(FIELDS)],
        lambda: ["HMGET", key()] + some(FIELDS),
        lambda: ["HDEL", key()] + some(FIELDS),
        lambda: ["HLEN", key()],
        lambda: ["HGETALL", key()],
        lambda: ["HKEYS", key()],
        lambda: ["HVALS", key()],
        lambda: ["HEXISTS", key(), pick(FIELDS)],
        lambda: ["HINCRBY", key(), pick(FIELDS), pick(NUMS)],
        lambda: ["HINCRBYFLOAT", key(), pick(FIELDS), pick(VALUES)],
        lambda: ["HSTRLEN", key(), pick(FIELDS)],
    ])()


def sets():
    return pick([
        lambda: ["SADD", key()] + some(MEMBERS),
        lambda: ["SREM", key()] + some(MEMBERS),
        lambda: ["SMEMBERS", key()],
        lambda: ["SISMEMBER", key(), pick(MEMBERS)],
        lambda: ["SMISMEMBER", key()] + some(MEMBERS),
        lambda: ["SCARD", key()],
        lambda: [pick(["SINTER", "SUNION", "SDIFF"])] + some(KEYS),
        lambda: [pick(["SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"]), key()] + some(KEYS),
        lambda: ["SINTERCARD", pick(["1", "2", "0", "3"])] + some(KEYS, 1, 2) + opts([("LIMIT", "1")]),
        lambda: ["SMOVE", key(), key(), pick(MEMBERS)],
    ])()


def zsets():
    return pick([
        lambda: ["ZADD", key()] + opts(["NX", "XX"], ["GT", "LT"], ["CH"], ["INCR"]) + sum([[pick(SCORES[:10]), pick(MEMBERS)] for _ in range(random.randint(1, 3))], []),
        lambda: ["ZSCORE", key(), pick(MEMBERS)],
        lambda: ["ZMSCORE", key()] + some(MEMBERS),
        lambda: ["ZINCRBY", key(), pick(SCORES[:10]), pick(MEMBERS)],
        lambda: ["ZREM", key()] + some(MEMBERS),
        lambda: ["ZCARD", key()],
        lambda: ["ZCOUNT", key(), pick(SCORES), pick(SCORES)],
        lambda: [pick(["ZRANK", "ZREVRANK"]), key(), pick(MEMBERS)],
        lambda: ["ZRANGE", key(), pick(NUMS), pick(NUMS)] + opts(["REV"], ["WITHSCORES"]),
        lambda: ["ZRANGE", key(), pick(SCORES), pick(SCORES), "BYSCORE"] + opts(["REV"], [("LIMIT", "0", "2"), ("LIMIT", "1", "-1")], ["WITHSCORES"]),
        # Lex ranges are only defined when all scores are equal: their own keys, scored 0.
        lambda: ["ZADD", pick(LEX_KEYS), "0", pick(MEMBERS)],
        lambda: ["ZRANGE", pick(LEX_KEYS), pick(LEX), pick(LEX), "BYLEX"] + opts(["REV"], [("LIMIT", "0", "2")]),
        lambda: ["ZREMRANGEBYLEX", pick(LEX_KEYS), pick(LEX), pick(LEX)],
        lambda: [pick(["ZRANGEBYSCORE", "ZREVRANGEBYSCORE"]), key(), pick(SCORES), pick(SCORES)] + opts(["WITHSCORES"], [("LIMIT", "0", "2")]),
        lambda: [pick(["ZRANGEBYLEX", "ZREVRANGEBYLEX"]), pick(LEX_KEYS), pick(LEX), pick(LEX)],
        lambda: ["ZLEXCOUNT", pick(LEX_KEYS), pick(LEX), pick(LEX)],
        lambda: [pick(["ZPOPMIN", "ZPOPMAX"]), key()] + ([pick(NUMS)] if random.random() < 0.4 else []),
        lambda: [pick(["ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"]), key(), pick(["1", "2", "0"])] + some(KEYS, 1, 2) + opts([("WEIGHTS", "2", "3")], [("AGGREGATE", "MAX"), ("AGGREGATE", "MIN")]),
        lambda: [pick(["ZUNION", "ZINTER", "ZDIFF"]), pick(["1", "2"])] + some(KEYS, 1, 2) + opts(["WITHSCORES"]),
        lambda: ["ZREMRANGEBYRANK", key(), pick(NUMS), pick(NUMS)],
        lambda: ["ZREMRANGEBYSCORE", key(), pick(SCORES), pick(SCORES)],
        lambda: ["ZRANGESTORE", key(), key(), pick(NUMS), pick(NUMS)],
        lambda: ["ZMPOP", "1", key(), pick(["MIN", "MAX"])] + opts([("COUNT", "2")]),
    ])()


SCRIPTS = [
    "return redis.call('get', KEYS[1])",
    "return redis.pcall('incr', KEYS[1])",
    "return redis.call('incr', KEYS[1])",
    "return {1, 2, 3.7, 'x', false, true, {err='nested'}}",
    "return redis.call('lrange', KEYS[1], 0, -1)",
    "return redis.call('hgetall', KEYS[1])",
    "return redis.call('set', KEYS[1], ARGV[1])",
    "return {ok='fine'}",
    "return redis.error_reply('my err')",
    "return redis.status_reply('STAT')",
    "return tostring(tonumber(ARGV[1]))",
    "return redis.call('zrange', KEYS[1], 0, -1, 'withscores')",
    "return cjson.encode({a=1})",
    "local t = redis.call('type', KEYS[1]) return t",
    "return redis.call('exists', KEYS[1]) + 1",
    "return nil",
    "return 3.99",
    "return redis.call('nosuchcommand')",
    "return redis.sha1hex(ARGV[1])",
    "return #ARGV",
    "return string.format('%d', 7)",
    "return tonumber(ARGV[1]) .. ''",
]


def scripting():
    return pick([
        lambda: ["EVAL", pick(SCRIPTS), "1", key(), pick(VALUES)],
        lambda: ["EVAL_RO", pick(SCRIPTS), "1", key(), pick(VALUES)],
    ])()


def transactions():
    return pick([
        lambda: ["MULTI"],
        lambda: ["EXEC"],
        lambda: ["DISCARD"],
        lambda: ["WATCH", key()],
        lambda: ["UNWATCH"],
    ])()


def misc():
    return pick([
        lambda: ["SELECT", pick(["0", "1", "16", "-1", "abc"])],
        lambda: ["MOVE", key(), pick(["0", "1", "16"])],
        lambda: ["SWAPDB", pick(["0", "1"]), pick(["0", "1", "99"])],
        lambda: ["SORT", key()] + opts(["DESC"], ["ALPHA"], [("LIMIT", "0", "2")], [("BY", "nosort")], [("STORE", key())]),
        lambda: ["SORT_RO", key()] + opts(["DESC"], ["ALPHA"]),
        lambda: ["PUBLISH", key(), pick(VALUES)],
        lambda: ["PUBSUB", pick(["NUMSUB", "CHANNELS", "NUMPAT", "SHARDCHANNELS", "NOPE"])] + some(KEYS, 0, 2),
        lambda: ["ECHO", pick(VALUES)],
        lambda: ["PING"] + some(VALUES, 0, 1),
        lambda: ["EXISTS"],
        lambda: ["OBJECT", pick(["FREQ", "IDLETIME", "REFCOUNT", "HELP", "NOPE"]), key()],
        lambda: ["TYPE", key(), key()],
        lambda: ["COMMAND", "GETKEYS"] + pick([["SET", "a", "b"], ["MSET", "a", "b", "c"], ["GET"], ["EVAL", "return 1", "1", "x"], ["ZUNIONSTORE", "d", "2", "a", "b"], ["NOPE", "x"]]),
        lambda: ["COMMAND", "INFO"] + some(["get", "set", "eval", "zadd", "client|kill", "nope"], 1, 2),
        lambda: ["COMMAND", "COUNT"],
        lambda: ["ROLE"],
        # Never a positive count with timeout 0: that WAIT blocks for ever on a server without replicas.
        lambda: ["WAIT", pick(["0", "-1", "1", "x"]), pick(["1", "3", "-1", "x", "1.5"])],
        lambda: ["REPLICAOF", pick(["NO", "no", "h"]), pick(["ONE", "one", "x", "70000", "-1"])],
        lambda: ["FAILOVER"] + opts(["ABORT"], [("TO", "h", pick(["1", "x"]))], ["FORCE"], [("TIMEOUT", pick(["0", "5", "x"]))]),
        lambda: ["REPLCONF"] + pick([["listening-port", pick(["1", "x"])], ["capa", "eof"], ["rdb-only", pick(["0", "2"])], ["nope", "1"], ["capa"]]),
        lambda: ["LOLWUT"] + pick([[], ["VERSION"], ["VERSION", pick(["7", "x", "-1"])], ["1", "2"]]),
        lambda: ["MIGRATE", "127.0.0.1", "1", pick(["nokey", ""]), pick(["0", "x"]), pick(["10", "x"])]
        + opts(["COPY"], ["REPLACE"], [("AUTH", "pw")], [("KEYS", "nokey1", "nokey2")]),
        lambda: ["COMMAND", "GETKEYS", "MIGRATE", "h", "1", pick([key(), ""]), "0", "10"] + opts(["COPY"], [("AUTH2", "u", "p")], [("KEYS", key(), key())]),
        lambda: ["RESTORE-ASKING", key(), pick(["0", "-1"]), pick(VALUES)] + opts(["REPLACE"]),
    ])()


FAMILIES = {
    "string": strings, "keys": keys_family, "list": lists, "hash": hashes, "set": sets,
    "zset": zsets, "scripting": scripting, "tx": transactions, "misc": misc,
}

# Replies Redis leaves unordered: compared as sorted lists.
UNORDERED = {"SMEMBERS", "SINTER", "SUNION", "SDIFF", "KEYS", "HKEYS", "HVALS"}
# Replies that hold a time or an internal detail: only the reply kind is compared.
SHAPE_ONLY = {"TTL", "EXPIRETIME", "DUMP"}


def normalise(cmd, reply):
    name = cmd[0].upper()
    if name in UNORDERED and isinstance(reply, list):
        return sorted(reply, key=lambda x: (x is None, str(x)))
    if name == "HGETALL" and isinstance(reply, list):
        return sorted(zip(reply[0::2], reply[1::2]))
    if name == "COMMAND" and (len(cmd) == 1 or (len(cmd) == 2 and cmd[1].upper() == "INFO")) and isinstance(reply, list):
        # Every command, in the order of Redis's hash table: compared by name, subcommands too.
        return sorted((repr(entry[:9]), sorted(map(repr, entry[9]))) if isinstance(entry, list) and len(entry) > 9
                      else (repr(entry), []) for entry in reply)
    if name in SHAPE_ONLY or (name == "OBJECT" and len(cmd) > 1 and cmd[1].upper() in ("IDLETIME", "FREQ")):
        return type(reply).__name__ if not isinstance(reply, int) or reply >= 0 else reply
    return reply


def start(kind, port, tmp):
    if kind == "redis":
        return subprocess.Popen(["redis-server", "--port", str(port), "--save", "", "--appendonly", "no",
                                 "--dir", tmp], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    jar = os.path.join(REPO, "target", "cinnabar.jar")
    return subprocess.Popen(["java", "-jar", jar, "--port", str(port), "--save", "", "--appendonly", "no",
                             "--dir", tmp], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def connect(port):
    deadline = time.time() + 30
    while True:
        try:
            return Resp(port)
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.1)


@contextlib.contextmanager
def servers(redis_port, cinnabar_port):
    """(redis port, cinnabar port): those given, or servers started here for the duration."""
    procs, tmp = [], tempfile.mkdtemp(prefix="diff-fuzz.")
    try:
        if redis_port is None:
            redis_port = free_port()
            procs.append(start("redis", redis_port, tmp))
        if cinnabar_port is None:
            cinnabar_port = free_port()
            procs.append(start("cinnabar", cinnabar_port, tmp))
        yield redis_port, cinnabar_port
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait()


def touches(cmd, k):
    return any((a if isinstance(a, str) else "") == k for a in cmd[1:])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--redis-port", type=int)
    ap.add_argument("--cinnabar-port", type=int)
    ap.add_argument("--context", type=int, default=8)
    ap.add_argument("--max-report", type=int, default=30)
    ap.add_argument("--history", help="write the commands leading to the first mismatch here (JSON lines)")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else int(time.time())
    random.seed(seed)
    families = [FAMILIES[f] for f in a.families.split(",")]
    with servers(a.redis_port, a.cinnabar_port) as (rport, cport):
        r, c = connect(rport), connect(cport)
        for conn in (r, c):
            conn.call(["FLUSHALL"])
            conn.call(["SCRIPT", "FLUSH"])
        history, mismatches = [], 0
        queued = None  # the commands queued in the open MULTI, to normalise EXEC's replies
        for i in range(a.n):
            cmd = pick(families)()
            # Now and then a wrong number of arguments or a stray one: the arity and syntax errors.
            if random.random() < 0.04 and len(cmd) > 1:
                cmd = cmd[:random.randint(1, len(cmd) - 1)]
            elif random.random() < 0.04:
                cmd = cmd + [pick(VALUES + ["NX", "XX", "COUNT", "LIMIT"])]
            rr, cr = r.call(cmd), c.call(cmd)
            history.append(cmd)
            name = cmd[0].upper()
            if name == "EXEC" and isinstance(rr, list) and isinstance(cr, list) and queued is not None \
                    and len(queued) == len(rr) == len(cr):
                rn = [normalise(q, x) for q, x in zip(queued, rr)]
                cn = [normalise(q, x) for q, x in zip(queued, cr)]
            else:
                rn, cn = normalise(cmd, rr), normalise(cmd, cr)
            if name == "MULTI" and rr == "OK":
                queued = []
            elif name in ("EXEC", "DISCARD") and not isinstance(rr, Error):
                queued = None
            elif queued is not None and rr == "QUEUED":
                queued.append(cmd)
            if rn != cn:
                mismatches += 1
                if mismatches <= a.max_report:
                    ks = [x for x in cmd[1:] if isinstance(x, str) and x in KEYS]
                    ctx = [h for h in history[:-1] if any(touches(h, k) for k in ks) or h[0] in ("MULTI", "EXEC")][-a.context:]
                    print("#%d %s\n  redis:    %r\n  cinnabar: %r" % (i, " ".join(map(repr, cmd)), rr, cr))
                    for h in ctx:
                        print("    after: " + " ".join(map(repr, h)))
                    if a.history and mismatches == 1:
                        with open(a.history, "w") as f:
                            for h in history:
                                f.write(json.dumps(h) + "\n")
                # Resynchronise: both sides start again from the same (empty) state.
                for conn in (r, c):
                    conn.call(["DISCARD"])
                    conn.call(["FLUSHALL"])
                history, queued = [], None
        print("seed %d: %d commands, %d mismatches" % (seed, a.n, mismatches))
        return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
