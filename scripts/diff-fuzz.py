#!/usr/bin/env python3
"""Random command streams sent to real Redis 7.0 and to Cinnabar, compared reply by reply.

    scripts/diff-fuzz.py                        # 20000 commands, seed from the clock
    scripts/diff-fuzz.py -n 100000 --seed 7     # reproducible
    scripts/diff-fuzz.py --families list,zset   # only some command families
    scripts/diff-fuzz.py --skip COMMAND,SORT    # never send these commands
    scripts/diff-fuzz.py --cinnabar-port 7000 --redis-port 7001   # servers already running
    scripts/diff-fuzz.py --resp3                # both connections on RESP3 (HELLO 3): reply types compared too
    scripts/diff-fuzz.py --notify               # keyspace events compared too (a subscriber per server)
    scripts/diff-fuzz.py --stats 500            # INFO commandstats/errorstats compared every 500 commands

Families: string keys list hash set zset scripting tx misc, stream bitmap hll geo, and
string2 coll2 keys2 encoding (more options of the older families: SET/GETEX expiry options,
float formatting, LPOS/LMPOP/ZMPOP, ZRANGESTORE, *INTERCARD, random picks, SORT BY/GET, COPY
and MOVE across databases, OBJECT ENCODING across the listpack/intset limits). encoding makes
collections of 500+ members: run it on its own, apart from coll2's SPOP. typed, only when named
(--families typed), gives each type keys of its own (see TYPED) and mostly arguments Redis accepts:
what the families above rarely reach, commands meeting their own type with data (ZSCORE of a member
that is there, GEOSEARCH of a populated key, XREADGROUP/XCLAIM/XAUTOCLAIM of a real group), option
combinations that parse, edge values that parse (counts of 0, negative and past the size, ranges past
both ends, scores whose printing is delicate, integers at the 64-bit limits, binary members), keys
with TTLs, stores' destinations and their encodings (DUMP), a tenth run from Lua, a twentieth in
MULTI. Then:
blocking (BLPOP/BRPOP/BLMOVE/BRPOPLPUSH/BLMPOP/BZPOPMIN/BZPOPMAX/BZMPOP with data present, on empty
keys with timeouts of 50 ms at most, bad timeouts, inside MULTI), scripts2 (EVALSHA/EVALSHA_RO,
SCRIPT LOAD/EXISTS/FLUSH, shebang flags, writes from read-only scripts), function (FUNCTION
LOAD/LIST/DELETE/FLUSH/DUMP/RESTORE/STATS, FCALL/FCALL_RO, good and broken libraries), scan
(HSCAN/SSCAN/ZSCAN/SCAN with MATCH/COUNT/TYPE), config (CONFIG GET patterns, CONFIG SET of
ordinary parameters, good and bad values) and server (OBJECT, FLUSHDB, RANDOMKEY, CLIENT
GETNAME/SETNAME/NO-EVICT/UNBLOCK/KILL errors, HMSET, PSETEX, SUBSTR, PEXPIRETIME, TOUCH, DEBUG and
LATENCY refusals), acl (ACL SETUSER rules and selectors, GETUSER/LIST/DRYRUN/CAT/LOG/GENPASS, failed
AUTHs; never logged in as another user, whom ACL DELUSER would disconnect), and, only when named
(in RESP2's subscribed mode every other family's command fails), subscribe ((P|S)SUBSCRIBE and
their UNSUBSCRIBEs, one reply per channel, what subscribed mode allows and refuses).

multi runs alone (--families multi; -n counts scenarios) and drives several connections per server
(four, plus one for barriers), the same script on both: each scenario runs whole on Redis, then on
Cinnabar, and what every connection received is compared step by step (see run_multi, Side):
blocking (clients blocked on lists, sorted sets, streams and consumer groups, in FIFO order, served
by pushes of many elements, MULTI/EXEC, Lua, LMOVE/RENAME/COPY/SORT STORE, MOVE/SWAPDB from another
database, or not: type changes, DEL, RENAME away, FLUSHDB/FLUSHALL, XGROUP DESTROY; CLIENT UNBLOCK
TIMEOUT/ERROR; timeouts of 20-50 ms and their nil), watch (WATCH, then writes, reads, expiry,
FLUSHALL, SWAPDB, a key of another db from other connections, then EXEC), tracking (CLIENT TRACKING:
RESP3 pushes or REDIRECT to a RESP2 subscriber of __redis__:invalidate, BCAST/PREFIX, OPTIN/OPTOUT
with CLIENT CACHING, NOLOOP, writes from every connection and scripts, FLUSHDB/FLUSHALL's null,
expiry, the redirect target killed), pubsub (overlapping channels and patterns, PUBLISH counts,
SPUBLISH, UNSUBSCRIBE in between, RESP3 replies and pushes interleaved, a push while a command
blocks) and clients (CLIENT LIST/INFO of connections with names, dbs, RESP3, subscriptions, MULTI,
WATCH, another user, NO-EVICT, tracking; CLIENT KILL by ID, USER, ADDR, TYPE, SKIPME; CLIENT PAUSE
WRITE/ALL and what the others see). Barriers make the order deterministic: a blocking command counts
as taken when CLIENT LIST shows its client blocked (flag b) or its reply came, and a PING after each
command collects the pushes sent before it. Normalised, as Redis leaves it nondeterministic: client
ids (as the connection they name), CLIENT LIST's order (clientsCron rotates the list), pmessages of
one publication (the pattern dict's hash order), UNSUBSCRIBE of all (as above). Never sent: CLIENT
UNBLOCK of a client CLIENT PAUSE holds (Redis 7.0.15 panics), WAIT.

spec is the one family not written by hand: it loads Redis 7.0.15's own command descriptions
(src/commands/*.json: --spec-dir, else $REDIS_COMMANDS_DIR, else ~/.cache/cinnabar-compat/
redis-7.0.15/src/commands; asked for without them it says so and exits 2; in the default families
only when they are there) and walks each command's and subcommand's argument grammar: keys from
eight names shared by all types (k0-k7, a home key per type), values from pools chosen by the
argument's name and type (integers and doubles with 0, -1, 2^63-1, -2^63, 1e308, inf, nan, "abc",
"", " 1", "1.5"...), optional arguments 40% of the time, multiple ones 1-3 times (as many as the
keys they pair with: XREAD's ids, WEIGHTS), one branch of a oneof (now and then two), numkeys
counting its keys (mostly), tokens now and then in lower or mixed case. 12% of commands get their
shape broken: an argument dropped, junk or one of the command's own tokens inserted, a token
repeated, arguments added. A fifth of the commands build data (a value of each type, sometimes
after a DEL, now and then past the listpack limits). Never generated, see SPEC_EXCLUDED: SHUTDOWN,
DEBUG, MONITOR, SUBSCRIBE/PSUBSCRIBE/SSUBSCRIBE (subscribed mode), CLIENT KILL/PAUSE/REPLY/TRACKING
(close the connection, stop the servers, suppress replies, out-of-band pushes), REPLICAOF, SLAVEOF,
FAILOVER, SYNC, PSYNC, CLUSTER, MIGRATE, WAIT, SAVE, BGSAVE, BGREWRITEAOF, SCRIPT KILL/DEBUG,
FUNCTION KILL, QUIT, RESET and HELLO (leave RESP3 or MULTI behind this script's back), MODULE
LOAD/LOADEX, PFSELFTEST. Restricted: FLUSHALL/FLUSHDB and other resets rare; blocking timeouts
from the blocking family's list (never 0) and XREAD/XREADGROUP BLOCK of a few ms; SPOP always
with a count (see below); CONFIG SET only of the config family's parameters with their values,
never dir or min-replicas-to-write; ACL SETUSER/DELUSER only of u1/u2 and AUTH only as nobody
or default (see acl); RESTORE gets Redis's own DUMP payloads. OBJECT FREQ is kept: its error
without an LFU policy is deterministic, its counter is compared by kind.

spec-multi and spec-script run the same spec-generated commands in other contexts (both need the
command descriptions as spec does). spec-multi: MULTI, 1-6 commands, EXEC (now and then DISCARD);
a third of the time after a WATCH of one or two keys, then 0-2 commands before MULTI that write a
watched key or not (the same client's write makes EXEC fail all the same). Each command must be
QUEUED or refused as Redis refuses it at queue time (wrong arity, unknown command: EXECABORT),
so the queue also gets now and then an unknown command, a container without its subcommand, and
a command of SPEC_EXCLUDED flagged NO_MULTI (SAVE, SHUTDOWN, SYNC, PSYNC) or MONITOR (refused
inside, never sent outside: see InMulti); MULTI and WATCH inside MULTI come from the grammar
itself. A tenth of the queued commands run from Lua as below. EXEC's replies are normalised
command by command. spec-script: a command run from Lua (ctx_script), its words as ARGV and the
words that are key names as KEYS (numkeys counting them; a fifth of the time none declared):
EVAL/EVAL_RO of a wrapper (redis.pcall, redis.call whose error is raised, redis.setresp(3) first,
the error table's text returned as a value, numbers passed as Lua numbers, a boolean argument),
with no shebang, "#!lua" or "#!lua flags=no-writes/allow-oom/no-cluster"; now and then EVALSHA
after SCRIPT LOAD, or FCALL/FCALL_RO of ctxlib's functions (the same bodies, one with no-writes)
after FUNCTION LOAD REPLACE; a twentieth of the time a NOSCRIPT command of SPEC_EXCLUDED ("This
Redis command is not allowed from script"). Replies are normalised by the command run (ctx_inner),
and maps and sets that went through Lua's tables are compared in a fixed order (see lua_tables).

--notify turns notify-keyspace-events on (NOTIFY_FLAGS) on both servers, each with a subscriber of
its own on every keyevent channel: after each command, the events it fired (name, db, key, in order)
are compared too. Not "expired" events (see Subscriber), never a client-output-buffer-limit that
would close the subscribers, nor a CONFIG SET of notify-keyspace-events (see NOTIFY_FLAGS).

--stats N compares INFO commandstats and errorstats every N commands and at the end (command_stats):
each command's calls, rejected_calls and failed_calls, and each error code's count, since both
sides last started again (start_again resets them). Not the SCANs' (scan_all follows each side's
batches) nor the commands this script sends to Redis alone (STATS_UNCOUNTED).

Both servers start empty (FLUSHALL first) and get the same commands over one connection each,
on a small key space so that commands meet existing keys of every type. Replies are compared
exactly, except for commands whose reply Redis itself leaves unordered or random (SMEMBERS,
SRANDMEMBER...), which are normalised or only compared by shape, and for what differs between
any two servers: ids XADD * takes from the clock, idle and delivery times, the last bits of
libm's doubles, hash table orders Redis seeds at random in each process (SCAN batches,
FUNCTION LIST, CONFIG GET), see normalise() and the comments beside each rule. Each mismatch
prints the command, both replies and the commands that led to it (the last --context commands
touching the same key); both sides then start again from the same state (data, scripts,
functions, the config family's parameters). Exit status 1 when any reply differed.
"""
import argparse
import contextlib
import hashlib
import json
import math
import os
import random
import re
import select
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


# RESP3 types (--resp3), each a subclass of what RESP2 sends in its place, so that the rules of
# normalise() apply unchanged; shape() tells them apart.
class Map(list):
    """A map, as the flat key, value list RESP2 sends."""


class RSet(list):
    """A set."""


class Double(bytes):
    """A double, as the bulk string RESP2 sends."""


class Bool(int):
    """A boolean."""


class BigNumber(int):
    """A big number."""


class Verbatim(bytes):
    """A verbatim string, without its format prefix."""


class Push(list):
    """A RESP3 push (the replies of SUBSCRIBE and friends)."""


class Null:
    """RESP3's null: RESP2 sends a null bulk string or a null array in its place."""
    def __eq__(self, other):
        return other is None or isinstance(other, Null)

    def __hash__(self):
        return 0

    def __repr__(self):
        return "Null"


class NullArray:
    """RESP2's null array (*-1), told apart from the null bulk string ($-1): clients see the difference
    (BLPOP's timeout is a null array, LMOVE's empty source a null bulk string)."""
    def __eq__(self, other):
        return isinstance(other, NullArray)

    def __hash__(self):
        return 1

    def __repr__(self):
        return "NullArray"


NULL_ARRAY = NullArray()


def shape(reply):
    """The RESP types of a reply, order-insensitive within aggregates (their order is compared after normalise)."""
    if isinstance(reply, list):
        return (type(reply).__name__, sorted(map(repr, map(shape, reply))))
    if reply is None or isinstance(reply, Null):
        return "null"
    if isinstance(reply, NullArray):
        return "nullarray"
    return type(reply).__name__


class Resp:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.settimeout(10)
        self.buf = b""

    def call(self, args):
        self.sock.sendall(resp.command(args))
        return self.read()

    def call_all(self, args, wait=0.05):
        """(P|S)SUBSCRIBE and their UNSUBSCRIBEs answer once per channel named, or without any,
        once per channel the client had (or once for none): those replies, the last ones being
        all that come within wait seconds."""
        self.sock.sendall(resp.command(args))
        replies = [self.read()]
        if not isinstance(replies[0], list):  # an error, or QUEUED: one reply
            return replies
        if len(args) > 1:
            return replies + [self.read() for _ in range(len(args) - 2)]
        while True:
            if not self.buf:
                self.sock.settimeout(wait)
                try:
                    chunk = self.sock.recv(65536)
                except socket.timeout:
                    chunk = None
                finally:
                    self.sock.settimeout(10)
                if chunk is None:
                    return replies
                if not chunk:
                    raise ConnectionError("closed")
                self.buf += chunk
            replies.append(self.read())

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
            return NULL_ARRAY if n < 0 else [self.read() for _ in range(n)]
        if t == b"%":
            return Map(self.read() for _ in range(2 * int(rest)))
        if t == b"~":
            return RSet(self.read() for _ in range(int(rest)))
        if t == b",":
            return Double(rest)
        if t == b"_":
            return Null()
        if t == b"#":
            return Bool(rest == b"t")
        if t == b"(":
            return BigNumber(int(rest))
        if t == b"=":
            return Verbatim(self._exact(int(rest))[4:])
        if t == b">":
            return Push(self.read() for _ in range(int(rest)))
        if t == b"|":
            for _ in range(2 * int(rest)):
                self.read()
            return self.read()
        raise ValueError("unexpected reply %r" % line)


# ---- the command grammar ----

KEYS = ["k%d" % i for i in range(6)]
FIELDS = ["f%d" % i for i in range(5)]
MEMBERS = ["a", "b", "c", "d", "1", "2", "10", "-3"]
VALUES = ["", "0", "1", "-1", "7", "10", "3.5", "-0.25", "abc", "hello world", "1e3", "inf", "-inf", "nan",
          "9223372036854775807", "-9223372036854775808", "9223372036854775808", " 1", "0x10", "00", "x" * 70,
          # Bytes that are not UTF-8, and some that are: errors that quote an argument quote its bytes.
          b"\xff\xfe\x00z", "caf\u00e9"]
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
# EVALSHA of these replies with a hash in the order of its table (see normalise()).
HGETALL_SCRIPT_SHAS = {hashlib.sha1(s.encode()).hexdigest() for s in SCRIPTS if "hgetall" in s}


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


# ---- streams ----

GROUPS = ["g1", "g2"]
CONSUMERS = ["c1", "c2"]
# Explicit, partial and automatic ids, plus ids XADD refuses (0-0, malformed, the very largest).
XADD_IDS = ["*", "*", "*", "1-1", "2", "3-0", "5-5", "7-*", "9-*", "0-1", "0-0", "0-*", "abc", "-1", "1-",
            "18446744073709551615-18446744073709551615", "18446744073709551615-*", "18446744073709551616-0"]
RANGE_IDS = ["-", "+", "0", "1", "2-0", "3", "5-5", "(1-1", "(3", "(5-5", "(-", "(+", "abc", "0-0", "1-abc",
             "18446744073709551615-18446744073709551615"]
GROUP_IDS = ["$", "0", "0-0", "2", "5-5", "abc", "-"]
READ_IDS = [">", ">", "0", "0-0", "3", "$", "abc"]
SFIELDS = ["f", "g", "", "x" * 70, "1"]


def xfields():
    return sum([[pick(SFIELDS), pick(VALUES)] for _ in range(random.randint(1, 3))], [])


def xtrim_opts():
    kind = pick(["MAXLEN", "MINID"])
    out = [kind] + opts(["~", "="])
    out.append(pick(["0", "1", "2", "3", "-1", "abc"]) if kind == "MAXLEN" else pick(["0", "2", "3-0", "5-5", "abc", "-1"]))
    if random.random() < 0.3:
        out += ["LIMIT", pick(["0", "1", "10", "-1", "abc"])]
    return out


def streams():
    return pick([
        lambda: ["XADD", key()] + opts(["NOMKSTREAM"]) + (xtrim_opts() if random.random() < 0.3 else []) + [pick(XADD_IDS)] + xfields(),
        lambda: ["XADD", key(), pick(XADD_IDS)] + xfields(),
        lambda: ["XADD", key(), "*", pick(SFIELDS)],
        lambda: [pick(["XRANGE", "XREVRANGE"]), key(), pick(RANGE_IDS), pick(RANGE_IDS)] + opts([("COUNT", "2"), ("COUNT", "0"), ("COUNT", "-1"), ("COUNT", "abc")]),
        lambda: ["XLEN", key()],
        lambda: ["XDEL", key()] + some(["1-1", "2-0", "3-0", "5-5", "abc", "7-0", "9-0"]),
        lambda: ["XTRIM", key()] + xtrim_opts(),
        lambda: ["XGROUP", "CREATE", key(), pick(GROUPS), pick(GROUP_IDS)] + opts(["MKSTREAM"], [("ENTRIESREAD", "1"), ("ENTRIESREAD", "-1"), ("ENTRIESREAD", "-5"), ("ENTRIESREAD", "abc")]),
        lambda: ["XGROUP", "SETID", key(), pick(GROUPS), pick(GROUP_IDS)] + opts([("ENTRIESREAD", "2"), ("ENTRIESREAD", "-2")]),
        lambda: ["XGROUP", "CREATECONSUMER", key(), pick(GROUPS), pick(CONSUMERS)],
        lambda: ["XGROUP", "DELCONSUMER", key(), pick(GROUPS), pick(CONSUMERS)],
        lambda: ["XGROUP", "DESTROY", key(), pick(GROUPS)],
        lambda: ["XGROUP", pick(["HELP", "NOPE"])],
        lambda: ["XREADGROUP", "GROUP", pick(GROUPS), pick(CONSUMERS)] + opts([("COUNT", "1"), ("COUNT", "2"), ("COUNT", "0"), ("COUNT", "-1")], ["NOACK"]) + ["STREAMS", key(), pick(READ_IDS)],
        lambda: ["XREADGROUP", "GROUP", pick(GROUPS), pick(CONSUMERS), "STREAMS", key(), key(), pick(READ_IDS), pick(READ_IDS)],
        lambda: ["XREAD"] + opts([("COUNT", "1"), ("COUNT", "0")]) + ["STREAMS"] + (lambda ks: ks + [pick(READ_IDS[2:]) for _ in ks])(some(KEYS, 1, 2)),
        lambda: ["XACK", key(), pick(GROUPS)] + some(["1-1", "2-0", "3-0", "5-5", "abc", "0-0"]),
        lambda: ["XPENDING", key(), pick(GROUPS)],
        lambda: ["XPENDING", key(), pick(GROUPS)] + opts([("IDLE", "0"), ("IDLE", "3600000"), ("IDLE", "-1")]) + [pick(RANGE_IDS), pick(RANGE_IDS), pick(["0", "1", "10", "-1", "abc"])] + opts([pick(CONSUMERS)]),
        # Only a min-idle of 0 or of an hour: anything between depends on when the command arrives.
        lambda: ["XCLAIM", key(), pick(GROUPS), pick(CONSUMERS), pick(["0", "3600000", "-1", "abc"])] + some(["1-1", "2-0", "3-0", "5-5", "abc"])
                + opts([("IDLE", "0"), ("TIME", "1000")], [("RETRYCOUNT", "5"), ("RETRYCOUNT", "-1")], ["FORCE"], ["JUSTID"], [("LASTID", "9-0"), ("LASTID", "abc")]),
        lambda: ["XAUTOCLAIM", key(), pick(GROUPS), pick(CONSUMERS), pick(["0", "3600000", "-1"]), pick(["0", "0-0", "3", "-", "+", "abc"])]
                + opts([("COUNT", "1"), ("COUNT", "0"), ("COUNT", "1000000"), ("COUNT", "-1")], ["JUSTID"]),
        lambda: ["XINFO", "STREAM", key()] + opts([("FULL",), ("FULL", "COUNT", "1"), ("FULL", "COUNT", "0"), ("FULL", "COUNT", "abc"), ("NOPE",)]),
        lambda: ["XINFO", "GROUPS", key()],
        lambda: ["XINFO", "CONSUMERS", key(), pick(GROUPS)],
        lambda: ["XINFO", pick(["HELP", "NOPE"])],
        lambda: ["XSETID", key(), pick(["5-5", "9-0", "0-0", "abc", "18446744073709551615-18446744073709551615"])] + opts([("ENTRIESADDED", "10"), ("ENTRIESADDED", "-1"), ("ENTRIESADDED", "0")], [("MAXDELETEDID", "1-0"), ("MAXDELETEDID", "9-9"), ("MAXDELETEDID", "abc")]),
        lambda: ["TYPE", key()],
        lambda: ["OBJECT", "ENCODING", key()],
        # Streams long enough for several listpack nodes, so that approximate trimming has whole nodes to drop.
        lambda: ["EVAL", "for i = 1, tonumber(ARGV[1]) do redis.call('xadd', KEYS[1], '*', 'n', i) end return redis.call('xlen', KEYS[1])",
                 "1", key(), pick(["99", "150", "250"])],
        lambda: ["XTRIM", key(), pick(["MAXLEN", "MINID"]), "~", pick(["0", "10", "100", "120", "200"])] + opts([("LIMIT", pick(["0", "1", "100", "150"]))]),
        lambda: ["XADD", key(), "MAXLEN", "~", pick(["10", "100", "120"])] + opts([("LIMIT", pick(["0", "100", "200"]))]) + ["*", "f", "v"],
        lambda: ["XRANGE", key(), "-", "+", "COUNT", pick(["1", "3"])],
        lambda: ["XREVRANGE", key(), "+", "-", "COUNT", pick(["1", "3"])],
    ])()


# ---- bitmaps ----

BIT_OFFSETS = ["0", "1", "7", "8", "15", "100", "1000", "-1", "abc", "4294967296", "1.5"]
BIT_RANGE = ["0", "1", "2", "-1", "-2", "5", "100", "-100", "abc", "9223372036854775807", "-9223372036854775808"]
BF_TYPES = ["u1", "u8", "i8", "u16", "i5", "u63", "i64", "i1", "u64", "i65", "x8", "u0", "i"]
BF_OFFSETS = ["0", "3", "8", "#1", "#2", "100", "-1", "#-1", "abc", "#"]


def bitfield_ops(ro=False):
    ops = []
    for _ in range(random.randint(1, 4)):
        kind = pick(["GET"] if ro else ["GET", "SET", "INCRBY", "OVERFLOW", "GET", "NOPE"])
        if kind == "OVERFLOW":
            ops += ["OVERFLOW", pick(["WRAP", "SAT", "FAIL", "NOPE"])]
        elif kind == "GET":
            ops += ["GET", pick(BF_TYPES), pick(BF_OFFSETS)]
        elif kind == "NOPE":
            ops += ["NOPE"]
        else:
            ops += [kind, pick(BF_TYPES), pick(BF_OFFSETS), pick(NUMS + ["127", "128", "-129", "255", "256"])]
    return ops


def bitmaps():
    r = random.random
    return pick([
        lambda: ["SETBIT", key(), pick(BIT_OFFSETS), pick(["0", "1", "1", "2", "-1", "abc"])],
        lambda: ["GETBIT", key(), pick(BIT_OFFSETS)],
        lambda: ["BITCOUNT", key()] + ([pick(BIT_RANGE), pick(BIT_RANGE)] + opts(["BYTE", "BIT", "NOPE"]) if r() < 0.7 else []),
        lambda: ["BITCOUNT", key(), pick(BIT_RANGE)],
        lambda: ["BITPOS", key(), pick(["0", "1", "2"])] + some(BIT_RANGE, 0, 2) + (opts(["BYTE", "BIT", "NOPE"]) if r() < 0.5 else []),
        lambda: ["BITPOS", key(), pick(["0", "1"]), pick(BIT_RANGE), pick(BIT_RANGE), pick(["BYTE", "BIT"])],
        lambda: ["BITOP", pick(["AND", "OR", "XOR", "NOT", "NOPE"]), key()] + some(KEYS, 1, 3),
        lambda: ["BITFIELD", key()] + bitfield_ops(),
        lambda: ["BITFIELD_RO", key()] + bitfield_ops(ro=r() < 0.8),
        lambda: ["SET", key(), pick(["", "\xff", "abc", "\x00\x01", "foobar", "1"])],
        lambda: ["APPEND", key(), pick(["\xff\xf0", "\x00", "a"])],
        lambda: ["GET", key()],
        lambda: ["STRLEN", key()],
    ])()


# ---- hyperloglog ----

def hll_elements(lo=0, hi=5):
    return [str(random.randint(0, 3000)) for _ in range(random.randint(lo, hi))]


def hyperloglogs():
    return pick([
        lambda: ["PFADD", key()] + hll_elements(),
        lambda: ["PFADD", key()] + hll_elements(100, 400),
        lambda: ["PFADD", key()] + pick([[""], ["a", "b", "a"], ["x" * 100]]),
        lambda: ["PFCOUNT"] + some(KEYS, 1, 3),
        lambda: ["PFMERGE", key()] + some(KEYS, 0, 3),
        lambda: ["SET", key(), pick(["HYLL", "abc", ""])],
        lambda: ["APPEND", key(), "x"],
        lambda: ["SETRANGE", key(), pick(["4", "10", "15", "100"]), pick(["\x00", "\xff", "z"])],
        lambda: ["GET", key()],
        lambda: ["STRLEN", key()],
        lambda: ["OBJECT", "ENCODING", key()],
    ])()


# ---- geo ----

GEO_MEMBERS = ["Palermo", "Catania", "SF", "Oslo", "a", "1"]
COORDS = [("13.361389", "38.115556"), ("15.087269", "37.502669"), ("-122.4194", "37.7749"), ("10.7522", "59.9139"),
          ("0", "0"), ("180", "85.05112878"), ("-180", "-85.05112878"), ("181", "0"), ("0", "86"), ("abc", "1"), ("1", "")]
UNITS = ["m", "km", "ft", "mi", "M", "KM", "yd"]
RADII = ["0", "1", "100", "200", "10000", "-1", "abc", "1e5"]


def geo_from():
    if random.random() < 0.5:
        return ["FROMMEMBER", pick(GEO_MEMBERS)]
    return ["FROMLONLAT"] + list(pick(COORDS))


def geo_by():
    if random.random() < 0.5:
        return ["BYRADIUS", pick(RADII), pick(UNITS)]
    return ["BYBOX", pick(RADII), pick(RADII), pick(UNITS)]


def geo_tail():
    return opts(["ASC", "DESC"], [("COUNT", "1"), ("COUNT", "2", "ANY"), ("COUNT", "0"), ("COUNT", "-1"), ("ANY",)])


def geos():
    with_ = lambda: opts(["WITHCOORD"], ["WITHDIST"], ["WITHHASH"])
    return pick([
        lambda: ["GEOADD", key()] + opts(["NX", "XX"], ["CH"]) + sum([list(pick(COORDS)) + [pick(GEO_MEMBERS)] for _ in range(random.randint(1, 3))], []),
        lambda: ["GEOADD", key()] + list(pick(COORDS[:5])) + [pick(GEO_MEMBERS)],
        lambda: ["GEODIST", key(), pick(GEO_MEMBERS), pick(GEO_MEMBERS)] + opts(UNITS),
        lambda: ["GEOPOS", key()] + some(GEO_MEMBERS, 0, 3),
        lambda: ["GEOHASH", key()] + some(GEO_MEMBERS, 0, 3),
        lambda: ["GEOSEARCH", key()] + geo_from() + geo_by() + geo_tail() + with_(),
        lambda: ["GEOSEARCH", key()] + opts([tuple(geo_from())], [tuple(geo_by())]) + geo_tail() + with_(),
        lambda: ["GEOSEARCHSTORE", key(), key()] + geo_from() + geo_by() + geo_tail() + opts(["STOREDIST"], ["WITHDIST"]),
        lambda: [pick(["GEORADIUS", "GEORADIUS_RO"]), key()] + list(pick(COORDS)) + [pick(RADII), pick(UNITS)] + geo_tail() + with_()
                + opts([("STORE", key()), ("STOREDIST", key())]),
        lambda: [pick(["GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER_RO"]), key(), pick(GEO_MEMBERS), pick(RADII), pick(UNITS)] + geo_tail() + with_()
                + opts([("STORE", key()), ("STOREDIST", key())]),
        lambda: ["ZRANGE", key(), "0", "-1", "WITHSCORES"],
        lambda: ["ZADD", key(), pick(["0", "1", "-1", "4503599627370496", "1e20", "inf"]), pick(GEO_MEMBERS)],
        lambda: ["ZREM", key(), pick(GEO_MEMBERS)],
    ])()


# ---- extra coverage for the older families ----

FLOATS = ["0.1", "1e17", "1.5e308", "-1.5e308", "5.0e3", "3.0", "1e-5", "0.000001", "100000000000000000000",
          "1.7976931348623157e308", " 1", "1 ", "+1", ".5", "5.", "-0", "0x1p3", "17179869184", "1.1", "-0.0",
          "123456789.123456789", "2.5e-10", "1e308", "inf"]
# No "1e400": Redis's strtod leaves errno at ERANGE and SORT later reads that stale errno, failing a
# numeric sort of good numbers with "One or more scores can't be converted into double" (sort.c).
SET_OPTS = ["NX", "XX", "GET", "KEEPTTL", ("EX", "100"), ("PX", "100000"), ("EXAT", "99999999999"), ("PXAT", "99999999999000"),
            ("EXAT", "1"), ("PXAT", "1"), ("EX", "0"), ("PX", "-5"), ("EXAT", "abc"), ("EX", "9223372036854775807"),
            ("PX", "9223372036854775807"), ("EX",)]
GETEX_OPTS = ["PERSIST", ("EX", "100"), ("PX", "100000"), ("EXAT", "99999999999"), ("PXAT", "99999999999000"), ("EXAT", "1"),
              ("EX", "0"), ("EX", "-1"), ("PX", "abc"), ("EX", "9223372036854775807"), "KEEPTTL"]


def flat(items):
    out = []
    for x in items:
        out += list(x) if isinstance(x, tuple) else [x]
    return out


def strings_extra():
    return pick([
        lambda: ["SET", key(), pick(VALUES)] + flat(random.sample(SET_OPTS, random.randint(0, 3))),
        lambda: ["GETEX", key()] + flat(random.sample(GETEX_OPTS, random.randint(0, 2))),
        lambda: ["INCRBYFLOAT", key(), pick(FLOATS)],
        lambda: ["SET", key(), pick(FLOATS + VALUES)],
        lambda: ["HINCRBYFLOAT", key(), pick(FIELDS), pick(FLOATS)],
        lambda: ["HSET", key(), pick(FIELDS), pick(FLOATS)],
        lambda: ["ZINCRBY", key(), pick(FLOATS), pick(MEMBERS)],
        lambda: ["ZADD", key(), pick(FLOATS), pick(MEMBERS)],
        lambda: ["ZSCORE", key(), pick(MEMBERS)],
        lambda: ["GET", key()],
        lambda: ["HGET", key(), pick(FIELDS)],
        lambda: ["TTL", key()],
        lambda: ["PTTL", key()],
    ])()


def collections_extra():
    rank = [("RANK", x) for x in ["1", "-1", "2", "-2", "0", "abc", "-9223372036854775808", "9223372036854775807"]]
    count = [("COUNT", x) for x in ["0", "1", "2", "-1", "abc"]]
    maxlen = [("MAXLEN", x) for x in ["0", "1", "3", "-1"]]
    return pick([
        lambda: [pick(["LPUSH", "RPUSH"]), key()] + some(VALUES[:12], 1, 6),
        lambda: ["LPOS", key(), pick(VALUES[:12])] + flat(random.sample(rank + count + maxlen, random.randint(0, 3))),
        lambda: ["LMPOP", pick(["1", "2", "3", "0", "-1", "abc"])] + some(KEYS, 1, 2) + [pick(["LEFT", "RIGHT", "UP"])] + flat(random.sample(count, random.randint(0, 2))),
        lambda: ["ZMPOP", pick(["1", "2", "0", "abc"])] + some(KEYS, 1, 2) + [pick(["MIN", "MAX", "MID"])] + flat(random.sample(count, random.randint(0, 2))),
        lambda: ["ZADD", key()] + sum([[pick(SCORES[:10]), pick(MEMBERS)] for _ in range(random.randint(1, 4))], []),
        lambda: ["ZADD", pick(LEX_KEYS)] + sum([["0", pick(MEMBERS)] for _ in range(random.randint(1, 4))], []),
        lambda: ["ZRANGESTORE", key(), key(), pick(NUMS), pick(NUMS)] + opts(["REV"], [("LIMIT", "0", "2")]),
        lambda: ["ZRANGESTORE", key(), key(), pick(SCORES), pick(SCORES), "BYSCORE"] + opts(["REV"], [("LIMIT", "0", "2"), ("LIMIT", "1", "-1"), ("LIMIT", "-1", "1")], ["WITHSCORES"]),
        lambda: ["ZRANGESTORE", key(), pick(LEX_KEYS), pick(LEX), pick(LEX), "BYLEX"] + opts(["REV"], [("LIMIT", "0", "2"), ("LIMIT", "1", "1")]),
        lambda: ["ZRANGE", pick(LEX_KEYS), pick(LEX), pick(LEX), "BYLEX"] + opts(["REV"], [("LIMIT", "0", "2"), ("LIMIT", "1", "-1")], ["WITHSCORES"]),
        lambda: ["ZRANGE", key(), pick(SCORES), pick(SCORES), pick(["BYSCORE", "BYLEX"])] + opts(["REV"], [("LIMIT", "0", "2"), ("LIMIT", "2", "1")]),
        lambda: ["ZRANGE", key(), pick(NUMS), pick(NUMS)] + opts([("LIMIT", "0", "1")]),
        lambda: ["ZINTERCARD", pick(["1", "2", "0", "3", "-1"])] + some(KEYS, 1, 2) + opts([("LIMIT", "0"), ("LIMIT", "1"), ("LIMIT", "-1"), ("LIMIT", "abc")]),
        lambda: ["SINTERCARD", pick(["1", "2", "0", "3", "-1"])] + some(KEYS, 1, 2) + opts([("LIMIT", "0"), ("LIMIT", "1"), ("LIMIT", "-1"), ("LIMIT", "abc")]),
        lambda: ["SADD", key()] + some(MEMBERS, 1, 5),
        lambda: ["HSET", key()] + sum([[pick(FIELDS), pick(VALUES)] for _ in range(random.randint(1, 4))], []),
        lambda: ["SRANDMEMBER", key()] + ([pick(["0", "1", "3", "-3", "100", "-100", "abc", "-9223372036854775808"])] if random.random() < 0.8 else []),
        lambda: ["HRANDFIELD", key()] + ([pick(["0", "1", "3", "-3", "100", "-100", "abc", "-9223372036854775808"])] + opts(["WITHVALUES"]) if random.random() < 0.8 else []),
        lambda: ["ZRANDMEMBER", key()] + ([pick(["0", "1", "3", "-3", "100", "-100", "abc", "-9223372036854775808"])] + opts(["WITHSCORES"]) if random.random() < 0.8 else []),
        lambda: ["SPOP", key(), pick(["100", "0", "-1"])],
    ])()


def encodings():
    big = lambda n: [str(i) for i in range(n)]
    return pick([
        lambda: ["SET", key(), pick(["1", "-5", "9223372036854775807", "9223372036854775808", "x" * 44, "x" * 45, "01", "1.0", ""])],
        lambda: ["APPEND", key(), pick(["1", "x"])],
        lambda: ["SETRANGE", key(), "0", "9"],
        lambda: ["INCR", key()],
        lambda: ["SADD", key()] + big(pick([3, 511, 512, 513])),
        lambda: ["SADD", key(), pick(["a", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "01", "-0"])],
        lambda: ["SREM", key()] + big(pick([3, 400])) + ["a"],
        lambda: ["HSET", key()] + sum([["f%d" % i, "v"] for i in range(pick([3, 127, 128, 129]))], []),
        lambda: ["HSET", key(), "f", pick(["x" * 64, "x" * 65, "y"])],
        lambda: ["HSET", key(), pick(["x" * 64, "x" * 65]), "v"],
        lambda: ["ZADD", key()] + sum([[str(i), "m%d" % i] for i in range(pick([3, 127, 128, 129]))], []),
        lambda: ["ZADD", key(), "1", pick(["x" * 64, "x" * 65, "y"])],
        lambda: ["ZREMRANGEBYRANK", key(), "0", pick(["10", "125", "-2"])],
        lambda: [pick(["RPUSH", "LPUSH"]), key()] + big(pick([3, 128, 129])),
        lambda: ["RPUSH", key(), "x" * pick([64, 65, 9000])],
        lambda: ["LTRIM", key(), "0", pick(["1", "100"])],
        lambda: ["OBJECT", "ENCODING", key()],
        lambda: ["OBJECT", "ENCODING", key()],
        lambda: ["DEL", key()],
        lambda: [pick(["SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"]), key()] + some(KEYS, 1, 2),
        lambda: [pick(["ZUNIONSTORE", "ZINTERSTORE"]), key(), "2", key(), key()],
        lambda: ["COPY", key(), key(), "REPLACE"],
        lambda: ["RESTORE", key(), "0", pick(["bad", ""])] + opts(["REPLACE"]),
    ])()


def keys_extra():
    patterns = ["w_*", "h_*->f", "nosort", "#", "k*", "*", "h_*->", "w_*->f", "", "h_*->g"]
    return pick([
        lambda: ["SET", "w_" + pick(MEMBERS + VALUES[:12]), pick(VALUES[:12])],
        lambda: ["HSET", "h_" + pick(MEMBERS + VALUES[:12]), pick(["f", "g"]), pick(VALUES[:12])],
        lambda: [pick(["SORT", "SORT_RO"]), key()] + opts([("BY", pick(patterns))]) + sum([["GET", pick(patterns)] for _ in range(random.randint(0, 2))], [])
                + opts(["DESC", "ASC"], ["ALPHA"], [("LIMIT", "0", "2"), ("LIMIT", "1", "-1"), ("LIMIT", "-1", "1"), ("LIMIT", "abc", "1")]),
        lambda: ["SORT", key()] + opts([("BY", pick(patterns))]) + sum([["GET", pick(patterns)] for _ in range(random.randint(0, 2))], []) + ["STORE", key()],
        lambda: [pick(["LPUSH", "SADD"]), key()] + some(MEMBERS, 1, 5),
        lambda: ["ZADD", key()] + sum([[pick(SCORES[:10]), pick(MEMBERS)] for _ in range(random.randint(1, 3))], []),
        lambda: ["COPY", key(), key()] + opts([("DB", pick(["0", "1", "16", "-1", "abc"]))], ["REPLACE"]),
        lambda: ["MOVE", key(), pick(["0", "1", "16", "-1"])],
        lambda: ["RENAME", key(), key()],
        lambda: ["SELECT", pick(["0", "1"])],
        lambda: ["EXPIRE", key(), pick(["100", "1000", "50", "-1", "0", "9223372036854775807", "abc"])] + opts(["NX", "XX", "GT", "LT", "NOPE"], ["NX", "XX", "GT", "LT"]),
        lambda: ["PEXPIREAT", key(), pick(["99999999999000", "1", "0", "-1"])] + opts(["NX", "XX", "GT", "LT"]),
        lambda: ["EXPIREAT", key(), pick(["99999999999", "9223372036854775807", "1"])] + opts(["NX", "XX", "GT", "LT"]),
        lambda: ["PERSIST", key()],
        lambda: ["TTL", key()],
        lambda: ["TYPE", key()],
        lambda: ["EXISTS", key()],
        lambda: ["GET", key()],
    ])()


# ---- typed: commands on keys that hold their type, with valid arguments and edge values ----
#
# The other families draw keys from one small pool shared by every type, so most commands meet a
# wrong type, an empty key or an argument the parser refuses (in the default families, ZSCORE of a
# member that exists, GEOSEARCH of a populated key or XREADGROUP of a real group are a handful of
# commands in 20,000). Here each type has its own keys (TYPED), commands mostly get arguments Redis
# accepts, and the edges are values that parse: counts of 0, negative and past the size, ranges
# past both ends and reversed, empty and binary members, integers at the 64-bit limits, scores whose
# printing is delicate, collections past the listpack limits, keys with a TTL. A key of another type
# now and then keeps WRONGTYPE in the mix.

TYPED = {"string": ["s0", "s1"], "list": ["l0", "l1"], "hash": ["h0", "h1"], "set": ["S0", "S1"],
         "zset": ["zs0", "zs1"], "geo": ["g0", "g1"], "stream": ["x0", "x1"]}
# Where the *STORE commands mostly write: a store of an empty result deletes its destination, which
# would empty the keys the reads are about.
TYPED_STORE = {"set": "S2", "zset": "zs2", "geo": "g2", "list": "l2"}
TYPED_KEYS = [k for ks in TYPED.values() for k in ks] + list(TYPED_STORE.values())
# Members and values: listpack-sized and not, integers (intsets, listpack integers), binary, empty.
TYPED_VALUES = ["a", "b", "c", "", "hello world", "0", "1", "-1", "7", "10", "3.5", "-0", "1e3", "00",
                "9223372036854775807", "-9223372036854775808", "9223372036854775808", "x" * 65, b"\x00\xff", "caf\u00e9"]
TYPED_COUNTS = ["0", "1", "2", "3", "5", "-1", "-2", "-5", "100", "-100"]
TYPED_INDEXES = ["0", "1", "2", "-1", "-2", "-3", "5", "100", "-100", "9223372036854775807", "-9223372036854775808"]
# Scores whose printing differs between naive and Redis's formatting (%.17g, then trimmed), and the ends.
TYPED_SCORES = ["0", "1", "-1", "2", "2.5", "0.1", "0.3", "-0.0", "1e17", "1.5e-300", "123456789012345678",
                "9007199254740993", "3.0000000000000004", "1.7976931348623157e308", "5e-324", "inf", "-inf", "+inf"]
TYPED_FLOATS = ["0.1", "0.2", "-0.1", "1e17", "1.5", "3", "-3", "1e-17", "5.0e3", "123456789.123456789",
                "1.7976931348623157e308", "-1.7976931348623157e308", "2.5e-10", "0", "-0"]
# Numbers that almost parse, a tenth of the time in place of a count, an index or a score: on a key
# that holds data, which check comes first (the number's, the key's type, an empty key's answer)
# shows. strtod takes hex floats and "infinity" that string2ll refuses; signs, spaces, zeros.
TYPED_ALMOST = ["+1", " 1", "1 ", "01", "-0", "0x10", "1e3", "1.0", "", "9223372036854775808", "-9223372036854775809",
                "0x1p3", "Infinity", "-INF", "1e-400", ".5", "5.", "1e", "NaN", "1.0e+2", "\x00", "1\x002"]
XSEQ = [0]  # stream ids given in order, so that XADD of an explicit id mostly succeeds


def almost(seq):
    """A value of seq, a tenth of the time one of TYPED_ALMOST."""
    return pick(TYPED_ALMOST) if random.random() < 0.1 else pick(seq)


def tkey(kind):
    """A key of the kind asked for, now and then one of another type (WRONGTYPE)."""
    return pick(TYPED[kind]) if random.random() < 0.95 else pick(TYPED_KEYS)


def tdest(kind):
    """A destination of a *STORE: mostly one of its own (TYPED_STORE), now and then a source."""
    return TYPED_STORE[kind] if random.random() < 0.7 else tkey(kind)


def tval():
    return pick(TYPED_VALUES)


def pairs(n, a, b):
    return sum([[a(), b()] for _ in range(n)], [])


def typed_ttl(kind):
    """A TTL given, changed or taken away, and what a later read tells of it (TTL is compared by sign)."""
    k = tkey(kind)
    return pick([
        # Never a TTL that ends during a run: when it ends is each server's clock.
        lambda: ["EXPIRE", k, pick(["100", "5000", "100000"])] + opts(["NX", "XX", "GT", "LT"]),
        lambda: ["PEXPIRE", k, pick(["100000", "5000000"])] + opts(["NX", "XX", "GT", "LT"]),
        lambda: ["EXPIREAT", k, pick(["99999999999", "1", "0"])] + opts(["NX", "XX", "GT", "LT"]),
        lambda: ["PERSIST", k],
        lambda: [pick(["TTL", "PTTL", "EXPIRETIME"]), k],
        lambda: [pick(["TTL", "PTTL"]), k],
        lambda: ["RENAME", k, pick(TYPED[kind])],
        lambda: ["COPY", k, pick(TYPED[kind])] + opts(["REPLACE"]),
        lambda: ["GETEX", k] + flat(random.sample(GETEX_OPTS[:5] + ["PERSIST"], random.randint(0, 1))),
    ])()


def typed_strings():
    k, k2 = tkey("string"), tkey("string")
    return pick([
        lambda: ["SET", k, tval()] + flat(random.sample(["NX", "XX", "GET", "KEEPTTL", ("EX", "100"), ("PX", "100000"),
                                                           ("EXAT", "99999999999"), ("PXAT", "1")], random.randint(0, 2))),
        lambda: ["SET", k, pick(TYPED_FLOATS + ["9223372036854775807", "-9223372036854775808", "10", "-5"])],
        lambda: ["INCRBYFLOAT", k, almost(TYPED_FLOATS)],
        lambda: [pick(["INCRBY", "DECRBY"]), k, pick(["1", "-1", "9223372036854775807", "-9223372036854775808", "100", "0"])],
        lambda: [pick(["INCR", "DECR"]), k],
        lambda: ["APPEND", k, tval()],
        lambda: ["SETRANGE", k, pick(["0", "1", "3", "10", "100", "4096"]), pick(["", "x", "abc", b"\x00"])],
        lambda: ["GETRANGE", k, almost(TYPED_INDEXES), almost(TYPED_INDEXES)],
        lambda: [pick(["GET", "STRLEN", "GETDEL"]), k],
        lambda: ["GETSET", k, tval()],
        lambda: ["MSETNX", k, tval(), k2, tval()],
        lambda: ["MGET", k, k2, pick(TYPED_KEYS)],
        lambda: ["SET", k, pick(["ohmytext", "mynewtext", "abcdefgh", "aaaa", "", "a" * 40 + "b" * 40])],
        lambda: ["LCS", k, k2] + flat(random.sample(["LEN", "IDX", ("MINMATCHLEN", pick(["0", "1", "2", "4", "-1"])), "WITHMATCHLEN"],
                                                    random.randint(0, 3))),
        lambda: ["SETBIT", k, pick(["0", "1", "7", "8", "31", "100"]), pick(["0", "1"])],
        lambda: ["BITCOUNT", k] + pick([[], [almost(TYPED_INDEXES), almost(TYPED_INDEXES)], [almost(TYPED_INDEXES), almost(TYPED_INDEXES), pick(["BIT", "BYTE"])]]),
        lambda: ["BITPOS", k, pick(["0", "1"])] + pick([[], [almost(TYPED_INDEXES)], [almost(TYPED_INDEXES), almost(TYPED_INDEXES)],
                                                         [almost(TYPED_INDEXES), almost(TYPED_INDEXES), pick(["BIT", "BYTE"])]]),
        lambda: ["BITOP", pick(["AND", "OR", "XOR", "NOT"]), k] + some(TYPED["string"], 1, 2),
        lambda: [pick(["BITFIELD", "BITFIELD_RO"]) if random.random() < 0.3 else "BITFIELD", k] + typed_bitfield(),
        lambda: typed_ttl("string"),
    ])()


def typed_bitfield():
    ops = []
    for _ in range(random.randint(1, 4)):
        t = pick(["u1", "i1", "u8", "i8", "u16", "i16", "u32", "i32", "u63", "i64", "u4", "i5"])
        at = pick(["0", "1", "7", "8", "#0", "#1", "#3", "100"])
        r = random.random()
        if r < 0.2:
            ops += ["OVERFLOW", pick(["WRAP", "SAT", "FAIL"])]
        elif r < 0.5:
            ops += ["GET", t, at]
        elif r < 0.75:
            ops += ["SET", t, at, pick(["0", "1", "-1", "127", "128", "255", "256", "-129", "9223372036854775807", "-9223372036854775808"])]
        else:
            ops += ["INCRBY", t, at, pick(["1", "-1", "100", "-100", "200", "9223372036854775807", "-9223372036854775808"])]
    return ops


def typed_lists():
    k, k2 = tkey("list"), tkey("list")
    side = lambda: pick(["LEFT", "RIGHT"])
    elem = lambda: pick(TYPED_VALUES[:10])
    return pick([
        lambda: [pick(["RPUSH", "LPUSH"]), k] + [elem() for _ in range(random.randint(1, 6))],
        lambda: [pick(["RPUSH", "LPUSH"]), k] + [str(i % 7) for i in range(pick([50, 130, 1500]))],
        lambda: [pick(["RPUSHX", "LPUSHX"]), k, elem()],
        lambda: ["RPUSH", k, pick(["x" * 65, "y" * 8200])],
        lambda: ["LRANGE", k, almost(TYPED_INDEXES), almost(TYPED_INDEXES)],
        lambda: ["LINDEX", k, almost(TYPED_INDEXES)],
        lambda: ["LSET", k, pick(TYPED_INDEXES[:8]), elem()],
        lambda: ["LINSERT", k, pick(["BEFORE", "AFTER"]), elem(), elem()],
        lambda: ["LREM", k, almost(TYPED_COUNTS), elem()],
        lambda: ["LTRIM", k, almost(TYPED_INDEXES), almost(TYPED_INDEXES)],
        lambda: ["LPOS", k, elem()] + flat(random.sample([("RANK", pick(["1", "2", "-1", "-2", "3"])), ("COUNT", pick(["0", "1", "2", "10"])),
                                                          ("MAXLEN", pick(["0", "1", "2", "5"]))], random.randint(0, 3))),
        lambda: [pick(["LPOP", "RPOP"]), k] + ([pick(["0", "1", "2", "3", "100"])] if random.random() < 0.6 else []),
        lambda: ["LMOVE", k, k2, side(), side()],
        lambda: ["RPOPLPUSH", k, k2],
        lambda: ["LMPOP"] + (lambda ks: [str(len(ks))] + ks)(some(TYPED["list"], 1, 2)) + [side()] + opts([("COUNT", pick(["1", "2", "5", "100"]))]),
        lambda: [pick(["BLPOP", "BRPOP"])] + some(TYPED["list"], 1, 2) + ["0.01"],
        lambda: ["BLMPOP", "0.01"] + (lambda ks: [str(len(ks))] + ks)(some(TYPED["list"], 1, 2)) + [side()] + opts([("COUNT", pick(["1", "3"]))]),
        lambda: ["BLMOVE", k, k2, side(), side(), "0.01"],
        lambda: ["LLEN", k],
        lambda: [pick(["SORT", "SORT_RO"]), k] + opts(["ALPHA"], ["DESC"], [("LIMIT", pick(["0", "1", "-1", "5"]), pick(["0", "2", "-1", "100"]))]),
        lambda: ["SORT", k] + opts(["ALPHA"], [("BY", "nosort")]) + ["STORE", tdest("list")],
        lambda: ["OBJECT", "ENCODING", k],
        lambda: typed_ttl("list"),
    ])()


def typed_hashes():
    k = tkey("hash")
    field = lambda: pick(FIELDS + ["", "x" * 65, "1"])
    return pick([
        lambda: ["HSET", k] + pairs(random.randint(1, 4), field, tval),
        lambda: ["HSET", k] + sum([["f%d" % i, str(i)] for i in range(pick([20, 130, 1000]))], []),
        lambda: ["HSETNX", k, field(), tval()],
        lambda: ["HGET", k, field()],
        lambda: ["HMGET", k] + [field() for _ in range(random.randint(1, 4))],
        lambda: ["HDEL", k] + [field() for _ in range(random.randint(1, 3))],
        lambda: [pick(["HGETALL", "HKEYS", "HVALS", "HLEN"]), k],
        lambda: ["HEXISTS", k, field()],
        lambda: ["HSTRLEN", k, field()],
        lambda: ["HINCRBY", k, field(), pick(["1", "-1", "100", "9223372036854775807", "-9223372036854775808", "0"])],
        lambda: ["HINCRBYFLOAT", k, field(), almost(TYPED_FLOATS)],
        lambda: ["HSET", k, field(), pick(TYPED_FLOATS + ["9223372036854775807"])],
        lambda: ["HRANDFIELD", k] + ([almost(TYPED_COUNTS)] + opts(["WITHVALUES"]) if random.random() < 0.8 else []),
        lambda: ["OBJECT", "ENCODING", k],
        lambda: typed_ttl("hash"),
    ])()


def typed_sets():
    k, k2 = tkey("set"), tkey("set")
    member = lambda: pick(TYPED_VALUES[:12] + ["5", "6", "100"])
    return pick([
        lambda: ["SADD", k] + [member() for _ in range(random.randint(1, 5))],
        lambda: ["SADD", k] + [str(i) for i in range(pick([10, 520]))],
        lambda: ["SADD", k] + ["m%d" % i for i in range(pick([10, 130, 1000]))],
        lambda: ["SREM", k] + [member() for _ in range(random.randint(1, 3))],
        lambda: [pick(["SMEMBERS", "SCARD"]), k],
        lambda: ["SISMEMBER", k, member()],
        lambda: ["SMISMEMBER", k] + [member() for _ in range(random.randint(1, 3))],
        lambda: [pick(["SINTER", "SUNION", "SDIFF"])] + some(TYPED["set"], 1, 3),
        lambda: [pick(["SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"]), tdest("set")] + some(TYPED["set"] + ["S2"], 1, 3),
        lambda: ["SINTERCARD"] + (lambda ks: [str(len(ks))] + ks)(some(TYPED["set"] + ["S2"], 1, 3)) + opts([("LIMIT", pick(["0", "1", "2", "100"]))]),
        lambda: ["SMOVE", k, k2, member()],
        lambda: ["SRANDMEMBER", k] + ([almost(TYPED_COUNTS)] if random.random() < 0.8 else []),
        lambda: ["SPOP", k, pick(["100", "1000"])],
        lambda: [pick(["SORT", "SORT_RO"]), k] + opts(["ALPHA"], ["DESC"], [("LIMIT", "0", pick(["3", "-1"]))]),
        lambda: ["OBJECT", "ENCODING", k],
        lambda: typed_ttl("set"),
    ])()


def typed_score_range(rev):
    lo = pick(["-inf", "(-inf", "0", "(0", "1", "(1", "2.5", "(2.5", "1e17", "-1"])
    hi = pick(["+inf", "inf", "(+inf", "2", "(2", "10", "(10", "1e17", "0"])
    return [hi, lo] if rev else [lo, hi]


def typed_lex_range(rev):
    lo, hi = pick(["-", "[a", "(a", "[b", "[", "(", "[1"]), pick(["+", "[c", "(c", "[b", "(b", "[\xff"])
    return [hi, lo] if rev else [lo, hi]


def typed_zsets():
    k, k2 = tkey("zset"), tkey("zset")
    member = lambda: pick(TYPED_VALUES[:12])
    lex = lambda: pick(LEX_KEYS)
    limit = lambda: [("LIMIT", pick(["0", "1", "2", "-1", "100"]), pick(["0", "1", "2", "-1", "100"]))]
    zkeys = lambda: (lambda ks: [str(len(ks))] + ks)(some(TYPED["zset"] + ["zs2"], 1, 3))

    def combine(store):
        ks = zkeys()
        out = ks + opts([("WEIGHTS",) + tuple(pick(["1", "2", "0", "-1", "1.5", "inf", "-inf"]) for _ in ks[1:])],
                        [("AGGREGATE", pick(["SUM", "MIN", "MAX"]))])
        return out if store else out + opts(["WITHSCORES"])
    return pick([
        lambda: ["ZADD", k] + flat(random.sample(["NX", "XX", "GT", "LT", "CH", "INCR"], random.choice([0, 0, 1, 1, 2]))) +
                pairs(random.randint(1, 3), lambda: almost(TYPED_SCORES), member),
        lambda: ["ZADD", k] + sum([[str(i % 13), pick(TYPED_VALUES[:12]) if i % 3 else "m%d" % i] for i in range(pick([20, 130, 1000]))], []),
        lambda: ["ZADD", lex()] + sum([["0", pick(MEMBERS + ["", b"\xff", "ab", "aa"])] for _ in range(random.randint(1, 3))], []),
        lambda: ["ZINCRBY", k, almost(TYPED_SCORES), member()],
        lambda: [pick(["ZSCORE", "ZRANK", "ZREVRANK"]), k, member()],
        lambda: ["ZMSCORE", k] + [member() for _ in range(random.randint(1, 3))],
        lambda: ["ZCARD", k],
        lambda: ["ZCOUNT", k] + typed_score_range(False),
        lambda: ["ZLEXCOUNT", lex()] + typed_lex_range(False),
        lambda: ["ZRANGE", k, almost(TYPED_INDEXES), almost(TYPED_INDEXES)] + opts(["REV"], ["WITHSCORES"]),
        lambda: (lambda rev: ["ZRANGE", k] + typed_score_range(rev) + ["BYSCORE"] + (["REV"] if rev else []) + opts(limit(), ["WITHSCORES"]))(random.random() < 0.4),
        lambda: (lambda rev: ["ZRANGE", lex()] + typed_lex_range(rev) + ["BYLEX"] + (["REV"] if rev else []) + opts(limit()))(random.random() < 0.4),
        lambda: ["ZRANGEBYSCORE", k] + typed_score_range(False) + opts(["WITHSCORES"], limit()),
        lambda: ["ZREVRANGEBYSCORE", k] + typed_score_range(True) + opts(["WITHSCORES"], limit()),
        lambda: [pick(["ZRANGEBYLEX", "ZREVRANGEBYLEX"]), lex()] + opts(limit()),
        lambda: (lambda name: [name, lex()] + typed_lex_range(name == "ZREVRANGEBYLEX") + opts(limit()))(pick(["ZRANGEBYLEX", "ZREVRANGEBYLEX"])),
        lambda: ["ZREVRANGE", k, almost(TYPED_INDEXES), almost(TYPED_INDEXES)] + opts(["WITHSCORES"]),
        lambda: (lambda rev, by: ["ZRANGESTORE", tdest("zset"), k if by != "BYLEX" else lex()]
                 + (typed_score_range(rev) if by == "BYSCORE" else typed_lex_range(rev) if by == "BYLEX" else [almost(TYPED_INDEXES), almost(TYPED_INDEXES)])
                 + ([by] if by else []) + (["REV"] if rev else []) + (opts(limit()) if by else []))(random.random() < 0.3, pick(["", "BYSCORE", "BYLEX"])),
        lambda: [pick(["ZUNION", "ZINTER"])] + combine(False),
        lambda: [pick(["ZUNIONSTORE", "ZINTERSTORE"]), tdest("zset")] + combine(True),
        lambda: ["ZDIFF"] + zkeys() + opts(["WITHSCORES"]),
        lambda: ["ZDIFFSTORE", tdest("zset")] + zkeys(),
        lambda: ["ZINTERCARD"] + zkeys() + opts([("LIMIT", pick(["0", "1", "2", "100"]))]),
        lambda: [pick(["ZPOPMIN", "ZPOPMAX"]), k] + ([pick(["0", "1", "2", "100"])] if random.random() < 0.6 else []),
        lambda: ["ZMPOP"] + zkeys() + [pick(["MIN", "MAX"])] + opts([("COUNT", pick(["1", "2", "100"]))]),
        lambda: [pick(["BZPOPMIN", "BZPOPMAX"])] + some(TYPED["zset"], 1, 2) + ["0.01"],
        lambda: ["BZMPOP", "0.01"] + zkeys() + [pick(["MIN", "MAX"])] + opts([("COUNT", pick(["1", "3"]))]),
        lambda: ["ZRANDMEMBER", k] + ([almost(TYPED_COUNTS)] + opts(["WITHSCORES"]) if random.random() < 0.8 else []),
        lambda: ["ZREMRANGEBYSCORE", k] + typed_score_range(False),
        lambda: ["ZREMRANGEBYRANK", k, almost(TYPED_INDEXES), almost(TYPED_INDEXES)],
        lambda: ["ZREMRANGEBYLEX", lex()] + typed_lex_range(False),
        lambda: ["ZREM", k] + [member() for _ in range(random.randint(1, 3))],
        lambda: [pick(["SORT", "SORT_RO"]), k] + opts(["ALPHA"], ["DESC"], [("LIMIT", "0", pick(["3", "-1"]))]),
        lambda: ["OBJECT", "ENCODING", k],
        lambda: typed_ttl("zset"),
    ])()


TYPED_PLACES = [("13.361389", "38.115556", "Palermo"), ("15.087269", "37.502669", "Catania"), ("2.349014", "48.864716", "Paris"),
                ("-0.127758", "51.507351", "London"), ("13.583333", "37.316667", "Agrigento"), ("-122.4194", "37.7749", "SF"),
                ("0", "0", "origin"), ("179.99", "85.05", "corner"), ("-179.99", "-85.05", "corner2")]


def typed_geos():
    k, k2 = tkey("geo"), tdest("geo")
    member = lambda: pick([p[2] for p in TYPED_PLACES] + ["nope"])
    unit = lambda: pick(["m", "km", "mi", "ft"])
    radius = lambda: pick(["0", "1", "100", "200", "500", "1000", "20000"])
    centre = lambda: ["FROMMEMBER", member()] if random.random() < 0.5 else ["FROMLONLAT"] + list(pick(TYPED_PLACES)[:2])
    shape_ = lambda: ["BYRADIUS", radius(), unit()] if random.random() < 0.5 else ["BYBOX", radius(), radius(), unit()]
    order = lambda: opts(["ASC", "DESC"], [("COUNT", pick(["1", "2", "3"])), ("COUNT", pick(["1", "2"]), "ANY")])
    with_ = lambda: opts(["WITHCOORD"], ["WITHDIST"], ["WITHHASH"])
    return pick([
        lambda: ["GEOADD", k] + opts(["NX", "XX"], ["CH"]) + sum([list(pick(TYPED_PLACES)) for _ in range(random.randint(1, 4))], []),
        lambda: ["GEOADD", k] + sum(map(list, TYPED_PLACES), []),
        lambda: ["GEOSEARCH", k] + centre() + shape_() + order() + with_(),
        lambda: ["GEOSEARCHSTORE", k2, k] + centre() + shape_() + order() + opts(["STOREDIST"]),
        lambda: [pick(["GEORADIUS", "GEORADIUS_RO"]), k] + list(pick(TYPED_PLACES)[:2]) + [radius(), unit()] + order() + with_(),
        lambda: [pick(["GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER_RO"]), k, member(), radius(), unit()] + order() + with_(),
        lambda: ["GEORADIUS", k] + list(pick(TYPED_PLACES)[:2]) + [radius(), unit()] + order() + [pick(["STORE", "STOREDIST"]), k2],
        lambda: ["GEODIST", k, member(), member()] + opts(["m", "km", "mi", "ft"]),
        lambda: [pick(["GEOPOS", "GEOHASH"]), k] + [member() for _ in range(random.randint(0, 3))],
        lambda: ["ZRANGE", k, "0", "-1", "WITHSCORES"],
        lambda: ["ZREM", k, member()],
        lambda: typed_ttl("geo"),
    ])()


def typed_streams():
    k, k2 = tkey("stream"), tkey("stream")
    # Mostly one group, so that the reads meet the group the creates made.
    group, consumer = "g1" if random.random() < 0.8 else "g2", pick(CONSUMERS)
    seen = lambda: "%d-%d" % (random.randint(max(1, XSEQ[0] - 8), XSEQ[0] + 1), random.randint(0, 1))

    def next_id():
        XSEQ[0] += 1
        return "%d-%d" % (XSEQ[0], 0) if random.random() < 0.7 else "%d-*" % XSEQ[0]
    trim = lambda: pick([["MAXLEN"], ["MINID"]]) + opts(["=", "~"]) + [pick(["0", "1", "3", "10"]) if random.random() < 0.5 else seen()]
    return pick([
        lambda: ["XADD", k] + opts(["NOMKSTREAM"]) + (trim() if random.random() < 0.2 else []) + [next_id()] + pairs(random.randint(1, 3), lambda: pick(SFIELDS), tval),
        lambda: ["XADD", k, next_id(), "f", "v"],
        lambda: ["XGROUP", "CREATE", k, group, pick(["0", "0", "$", seen()])] + (["MKSTREAM"] if random.random() < 0.6 else [])
                + opts([("ENTRIESREAD", pick(["0", "1", "3"]))]),
        lambda: ["XADD", k, "MAXLEN", pick(["5", "10"]), next_id(), "f", "v"],
        lambda: ["XGROUP", "SETID", k, group, pick(["0", "$", seen()])] + opts([("ENTRIESREAD", pick(["0", "2", "100"]))]),
        lambda: ["XGROUP", pick(["CREATECONSUMER", "DELCONSUMER"]), k, group, consumer],
        lambda: ["XGROUP", "DESTROY", k, group] if random.random() < 0.3 else ["XLEN", k],
        lambda: ["XREADGROUP", "GROUP", group, consumer] + opts([("COUNT", pick(["1", "2", "5"]))], ["NOACK"]) + ["STREAMS", k, pick([">", ">", "0", seen()])],
        lambda: ["XREADGROUP", "GROUP", group, consumer] + opts([("COUNT", pick(["1", "2", "5"]))]) + ["STREAMS", k, ">"],
        lambda: ["XREADGROUP", "GROUP", group, consumer, "COUNT", pick(["1", "3"]), "STREAMS"] + TYPED["stream"] + [pick([">", "0"]), pick([">", "0"])]
                if random.random() < 0.3 else ["XINFO", "STREAM", k, "FULL"],
        lambda: ["XREAD"] + opts([("COUNT", pick(["1", "2", "10"]))]) + ["STREAMS"] + (lambda ks: ks + [pick(["0", "0-0", seen(), "$"]) for _ in ks])(some(TYPED["stream"], 1, 2)),
        lambda: ["XACK", k, group] + [seen() for _ in range(random.randint(1, 3))],
        lambda: ["XPENDING", k, group],
        lambda: ["XPENDING", k, group] + opts([("IDLE", "0")]) + [pick(["-", seen()]), pick(["+", seen()]), pick(["1", "10"])] + opts([consumer]),
        lambda: ["XCLAIM", k, group, consumer, "0"] + [seen() for _ in range(random.randint(1, 3))]
                + opts([("RETRYCOUNT", pick(["0", "5"]))], ["FORCE"], ["JUSTID"], [("LASTID", seen())]),
        lambda: ["XAUTOCLAIM", k, group, consumer, "0", pick(["0", "0-0", seen()])] + opts([("COUNT", pick(["1", "2", "100"]))], ["JUSTID"]),
        lambda: ["XINFO", "STREAM", k] + opts([("FULL",), ("FULL", "COUNT", pick(["0", "1", "2"]))]),
        lambda: ["XINFO", "GROUPS", k],
        lambda: ["XINFO", "CONSUMERS", k, group],
        lambda: ["XDEL", k] + [seen() for _ in range(random.randint(1, 3))],
        lambda: ["XTRIM", k] + trim() + opts([("LIMIT", pick(["0", "1", "100"]))]),
        lambda: [pick(["XRANGE", "XREVRANGE"]), k] + (lambda a, b: [a, b])(pick(["-", "+", seen(), "(" + seen()]), pick(["-", "+", seen(), "(" + seen()]))
                + opts([("COUNT", pick(["0", "1", "2"]))]),
        lambda: ["XLEN", k],
        lambda: ["XSETID", k, seen()] + opts([("ENTRIESADDED", pick(["0", "5", "100"]))], [("MAXDELETEDID", seen())]),
        lambda: typed_ttl("stream"),
    ])()


def typed_one():
    r = random.random()
    if r < 0.02:
        return ["DEL"] + some(TYPED_KEYS, 1, 2)
    if r < 0.03:
        return ["TYPE", pick(TYPED_KEYS)]
    if r < 0.08:
        # What the encoding decisions made, stores' destinations included: DUMP payloads compare the
        # encodings byte for byte (see DUMP_EXACT).
        return ["DUMP", pick(TYPED_KEYS)] if random.random() < 0.6 else ["OBJECT", "ENCODING", pick(TYPED_KEYS)]
    return pick([typed_strings, typed_lists, typed_hashes, typed_sets, typed_zsets, typed_zsets, typed_geos, typed_streams])()


def typed():
    """A command of a type drawn at random (see TYPED); a tenth of them run from Lua (ctx_script: the
    replies of data, maps and doubles, converted to Lua and back) and a twentieth in MULTI/EXEC."""
    if CTX_QUEUE:
        return CTX_QUEUE.pop(0)
    r = random.random()
    if r < 0.1:
        return ctx_script(typed_one())
    if r < 0.15:
        CTX_QUEUE.extend([typed_one() for _ in range(random.randint(1, 4))] + [["EXEC"]])
        return ["MULTI"]
    return typed_one()


# ---- blocking commands, on the paths that do not block for long ----

# Timeouts that block 50 ms at most, and ones Redis refuses. Redis reads a timeout with strtold
# and converts its milliseconds with a C cast: 1e20, inf and 9223372036854775807 seconds overflow
# into a negative long long on x86 ("timeout is negative"). Never 0, -0, 0x10 or 1e15: those
# block for ever (or 16 s) on an empty key.
TIMEOUTS = ["0.01", "0.01", "0.02", "0.001", "1e-5", "-1", "-0.01", "abc", "1e20", "inf", "nan", " 1", "",
            "0.01abc", "9223372036854775807", "1e16"]
# Commands whose last argument is the timeout: a stray argument appended would become the timeout.
TIMEOUT_LAST = {"BLPOP", "BRPOP", "BRPOPLPUSH", "BLMOVE", "BZPOPMIN", "BZPOPMAX"}


def blocking():
    t = lambda: pick(TIMEOUTS[:5] if random.random() < 0.7 else TIMEOUTS)
    side = lambda: pick(["LEFT", "RIGHT", "LEFT", "RIGHT", "UP", "left"])
    count = [("COUNT", x) for x in ["1", "2", "10", "0", "-1", "abc"]]
    # numkeys and as many keys, mostly; now and then a numkeys that does not fit.
    mpop_keys = lambda: (lambda ks: [str(len(ks))] + ks)(some(KEYS, 1, 3)) if random.random() < 0.8 \
        else [pick(["1", "2", "3", "0", "-1", "abc"])] + some(KEYS, 1, 2)
    push = lambda: [pick(["LPUSH", "RPUSH"]), key()] + some(VALUES[:12], 1, 4)
    zadd = lambda: ["ZADD", key()] + sum([[pick(SCORES[:10]), pick(MEMBERS)] for _ in range(random.randint(1, 3))], [])
    return pick([
        push, push, push, zadd, zadd, zadd,
        lambda: pick([["SET", key(), "x"], ["SADD", key(), "x"], ["HSET", key(), "x", "y"]]),
        lambda: ["DEL", key()],
        lambda: [pick(["BLPOP", "BRPOP"])] + some(KEYS, 1, 3) + [t()],
        lambda: ["BRPOPLPUSH", key(), key(), t()],
        lambda: ["BLMOVE", key(), key(), side(), side(), t()],
        lambda: ["BLMPOP", t()] + mpop_keys() + [side()] + flat(random.sample(count, random.randint(0, 2))),
        lambda: [pick(["BZPOPMIN", "BZPOPMAX"])] + some(KEYS, 1, 3) + [t()],
        lambda: ["BZMPOP", t()] + mpop_keys() + [pick(["MIN", "MAX", "min", "MID"])] + flat(random.sample(count, random.randint(0, 2))),
        lambda: ["LRANGE", key(), "0", "-1"],
        lambda: ["ZRANGE", key(), "0", "-1", "WITHSCORES"],
        lambda: ["TYPE", key()],
        # Inside MULTI a blocking command never blocks: it answers at once, as its non-blocking form.
        # (Rarely, or most commands would only be queued.)
        lambda: ["MULTI"] if random.random() < 0.3 else ["LLEN", key()],
        lambda: ["EXEC"],
    ])()


# ---- scripts by their SHA1, read-only scripts, shebang flags ----

SHEBANG_SCRIPTS = [
    "#!lua\nreturn redis.call('get', KEYS[1])",
    "#!lua\nreturn redis.call('set', KEYS[1], 'x')",
    "#!lua flags=no-writes\nreturn redis.call('set', KEYS[1], 'x')",
    "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])",
    "#!lua flags=no-writes,allow-oom\nreturn 1",
    "#!lua flags=allow-stale,no-cluster\nreturn redis.call('incr', KEYS[1])",
    "#!lua flags=allow-cross-slot-keys\nreturn redis.call('incr', KEYS[1])",
    "#!lua flags=nope\nreturn 1",
    "#!lua flags=\nreturn 1",
    "#!lua name=x\nreturn 1",
    "#!luax\nreturn 1",
    "#!js\nreturn 1",
    "#!lua flags=no-writes\nreturn redis.pcall('del', KEYS[1])",
    "return redis.call('del', KEYS[1])",
    "return redis.call('eval', 'return 1', 0)",
]
ALL_SCRIPTS = SCRIPTS + SHEBANG_SCRIPTS
SHAS = [hashlib.sha1(s.encode()).hexdigest() for s in ALL_SCRIPTS]


def sha():
    r = random.random()
    if r < 0.05:
        return pick(["abc", "", "0" * 40, "x" * 41])
    s = pick(SHAS)
    return s.upper() if r < 0.1 else s


def scripts_extra():
    numkeys = lambda: pick(["1", "1", "1", "0", "2", "-1", "abc"])
    return pick([
        lambda: ["SCRIPT", "LOAD", pick(ALL_SCRIPTS)],
        lambda: ["SCRIPT", "LOAD", pick(ALL_SCRIPTS)],
        lambda: ["SCRIPT", "EXISTS"] + [sha() for _ in range(random.randint(1, 3))],
        # Rarely: it empties the cache EVALSHA works on.
        lambda: ["SCRIPT", "FLUSH"] + opts(["ASYNC", "SYNC", "NOPE"]) if random.random() < 0.15 else ["SCRIPT", "EXISTS", sha()],
        lambda: [pick(["EVALSHA", "EVALSHA_RO", "EVALSHA", "evalsha_ro"]), sha(), numkeys(), key(), pick(VALUES)],
        lambda: [pick(["EVALSHA", "EVALSHA_RO"]), sha(), "0"],
        lambda: [pick(["EVAL", "EVAL_RO"]), pick(SHEBANG_SCRIPTS), numkeys(), key(), pick(VALUES)],
        lambda: ["SCRIPT", pick(["KILL", "HELP", "NOPE"])],
        lambda: ["SCRIPT", "DEBUG", pick(["NO", "nope"])],
        lambda: [pick(["SET", "LPUSH", "HSET"]), key(), "1"] + (["2"] if random.random() < 0.5 else []),
        lambda: ["GET", key()],
    ])()


# ---- functions ----

LIBRARIES = [
    "#!lua name=lib1\nredis.register_function('f1', function(keys, args) return redis.call('get', keys[1]) end)",
    "#!lua name=lib1\nredis.register_function('f1', function(keys, args) return 'v2' end)\n"
    "redis.register_function('f1b', function(keys, args) return #keys + #args end)",
    "#!lua name=lib2\nredis.register_function{function_name='f2', callback=function(keys, args) return redis.call('set', keys[1], args[1]) end}\n"
    "redis.register_function{function_name='f2ro', callback=function(keys, args) return redis.call('set', keys[1], args[1]) end, flags={'no-writes'}}",
    "#!lua name=lib3\nredis.register_function{function_name='f3', description='reads', flags={'no-writes', 'allow-oom', 'allow-stale'},\n"
    "  callback=function(keys, args) return redis.call('exists', keys[1]) end}",
    "#!lua name=lib4\nredis.register_function('f1', function() return 1 end)",
    "#!lua name=lib5\nredis.register_function('f5', function(",
    "redis.register_function('f6', function() return 1 end)",
    "#!lua\nredis.register_function('f7', function() return 1 end)",
    "#!js name=lib8\nreturn 1",
    "#!lua name=lib9\nreturn 1",
    "#!lua name=lib-10\nredis.register_function('f10', function() return 1 end)",
    "#!lua name=lib11\nredis.register_function('f-11', function() return 1 end)",
    "#!lua name=lib12\nredis.register_function{function_name='f12', callback=function() return 1 end, flags={'nope'}}",
    "#!lua name=lib13 foo=bar\nredis.register_function('f13', function() return 1 end)",
    "#!lua name=lib14\nredis.call('set', 'a', 'b')\nredis.register_function('f14', function() return 1 end)",
    "#!lua name=lib15\nredis.register_function('f15', function() return 1 end)\nredis.register_function('f15', function() return 2 end)",
    "#!lua name=lib16\nredis.register_function{function_name='f16', callback=function() return 1 end, description=7}",
    "#!lua name=lib17\nredis.register_function{function_name='f17', callback='x'}",
    "#!lua name=lib18\nredis.register_function{function_name='f18', callback=function() return 1 end, nope=1}",
    "#!lua name=lib19\nredis.register_function('f19', function(keys, args) return {keys[1], args[1], redis.call('type', keys[1])} end)\n"
    "redis.register_function{function_name='f19ro', callback=function(keys) return redis.call('del', keys[1]) end, flags={}}",
    "#!lua name=lib20\nredis.register_function('f20', function() return redis.setresp(3) end)\nerror('boom')",
    "#!lua name=lib21\nlocal x = redis.call\nredis.register_function('f21', function(keys) return x('incr', keys[1]) end)",
]
FUNCTION_NAMES = ["f1", "f1b", "f2", "f2ro", "f3", "f4", "f5", "f15", "f19", "f19ro", "f21", "nope", "F1"]
LIBRARY_NAMES = ["lib1", "lib2", "lib3", "lib4", "lib15", "lib19", "lib21", "nope", "LIB1"]
# Filled in by main() from real Redis's FUNCTION DUMP of a few of LIBRARIES, plus broken payloads.
FUNCTION_PAYLOADS = [b"bad", b""]


def functions():
    good = LIBRARIES[:4] + LIBRARIES[18:]
    fcall = lambda: [pick(["FCALL", "FCALL_RO"]), pick(FUNCTION_NAMES), pick(["1", "1", "1", "0", "2", "-1", "abc"]), key(), pick(VALUES)]
    return pick([
        lambda: ["FUNCTION", "LOAD"] + opts(["REPLACE"]) + [pick(LIBRARIES)],
        lambda: ["FUNCTION", "LOAD"] + opts(["REPLACE"]) + [pick(good)],
        lambda: ["FUNCTION", "LOAD", "REPLACE", pick(good)],
        fcall, fcall, fcall, fcall,
        lambda: [pick(["FCALL", "FCALL_RO"]), pick(FUNCTION_NAMES), "0"],
        lambda: ["FUNCTION", "LIST"] + flat(random.sample(["WITHCODE", ("LIBRARYNAME", pick(["lib1", "lib*", "*", "nope", "lib?", "LIB*"])), "NOPE"], random.randint(0, 2))),
        lambda: ["FUNCTION", "LIST", pick(["LIBRARYNAME", "WITHCODE"])] + opts(["WITHCODE"]),
        lambda: ["FUNCTION", "DELETE", pick(LIBRARY_NAMES)] if random.random() < 0.5 else ["FUNCTION", "STATS"],
        # Rarely: each empties the catalog the other commands work on.
        lambda: ["FUNCTION", "FLUSH"] + opts(["ASYNC", "SYNC", "NOPE"]) if random.random() < 0.2 else ["FUNCTION", "DUMP"],
        lambda: ["FUNCTION", "RESTORE", pick(FUNCTION_PAYLOADS)] + opts(["FLUSH", "APPEND", "REPLACE", "NOPE"]),
        lambda: ["FUNCTION", pick(["STATS", "KILL", "HELP", "NOPE"])],
        lambda: [pick(["SET", "LPUSH"]), key(), pick(VALUES[:6])],
        lambda: ["GET", key()],
    ])()


# ---- SCAN and the collection SCANs ----

SCAN_CURSORS = ["0", "0", "0", "0", "abc", "-1", "5", "18446744073709551615", "18446744073709551616", " 0", "1.5"]
SCAN_MATCH = ["*", "f*", "a", "[ab]", "1*", "*0", "m1?", "[", "\\", "k*", "*x*", "f[0-2]"]


def scan_opts(types=False):
    choices = [("MATCH", pick(SCAN_MATCH)), ("COUNT", pick(["1", "2", "10", "100", "1", "2", "0", "-1", "abc"]))]
    if types:
        choices.append(("TYPE", pick(["string", "list", "set", "zset", "hash", "stream", "nope", "SET"])))
    if random.random() < 0.15:
        choices.append(pick(["NOVALUES", "NOPE"]))  # 7.4's NOVALUES is a syntax error in 7.0
    return flat(random.sample(choices, random.randint(0, 2)))


def scans():
    big = lambda n: [str(i) for i in range(n)]
    # Mostly a key of the type the command wants (k0-k1 hashes, k2-k3 sets, k4-k5 sorted sets).
    typed = lambda i: KEYS[i + random.randint(0, 1)] if random.random() < 0.85 else key()
    cursor = lambda: "0" if random.random() < 0.7 else pick(SCAN_CURSORS)
    return pick([
        lambda: ["HSET", typed(0)] + sum([[pick(FIELDS + ["a", "1"]), pick(VALUES)] for _ in range(random.randint(1, 3))], []),
        lambda: ["HSET", typed(0)] + sum([["f%d" % i, "v"] for i in range(pick([3, 129]))], []),
        lambda: ["SADD", typed(2)] + some(MEMBERS, 1, 4),
        lambda: ["SADD", typed(2)] + some(["1", "2", "10", "-3", "7"], 1, 4),
        lambda: ["SADD", typed(2)] + big(pick([5, 600])),
        lambda: ["ZADD", typed(4)] + sum([[pick(SCORES[:10]), pick(MEMBERS)] for _ in range(random.randint(1, 3))], []),
        lambda: ["ZADD", typed(4)] + sum([[str(i), "m%d" % i] for i in range(pick([3, 129]))], []),
        lambda: [pick(["SET", "LPUSH"]), key(), "x"],
        lambda: ["DEL", key()],
        lambda: ["HSCAN", typed(0), cursor()] + scan_opts(),
        lambda: ["SSCAN", typed(2), cursor()] + scan_opts(),
        lambda: ["ZSCAN", typed(4), cursor()] + scan_opts(),
        lambda: ["SCAN", cursor()] + scan_opts(types=True),
        lambda: ["OBJECT", "ENCODING", key()],
    ])()


# ---- CONFIG GET / SET ----

# Ordinary parameters with good values and bad ones. Not here: what would change how the servers
# are reached or what they write (port, bind, requirepass, dir, dbfilename, appendonly, save
# points), and maxmemory, whose accounting differs (Cinnabar estimates).
CONFIG_VALUES = {
    "hash-max-listpack-entries": ["128", "1", "0", "512", "-1", "abc", "1k", "9223372036854775807"],
    "hash-max-ziplist-entries": ["128", "2"],
    "hash-max-listpack-value": ["64", "0", "1", "abc"],
    "set-max-intset-entries": ["512", "1", "0", "abc", "-5"],
    "zset-max-listpack-entries": ["128", "1", "0"],
    "zset-max-ziplist-value": ["64", "1"],
    "list-max-listpack-size": ["-2", "-1", "-5", "-6", "0", "4", "abc", "2147483648"],
    "list-compress-depth": ["0", "1", "2", "-1"],
    "stream-node-max-entries": ["100", "1", "0", "abc"],
    "stream-node-max-bytes": ["4096", "4kb", "1mb", "0", "-1", "1gb", "1zb", "4KB"],
    "maxmemory-policy": ["noeviction", "allkeys-lru", "allkeys-lfu", "volatile-lfu", "volatile-ttl", "nope", "", "ALLKEYS-LRU"],
    "maxmemory-samples": ["5", "1", "0", "64", "abc"],
    "maxmemory-eviction-tenacity": ["10", "0", "100", "101"],
    "maxmemory": ["abc", "-1", "1zb", "1.5mb"],
    "lfu-log-factor": ["10", "0", "-1"],
    "lfu-decay-time": ["1", "0", "-1"],
    "notify-keyspace-events": ["", "KEA", "Ex", "z", "g$lshzxetd", "Q", "A", "KEAn", "m", "AK"],
    "slowlog-log-slower-than": ["10000", "-1", "0", "abc", "-2"],
    "slowlog-max-len": ["128", "0", "-1"],
    "latency-monitor-threshold": ["0", "100", "-1"],
    "busy-reply-threshold": ["5000", "100", "-1"],
    "lua-time-limit": ["5000", "abc"],
    "hz": ["10", "1", "500", "0", "501", "abc", "-1", "+1", "-0"],
    "activerehashing": ["yes", "no", "maybe", "", "YES", "1"],
    "lazyfree-lazy-user-del": ["yes", "no"],
    "proto-max-bulk-len": ["512mb", "1mb", "1k", "0", "abc"],
    "client-query-buffer-limit": ["1gb", "1mb", "1k", "0"],
    "tracking-table-max-keys": ["1000000", "0", "-1"],
    "timeout": ["0", "3600", "-1"],
    "active-expire-effort": ["1", "10", "0", "11"],
    "appendfsync": ["everysec", "always", "no", "nope"],
    "save": ["", "abc", "100", "1 2 3", "-1 1"],
    "loglevel": ["notice", "warning", "nope", "NOTICE"],
    "replica-read-only": ["yes", "no"],
    "dynamic-hz": ["yes", "no"],
    "oom-score-adj": ["no", "yes", "absolute", "relative", "nope"],
    # No small limit for normal clients: the fuzzer's own connection would be closed.
    "client-output-buffer-limit": ["normal 0 0 0", "pubsub 32mb 8mb 60", "nope 1 1 1", "normal 1 1", "normal abc 0 0", "",
                                   "replica 1mb 1mb 1 pubsub 2 2 2", " pubsub 1 1 1", "pubsub 1 1 -1"],
    "oom-score-adj-values": ["0 200 800", "1  2", "1 2", "-2001 0 0", "a b c"],
    "repl-backlog-size": ["1mb", "1k", "0", "9223372036854775808"],
    "cluster-link-sendbuf-limit": ["0", "18446744073709551615", "18446744073709551616"],
    "proc-title-template": ["{title} {listen-addr} {server-mode}", " ", "{nope}", "x"],
    "hll-sparse-max-bytes": ["3000", "0", "100000", "abc"],
    "maxmemory-clients": ["0", "10%", "101%", "-1", "abc", "0%"],
    "latency-tracking-info-percentiles": ["50 99 99.9", "abc", "101", "", "50"],
    # Writes then fail with NOREPLICAS on both: no replica is ever connected.
    "min-replicas-to-write": ["0", "1", "-1"],
    "min-replicas-max-lag": ["10", "0"],
    # Nothing large: Redis then lowers its open-files limit 16 at a time down to what it may have.
    "maxclients": ["10000", "abc", "0", "-0", "01"],
    # Not "yes": Debian's redis-server, built without Redis's jemalloc, refuses it ("Active
    # defragmentation cannot be enabled: it requires a Redis server compiled with a modified
    # Jemalloc..."), where a source build and Cinnabar (which has nothing to defragment) accept it.
    "activedefrag": ["no"],
    "acllog-max-len": ["128", "0", "-1"],
    "rdbcompression": ["yes", "no"],
    "stop-writes-on-bgsave-error": ["yes", "no"],
    "tcp-keepalive": ["300", "0", "-1"],
    "replica-priority": ["100", "0"],
    "databases": ["16", "1"],
    "daemonize": ["no"],
    "io-threads": ["1"],
    "dir": ["/tmp"],
    "enable-debug-command": ["yes"],
    "nope": ["1"],
}
# Not set back by start_again: refused by CONFIG SET (immutable, protected, unknown), or aliases of
# a parameter that is (one CONFIG SET may not name a parameter twice).
CONFIG_NOT_RESET = {"databases", "daemonize", "io-threads", "dir", "enable-debug-command", "nope",
                    "hash-max-ziplist-entries", "zset-max-ziplist-value"}
CONFIG_PATTERNS = ["hash-max-*", "*max-*-entries", "maxmemory*", "lfu-*", "*", "nope", "HZ", "save", "appendfsync",
                   "notify-keyspace-events", "*listpack*", "*ziplist*", "list-*", "client-output-buffer-limit",
                   "oom-score-adj*", "[hz]*", "slowlog-*", "*-threshold", "timeout", "databases"]
# Parameters CONFIG GET may show with different values on the two servers: where the process
# runs (its port, pid file, working directory), and what a JVM server does not share with redis-server.
CONFIG_DIFFERENT = {b"dir", b"pidfile", b"port", b"logfile"}


def configs():
    names = list(CONFIG_VALUES)
    return pick([
        lambda: ["CONFIG", "GET"] + some(CONFIG_PATTERNS + names, 1, 3),
        lambda: ["CONFIG", "GET", pick(CONFIG_PATTERNS)],
        lambda: ["CONFIG", "SET"] + sum([[n, pick(CONFIG_VALUES[n])] for n in some(names, 1, 3)], []),
        lambda: ["CONFIG", "SET"] + (lambda n: [n, pick(CONFIG_VALUES[n])])(pick(names)),
        # Never maxmemory 1: under an evicting policy, how many keys go before the eviction time
        # limit (maxmemory-eviction-tenacity) stops it, and so whether the next write is refused, is
        # a matter of each server's speed. Nor maxmemory-clients 1: whether a connection is evicted
        # then follows each server's accounting of its buffers (the spec family's COMMAND DOCS, a
        # reply of some 100 kB, closed one).
        lambda: ["CONFIG", "SET", pick([n for n in names if n not in ("maxmemory", "maxmemory-clients")]).upper(), "1"],
        lambda: ["CONFIG", pick(["HELP", "NOPE", "RESETSTAT"])],
        # What the parameters change: encodings, FREQ/IDLETIME availability.
        lambda: ["HSET", key()] + sum([[pick(FIELDS), pick(VALUES)] for _ in range(random.randint(1, 3))], []),
        lambda: ["SADD", key()] + some(MEMBERS[4:], 1, 3),
        lambda: ["ZADD", key(), pick(SCORES[:6]), pick(MEMBERS)],
        lambda: ["RPUSH", key()] + some(VALUES[:12], 1, 5),
        lambda: ["OBJECT", "ENCODING", key()],
        lambda: ["OBJECT", pick(["FREQ", "IDLETIME"]), key()],
    ])()


# ---- ACL ----

ACL_USERS = ["u1", "u2"]
ACL_RULES = ["on", "off", ">pw", "<pw", ">other", "#" + hashlib.sha256(b"pw").hexdigest(), "#abc", "nopass", "resetpass",
             "~k*", "~k1", "%R~k*", "%W~k2", "%RW~*", "%X~k", "allkeys", "resetkeys", "&ch*", "allchannels", "resetchannels",
             "+@all", "-@all", "+@string", "-@dangerous", "+@read", "-@write", "+@nope", "+get", "-set", "+client|getname",
             "-client|kill", "+select|0", "+acl", "+auth", "allcommands", "nocommands", "reset", "(~k* +get)", "(%R~k2 +@read)",
             "clearselectors", "nope", "~", "+nope", ">", "(+get", "+@hash -hget", "-@all +ping +acl|whoami", "+config|get"]
ACL_DRYRUN = [["GET", "k1"], ["SET", "k2", "v"], ["CLIENT", "GETNAME"], ["SELECT", "0"], ["SELECT", "1"], ["PUBLISH", "ch1", "x"],
              ["NOPE"], ["HGET", "k1", "f"], ["ACL", "WHOAMI"], ["GET"], ["CONFIG", "GET", "hz"], ["LPUSH", "x", "y"]]


def acls():
    user = lambda: pick(ACL_USERS) if random.random() < 0.9 else pick(["default", "nope"])
    return pick([
        lambda: ["ACL", "SETUSER", pick(ACL_USERS)] + some(ACL_RULES, 0, 4),
        lambda: ["ACL", "SETUSER", pick(ACL_USERS)] + some(ACL_RULES, 1, 4),
        lambda: ["ACL", "GETUSER", user()],
        lambda: ["ACL", pick(["LIST", "USERS", "WHOAMI", "HELP", "SAVE", "LOAD", "NOPE"])],
        lambda: ["ACL", "DELUSER"] + some(ACL_USERS + ["default", "nope"], 1, 2),
        lambda: ["ACL", "DRYRUN", user()] + pick(ACL_DRYRUN),
        lambda: ["ACL", "CAT"] + some(["string", "hash", "nope", "dangerous", "keyspace"], 0, 1),
        lambda: ["ACL", "GENPASS"] + some(["1", "64", "256", "0", "-1", "abc", "4097"], 0, 1),
        lambda: ["ACL", "LOG"] + some(["1", "10", "RESET", "0", "-1", "abc"], 0, 1),
        # Only logins that fail (and fill ACL LOG), or as default: a connection logged in as u1
        # would be closed by ACL DELUSER u1 (and u1 may be nopass). DRYRUN checks permissions instead.
        lambda: ["AUTH", pick(["u3", "nope"]), "bad"],
        lambda: ["AUTH", "default", "x"],
        lambda: ["AUTH", "pw"],
    ])()


# ---- subscribed mode ----

# Channels and patterns no other family publishes to, nor keyspace events reach (no "*", no "k").
SUB_CHANNELS = ["ch1", "ch2", "c h"]
SUB_PATTERNS = ["ch*", "c?1", "[ab]x", "ch1"]
MULTI_REPLY = {"SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE"}


def subscriptions():
    return pick([
        lambda: ["SUBSCRIBE"] + some(SUB_CHANNELS, 1, 2),
        lambda: ["PSUBSCRIBE"] + some(SUB_PATTERNS, 1, 2),
        lambda: ["SSUBSCRIBE"] + some(SUB_CHANNELS, 1, 2),
        lambda: ["UNSUBSCRIBE"] + some(SUB_CHANNELS + ["nope"], 0, 2),
        lambda: ["PUNSUBSCRIBE"] + some(SUB_PATTERNS + ["nope"], 0, 2),
        lambda: ["SUNSUBSCRIBE"] + some(SUB_CHANNELS + ["nope"], 0, 2),
        # In RESP2's subscribed mode only these and PING/QUIT/RESET are allowed: the rest fail.
        lambda: ["PING"] + some(["hi", ""], 0, 1),
        lambda: ["PING", "a", "b"],
        # (No PUBLISH: in RESP3 the connection would get its own messages, pushes no command asked for.)
        lambda: [pick(["GET", "SET", "SELECT", "CLIENT"]), "ch1"] + (["x"] if random.random() < 0.5 else []),
        lambda: ["PUBSUB", pick(["CHANNELS", "NUMPAT", "SHARDCHANNELS"])] + some(["ch*", "*"], 0, 1),
        lambda: ["PUBSUB", pick(["NUMSUB", "SHARDNUMSUB"])] + some(SUB_CHANNELS, 0, 2),
        lambda: ["CLIENT", "INFO"],
    ])()


# ---- server and connection odds and ends ----

CLIENT_NAMES = ["fuzz", "", "a b", "a\nb", "\xfc", "x" * 100, "a-b_c.d", "~!@#", "FUZZ"]


def servers_family():
    return pick([
        lambda: ["OBJECT", pick(["ENCODING", "REFCOUNT", "FREQ", "IDLETIME", "encoding"]), key()],
        lambda: ["OBJECT", pick(["ENCODING", "REFCOUNT", "FREQ", "IDLETIME"])] + some(KEYS, 0, 2),
        lambda: ["CONFIG", "SET", "maxmemory-policy", pick(["noeviction", "allkeys-lfu", "volatile-lfu", "allkeys-lru"])],
        lambda: ["FLUSHDB"] + opts(["ASYNC", "SYNC", "NOPE", "async"]),
        lambda: ["RANDOMKEY"] + opts(["x"]),
        lambda: ["CLIENT", "GETNAME"] + opts(["x"]),
        lambda: ["CLIENT", "SETNAME", pick(CLIENT_NAMES)] + opts(["x"]),
        lambda: ["CLIENT", "NO-EVICT", pick(["on", "off", "ON", "maybe", ""])] + opts(["x"]),
        lambda: ["CLIENT", pick(["GETREDIR", "TRACKINGINFO", "UNPAUSE", "HELP", "NOPE"])],
        lambda: ["CLIENT", "CACHING", pick(["yes", "no", "maybe"])],
        lambda: ["CLIENT", "UNBLOCK", pick(["999999", "abc", "-1"])] + opts(["TIMEOUT", "ERROR", "NOPE"]),
        # Never a filter this connection matches: it would be closed.
        lambda: ["CLIENT", "KILL"] + pick([["ID", pick(["999999", "abc"])], ["ADDR", "1.2.3.4:5"], ["LADDR", "1.2.3.4:5"],
                                           ["USER", "nope"], ["TYPE", "nope"], ["1.2.3.4:5"], ["ID"], ["MAXAGE", "1"],
                                           ["ID", "999999", "SKIPME", pick(["yes", "no", "maybe"])]]),
        lambda: ["CLIENT", "LIST", "TYPE", pick(["nope", "pubsub"])],
        lambda: ["HMSET", key()] + sum([[pick(FIELDS), pick(VALUES)] for _ in range(random.randint(1, 3))], []),
        lambda: ["HGETALL", key()],
        lambda: ["PSETEX", key(), pick(["100000", "0", "-1", "abc", "9223372036854775807", "1.5"]), pick(VALUES)],
        lambda: ["SUBSTR", key(), pick(NUMS), pick(NUMS)],
        lambda: [pick(["PEXPIRETIME", "EXPIRETIME", "PTTL"]), key()],
        lambda: ["TYPE", key()],
        lambda: ["TOUCH"] + some(KEYS, 1, 3),
        lambda: ["PERSIST", key()],
        lambda: ["DBSIZE"],
        lambda: ["EXPIRE", key(), pick(["100", "1000"])],
        lambda: [pick(["SET", "LPUSH", "SADD", "ZADD"]), key(), "1"] + (["m"] if random.random() < 0.3 else []),
        lambda: ["SET", key(), pick(VALUES)],
        # Refused while enable-debug-command is no (the default).
        lambda: ["DEBUG", pick(["SLEEP", "OBJECT", "HELP", "NOPE", "RELOAD"])] + some(KEYS, 0, 1),
        # Nothing crosses latency-monitor-threshold 0: no events, empty histories.
        lambda: ["LATENCY", pick(["LATEST", "RESET", "HELP", "NOPE"])],
        # Not GRAPH of a real event: whether it has samples follows each server's speed (see normalise).
        lambda: ["LATENCY", pick(["HISTORY", "RESET"]), pick(["command", "nope", "fast-command"])],
        lambda: ["LATENCY", "GRAPH", pick(["nope", "x"])],
        lambda: ["MEMORY", pick(["USAGE", "HELP", "NOPE"])] + some(KEYS, 0, 1) + opts([("SAMPLES", pick(["0", "5", "-1", "abc"]))]),
        lambda: [pick(["TIME", "LASTSAVE"])] + opts(["x"]),
    ])()


# ---- spec: commands built from Redis's own argument grammar (src/commands/*.json) ----

# Where Redis 7.0.15's command descriptions are: --spec-dir, else $REDIS_COMMANDS_DIR, else the compat cache.
SPEC_DIR_DEFAULT = os.path.expanduser("~/.cache/cinnabar-compat/redis-7.0.15/src/commands")
# Eight key names shared by every type, so that commands meet wrong types as often as right ones.
SPEC_KEYS = ["k%d" % i for i in range(8)]
# A home key per type: the data-building step writes there mostly, and a command of that type's group
# picks it half the time, so that commands meet a value of their own type as often as a wrong one.
SPEC_HOME = {"string": "k0", "bitmap": "k0", "list": "k1", "hash": "k2", "set": "k3", "intset": "k3",
             "sorted_set": "k4", "zset": "k4", "geo": "k4", "stream": "k5", "group": "k5", "hyperloglog": "k6", "hll": "k6"}
# Never generated (see the module docstring, "spec"): each would stop the run, block it, make the two
# connections diverge for reasons that are not replies, or is random by nature.
SPEC_EXCLUDED = {
    "SHUTDOWN": "stops the server",
    "DEBUG": "crashes, sleeps, reloads on purpose; refused by default anyway",
    "MONITOR": "the connection then receives every command, not replies",
    "SUBSCRIBE": "subscribed mode: in RESP2 every later command fails",
    "PSUBSCRIBE": "subscribed mode", "SSUBSCRIBE": "subscribed mode",
    "CLIENT KILL": "may close the fuzzer's own connection",
    "CLIENT PAUSE": "stops both servers answering for the timeout given",
    "CLIENT REPLY": "OFF/SKIP suppress replies: the reader would wait for ever",
    "CLIENT TRACKING": "invalidation pushes arrive out of band (RESP3) or need a second connection",
    "REPLICAOF": "turns the server into a replica", "SLAVEOF": "turns the server into a replica",
    "FAILOVER": "replication", "SYNC": "starts a replication stream", "PSYNC": "starts a replication stream",
    "MIGRATE": "connects to other hosts (the misc family covers its errors)",
    "WAIT": "blocks for ever with a positive count and timeout 0",
    "SAVE": "writes files, timing of LASTSAVE", "BGSAVE": "forks/snapshots in the background",
    "BGREWRITEAOF": "background rewrite",
    "SCRIPT KILL": "only meaningful with a busy script", "FUNCTION KILL": "only meaningful with a busy script",
    "SCRIPT DEBUG": "YES/SYNC start a Lua debugging session on the next EVAL",
    "QUIT": "closes the connection",
    "RESET": "leaves RESP3 and MULTI behind the fuzzer's back (start_again uses it itself)",
    "HELLO": "changes the protocol or logs in; its map holds the connection id and server version",
    "MODULE LOAD": "loads shared objects from paths", "MODULE LOADEX": "loads shared objects from paths",
    "PFSELFTEST": "slow self test, answers OK",
    "CLUSTER": "cluster support is disabled on both; whole family skipped",
}
SPEC_RARE = {"FLUSHALL": 0.03, "FLUSHDB": 0.05, "FUNCTION FLUSH": 0.2, "SCRIPT FLUSH": 0.3, "SWAPDB": 0.3,
             "CONFIG RESETSTAT": 0.2, "LATENCY RESET": 0.3, "SLOWLOG RESET": 0.3, "ACL LOG": 0.5}
SPEC_TABLE = []  # (words, spec, weight), filled by load_spec()
SPEC_REFUSED = []  # (words, spec) of SPEC_EXCLUDED, for the contexts that refuse them (spec_refused)

INTS_SMALL = ["0", "1", "2", "3", "-1", "-2", "5", "10"]
INTS_EDGE = ["100", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "abc", "", " 1", "1.5",
             "-0", "+1", "1e3", "0x10"]
DOUBLES_SMALL = ["0", "1", "-1", "1.5", "2", "-2.5", "10", "3"]
DOUBLES_EDGE = ["1e308", "-1e308", "inf", "-inf", "+inf", "nan", "abc", "", " 1", "1.5e3", "(1", "0x10",
                "9223372036854775807", "-0", "1e-5", "1e400"]
# Junk inserted now and then: never a number that would be a long blocking timeout.
SPEC_JUNK = ["junk", "NX", "XX", "COUNT", "LIMIT", "-1", "abc", "", "WITHSCORES", "GET", b"\xe9\x80", "\u00e9"]
EXPIRE_SECONDS = ["100", "1000", "0", "-1", "abc", "9223372036854775807", "1.5"]
EXPIRE_MS = ["100000", "5000000", "0", "-1", "abc", "9223372036854775807"]
SPEC_POOLS_BY_NAME = {
    # integers with a meaning
    "cursor": lambda: "0" if random.random() < 0.8 else pick(SCAN_CURSORS),
    "db": lambda: pick(["0", "1", "2", "15", "16", "-1", "abc"]),
    "destination-db": lambda: pick(["0", "1", "16", "-1", "abc"]),
    "index1": lambda: pick(["0", "1", "16", "-1", "abc"]), "index2": lambda: pick(["0", "1", "16", "abc"]),
    "seconds": lambda: pick(EXPIRE_SECONDS), "milliseconds": lambda: pick(EXPIRE_MS),
    "unix-time-seconds": lambda: pick(["99999999999", "1", "0", "-1", "abc", "9223372036854775807"]),
    "unix-time-milliseconds": lambda: pick(["99999999999000", "1", "0", "-1", "abc"]),
    "ttl": lambda: pick(["0", "100000", "-1", "abc", "99999999999000"]),
    "frequency": lambda: pick(["0", "5", "255", "256", "-1", "abc"]),
    "bit": lambda: pick(["0", "1", "2", "-1"]),
    "bits": lambda: pick(["1", "64", "256", "0", "-1", "abc", "4097"]),
    "version": lambda: pick(["5", "6", "7", "x", "-1"]),
    "client-id": lambda: pick(["999999", "abc", "-1", "0"]),
    "min-idle-time": lambda: pick(["0", "3600000", "-1", "abc"]),
    "ms": lambda: pick(["0", "1000", "-1", "abc"]),
    # strings with a meaning
    "ID": lambda: pick(XADD_IDS + RANGE_IDS), "id": lambda: pick(XADD_IDS + RANGE_IDS),
    "last-id": lambda: pick(["5-5", "9-0", "0-0", "abc", "18446744073709551615-18446744073709551615"]),
    "max_deleted_entry_id": lambda: pick(["1-0", "9-9", "abc", "0-0"]),
    "threshold": lambda: pick(["0", "1", "2", "3", "10", "5-5", "3-0", "abc", "-1"]),
    "group": lambda: pick(GROUPS + ["nope"]), "groupname": lambda: pick(GROUPS + ["nope"]),
    "consumer": lambda: pick(CONSUMERS), "consumername": lambda: pick(CONSUMERS),
    "field": lambda: pick(FIELDS), "member": lambda: pick(MEMBERS + GEO_MEMBERS[:3]),
    "member1": lambda: pick(MEMBERS + GEO_MEMBERS[:3]), "member2": lambda: pick(MEMBERS + GEO_MEMBERS[:3]),
    "element": lambda: pick(VALUES[:12] + MEMBERS[:4]), "pivot": lambda: pick(VALUES[:12] + MEMBERS[:4]),
    "message": lambda: pick(VALUES), "value": lambda: pick(VALUES),
    "channel": lambda: pick(SUB_CHANNELS + ["k1"]), "shardchannel": lambda: pick(SUB_CHANNELS),
    "type": lambda: pick(["string", "list", "set", "zset", "hash", "stream", "nope", "SET"]),
    "section": lambda: pick(["server", "clients", "memory", "persistence", "stats", "replication", "cpu", "keyspace",
                             "all", "default", "everything", "errorstats", "nope", "SERVER", "commandstats"]),
    "script": lambda: pick(ALL_SCRIPTS), "sha1": sha, "function": lambda: pick(FUNCTION_NAMES),
    "function-code": lambda: pick(LIBRARIES), "library-name": lambda: pick(LIBRARY_NAMES),
    "library-name-pattern": lambda: pick(["lib1", "lib*", "*", "nope", "lib?"]),
    "rule": lambda: pick(ACL_RULES), "categoryname": lambda: pick(["string", "hash", "nope", "dangerous", "keyspace"]),
    "category": lambda: pick(["string", "hash", "nope", "dangerous", "keyspace"]),
    "command-name": lambda: pick(["get", "set", "eval", "zadd", "client|kill", "nope", "client", "GET", "config|get"]),
    "COMMAND": lambda: pick(["get", "set", "nope", "client|list", "ping"]),
    "event": lambda: pick(["command", "fast-command", "nope"]),
    "module-name": lambda: pick(["nope", ""]), "name": lambda: pick(["nope", ""]),
    "connection-name": lambda: pick(CLIENT_NAMES),
    "encoding": lambda: pick(BF_TYPES),
    "operation": lambda: pick(["AND", "OR", "XOR", "NOT", "NOPE", "and"]),
    "subcommand": lambda: pick(["GETREG", "DECODE", "ENCODING", "TODENSE", "NOPE"]),
    "longitude": lambda: pick([c[0] for c in COORDS]), "latitude": lambda: pick([c[1] for c in COORDS]),
    "radius": lambda: pick(RADII), "width": lambda: pick(RADII), "height": lambda: pick(RADII),
    "score": lambda: pick(SCORES[:10] + ["1e308", "-inf"]), "weight": lambda: pick(["1", "2", "0", "-1", "1.5", "abc", "inf"]),
    "password": lambda: pick(["bad", "pw", "x"]),
}
# Pools that depend on the command as well as on the argument's name.
SPEC_POOLS_BY_COMMAND = {
    ("SELECT", "index"): lambda: pick(["0", "1", "2", "15", "16", "-1", "abc"]),
    # The BLOCK of XREAD/XREADGROUP: a few milliseconds, never 0 (for ever).
    ("XREAD", "milliseconds"): lambda: pick(["1", "10", "-1", "abc"]),
    ("XREADGROUP", "milliseconds"): lambda: pick(["1", "10", "-1", "abc"]),
    ("XREAD", "ID"): lambda: pick(READ_IDS[2:] + ["+"]), ("XREADGROUP", "ID"): lambda: pick(READ_IDS),
    ("XGROUP CREATE", "ID"): lambda: pick(GROUP_IDS), ("XGROUP SETID", "ID"): lambda: pick(GROUP_IDS),
    ("XADD", "ID"): lambda: pick(XADD_IDS),
    ("SETBIT", "offset"): lambda: pick(BIT_OFFSETS), ("GETBIT", "offset"): lambda: pick(BIT_OFFSETS),
    ("SETRANGE", "offset"): lambda: pick(["0", "1", "5", "100", "-1", "abc", "536870912"]),
    ("BITFIELD", "offset"): lambda: pick(BF_OFFSETS), ("BITFIELD_RO", "offset"): lambda: pick(BF_OFFSETS),
    ("BITFIELD", "value"): lambda: pick(NUMS + ["127", "128", "-129", "255", "256"]),
    ("SETBIT", "value"): lambda: pick(["0", "1", "1", "2", "-1", "abc"]),
    ("BITCOUNT", "start"): lambda: pick(BIT_RANGE), ("BITCOUNT", "end"): lambda: pick(BIT_RANGE),
    ("BITPOS", "start"): lambda: pick(BIT_RANGE), ("BITPOS", "end"): lambda: pick(BIT_RANGE),
    ("XRANGE", "start"): lambda: pick(RANGE_IDS), ("XRANGE", "end"): lambda: pick(RANGE_IDS),
    ("XREVRANGE", "start"): lambda: pick(RANGE_IDS), ("XREVRANGE", "end"): lambda: pick(RANGE_IDS),
    ("XPENDING", "start"): lambda: pick(RANGE_IDS), ("XPENDING", "end"): lambda: pick(RANGE_IDS),
    ("XAUTOCLAIM", "start"): lambda: pick(["0", "0-0", "3", "-", "+", "abc"]),
    ("ZRANGE", "start"): lambda: pick(NUMS + SCORES + LEX), ("ZRANGE", "stop"): lambda: pick(NUMS + SCORES + LEX),
    ("ACL SETUSER", "username"): lambda: pick(ACL_USERS),
    ("ACL DELUSER", "username"): lambda: pick(ACL_USERS + ["default", "nope"]),
    # Never a user AUTH could log in as but default: ACL DELUSER of that user would close the connection.
    ("AUTH", "username"): lambda: pick(["u3", "nope", "default"]),
    ("CONFIG GET", "parameter"): lambda: pick(CONFIG_PATTERNS + list(CONFIG_VALUES)),
    # Only the parameters start_again sets back, with their good and bad values; never dir.
    # (min-replicas-to-write 1 would refuse every write with NOREPLICAS until start_again.)
    ("CONFIG SET", "parameter"): lambda: pick([n for n in CONFIG_VALUES if n not in ("dir", "min-replicas-to-write")]),
    ("RESTORE", "serialized-value"): lambda: pick(SPEC_PAYLOADS),
    ("RESTORE-ASKING", "serialized-value"): lambda: pick(SPEC_PAYLOADS),
    ("FUNCTION RESTORE", "serialized-value"): lambda: pick(FUNCTION_PAYLOADS),
    ("EVAL", "arg"): lambda: pick(VALUES), ("SPOP", "count"): lambda: pick(["1", "2", "3", "0", "100", "-1", "abc"]),
}
for _c in ("BLPOP", "BRPOP", "BLMOVE", "BLMPOP", "BRPOPLPUSH", "BZPOPMIN", "BZPOPMAX", "BZMPOP"):
    SPEC_POOLS_BY_COMMAND[(_c, "timeout")] = lambda: pick(TIMEOUTS[:5] if random.random() < 0.7 else TIMEOUTS)
for _c in ("ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZLEXCOUNT", "ZREMRANGEBYLEX", "ZRANGESTORE"):
    SPEC_POOLS_BY_COMMAND[(_c, "min")] = SPEC_POOLS_BY_COMMAND[(_c, "max")] = lambda: pick(LEX)
for _c in ("ZRANGESTORE",):
    SPEC_POOLS_BY_COMMAND[(_c, "min")] = SPEC_POOLS_BY_COMMAND[(_c, "max")] = lambda: pick(NUMS + SCORES + LEX)
# RESTORE payloads: main() fills in real Redis's DUMP of a key of each type; plus broken ones.
SPEC_PAYLOADS = [b"bad", b""]
SPEC_PATTERNS = {"KEYS": ["*", "k[0-2]", "k?", "x*", "k*", "[", "\\", "*1"], "SORT": ["w_*", "h_*->f", "nosort", "#", "k*", "*"],
                 "PUBSUB CHANNELS": ["*", "ch*", "k?"], "PUBSUB SHARDCHANNELS": ["*", "ch*"],
                 "COMMAND LIST": ["g*", "*", "x*", "client|*"], "PUNSUBSCRIBE": SUB_PATTERNS}


def load_spec(path):
    """The commands and subcommands of src/commands/*.json, with their weights: SPEC_TABLE."""
    if not os.path.isdir(path):
        return False
    for f in sorted(os.listdir(path)):
        if not f.endswith(".json"):
            continue
        with open(os.path.join(path, f)) as fh:
            for name, spec in json.load(fh).items():
                words = [spec["container"], name] if "container" in spec else [name]
                full = " ".join(words)
                if words[0] in SPEC_EXCLUDED or full in SPEC_EXCLUDED:
                    SPEC_REFUSED.append((words, spec))
                    continue
                if "ONLY_SENTINEL" in spec.get("command_flags", []) and len(words) > 1:
                    continue  # SENTINEL alone is enough: Redis does not know it outside sentinel mode
                # A container alone (CLIENT, CONFIG ...) only meets its arity check: now and then.
                weight = SPEC_RARE.get(full, 0.15 if spec.get("arguments") is None and full in SPEC_CONTAINERS else 1)
                SPEC_TABLE.append((words, spec, weight))
    return True


SPEC_CONTAINERS = {"ACL", "CLIENT", "CLUSTER", "COMMAND", "CONFIG", "FUNCTION", "LATENCY", "MEMORY", "MODULE", "OBJECT",
                   "PUBSUB", "SCRIPT", "SLOWLOG", "XGROUP", "XINFO", "SENTINEL"}


def spec_token(t):
    """A token as the grammar spells it, now and then in lower or mixed case (Redis matches them case-blind)."""
    r = random.random()
    if r < 0.08:
        return t.lower()
    if r < 0.11:
        return "".join(ch.lower() if i % 2 else ch for i, ch in enumerate(t))
    return t


def spec_value(full, arg, group=None):
    name, t = arg["name"], arg["type"]
    first = full.split()[0]
    for k in ((full, name), (first, name)):
        if k in SPEC_POOLS_BY_COMMAND:
            return SPEC_POOLS_BY_COMMAND[k]()
    if t == "key":
        lex = first in ("ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZLEXCOUNT", "ZREMRANGEBYLEX")
        if lex and random.random() < 0.8:
            return pick(LEX_KEYS)
        return SPEC_HOME[group] if group in SPEC_HOME and random.random() < 0.5 else pick(SPEC_KEYS)
    if t == "pattern":
        return pick(SPEC_PATTERNS.get(full, SPEC_PATTERNS.get(first, SCAN_MATCH)))
    if name in SPEC_POOLS_BY_NAME:
        return SPEC_POOLS_BY_NAME[name]()
    if t == "integer":
        return pick(INTS_SMALL if random.random() < 0.75 else INTS_EDGE)
    if t == "double":
        return pick(DOUBLES_SMALL if random.random() < 0.7 else DOUBLES_EDGE)
    if t == "unix-time":
        return pick(["99999999999", "1", "0", "-1", "abc"])
    return pick(VALUES + MEMBERS)


def spec_walk(full, args, out, ctx):
    """Appends to out one instance of the argument list args: optional ones sometimes, multiple ones 1-3
    times (as many as the keys before them when they pair up, like XREAD's ids), one branch of a oneof.
    A numkeys gets the number of keys that follow it (mostly)."""
    paired = None  # how many keys a multiple key argument of this block got
    for arg in args:
        if arg.get("optional") and random.random() > 0.4:
            if ctx.get("numkeys_at") is not None and arg["type"] == "key":
                idx, ctx["numkeys_at"] = ctx["numkeys_at"], None
                out[idx] = "0" if random.random() < 0.9 else out[idx]
            continue
        n = random.randint(1, 3) if arg.get("multiple") else 1
        if arg.get("multiple") and paired is not None and random.random() < 0.9:
            n = paired
        if arg.get("multiple") and arg["type"] == "key":
            paired = n
        for i in range(n):
            if "token" in arg and arg["type"] != "pure-token" and (i == 0 or arg.get("multiple_token")):
                out.append(spec_token(arg["token"]))
            if arg["type"] == "pure-token":
                out.append(spec_token(arg["token"]))
            elif arg["type"] == "oneof":
                # Now and then two branches (NX and XX, EX and PX): the conflicts and their errors.
                for branch in random.sample(arg["arguments"], 2 if len(arg["arguments"]) > 1 and random.random() < 0.05 else 1):
                    spec_walk(full, [dict(branch, optional=False)], out, ctx)
            elif arg["type"] == "block":
                spec_walk(full, arg["arguments"], out, ctx)
            elif arg["name"] in ("command",) and full == "ACL DRYRUN":
                out.extend(spec_command(nested=True))  # the command and its arguments
                return
            elif full == "CONFIG SET" and arg["name"] == "value":
                out.append(pick(CONFIG_VALUES.get(out[-1], VALUES)))  # a value of the parameter just named
            else:
                out.append(spec_value(full, arg, ctx.get("group")))
        if arg["name"] == "numkeys":
            ctx["numkeys_at"] = len(out) - 1
        elif ctx.get("numkeys_at") is not None:
            # The first argument after numkeys: the keys it counts (or none).
            idx, ctx["numkeys_at"] = ctx["numkeys_at"], None
            if random.random() < 0.9:
                out[idx] = str(n if arg["type"] == "key" else 0)


def spec_command(nested=False):
    """One command drawn from SPEC_TABLE by weight, its arguments walked from the grammar."""
    while True:
        words, spec, weight = pick(SPEC_TABLE)
        if random.random() < weight:
            break
    full = " ".join(words)
    out = [w.lower() if random.random() < 0.05 else w for w in words]
    if full in ("COMMAND GETKEYS", "COMMAND GETKEYSANDFLAGS"):
        return out + spec_command(nested=True)
    spec_walk(full, spec.get("arguments") or [], out, {"group": spec.get("group")})
    if full == "SPOP" and len(out) == 2:
        out.append(SPEC_POOLS_BY_COMMAND[("SPOP", "count")]())  # without a count SPOP removes a random member
    if not nested and full != "SPOP" and random.random() < 0.12:
        out = spec_break(out, len(words), spec)
    return out


def spec_tokens(args):
    """Every token of a grammar, at any depth."""
    out = []
    for a in args or []:
        if "token" in a:
            out.append(a["token"])
        out += spec_tokens(a.get("arguments"))
    return out


def spec_break(cmd, head, spec):
    """The shape broken: an argument dropped, junk or one of the command's own tokens (with or without
    its value) inserted anywhere, a token repeated, a few arguments more."""
    r = random.random()
    tokens = spec_tokens(spec.get("arguments"))
    if r < 0.25 and tokens and cmd[0].upper() not in TIMEOUT_LAST:
        at = random.randint(head, len(cmd))
        cmd[at:at] = [spec_token(pick(tokens))] + ([pick(INTS_SMALL + SPEC_KEYS[:2])] if random.random() < 0.5 else [])
    elif r < 0.45 and len(cmd) > head:
        del cmd[random.randint(head, len(cmd) - 1)]
    elif r < 0.6:
        cmd.insert(random.randint(head, len(cmd)), pick(SPEC_JUNK))
    elif r < 0.8:
        tokens = [i for i in range(head, len(cmd)) if cmd[i].isalpha() and cmd[i].upper() == cmd[i] and len(cmd[i]) > 1]
        if tokens:
            i = pick(tokens)
            cmd.insert(i, cmd[i])
    elif cmd[0].upper() not in TIMEOUT_LAST:
        cmd += [pick(SPEC_JUNK) for _ in range(random.randint(1, 2))]
    return cmd


SPEC_QUEUE = []


def spec_build():
    """Commands that give a key a value of some type (some after a DEL, so types change hands)."""
    n = 130 if random.random() < 0.05 else random.randint(1, 5)  # now and then past the listpack limits
    kind = pick(["string", "list", "hash", "set", "intset", "zset", "stream", "hll", "geo", "lex", "group", "bitmap"])
    k = SPEC_HOME[kind] if kind in SPEC_HOME and random.random() < 0.7 else pick(SPEC_KEYS)
    cmds = [["DEL", k]] if random.random() < 0.3 else []
    if kind == "string":
        cmds.append(["SET", k, pick(VALUES)])
    elif kind == "list":
        cmds.append(["RPUSH", k] + [pick(VALUES[:12] + MEMBERS) if n < 10 else str(i) for i in range(n)])
    elif kind == "hash":
        cmds.append(["HSET", k] + sum([[pick(FIELDS) if n < 10 else "f%d" % i, pick(VALUES)] for i in range(n)], []))
    elif kind == "set":
        cmds.append(["SADD", k] + [pick(MEMBERS) if n < 10 else "m%d" % i for i in range(n)])
    elif kind == "intset":
        cmds.append(["SADD", k] + [str(random.randint(-5, 20)) if n < 10 else str(i) for i in range(n)])
    elif kind == "zset":
        cmds.append(["ZADD", k] + sum([[pick(SCORES[:10]), pick(MEMBERS)] if n < 10 else [str(i), "m%d" % i] for i in range(n)], []))
    elif kind == "stream":
        cmds.append(["XADD", k, pick(["*", "*", "1-1", "2-0", "3-0", "5-5", "7-*"])] + xfields())
    elif kind == "hll":
        cmds.append(["PFADD", k] + hll_elements(1, 5))
    elif kind == "geo":
        cmds.append(["GEOADD", k] + list(pick(COORDS[:5])) + [pick(GEO_MEMBERS)])
    elif kind == "lex":
        cmds.append(["ZADD", pick(LEX_KEYS)] + sum([["0", pick(MEMBERS)] for _ in range(min(n, 5))], []))
    elif kind == "group":
        cmds.append(["XGROUP", "CREATE", k, pick(GROUPS), pick(["0", "$"]), "MKSTREAM"])
    else:
        cmds.append(["SETBIT", k, pick(["0", "7", "100"]), "1"])
    return cmds


def spec_family():
    if SPEC_QUEUE:
        return SPEC_QUEUE.pop(0)
    if random.random() < 0.2:
        SPEC_QUEUE.extend(spec_build())
        return SPEC_QUEUE.pop(0)
    return spec_command()


# The contexts of spec-multi and spec-script (see the module docstring): the same spec-generated
# commands, inside MULTI/EXEC and inside Lua, so that the queueing rules, EXEC's replies, the
# Lua<->RESP conversions and the script restrictions are compared too.
CTX_QUEUE = []
# The body every wrapped command runs: the command's words are ARGV (keys declared as KEYS besides, so
# that both servers see the same numkeys; Redis 7.0 outside cluster mode does not check that a script
# only touches declared keys). Variants: redis.call (its error raised), RESP3 inside the script.
CTX_BODIES = {
    "pcall": "return redis.pcall(unpack(ARGV))",
    "call": "return redis.call(unpack(ARGV))",
    "pcall3": "redis.setresp(3) return redis.pcall(unpack(ARGV))",
    "call3": "redis.setresp(3) return redis.call(unpack(ARGV))",
    # An error table turned into a Lua value and back: the error reply as a plain table field.
    "pcallerr": "local r = redis.pcall(unpack(ARGV)) if type(r) == 'table' and r.err then return {r.err} end return r",
    # Arguments that look like numbers passed as Lua numbers: redis.call turns them back into strings
    # itself (Lua's "%.17g": 1e3 -> 1000, 2^63-1 -> 9.2233720368547758e+18, inf, nan, 0x10 -> 16).
    # Zeros stay strings: Redis's Lua keeps tonumber("-0")'s sign ("-0"), Cinnabar's (luaj, whose
    # integral numbers are ints) cannot; a known difference, listed, not generated here.
    "num": "local a = {} for i, v in ipairs(ARGV) do local n = tonumber(v) "
           "if n and n ~= 0 then a[i] = n else a[i] = v end end return redis.pcall(unpack(a))",
    # A last argument that is no string nor number: Redis's refusal of it.
    "badarg": "local a = {unpack(ARGV)} a[#a + 1] = (#a % 2 == 0) return redis.pcall(unpack(a))",
}
CTX_SHEBANGS = ["", "", "", "#!lua\n", "#!lua flags=no-writes\n", "#!lua flags=allow-oom\n", "#!lua flags=no-cluster\n"]
CTX_LIBRARY = "\n".join(["#!lua name=ctxlib"] + [
    "redis.register_function('ctx_%s', function(KEYS, ARGV) %s end)" % (n, b) for n, b in CTX_BODIES.items()] + [
    "redis.register_function{function_name='ctx_ro', callback=function(KEYS, ARGV) %s end, flags={'no-writes'}}"
    % CTX_BODIES["pcall"],
    "redis.register_function{function_name='ctx_ro3', callback=function(KEYS, ARGV) %s end, flags={'no-writes'}}"
    % CTX_BODIES["pcall3"]])
CTX_FUNCTIONS = ["ctx_" + n for n in CTX_BODIES] + ["ctx_ro", "ctx_ro3"]
CTX_SCRIPTS = {shebang + body for shebang in set(CTX_SHEBANGS) for body in CTX_BODIES.values()}


def ctx_keys(inner):
    """The words of a spec-generated (or typed) command that are key names (SPEC_KEYS, LEX_KEYS, TYPED_KEYS), for KEYS."""
    return [w for w in inner[1:] if isinstance(w, str) and (w in SPEC_KEYS or w in LEX_KEYS or w in TYPED_KEYS)]


def ctx_script(inner):
    """A spec-generated command run from Lua: EVAL/EVAL_RO of a wrapper (with or without a shebang),
    now and then EVALSHA of it, or FCALL/FCALL_RO of ctxlib's functions (loaded just before)."""
    keys = ctx_keys(inner)
    if random.random() < 0.2:
        keys = []  # undeclared
    r = random.random()
    if r < 0.25:
        fn = pick(CTX_FUNCTIONS)
        CTX_QUEUE.append([pick(["FCALL", "FCALL", "FCALL_RO"]), fn, str(len(keys))] + keys + inner)
        return ["FUNCTION", "LOAD", "REPLACE", CTX_LIBRARY]
    script = pick(CTX_SHEBANGS) + CTX_BODIES[pick(list(CTX_BODIES))]
    name = pick(["EVAL", "EVAL", "EVAL", "EVAL_RO"])
    if random.random() < 0.1:
        # EVALSHA of a script both servers know (SCRIPT FLUSH can make both answer NOSCRIPT).
        CTX_QUEUE.append([name.replace("EVAL", "EVALSHA"), hashlib.sha1(script.encode()).hexdigest(), str(len(keys))] + keys + inner)
        return ["SCRIPT", "LOAD", script]
    return [name, script, str(len(keys))] + keys + inner


def lua_tables(reply):
    """A RESP3 reply that went through Lua (redis.setresp(3)) with its maps and sets in a fixed order.

    NOT Redis's nondeterminism but a known Cinnabar difference, left for later (a large feature): a
    map or set comes to Lua as a table ({map=...}, {set=...}) and goes back to the client in the
    order lua_next walks that table, which in Redis's Lua 5.1 follows the layout of its hash part
    (luaS_hash of each key, the node array's size, the collision chains). Cinnabar's Lua (luaj)
    walks its own hash layout. Both hold the same pairs. In RESP3 only maps and sets are sorted; in
    RESP2 (where a map arrives as a flat array) every array at any depth is.

    Also known, and of luaj: a double of -0 (ZADD INCR -0.0) comes to Lua as {double=-0} in Redis,
    as 0 in Cinnabar, whose Lua numbers keep no negative zero (luaj makes every integral double an
    integer); it goes back to the client as 0."""
    if isinstance(reply, bytes) and reply == b"-0":
        return type(reply)(b"0")
    if isinstance(reply, Map):
        pairs = [(lua_tables(reply[i]), lua_tables(reply[i + 1])) for i in range(0, len(reply) - 1, 2)]
        return Map(x for pair in sorted(pairs, key=repr) for x in pair)
    if isinstance(reply, RSet):
        return RSet(sorted((lua_tables(x) for x in reply), key=repr))
    if isinstance(reply, list):
        items = [lua_tables(x) for x in reply]
        return type(reply)(items if RESP3 else sorted(items, key=repr))
    return reply


RESP3 = False  # set by main() for --resp3


def shape_free(cmd, reply):
    """True when cmd (or the command it runs from Lua) is in SHAPE_FREE and reply is not an error."""
    cmd = ctx_inner(cmd) or cmd
    return len(cmd) > 1 and (str(cmd[0]).upper(), str(cmd[1]).upper()) in SHAPE_FREE and not isinstance(reply, Error)


def random_spop(cmd, reply):
    """True when cmd (or the command it runs from Lua) is an SPOP with a count whose reply has that many
    members: which ones is random."""
    cmd = ctx_inner(cmd) or cmd
    return str(cmd[0]).upper() == "SPOP" and len(cmd) == 3 and isinstance(cmd[2], str) and cmd[2].isdigit() \
        and isinstance(reply, list) and len(reply) == int(cmd[2]) > 0


def ctx_inner(cmd):
    """The spec-generated command a ctx_script() command runs, or None."""
    if len(cmd) < 3 or not isinstance(cmd[0], str):
        return None
    name = cmd[0].upper()
    if name in ("EVAL", "EVAL_RO") and cmd[1] in CTX_SCRIPTS or name in ("FCALL", "FCALL_RO") and cmd[1] in CTX_FUNCTIONS \
            or name in ("EVALSHA", "EVALSHA_RO") and cmd[1] in CTX_SHAS:
        try:
            n = int(cmd[2])
        except ValueError:
            return None
        inner = cmd[3 + n:]
        return inner if 0 <= n and inner else None
    return None


CTX_SHAS = {hashlib.sha1(s.encode()).hexdigest(): s for s in CTX_SCRIPTS}


class InMulti(list):
    """A command sent only inside MULTI (where Redis refuses it): when the MULTI before it failed (the
    main loop gives commands a wrong arity now and then), PING goes in its place."""


def spec_refused(flag):
    """A command of SPEC_EXCLUDED that Redis refuses in a context before running it: flagged NO_MULTI
    (inside MULTI: "Command not allowed inside a transaction") or NOSCRIPT (from Lua: "This Redis
    command is not allowed from script"). MONITOR too inside MULTI, where EXEC answers its refusal.
    Arguments walked from the grammar, so that the arity check before the refusal passes."""
    words, spec = pick([(w, sp) for w, sp in SPEC_REFUSED if flag in sp.get("command_flags", [])
                        or flag == "NO_MULTI" and w == ["MONITOR"]])
    out = list(words)
    spec_walk(" ".join(words), spec.get("arguments") or [], out, {"group": spec.get("group")})
    return out


def spec_one():
    """One spec-generated command, or the first of a data-building run (the rest go to CTX_QUEUE)."""
    if random.random() < 0.2:
        cmds = spec_build()
        CTX_QUEUE.extend(cmds[1:])
        return cmds[0]
    return spec_command()


def spec_multi_family():
    """MULTI, 1-6 spec-generated commands (now and then one run from Lua), EXEC or DISCARD; a third of
    the time after a WATCH of a key that the commands before MULTI touch or not."""
    if CTX_QUEUE:
        return CTX_QUEUE.pop(0)
    if random.random() < 0.25:
        return spec_one()  # between transactions: data, and commands outside any MULTI
    seq = []
    if random.random() < 0.35:
        watched = [pick(SPEC_KEYS) for _ in range(random.randint(1, 2))]
        between = []
        for _ in range(random.randint(0, 2)):
            if random.random() < 0.4:
                # A write of a watched key (by this very client: EXEC then fails all the same).
                between.extend([c[:1] + [watched[0]] + c[2:] if c[0] != "XGROUP" else c for c in spec_build()])
            else:
                # Mostly a key it names: whether a command that fails, or changes nothing (SADD of a
                # member there, DEL of no key, EXPIRE of a missing key...), touches the WATCH.
                between.append(spec_command())
                named = ctx_keys(between[-1])
                if named and random.random() < 0.7:
                    watched[0] = pick(named)
        seq.append(["WATCH"] + watched)
        seq.extend(between)
    seq.append(["MULTI"])
    for _ in range(random.randint(1, 6)):
        r = random.random()
        if r < 0.04:
            seq.append(InMulti(spec_refused("NO_MULTI")))
        elif r < 0.06:
            seq.append(pick([["NOPE"], ["nope", "k0"], ["GET"], ["CLIENT", "NOPE"], ["CONFIG"]]))  # queue-time errors
        elif r < 0.15:
            seq.extend(spec_build())
        elif r < 0.25:
            inner = spec_command(nested=True)
            seq.append(ctx_script(inner))
            seq.extend(CTX_QUEUE)
            del CTX_QUEUE[:]
        else:
            seq.append(spec_command())
    seq.append(["EXEC"] if random.random() < 0.9 else ["DISCARD"])
    CTX_QUEUE.extend(seq[1:])
    return seq[0]


def spec_script_family():
    """A spec-generated command run from Lua (ctx_script), now and then data built outside."""
    if CTX_QUEUE:
        return CTX_QUEUE.pop(0)
    if random.random() < 0.2:
        # Data built outside (a top-level MULTI of spec_command's would queue the scripts instead).
        CTX_QUEUE.extend(spec_build())
        return CTX_QUEUE.pop(0)
    return ctx_script(spec_refused("NOSCRIPT") if random.random() < 0.05 else spec_command())


# ---- multi: several connections per server, the same script on both ----
#
# A scenario is a list of steps, generated before it runs (so both servers get the same one), run
# first on Redis and then on Cinnabar (each side on its own: a side's timeouts and pauses do not
# wait for the other's), and compared step by step. Each side has MULTI_CONNS connections, and one
# more, ctl, for barriers (CLIENT LIST ID, never compared itself).
#   ("call", j, cmd)   cmd on connection j, then PING <token>: every reply and push before the
#                      token's answer (the pushes already sent, in the order they came); inside
#                      MULTI just the one reply (the PING would be queued)
#   ("send", j, cmd)   cmd without its reply (a command that blocks), then a barrier: the server
#                      has taken it when CLIENT LIST shows j blocked (flag b) or its reply came;
#                      which of the two is compared ("<blocked>", "<answered>")
#   ("send!", j, cmd)  the same without the barrier (CLIENT PAUSE ALL postpones CLIENT LIST too)
#   ("poll", j)        a connection that was sent a blocking command: "<blocked>" if CLIENT LIST
#                      still says so, else its reply (which the server wrote before the reply of the
#                      command that served it, so it is on its way)
#   ("read", j)        its next reply, waited for (up to 3 s: a timeout, the end of a pause)
#   ("quiet", j, ms)   "<nothing>" if nothing came within ms, else what came
#   ("sleep", ms)      time passes (expiry)
# Placeholders in commands: Id(j), the client id of connection j on that side; Addr(j), its
# address as the server sees it (ip:port). Ids in replies are mapped back to "#j" (see multi_norm).

MULTI_CONNS = 4
TOKEN = "multi-sync"


class Id:
    def __init__(self, j):
        self.j = j

    def __repr__(self):
        return "Id(%d)" % self.j


class Addr:
    def __init__(self, j):
        self.j = j

    def __repr__(self):
        return "Addr(%d)" % self.j


class Arrivals(list):
    """What came on a connection for one step: replies and pushes, in order."""


class Side:
    """One server's connections for the multi family."""

    def __init__(self, port, resp3):
        self.port, self.resp3 = port, resp3
        self.conns = [None] * MULTI_CONNS
        self.ids, self.addrs = {}, {}
        self.ctl = None
        self.pending = set()  # connections sent a command whose reply is not read yet
        self.in_multi = set()
        for j in range(MULTI_CONNS):
            self.open(j)

    def open(self, j):
        conn = connect(self.port)
        conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.resp3:
            conn.call(["HELLO", "3"])
        self.conns[j] = conn
        self.ids[j] = conn.call(["CLIENT", "ID"])
        self.addrs[j] = "%s:%d" % conn.sock.getsockname()[:2]
        self.pending.discard(j)
        self.in_multi.discard(j)

    def control(self, cmd):
        """A command on ctl (reopened when a CLIENT KILL closed it: it is never compared)."""
        for attempt in (0, 1):
            try:
                if self.ctl is None:
                    self.ctl = connect(self.port)
                    self.ids["ctl"] = self.ctl.call(["CLIENT", "ID"])
                return self.ctl.call(cmd)
            except (ConnectionError, OSError):
                self.ctl = None
                if attempt:
                    raise

    def resolve(self, cmd):
        return [str(self.ids[x.j]) if isinstance(x, Id) else self.addrs[x.j] if isinstance(x, Addr) else x for x in cmd]

    def blocked(self, j):
        line = self.control(["CLIENT", "LIST", "ID", str(self.ids[j])])
        flags = re.search(rb"flags=(\S*)", line)
        return bool(flags and b"b" in flags.group(1))

    def arrived(self, j, wait):
        """Whether connection j has bytes to read within wait seconds."""
        conn = self.conns[j]
        if conn.buf:
            return True
        ready, _, _ = select.select([conn.sock], [], [], wait)
        return bool(ready)

    def read(self, j, wait=3.0):
        conn = self.conns[j]
        if conn is None:
            return "<closed>"
        try:
            if not self.arrived(j, wait):
                return "<no reply>"
            reply = conn.read()
            # RESP3 pushes that came while the command waited come before its reply.
            pushes = Arrivals()
            while isinstance(reply, Push):
                pushes.append(reply)
                reply = conn.read()
        except (ConnectionError, OSError):
            self.conns[j] = None
            return "<closed>"
        self.pending.discard(j)
        return Arrivals(pushes + [reply]) if pushes else reply

    def step(self, st):
        kind, j = st[0], st[1] if len(st) > 1 else None
        if kind == "sleep":
            time.sleep(st[1] / 1000)
            return None
        conn = self.conns[j]
        if conn is None:
            return "<closed>"
        if kind == "call":
            cmd = self.resolve(st[2])
            name = cmd[0].upper()
            out = Arrivals()
            try:
                if j in self.in_multi or name == "MULTI":
                    # (A PING after MULTI would be queued.)
                    conn.sock.sendall(resp.command(cmd))
                    out = Arrivals([conn.read()])
                else:
                    conn.sock.sendall(resp.command(cmd) + resp.command(["PING", TOKEN]))
                    while True:
                        reply = conn.read()
                        if reply == TOKEN.encode() or (isinstance(reply, list) and reply == [b"pong", TOKEN.encode()]):
                            break
                        out.append(reply)
            except (ConnectionError, OSError):
                self.conns[j] = None
                return Arrivals(out + ["<closed>"])
            if name == "MULTI" and out[:1] == ["OK"]:
                self.in_multi.add(j)
            elif name in ("EXEC", "DISCARD", "RESET") and not (out and isinstance(out[0], Error) and "wrong number" in out[0]):
                self.in_multi.discard(j)
            return out
        if kind in ("send", "send!"):
            conn.sock.sendall(resp.command(self.resolve(st[2])))
            self.pending.add(j)
            if kind == "send!":
                return None
            deadline = time.time() + 3
            while time.time() < deadline:
                if self.arrived(j, 0.002):
                    return "<answered>"
                if self.blocked(j):
                    return "<blocked>"
            return "<neither blocked nor answered>"
        if kind == "poll":
            if j not in self.pending:
                return "<nothing pending>"
            return "<blocked>" if self.blocked(j) else self.read(j)
        if kind == "read":
            return self.read(j)
        if kind == "quiet":
            return self.read(j, st[2] / 1000) if self.arrived(j, st[2] / 1000) else "<nothing>"
        raise ValueError(st)

    def finish(self):
        """Ends a scenario: what each connection still had coming (compared), then every
        connection back to a fresh state and the data set empty."""
        self.control(["CLIENT", "UNPAUSE"])
        leftovers = []
        for j in range(MULTI_CONNS):
            got = []
            if j in self.pending and self.conns[j] is not None:
                self.control(["CLIENT", "UNBLOCK", str(self.ids[j])])
                got.append(self.read(j))
            if self.conns[j] is not None:
                # RESET leaves MULTI, subscribed mode, tracking, the db and the name behind (and RESP3).
                try:
                    self.conns[j].sock.sendall(resp.command(["RESET"]))
                    while True:
                        reply = self.conns[j].read()
                        if reply == "RESET":
                            break
                        got.append(reply)
                except (ConnectionError, OSError):
                    self.conns[j] = None
            leftovers.append(Arrivals(got))
        for j in range(MULTI_CONNS):
            if self.conns[j] is None:
                self.open(j)
            elif self.resp3:
                self.conns[j].call(["HELLO", "3"])
            self.pending.discard(j)
            self.in_multi.discard(j)
        for j in range(MULTI_CONNS):
            self.conns[j].call(["CLIENT", "NO-EVICT", "off"])  # (RESET keeps it)
        for cmd in (["FLUSHALL"], ["ACL", "DELUSER", "u1"], ["SCRIPT", "FLUSH"], ["CONFIG", "SET", "maxmemory-policy", "noeviction"]):
            self.control(cmd)
        # Killed connections leave CLIENT LIST when the server has seen them close.
        deadline = time.time() + 3
        while time.time() < deadline and self.control(["CLIENT", "LIST"]).count(b"\n") > MULTI_CONNS + 1:
            time.sleep(0.005)
        return leftovers

    def run(self, steps):
        results = []
        for st in steps:
            results.append(self.step(st))
        results.append(self.finish())
        return results


PUSH_KINDS = {b"message", b"pmessage", b"smessage", b"invalidate", b"tracking-redir-broken", b"subscribe", b"psubscribe",
              b"ssubscribe", b"unsubscribe", b"punsubscribe", b"sunsubscribe"}


def is_push(x):
    return isinstance(x, Push) or (isinstance(x, list) and len(x) > 1 and isinstance(x[0], bytes) and x[0] in PUSH_KINDS)


def pattern_runs(replies):
    """A message reaches a client's patterns in the order of Redis's dict of patterns, which hashes
    with a seed drawn at random in each process: pmessages of one publication (same channel and
    payload, one after the other) are compared sorted by pattern."""
    out, run, end = [], [], object()
    for x in replies + [end]:
        if run and not (is_push(x) and x[0] == b"pmessage" and x[2:] == run[0][2:]):
            out.extend(sorted(run, key=lambda m: m[1]))
            run = []
        if is_push(x) and x[0] == b"pmessage":
            run.append(x)
        elif x is not end:
            out.append(x)
    return out


def multi_norm(cmd, result, back):
    """A step's result, with client ids mapped back to the connection they name (back: id -> "#j")."""
    def ident(x):
        # -1 and 0 are no client's id: GETREDIR's "not tracking" and "tracking, no redirection".
        return back.get(x, "#other") if isinstance(x, int) and x > 0 else x

    def one(x):
        if is_push(x):
            if x[0] == b"tracking-redir-broken":
                return [x[0], ident(x[1])]
            return list(x)
        if not cmd:
            return x
        words = [str(w).upper() for w in cmd[:2]] if cmd else []
        if words in (["CLIENT", "ID"], ["CLIENT", "GETREDIR"]):
            return ident(x)
        if words == ["CLIENT", "TRACKINGINFO"] and isinstance(x, list):
            return [ident(v) if k == b"redirect" else v for k, v in zip(x[0::2], x[1::2])]
        if words in (["CLIENT", "LIST"], ["CLIENT", "INFO"]) and isinstance(x, bytes):
            return multi_client_lines(x, back)
        if words[:1] == ["HELLO"] and isinstance(x, list):
            return [ident(v) if k == b"id" else v for k, v in zip(x[0::2], x[1::2])]
        if words and words[0] == "PUBSUB" and isinstance(x, list):
            return sorted(x, key=repr)
        return normalise(cmd, x)

    if isinstance(result, Arrivals):
        if cmd and str(cmd[0]).upper() in ("UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE") and len(cmd) == 1:
            # From all: see normalise (the client's channels in hash table order).
            mine = [x for x in result if is_push(x) and x[0] == str(cmd[0]).lower().encode()]
            return [normalise(cmd, mine)] + pattern_runs([one(x) for x in result if not any(x is m for m in mine)])
        return pattern_runs([one(x) for x in result])
    return one(result)


def multi_client_lines(reply, back):
    """CLIENT LIST / INFO: ids (and tracking's redir) as the connection they name; what differs
    between any two processes (addresses, ages, buffers: CLIENT_VOLATILE) by name only."""
    lines = []
    for line in reply.rstrip(b"\n").split(b"\n"):
        fields = []
        for f in line.split(b" "):
            name, _, value = f.partition(b"=")
            if name in (b"id", b"redir"):
                fields.append(name + b"=" + (str(back.get(int(value), "#other")).encode() if int(value) > 0 else value))
            elif name in CLIENT_VOLATILE:
                fields.append(name)
            elif f:
                fields.append(f)
        lines.append(fields)
    # Redis's clientsCron moves the last client of its list to the front each time it runs (hz
    # times a second, listRotateTailToHead): CLIENT LIST's order is a rotation of the order the
    # clients came in, depending on when it is asked. Compared sorted.
    return sorted(lines)


BKEYS = ["bk0", "bk1", "bk2"]
ELEMS = ["a", "b", "c", "d", "e", "1", "2"]


class Scenario(list):
    """The steps of one multi scenario, with a counter for the explicit stream ids it uses (ids
    XADD * takes from the clock would differ between the servers)."""

    def __init__(self):
        super().__init__()
        self.seq = 0

    def stream_id(self):
        self.seq += 1
        return "%d-1" % self.seq

    def call(self, j, *cmd):
        self.append(("call", j, list(cmd)))

    def transaction(self, j, cmds):
        self.call(j, "MULTI")
        for c in cmds:
            self.call(j, *c)
        self.call(j, pick(["EXEC", "EXEC", "EXEC", "DISCARD"]))


def block_command(kind, keys, timeout):
    """A command of kind that blocks on keys for timeout seconds (0: for ever)."""
    ms = str(int(float(timeout) * 1000))
    side = lambda: pick(["LEFT", "RIGHT"])
    count = lambda: opts([("COUNT", pick(["1", "2", "5"]))])
    return {
        "list": lambda: pick([
            lambda: [pick(["BLPOP", "BRPOP"])] + keys + [timeout],
            lambda: ["BLMOVE", keys[0], pick(BKEYS + ["dst"]), side(), side(), timeout],
            lambda: ["BRPOPLPUSH", keys[0], pick(BKEYS + ["dst"]), timeout],
            lambda: ["BLMPOP", timeout, str(len(keys))] + keys + [side()] + count(),
        ])(),
        "zset": lambda: pick([
            lambda: [pick(["BZPOPMIN", "BZPOPMAX"])] + keys + [timeout],
            lambda: ["BZMPOP", timeout, str(len(keys))] + keys + [pick(["MIN", "MAX"])] + count(),
        ])(),
        # $: what comes after the call; now and then an id already behind (answered at once if data is there).
        "stream": lambda: ["XREAD"] + count() + ["BLOCK", ms, "STREAMS"] + keys + [pick(["$", "$", "$", "0-0"]) for _ in keys],
        "group": lambda: ["XREADGROUP", "GROUP", "g", pick(["c1", "c2"])] + count() + opts(["NOACK"])
                         + ["BLOCK", ms, "STREAMS"] + keys + [pick([">", ">", ">", "0"]) for _ in keys],
    }[kind]()


def block_data(kind, sc, k):
    """A command that makes k hold data of kind (which serves a client blocked on it)."""
    if kind == "list":
        return [pick(["LPUSH", "RPUSH"]), k] + some(ELEMS, 1, 5)
    if kind == "zset":
        return ["ZADD", k] + flat([(str(random.randint(0, 9)), pick(ELEMS)) for _ in range(random.randint(1, 4))])
    return ["XADD", k] + opts([("MAXLEN", pick(["0", "1", "5"]))]) + [sc.stream_id(), "f", pick(ELEMS)]


def lua_call(cmd, key_ref):
    """cmd as a redis.call from Lua, its key (cmd[1]) replaced by key_ref (KEYS[n])."""
    return "redis.call(%s)" % ", ".join([repr(cmd[0]), key_ref] + [repr(x) for x in cmd[2:]])


def serve_action(kind, sc, j, blockers):
    """Something connection j does that may serve, move or end a blocked client (or not)."""
    k = pick(BKEYS)
    data = lambda key=None: block_data(kind, sc, key or pick(BKEYS))
    same_type_copy = {"list": ["LMOVE", "src", k, "LEFT", "RIGHT"], "zset": ["ZUNIONSTORE", k, "1", "src"],
                      "stream": ["COPY", "src", k], "group": ["COPY", "src", k]}[kind]
    r = random.random()
    if r < 0.35:
        sc.call(j, *data(k))
    elif r < 0.45:
        sc.transaction(j, [pick([data, data, lambda: ["DEL", pick(BKEYS)], lambda: ["SET", pick(BKEYS), "s"]])()
                           for _ in range(random.randint(1, 3))])
    elif r < 0.52:
        # From Lua: the clients are served once the script is done.
        body = "%s; return %s" % (lua_call(data(), "KEYS[1]"), lua_call(data(), "KEYS[2]"))
        sc.call(j, "EVAL", body, "2", pick(BKEYS), pick(BKEYS))
    elif r < 0.6:
        sc.call(j, *data("src"))
        sc.call(j, *pick([same_type_copy, ["RENAME", "src", k], ["COPY", "src", k, "REPLACE"]]))
    elif r < 0.7:
        sc.call(j, *pick([["DEL", k], ["SET", k, "s"], ["RENAME", k, "away"], ["FLUSHDB"], ["FLUSHALL"], ["EXPIRE", k, "0"]]))
    elif r < 0.78:
        # Data that comes from another database.
        sc.call(j, "SELECT", "1")
        sc.call(j, *data(k))
        sc.call(j, *pick([["MOVE", k, "0"], ["SWAPDB", "0", "1"], ["SWAPDB", "1", "0"]]))
        sc.call(j, "SELECT", "0")
    elif r < 0.88 and blockers:
        sc.call(j, "CLIENT", "UNBLOCK", Id(pick(blockers)), *opts(["TIMEOUT", "ERROR"]))
    elif kind == "group":
        sc.call(j, *pick([["XGROUP", "DESTROY", k, "g"], ["XGROUP", "SETID", k, "g", "$"], ["XTRIM", k, "MAXLEN", "0"],
                          ["XGROUP", "CREATE", k, "g", "$", "MKSTREAM"], ["XGROUP", "DELCONSUMER", k, "g", "c1"]]))
    elif kind == "list":
        sc.call(j, *pick([["LPUSHX", k, "x"], ["LINSERT", k, "BEFORE", "a", "x"], ["SORT", "src", "ALPHA", "STORE", k],
                          ["RPOPLPUSH", "src", k], ["LMPOP", "1", k, "LEFT"]]))
    else:
        sc.call(j, *data(k))


def multi_blocking(resp3):
    """Clients blocked on keys of one type, served (or not) by what another connection does."""
    sc = Scenario()
    kind = pick(["list", "list", "zset", "stream", "group"])
    if kind == "group":
        for k in BKEYS:
            sc.call(0, "XGROUP", "CREATE", k, "g", "$", "MKSTREAM")
    if random.random() < 0.3:
        sc.call(0, *block_data(kind, sc, pick(BKEYS)))
    blockers = random.sample([1, 2, 3], random.randint(1, 3))
    waiting = []
    for j in blockers:
        keys = random.sample(BKEYS, random.randint(1, 2))
        if random.random() < 0.2:
            # A short timeout: its nil (or empty) reply, then the connection is done.
            sc.append(("send", j, block_command(kind, keys, pick(["0.05", "0.02"]))))
            sc.append(("read", j))
        else:
            sc.append(("send", j, block_command(kind, keys, pick(["0", "10"]))))
            waiting.append(j)
    for _ in range(random.randint(1, 5)):
        serve_action(kind, sc, 0, waiting)
        for j in waiting:
            sc.append(("poll", j))
    sc.call(0, "CLIENT", "LIST")
    return sc


WATCH_ACTIONS = [
    lambda k: [["SET", k, "x"]], lambda k: [["SET", k, "v"]], lambda k: [["GET", k]], lambda k: [["SET", "other", "x"]],
    lambda k: [["DEL", k]], lambda k: [["DEL", "nokey"]], lambda k: [["EXPIRE", k, "100"]], lambda k: [["PERSIST", k]],
    lambda k: [["APPEND", k, ""]], lambda k: [["LPUSH", k, "a"]], lambda k: [["RENAME", "other", k]], lambda k: [["MOVE", k, "1"]],
    lambda k: [["FLUSHALL"]], lambda k: [["FLUSHDB"]], lambda k: [["SWAPDB", "0", "1"]], lambda k: [["EXPIRE", k, "0"]],
    lambda k: [["SELECT", "1"], ["SET", k, "x"], ["SELECT", "0"]], lambda k: [["SELECT", "1"], ["FLUSHDB"], ["SELECT", "0"]],
    lambda k: [["EVAL", "return redis.call('set', KEYS[1], 'y')", "1", k]], lambda k: [["GETDEL", "nokey"]],
    lambda k: [["MULTI"], ["INCR", k], ["EXEC"]], lambda k: [["SET", k, "x", "NX"]], lambda k: [["FLUSHALL", "ASYNC"]],
    lambda k: [["SET", k, "v", "PX", "20"], "sleep", ["EXISTS", k]], lambda k: [["PEXPIRE", k, "20"], "sleep"],
]


def multi_watch(resp3):
    """WATCH on one connection, writes (or reads) from others, then its EXEC."""
    sc = Scenario()
    k = pick(["w0", "w1"])
    for setup in random.sample([["SET", k, "v"], ["SET", "other", "o"], ["SET", k, "v", "PX", "20"], ["RPUSH", k, "a"]],
                               random.randint(0, 2)):
        sc.call(0, *setup)
    if any("PX" in step[2] for step in sc):
        sc.append(("sleep", 40))  # the key expired before WATCH
    db = pick(["0", "0", "1"])
    if db == "1":
        sc.call(1, "SELECT", "1")
        if random.random() < 0.5:
            sc.call(1, "SET", k, "one")
    sc.call(1, "WATCH", *random.sample([k, "other", "w2"], random.randint(1, 2)))
    for _ in range(random.randint(0, 3)):
        j = pick([0, 0, 2, 1])
        for cmd in pick(WATCH_ACTIONS)(k):
            if cmd == "sleep":
                sc.append(("sleep", 40))
            else:
                sc.call(j, *cmd)
    sc.call(pick([1, 3]), "CLIENT", "LIST")
    sc.call(1, "MULTI")
    sc.call(1, "GET", k)
    sc.call(1, "SET", "res", "done")
    sc.call(1, pick(["EXEC", "EXEC", "EXEC", "DISCARD"]))
    sc.call(1, "EXISTS", "res")
    return sc


TKEYS = ["t:a", "t:b", "u:c", "v"]
TRACK_READS = [lambda k: ["GET", k], lambda k: ["MGET", k, pick(TKEYS)], lambda k: ["EXISTS", k], lambda k: ["STRLEN", k],
               lambda k: ["HGET", k, "f"], lambda k: ["TYPE", k], lambda k: ["GETRANGE", k, "0", "1"], lambda k: ["TTL", k]]
TRACK_WRITES = [lambda k: ["SET", k, pick(ELEMS)], lambda k: ["DEL", k], lambda k: ["INCR", k], lambda k: ["HSET", k, "f", "1"],
                lambda k: ["MSET", k, "1", pick(TKEYS), "2"], lambda k: ["APPEND", k, "z"], lambda k: ["EXPIRE", k, "100"],
                lambda k: ["RENAME", k, pick(TKEYS)], lambda k: ["SET", k, "1", "NX"], lambda k: ["UNLINK", k],
                lambda k: ["EVAL", "return redis.call('set', KEYS[1], 'lua')", "1", k], lambda k: ["SETRANGE", k, "0", "q"]]


def multi_tracking(resp3):
    """CLIENT TRACKING on one or two connections (RESP3 pushes, or redirected to a subscriber of
    __redis__:invalidate), reads and writes from every connection, and what each one is told."""
    sc = Scenario()
    redirect = not resp3 or random.random() < 0.4
    if redirect:
        sc.call(3, "SUBSCRIBE", "__redis__:invalidate")
    trackers = random.sample([1, 2], random.randint(1, 2))
    for j in trackers:
        mode = opts([("BCAST",)], ["OPTIN", "OPTOUT"], ["NOLOOP"])
        if "BCAST" in mode and random.random() < 0.7:
            mode += flat(("PREFIX", p) for p in random.sample(["t:", "u", "v", "t:a"], random.randint(1, 2)))
        sc.call(j, "CLIENT", "TRACKING", "ON", *((["REDIRECT", Id(3)] if redirect else []) + mode))
    for _ in range(random.randint(4, 14)):
        r, k, t = random.random(), pick(TKEYS), pick(trackers)
        if r < 0.3:
            if random.random() < 0.3:
                sc.call(t, "CLIENT", "CACHING", pick(["yes", "no"]))
            sc.call(t, *pick(TRACK_READS)(k))
        elif r < 0.6:
            sc.call(pick([0, 0, 1, 2]), *pick(TRACK_WRITES)(k))
        elif r < 0.66:
            sc.transaction(0, [pick(TRACK_WRITES)(pick(TKEYS)) for _ in range(random.randint(1, 3))])
        elif r < 0.7:
            sc.call(pick([0, t]), *pick([["FLUSHDB"], ["FLUSHALL"], ["FLUSHDB", "ASYNC"]]))
        elif r < 0.75:
            # Expiry: told when the key is deleted (here by the access at the latest).
            # (PX long enough for the GET to come first on a JVM not warmed up yet.)
            sc.call(0, "SET", k, "e", "PX", "100")
            sc.call(t, "GET", k)
            sc.append(("sleep", 150))
            sc.call(0, "EXISTS", k)
        elif r < 0.8:
            sc.call(0, "SELECT", "1")
            sc.call(0, *pick(TRACK_WRITES)(k))
            sc.call(0, "SELECT", "0")
        elif r < 0.88:
            sc.call(t, "CLIENT", pick(["TRACKINGINFO", "GETREDIR"]))
        elif r < 0.92:
            sc.call(t, "CLIENT", "TRACKING", "OFF")
        elif r < 0.94 and redirect:
            sc.call(0, "CLIENT", "KILL", "ID", Id(3))
        else:
            sc.call(pick(trackers + [3]), "PING")
    for j in (1, 2, 3):
        sc.call(j, "PING")
    return sc


CHANNELS = ["ch1", "ch2", "news.a", "news.b"]
PATTERNS = ["ch*", "news.*", "*", "ch?", "n*s.[ab]", "ch1"]


def multi_pubsub(resp3):
    """Subscribers with overlapping channels and patterns, publishers, and what each one gets."""
    sc = Scenario()
    subs = random.sample([1, 2, 3], random.randint(1, 3))
    for j in subs:
        if random.random() < 0.7:
            sc.call(j, "SUBSCRIBE", *random.sample(CHANNELS, random.randint(1, 3)))
        if random.random() < 0.6:
            sc.call(j, "PSUBSCRIBE", *random.sample(PATTERNS, random.randint(1, 3)))
        if random.random() < 0.2:
            sc.call(j, "SSUBSCRIBE", *random.sample(CHANNELS, random.randint(1, 2)))
    for _ in range(random.randint(3, 12)):
        r, s = random.random(), pick(subs)
        if r < 0.35:
            sc.call(0, "PUBLISH", pick(CHANNELS + ["other"]), pick(ELEMS))
        elif r < 0.4:
            sc.call(0, "SPUBLISH", pick(CHANNELS), pick(ELEMS))
        elif r < 0.45:
            sc.call(0, "EVAL", "return redis.call('publish', KEYS[1], ARGV[1])", "1", pick(CHANNELS), "lua")
        elif r < 0.5:
            sc.transaction(0, [["PUBLISH", pick(CHANNELS), pick(ELEMS)] for _ in range(random.randint(1, 3))])
        elif r < 0.6:
            sc.call(s, pick(["UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE"]),
                    *random.sample(CHANNELS if random.random() < 0.5 else PATTERNS, random.randint(0, 2)))
        elif r < 0.68:
            sc.call(s, pick(["SUBSCRIBE", "PSUBSCRIBE"]), pick(CHANNELS + PATTERNS))
        elif r < 0.75:
            # RESP3 allows any command while subscribed (its reply among the pushes); RESP2 refuses it.
            sc.call(s, *pick([["GET", "k"], ["ECHO", "hi"], ["PUBLISH", pick(CHANNELS), "self"], ["CLIENT", "INFO"]]))
        elif r < 0.8:
            sc.call(pick([0, s]), "PUBSUB", *pick([["NUMSUB"] + random.sample(CHANNELS, 2), ["NUMPAT"], ["CHANNELS"],
                                                    ["CHANNELS", "news.*"], ["SHARDCHANNELS"], ["SHARDNUMSUB", "ch1"]]))
        elif r < 0.85 and resp3:
            # A push while a command of the same connection is blocked: it comes before the reply.
            sc.append(("send", s, ["BLPOP", "bk0", "0"]))
            sc.call(0, "PUBLISH", pick(CHANNELS), "while-blocked")
            sc.call(0, "RPUSH", "bk0", "x")
            sc.append(("read", s))
        else:
            sc.call(s, "PING")
    for j in subs:
        sc.call(j, "PING")
    return sc


CLIENT_SETUP = [
    lambda j: [["CLIENT", "SETNAME", "conn%d" % j]], lambda j: [["SELECT", pick(["1", "2"])]], lambda j: [["HELLO", pick(["2", "3"])]],
    lambda j: [["SUBSCRIBE", "ch1"]], lambda j: [["PSUBSCRIBE", "ch*", "x*"]], lambda j: [["WATCH", "k1", "k2"]],
    lambda j: [["AUTH", "u1", "pw"]], lambda j: [["CLIENT", "NO-EVICT", "on"]], lambda j: [["CLIENT", "TRACKING", "ON", "BCAST"]],
    lambda j: [["MULTI"], ["SET", "k", "v"]], lambda j: [["SSUBSCRIBE", "ch2"]], lambda j: [["READONLY"]],
]


def client_kill():
    j = random.randint(0, MULTI_CONNS - 1)
    return pick([
        lambda: ["ID", Id(j)], lambda: ["USER", pick(["u1", "default", "nobody"])], lambda: ["TYPE", pick(["normal", "pubsub"])],
        lambda: ["ADDR", Addr(j)], lambda: [Addr(j)], lambda: ["ID", Id(j), "TYPE", pick(["normal", "pubsub"])],
        lambda: ["USER", "u1", "SKIPME", pick(["yes", "no"])], lambda: ["TYPE", "pubsub", "SKIPME", pick(["yes", "no"])],
        lambda: ["ID", Id(j), "SKIPME", pick(["yes", "no"])], lambda: ["TYPE", pick(["replica", "master", "slave"])],
        lambda: ["ID", Id(j), "ID", Id((j + 1) % MULTI_CONNS)], lambda: ["MAXAGE", "100000"],
    ])()


def multi_clients(resp3):
    """What CLIENT LIST/INFO say of the other connections, CLIENT KILL's filters, CLIENT PAUSE."""
    sc = Scenario()
    sc.call(0, "ACL", "SETUSER", "u1", "on", ">pw", "~*", "&*", "+@all")
    for j in range(MULTI_CONNS):
        for setup in random.sample(CLIENT_SETUP, random.randint(0, 3)):
            for cmd in setup(j):
                sc.call(j, *cmd)
    q = lambda: pick([["CLIENT", "LIST"], ["CLIENT", "LIST", "TYPE", pick(["normal", "pubsub", "master", "replica"])],
                      ["CLIENT", "LIST", "ID", Id(random.randint(0, 3)), Id(random.randint(0, 3))], ["CLIENT", "INFO"]])
    for _ in range(random.randint(1, 3)):
        sc.call(random.randint(0, 3), *q())
    r = random.random()
    if r < 0.5:
        sc.call(random.randint(0, 3), "CLIENT", "KILL", *client_kill())
        for j in range(MULTI_CONNS):
            sc.call(j, "PING")
    elif r < 0.85:
        # CLIENT PAUSE WRITE: writes wait (flag b, answered in order when it ends), reads go on.
        sc.call(0, "CLIENT", "PAUSE", pick(["500", "300"]), *opts(["WRITE", "ALL"], ["WRITE"]) or ["WRITE"])
        if sc[-1][2][-1] == "ALL":
            sc.append(("send!", 1, pick([["GET", "k"], ["SET", "k", "p"]])))
            sc.append(("quiet", 1, 30))
            sc.append(("read", 1))
        else:
            for j in (1, 2):
                cmd = pick([["SET", "k", "p%d" % j], ["GET", "k"], ["PUBLISH", "ch1", "x"], ["EVAL", "return 1", "0"],
                            ["EVAL", "#!lua flags=no-writes\nreturn 1", "0"], ["INCR", "n"], ["CLIENT", "LIST"]])
                sc.append(("send", j, cmd))
            sc.call(3, *q())
            # Never CLIENT UNBLOCK of a client the pause holds: Redis 7.0.15 panics ("Unknown btype in
            # replyToBlockedClientTimedOut()"), and finish() unpauses before it unblocks.
            if random.random() < 0.8:
                sc.call(3, "CLIENT", "UNPAUSE")
            sc.append(("read", 1))
            sc.append(("read", 2))
            sc.call(3, "MGET", "k", "n")
    else:
        sc.call(pick([0, 1]), "CLIENT", "NO-EVICT", pick(["on", "off"]))
        sc.call(2, *q())
    return sc


MULTI_SCENARIOS = [multi_blocking, multi_blocking, multi_watch, multi_tracking, multi_tracking, multi_pubsub, multi_clients]


def multi_family():
    """Only run through run_multi (see main): a scenario of several connections, not one command."""
    raise RuntimeError("multi runs alone: --families multi")


def step_words(st):
    return [repr(x) if isinstance(x, (Id, Addr)) else x for x in st[2]] if st[0] in ("call", "send", "send!") else None


def run_multi(a, rport, cport):
    """-n scenarios of MULTI_SCENARIOS, each run on Redis then on Cinnabar, compared step by step."""
    sides = [Side(rport, a.resp3), Side(cport, a.resp3)]
    for s in sides:
        s.finish()
    mismatches = steps_run = 0
    for i in range(a.n):
        make = pick(MULTI_SCENARIOS)
        sc = make(a.resp3)
        sc.kind = make.__name__
        runs = []
        for s in sides:
            results, blocking = [], {}
            for st in sc:
                back = {v: "#%s" % k for k, v in s.ids.items()}
                raw = s.step(st)
                if st[0] in ("send", "send!"):
                    blocking[st[1]] = step_words(st)
                words = step_words(st) if st[0] == "call" else blocking.get(st[1]) if st[0] in ("poll", "read", "quiet") else None
                results.append((raw, multi_norm(words, raw, back)))
            back = {v: "#%s" % k for k, v in s.ids.items()}
            leftovers = s.finish()
            results.append((leftovers, [multi_norm(None, got, back) for got in leftovers]))
            runs.append(results)
        steps_run += len(sc)
        labels = [st for st in sc] + [("finish",)]
        for n, (st, (rraw, rn), (craw, cn)) in enumerate(zip(labels, runs[0], runs[1])):
            if rn != cn or (a.resp3 and repr(shape(rraw)) != repr(shape(craw))):
                mismatches += 1
                if mismatches <= a.max_report:
                    print("#%d %s, step %d: %s\n  redis:    %r\n  cinnabar: %r" % (
                        i, sc_name(sc), n, st_text(st), rn, cn))
                    if rn == cn:
                        print("  types:    %r\n  vs:       %r" % (shape(rraw), shape(craw)))
                    for m, (st2, (r2, _), (c2, _)) in enumerate(zip(labels, runs[0], runs[1])):
                        if m < n:
                            print("    %2d %-60s %r%s" % (m, st_text(st2), r2, "" if r2 == c2 else "  / %r" % (c2,)))
                break
    print("seed %d: %d scenarios (%d steps), %d mismatches" % (a.seed_used, a.n, steps_run, mismatches))
    return 1 if mismatches else 0


def st_text(st):
    if st[0] in ("call", "send", "send!"):
        return "%s c%d %s" % (st[0], st[1], " ".join(map(repr, step_words(st))))
    return " ".join(map(str, st))


def sc_name(sc):
    return getattr(sc, "kind", "scenario")


FAMILIES = {
    "string": strings, "keys": keys_family, "list": lists, "hash": hashes, "set": sets,
    "zset": zsets, "scripting": scripting, "tx": transactions, "misc": misc,
    "stream": streams, "bitmap": bitmaps, "hll": hyperloglogs, "geo": geos,
    "string2": strings_extra, "coll2": collections_extra, "encoding": encodings, "keys2": keys_extra, "typed": typed,
    "blocking": blocking, "scripts2": scripts_extra, "function": functions, "scan": scans,
    "config": configs, "server": servers_family, "acl": acls, "subscribe": subscriptions, "spec": spec_family,
    "spec-multi": spec_multi_family, "spec-script": spec_script_family, "multi": multi_family,
}

# Replies Redis leaves unordered: compared as sorted lists.
UNORDERED = {"SMEMBERS", "SINTER", "SUNION", "SDIFF", "KEYS", "HKEYS", "HVALS", "SPOP", "PUBSUB"}
# Replies that hold a time or an internal detail: only the reply kind is compared.
SHAPE_ONLY = {"TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME", "LASTSAVE"}
# DUMP payloads by their RDB type byte: compared byte for byte for strings, lists, intsets, listpacks
# and skiplist sorted sets (written in score order); by length for hash-table sets and hashes
# (written in their table's order); streams hold times and generated ids: shape only.
DUMP_EXACT = {0, 5, 11, 16, 17, 18}
DUMP_TABLE_ORDER = {2, 4}


AUTO_ID = re.compile(rb"^1[6-9]\d{11}-\d+$")
STREAM_COMMANDS = {"XADD", "XRANGE", "XREVRANGE", "XREAD", "XREADGROUP", "XPENDING", "XCLAIM", "XAUTOCLAIM", "XINFO", "XSETID", "XTRIM", "XDEL"}
# Fields of XINFO that hold the time of an event: they differ by the milliseconds between the two servers.
XINFO_TIMES = {b"idle", b"seen-time", b"inactive"}
GEO_COMMANDS = {"GEOPOS", "GEODIST", "GEOSEARCH", "GEORADIUS", "GEORADIUS_RO", "GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER_RO"}
RANDOM_PICKS = {"SRANDMEMBER": 1, "HRANDFIELD": 2, "ZRANDMEMBER": 2}


def stream_times(reply):
    """Ids that XADD * made from the clock become <auto>; absolute times in ms become <time>."""
    if isinstance(reply, bytes) and AUTO_ID.match(reply):
        return "<auto>"
    if isinstance(reply, int) and reply > 10 ** 12:
        return "<time>"
    if isinstance(reply, list):
        out = [stream_times(x) for x in reply]
        for i in range(0, len(out) - 1):
            if isinstance(out[i], bytes) and out[i] in XINFO_TIMES and isinstance(out[i + 1], int):
                out[i + 1] = "<elapsed>"
        return out
    return reply


def geo_floats(reply):
    """Coordinates and distances are doubles printed as strings: compared to 9 significant digits."""
    if isinstance(reply, list):
        return [geo_floats(x) for x in reply]
    if isinstance(reply, bytes) and b"." in reply:
        try:
            return "%.9g" % float(reply)
        except ValueError:
            return reply
    return reply


SCORE_READS = {"ZRANGE", "ZREVRANGE", "ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZSCORE", "ZMSCORE", "ZPOPMIN", "ZPOPMAX"}
LONG_DOUBLE = re.compile(rb"^-?\d[\d.]{13,}(e[-+]\d+)?$")


def last_ulps(reply):
    """Scores printed with 14 digits or more are compared to 12: STOREDIST stores distances computed with
    sin/cos/asin, and glibc's and Java's differ in the last bit now and then. Tagged, so that a
    short score never equals a long one."""
    if isinstance(reply, list):
        return [last_ulps(x) for x in reply]
    if isinstance(reply, bytes) and LONG_DOUBLE.match(reply):
        return ("~", "%.12g" % float(reply))
    return reply


def random_pick(cmd, reply, per_item):
    """SRANDMEMBER and friends: which members come back is random; how many, and whether distinct, is not."""
    if not isinstance(reply, list) or len(cmd) < 3:
        return reply if not isinstance(reply, bytes) else "<member>"
    per_item = 2 if len(cmd) > 3 and per_item == 2 else 1
    if per_item == 2 and all(isinstance(x, list) for x in reply):  # RESP3: [member, score] pairs
        reply = [y for x in reply for y in x]
    items = [tuple(reply[i:i + per_item]) for i in range(0, len(reply), per_item)]
    count = lua_count(cmd[2])
    if count is None:  # a count Redis refuses: the other side answered with a list
        return reply
    if count >= 0 and len(items) < count:
        return sorted(items)  # the whole collection
    return (len(items), len(set(items)) if count >= 0 else None)


def lua_count(text):
    """A count as the server read it: as is, or (the spec-script wrappers pass ARGV through Lua's
    tonumber) as Lua's number for it, "1e3" and "0x10" included; None if neither reads it."""
    text = text.decode("latin-1") if isinstance(text, bytes) else str(text)
    try:
        return int(text)
    except ValueError:
        pass
    try:
        n = int(text, 16) if text.strip().lower().startswith(("0x", "-0x")) else float(text)
    except ValueError:
        return None
    try:
        return int(n) if n == int(n) else None
    except (ValueError, OverflowError):  # inf, nan
        return None


def function_list(reply):
    """FUNCTION LIST: the libraries, and the functions of each, come in the order of Redis's hash
    tables, whose hash function is seeded at random in each process: compared sorted."""
    out = []
    for lib in reply:
        if isinstance(lib, list):
            lib = list(lib)
            for i in range(0, len(lib) - 1, 2):
                if lib[i] == b"functions" and isinstance(lib[i + 1], list):
                    lib[i + 1] = sorted(map(repr, lib[i + 1]))
        out.append(repr(lib))
    return sorted(out)


def config_pairs(reply):
    """CONFIG GET: pairs in the order of Redis's config dict (seeded at random), without the
    parameters whose values say where each process runs (CONFIG_DIFFERENT)."""
    return sorted((reply[i], reply[i + 1]) for i in range(0, len(reply) - 1, 2) if reply[i] not in CONFIG_DIFFERENT)


# The SCANs: where the cursor argument is, and how many elements make one item (field and value).
SCANS = {"SCAN": (1, 1), "SSCAN": (2, 1), "HSCAN": (2, 2), "ZSCAN": (2, 2)}
COMPACT = {b"listpack", b"intset", b"ziplist"}


def scan_reply(reply):
    return isinstance(reply, list) and len(reply) == 2 and isinstance(reply[0], bytes) and isinstance(reply[1], list)


def scan_all(conn, cmd, reply):
    """The items of a whole iteration that began with reply, as a set: SCAN walks a hash table
    whose order follows a hash function seeded at random in each process, so the batches (and
    which cursor comes back) differ between any two servers; only their union is Redis's to decide."""
    at, width = SCANS[cmd[0].upper()]
    items = set()
    for _ in range(100000):
        batch = reply[1]
        items.update(tuple(batch[i:i + width]) for i in range(0, len(batch), width))
        if reply[0] == b"0" or not scan_reply(reply):
            break
        reply = conn.call(cmd[:at] + [reply[0]] + cmd[at + 1:])
        if not scan_reply(reply):
            return ("<scan failed>", reply)
    return ("<full scan>", sorted(items))


# CLIENT LIST / CLIENT INFO fields that differ between any two processes: ids, sockets, ages,
# buffer sizes and memory (Cinnabar's buffers are not Redis's allocations).
CLIENT_VOLATILE = {b"id", b"addr", b"laddr", b"fd", b"age", b"idle", b"qbuf", b"qbuf-free", b"argv-mem", b"multi-mem", b"rbs",
                   b"rbp", b"obl", b"oll", b"omem", b"tot-mem"}


def client_lines(reply):
    lines = []
    for line in reply.split(b"\n"):
        fields = [f.split(b"=", 1) for f in line.split(b" ") if f]
        lines.append([f[0] if f[0] in CLIENT_VOLATILE else b"=".join(f) for f in fields])
    # Sorted: with --notify's subscribers there are several clients, listed in the order of Redis's
    # client list, which clientsCron rotates.
    return sorted(lines)


def acl_rules(text):
    """An ACL command description ("-@all +@read +get -get|x"): categories in Redis's order, then
    the single commands, which Redis 7.0 lists in the order of its command table's hash table,
    seeded at random in each process: sorted by name (a parent before its subcommands)."""
    words = text.split(b" ")
    single = [w for w in words if w[:1] in (b"+", b"-") and b"@" not in w]
    rest = [w for w in words if w not in single]
    return b" ".join(rest + sorted(single, key=lambda w: w[1:]))


def acl_getuser(reply):
    if not isinstance(reply, list):
        return reply
    out = list(reply)
    for i in range(0, len(out) - 1, 2):
        if out[i] == b"commands" and isinstance(out[i + 1], bytes):
            out[i + 1] = acl_rules(out[i + 1])
        elif out[i] == b"selectors" and isinstance(out[i + 1], list):
            out[i + 1] = [acl_getuser(x) for x in out[i + 1]]
    return out


def acl_log_entry(entry):
    """An ACL LOG entry without what differs between any two servers: its age, and the volatile
    fields of its client-info (CLIENT_VOLATILE; the last command's name stays)."""
    if not isinstance(entry, list):
        return entry
    out = list(entry)
    for i in range(0, len(out) - 1, 2):
        if out[i] == b"age-seconds":
            out[i + 1] = "<age>"
        elif out[i] == b"client-info" and isinstance(out[i + 1], bytes):
            out[i + 1] = client_lines(out[i + 1])
    return out


# Subcommands whose replies hold what differs between any two processes; only the reply's kind is
# compared. CLIENT ID: the connection's id (how many connections each server saw before). MEMORY
# STATS/DOCTOR/MALLOC-STATS: allocator figures (Cinnabar's are the JVM's, Redis's jemalloc's or
# libc's). SLOWLOG GET/LEN: which commands took longer than slowlog-log-slower-than, a matter of
# each server's speed. LATENCY HISTOGRAM: per-command latency buckets (timing), and the command
# counts include the TYPE/OBJECT ENCODING probes this script sends to Redis only. LATENCY DOCTOR:
# prose about the latency events recorded (timing, see LATENCY LATEST).
KIND_ONLY = {("CLIENT", "ID"), ("MEMORY", "STATS"), ("MEMORY", "DOCTOR"), ("MEMORY", "MALLOC-STATS"),
             ("SLOWLOG", "GET"), ("SLOWLOG", "LEN"), ("LATENCY", "HISTOGRAM"), ("LATENCY", "DOCTOR")}
# Not even the RESP3 type: MEMORY MALLOC-STATS is jemalloc's report (a verbatim string) in a Redis
# built with jemalloc and "Stats not supported for the current allocator" (a bulk string) in one
# built with libc's malloc, as Cinnabar answers.
SHAPE_FREE = {("MEMORY", "MALLOC-STATS")}
# INFO lines left out of the comparison: per-command counters and latency percentiles (this script
# sends TYPE/OBJECT ENCODING probes to Redis only, and percentiles are timing).
# cinnabar_version and java_version are Cinnabar's own fields (its version, the JVM's), an addition a
# client reading Redis's fields by name does not see.
INFO_SKIPPED = re.compile(rb"^(cmdstat_|latency_percentiles_usec_|cinnabar_version:|java_version:)")


def info_fields(reply):
    """INFO: its sections and field names, in order. Values are a process's own (pid, uptime, memory,
    ports, run_id, counters of connections and commands), not Redis's to decide; which fields each
    section has is."""
    out = []
    for line in reply.split(b"\r\n"):
        if not line or INFO_SKIPPED.match(line):
            continue
        out.append(line if line.startswith(b"#") else line.split(b":", 1)[0])
    return out


def docs_subcommands(x):
    """COMMAND DOCS: every "subcommands" map's pairs sorted, at any depth."""
    if not isinstance(x, list):
        return x
    out = [docs_subcommands(y) for y in x]
    for i in range(0, len(out) - 1):
        if out[i] == b"subcommands" and isinstance(out[i + 1], list):
            sub = out[i + 1]
            out[i + 1] = sorted((repr(sub[j]), repr(sub[j + 1])) for j in range(0, len(sub) - 1, 2))
    return out


def up(cmd):
    return [str(a).upper() for a in cmd]


def sort_ties(cmd, source_type):
    """True when SORT's order of equal elements is not Redis's to decide.

    BY without a '*' skips sorting (a set then comes in its hash table's order), and ALPHA BY
    leaves elements of equal weight in the order they were loaded: for a set, and for a sorted
    set too (sort.c walks its dict), that is hash table order. (Lists are compared exactly, with
    LIMIT too: Cinnabar runs pqsort's exact steps.) With LIMIT only the length is compared.
    """
    u = up(cmd)
    by = [u[i + 1] for i in range(len(u) - 1) if u[i] == "BY"]
    if not by:
        return False
    if "*" not in by[-1]:
        return source_type == "set"
    return "ALPHA" in u and source_type in ("set", "zset")


ALREADY_EXISTS = re.compile(r"(Library|Function) \S+ already exists")


LEX_RANGES = {"ZRANGEBYLEX": 1, "ZREVRANGEBYLEX": 1, "ZLEXCOUNT": 1, "ZREMRANGEBYLEX": 1, "ZRANGE": 1, "ZRANGESTORE": 2}


def lex_of_mixed_scores(cmd, reply):
    """True when cmd (or the command it runs from Lua) is a lex range over a key that may hold members
    of different scores (any key but LEX_KEYS, which only ever get score 0), and reply is no error.
    Redis leaves the result undefined then, and in a skiplist it is random: zslFirstInLexRange and
    zslLastInLexRange descend the skiplist's levels, drawn by zslRandomLevel, comparing members that
    are not in lex order (the same ZREMRANGEBYLEX of two members of scores 2 and 3e15, run on fresh
    keys, removes 0 or 2 of them from one run to the next). Compared by kind only; a write (see
    LEX_WRITES) that then differs makes both sides start again."""
    cmd = ctx_inner(cmd) or cmd
    name = str(cmd[0]).upper()
    if name not in LEX_RANGES or isinstance(reply, Error) or len(cmd) <= LEX_RANGES[name]:
        return False
    if name in ("ZRANGE", "ZRANGESTORE") and "BYLEX" not in up(cmd):
        return False
    return cmd[LEX_RANGES[name]] not in LEX_KEYS


LEX_WRITES = {"ZREMRANGEBYLEX", "ZRANGESTORE"}


def normalise(cmd, reply, source_type=None):
    if lex_of_mixed_scores(cmd, reply):
        return "<lex range of mixed scores>"
    inner = ctx_inner(cmd)
    if inner is not None:
        # A spec-generated command run from Lua (spec-script): its reply, converted to Lua and back,
        # is left unordered or random by Redis as much as the command's own.
        if isinstance(inner[0], str) and inner[0].upper() in SCANS and scan_reply(reply):
            return "<scan>"  # a batch of a hash table seeded at random (see scan_all), not followed from here
        if "setresp(3)" in CTX_SHAS.get(cmd[1], cmd[1]) or cmd[1] in ("ctx_pcall3", "ctx_call3", "ctx_ro3"):
            reply = lua_tables(reply)
        return normalise(inner, reply, source_type)
    name = cmd[0].upper()
    if name in STREAM_COMMANDS:
        reply = stream_times(reply)
        if name == "XINFO" and isinstance(reply, list) and b"radix-tree-nodes" in reply:
            # The radix tree's shape follows the bytes of its nodes' first ids, which XADD * takes
            # from each server's clock (even when the first and last entries show none of them).
            i = reply.index(b"radix-tree-nodes")
            reply[i + 1] = "<nodes>"
        if name == "XPENDING" and len(cmd) > 3 and isinstance(reply, list):
            # The extended form's third field is each entry's idle time in ms.
            reply = [x[:2] + ["<elapsed>"] + x[3:] if isinstance(x, list) and len(x) == 4 else x for x in reply]
    if name in GEO_COMMANDS:
        reply = geo_floats(reply)
    if isinstance(reply, list) and len(cmd) > 1 and (
            (name in ("EVAL", "EVAL_RO") and "hgetall" in cmd[1])
            or (name in ("EVALSHA", "EVALSHA_RO") and cmd[1].lower() in HGETALL_SCRIPT_SHAS)):
        # A hash past the listpack limits comes back in its hash table's order.
        return sorted(zip(reply[0::2], reply[1::2]))
    if name in SCORE_READS:
        reply = last_ulps(reply)
    if name in ("EXPIRE", "PEXPIRE") and isinstance(reply, int) and ({"GT", "LT"} & set(up(cmd))):
        # A relative TTL against the one the same command set a moment ago: GT/LT hold or not
        # depending on whether the two arrived in the same millisecond.
        return "<0 or 1>"
    if name in RANDOM_PICKS:
        return random_pick(cmd, reply, RANDOM_PICKS[name])
    if name in ("SORT", "SORT_RO") and isinstance(reply, list) and sort_ties(cmd, source_type):
        return sorted(reply, key=lambda x: (x is None, str(x))) if "LIMIT" not in up(cmd) else len(reply)
    if name in UNORDERED and isinstance(reply, list):
        return sorted(reply, key=lambda x: (x is None, str(x)))
    if name == "HGETALL" and isinstance(reply, list):
        return sorted(zip(reply[0::2], reply[1::2]))
    if name == "COMMAND" and (len(cmd) == 1 or (len(cmd) == 2 and cmd[1].upper() == "INFO")) and isinstance(reply, list):
        # Every command, in the order of Redis's hash table: compared by name, subcommands too.
        return sorted((repr(entry[:9]), sorted(map(repr, entry[9]))) if isinstance(entry, list) and len(entry) > 9
                      else (repr(entry), []) for entry in reply)
    if name == "CLIENT" and len(cmd) > 2 and str(cmd[1]).upper() == "LIST" and "ID" in up(cmd[2:]) \
            and isinstance(reply, bytes):
        # Which connection has id 1, 2...: each server numbers its connections itself (Redis counts
        # the connections it accepted before, Cinnabar too, but they need not have seen the same).
        # Before client_lines below, which would compare the lines of the connection one side has.
        return "<clients by id>"
    if name == "CLIENT" and len(cmd) > 1 and cmd[1].upper() in ("LIST", "INFO") and isinstance(reply, bytes):
        return client_lines(reply)
    if name == "FUNCTION" and len(cmd) == 2 and cmd[1].upper() == "DUMP" and isinstance(reply, bytes):
        # The libraries come in their hash table's order. FUNCTION RESTORE of Redis's payloads is compared.
        return "<payload>"
    if name == "FUNCTION" and len(cmd) > 1 and cmd[1].upper() == "RESTORE" and isinstance(reply, Error):
        # Of a payload with several libraries, Redis names the first clash it meets in its hash
        # table of the payload's libraries (seeded at random): only the kind of clash is compared.
        return ALREADY_EXISTS.sub(r"\1 <name> already exists", reply)
    if name == "ACL" and len(cmd) > 1 and cmd[1].upper() == "GENPASS" and isinstance(reply, bytes):
        # Random: only its length is Redis's to decide.
        return ("<password>", len(reply))
    if name == "ACL" and len(cmd) > 1 and cmd[1].upper() == "CAT" and len(cmd) > 2 and isinstance(reply, list):
        # The commands of a category, in the order of Redis's command table (a hash table).
        return sorted(reply, key=repr)
    if name == "ACL" and len(cmd) > 1 and cmd[1].upper() == "GETUSER":
        return acl_getuser(reply)
    if name == "ACL" and len(cmd) > 1 and cmd[1].upper() == "LIST" and isinstance(reply, list):
        return [acl_rules(x) if isinstance(x, bytes) else x for x in reply]
    if name == "ACL" and len(cmd) > 1 and cmd[1].upper() == "LOG" and isinstance(reply, list):
        return [acl_log_entry(e) for e in reply]
    if name == "MEMORY" and len(cmd) > 1 and cmd[1].upper() == "USAGE" and (isinstance(reply, int) or reply is None):
        # Cinnabar estimates what Redis's allocator reports. Nor is whether the key exists compared:
        # MEMORY USAGE finds a key past its TTL (dictFind) until something reclaims it, and whether
        # the active expire cycle has by then is a matter of time (seed 548: SET k0 10 XX PXAT 1).
        return "<bytes>"
    if name == "LATENCY" and len(cmd) > 1 and cmd[1].upper() in ("LATEST", "HISTORY", "RESET") and not isinstance(reply, Error):
        # Events are commands that took longer than latency-monitor-threshold (which the config
        # family sets): a matter of each server's speed. Only the kind of reply is compared.
        return type(reply).__name__
    if name == "LATENCY" and len(cmd) > 2 and str(cmd[1]).upper() == "GRAPH" \
            and str(cmd[2]).lower() in ("command", "fast-command"):
        # The same events: whether a server has samples to draw or says it has none follows its speed.
        return "<graph or no samples>"
    if name == "TIME" and isinstance(reply, list):
        return [type(x).__name__ for x in reply]
    if name in ("UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE") and len(cmd) == 1 and isinstance(reply, list) \
            and all(isinstance(x, list) and len(x) == 3 for x in reply):
        # Unsubscribing from all goes through the client's channels in hash table order (seeded
        # at random): which channels, and the counts going down, are compared.
        return sorted(repr(x[1]) for x in reply), [x[2] for x in reply]
    if name == "RANDOMKEY" and isinstance(reply, bytes):
        # Which key comes back is random; whether one does is not (both key spaces are the same).
        return "<key>"
    if name == "FUNCTION" and len(cmd) > 1 and cmd[1].upper() == "LIST" and isinstance(reply, list):
        return function_list(reply)
    if name == "CONFIG" and len(cmd) > 1 and cmd[1].upper() == "GET" and isinstance(reply, list):
        return config_pairs(reply)
    if name == "INFO" and isinstance(reply, bytes):
        return info_fields(reply)
    if name in ("CLIENT", "MEMORY", "SLOWLOG", "LATENCY") and len(cmd) > 1 and not isinstance(reply, Error) \
            and (name, str(cmd[1]).upper()) in KIND_ONLY:
        return type(reply).__name__
    if name == "COMMAND" and len(cmd) > 1 and str(cmd[1]).upper() == "DOCS" and isinstance(reply, list):
        # A container's subcommands come in the order of its own hash table (seeded at random in each
        # process); all commands (no names given) in the command table's: pairs compared sorted.
        pairs = [repr(docs_subcommands(reply[i:i + 2])) for i in range(0, len(reply) - 1, 2)]
        return sorted(pairs) if len(cmd) == 2 else pairs
    if name == "COMMAND" and len(cmd) > 1 and str(cmd[1]).upper() == "INFO" and isinstance(reply, list):
        # Named commands come in the order asked; a container's subcommands in its hash table's order.
        return [(repr(e[:9]), sorted(map(repr, e[9]))) if isinstance(e, list) and len(e) > 9 else repr(e) for e in reply]
    if name == "COMMAND" and len(cmd) > 1 and str(cmd[1]).upper() == "LIST" and isinstance(reply, list):
        return sorted(reply, key=repr)  # the command table's order (a hash table)
    if name == "LOLWUT" and isinstance(reply, bytes) and (b"Georg Nees" in reply or b"Plaguemon" in reply):
        # LOLWUT 5 and 6 draw with rand() (Schotter's tilts, the skyline's buildings): the number of
        # lines and the closing text are compared.
        return reply.count(b"\n"), reply.rstrip(b"\n").rsplit(b"\n", 1)[-1]
    if name == "DUMP" and isinstance(reply, bytes) and reply:
        if reply[0] in DUMP_EXACT:
            return reply
        return ("<payload in table order>", len(reply)) if reply[0] in DUMP_TABLE_ORDER else "<payload>"
    if name in SHAPE_ONLY or (name == "OBJECT" and len(cmd) > 1 and cmd[1].upper() in ("IDLETIME", "FREQ")):
        return type(reply).__name__ if not isinstance(reply, int) or reply >= 0 else reply
    return reply


def start(kind, port, tmp):
    if kind == "redis":
        return subprocess.Popen(["redis-server", "--port", str(port), "--save", "", "--appendonly", "no",
                                 "--dir", tmp], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # CINNABAR_JAR: a copy of the jar, so that a rebuild during a long run does not change it.
    jar = os.environ.get("CINNABAR_JAR") or os.path.join(REPO, "target", "cinnabar.jar")
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


def sets_errno(arg):
    """True when Redis's parsing of arg may leave errno at ERANGE (see stale_errno_sort in main): an
    integer past 2^64 (strtoull), a double that overflows (1e400) or underflows to a subnormal or to
    zero (5e-324, 1e-400: strtod)."""
    text = arg if isinstance(arg, str) else arg.decode("latin-1") if isinstance(arg, bytes) else str(arg)
    if "18446744073709551616" in text:
        return True
    try:
        f = float(text.strip("("))
    except ValueError:
        return False
    if math.isinf(f):
        return "inf" not in text.lower()
    digits = text.lower().split("e")[0]
    return abs(f) < sys.float_info.min and (f != 0 or any(ch in "123456789" for ch in digits))


# --notify: the events fired (keyevent channels only: the keyspace ones carry the same, the other way
# round), new keys included. Not m (key misses): this script's TYPE and OBJECT ENCODING probes go to
# Redis alone. Every class but d (modules' types, none here) spelled out rather than A, and never a
# CONFIG SET of notify-keyspace-events during the run: Redis 7.0 prints flags that hold all of A as
# "A" and drops n (keyspaceEventsFlagsToString), and a CONFIG SET that fails restores its parameters
# from that text, so after a failed CONFIG SET notify-keyspace-events KEAn maxmemory-clients -1 new-key
# events are off in Redis alone (typed,config seed 31). A Redis bug, not copied: Cinnabar restores
# the flags themselves.
NOTIFY_FLAGS = "Eg$lshzxetn"
NOTIFY_PATTERN = "__keyevent@*__:*"
NOTIFY_UNTOUCHED = {"client-output-buffer-limit", "notify-keyspace-events"}


class Subscriber:
    """A connection of its own per server, PSUBSCRIBEd to every keyevent channel (RESP2 whatever
    --resp3 says: what is compared is which events fire, their order, keys and dbs)."""
    def __init__(self, port):
        self.port = port
        self.conn = None

    def events(self):
        """The events published since the last call: what came before the answer to a PING sent now
        (the server wrote them before it read the PING), as (channel, key); "<closed>" when the
        server closed the connection (a new one subscribes on the next call)."""
        try:
            if self.conn is None:
                self.conn = connect(self.port)
                self.conn.call(["PSUBSCRIBE", NOTIFY_PATTERN])
            self.conn.sock.sendall(resp.command(["PING", "notify-sync"]))
            out = []
            while True:
                m = self.conn.read()
                if m == [b"pong", b"notify-sync"]:
                    return out
                if isinstance(m, list) and len(m) == 4 and m[0] == b"pmessage":
                    # Not "expired": a key past its TTL (SET ... PXAT 1 keeps it so in Redis 7.0) goes when
                    # the active expire cycle or an access reclaims it, whichever comes first on each server.
                    if not m[2].endswith(b"__:expired"):
                        out.append((m[2], m[3]))
                else:
                    out.append(m)
        except (ConnectionError, OSError):
            self.conn = None
            return "<closed>"


# --stats: commands whose counts are not compared: those only Redis is sent (this script's probes
# before SORT and the SCANs, see main), and the SCANs, which scan_all follows for as many batches as
# each side's hash table makes.
STATS_UNCOUNTED = {b"type", b"object|encoding", b"scan", b"sscan", b"hscan", b"zscan"}


def command_stats(reply):
    """INFO commandstats and errorstats as a set of lines: each command's calls, rejected_calls and
    failed_calls (not its times), and each error code's count. Whether an error is a rejection (refused
    before running: unknown command, arity, ACL, OOM...) or a failure is Redis's to decide, and
    monitoring reads it."""
    out = set()
    for line in bytes(reply).split(b"\r\n"):
        if line.startswith(b"cmdstat_"):
            name, fields = line[8:].split(b":", 1)
            if name not in STATS_UNCOUNTED:
                out.add((name, tuple(f for f in fields.split(b",") if not f.startswith(b"usec"))))
        elif line.startswith(b"errorstat_"):
            out.add(tuple(line.split(b":", 1)))
    return out


def touches(cmd, k):
    return any((a if isinstance(a, str) else "") == k for a in cmd[1:])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=None)
    # Not subscribe unless asked: in RESP2's subscribed mode every other family's command fails.
    # spec only when Redis's command descriptions are there (asked for by name, it insists on them).
    ap.add_argument("--families", default=",".join(f for f in FAMILIES if f not in ("subscribe", "multi", "typed")
                                                    and (not f.startswith("spec") or os.path.isdir(SPEC_DIR_DEFAULT))))
    ap.add_argument("--redis-port", type=int)
    ap.add_argument("--cinnabar-port", type=int)
    ap.add_argument("--context", type=int, default=8)
    ap.add_argument("--max-report", type=int, default=30)
    ap.add_argument("--skip", default="", help="commands never to send, e.g. COMMAND while its table is being completed")
    ap.add_argument("--history", help="write the commands leading to the first mismatch here (JSON lines)")
    ap.add_argument("--spec-dir", default=os.environ.get("REDIS_COMMANDS_DIR", SPEC_DIR_DEFAULT),
                    help="Redis's src/commands (one JSON per command) for the spec family (env REDIS_COMMANDS_DIR)")
    ap.add_argument("--resp3", action="store_true", help="both connections speak RESP3 (HELLO 3); reply types are compared too")
    ap.add_argument("--stats", type=int, default=0, metavar="N",
                    help="every N commands and at the end, INFO commandstats and errorstats compared (see command_stats)")
    ap.add_argument("--notify", action="store_true",
                    help="keyspace events compared too: notify-keyspace-events %s, a subscriber per server" % NOTIFY_FLAGS)
    a = ap.parse_args()
    global RESP3
    RESP3 = a.resp3
    seed = a.seed if a.seed is not None else int(time.time())
    random.seed(seed)
    families = [FAMILIES[f] for f in a.families.split(",")]
    a.seed_used = seed
    if multi_family in families and families != [multi_family]:
        print("multi runs alone (--families multi): its scenarios drive several connections", file=sys.stderr)
        return 2
    if {spec_family, spec_multi_family, spec_script_family} & set(families) and not load_spec(a.spec_dir):
        print("spec: no command descriptions at %s (Redis's src/commands: --spec-dir or REDIS_COMMANDS_DIR)" % a.spec_dir,
              file=sys.stderr)
        return 2
    skip = {x.upper() for x in a.skip.split(",") if x}
    with servers(a.redis_port, a.cinnabar_port) as (rport, cport):
        if families == [multi_family]:
            return run_multi(a, rport, cport)
        r, c = connect(rport), connect(cport)
        for conn in (r, c):
            if a.resp3:
                conn.call(["HELLO", "3"])
            conn.call(["FLUSHALL"])
            conn.call(["SCRIPT", "FLUSH"])
        history, mismatches = [], 0

        # FUNCTION RESTORE gets payloads of Redis's own FUNCTION DUMP: one library, two, a truncated one.
        for lib in (LIBRARIES[0], LIBRARIES[2]):
            r.call(["FUNCTION", "LOAD", lib])
            dump = r.call(["FUNCTION", "DUMP"])
            FUNCTION_PAYLOADS.extend([dump, dump[:-3]])
        r.call(["FUNCTION", "FLUSH"])
        # RESTORE (spec family) gets payloads of Redis's own DUMP: a key of each type, and a truncated one.
        for make in (["SET", "p", "v"], ["SET", "p", "12"], ["RPUSH", "p", "a", "1"], ["SADD", "p", "1", "2"], ["SADD", "p", "a"],
                     ["HSET", "p", "f", "v"], ["ZADD", "p", "1", "a"], ["XADD", "p", "1-1", "f", "v"], ["PFADD", "p", "a"]):
            r.call(["DEL", "p"])
            r.call(make)
            dump = r.call(["DUMP", "p"])
            SPEC_PAYLOADS.extend([dump] if len(SPEC_PAYLOADS) % 3 else [dump, dump[:-4]])
        r.call(["DEL", "p"])
        # The parameters the config family changes, as both servers started: start_again sets them back.
        defaults = config_pairs(r.call(["CONFIG", "GET"] + [n for n in CONFIG_VALUES if n not in CONFIG_NOT_RESET]))

        subs = [Subscriber(rport), Subscriber(cport)] if a.notify else []

        def start_again():
            """Resynchronises: both sides start again from the same (empty) state, out of any MULTI."""
            for conn in (r, c):
                # RESET leaves subscribed mode (and MULTI, another user, another db), and RESP3.
                # Replies still unread (more than a command was expected to give) are skipped.
                reply = conn.call(["RESET"])
                while reply != "RESET":
                    reply = conn.read()
                if a.resp3:
                    conn.call(["HELLO", "3"])
                conn.call(["DISCARD"])
                conn.call(["AUTH", "default", "x"])  # the acl family may have logged in as another user
                conn.call(["ACL", "DELUSER"] + ACL_USERS)
                conn.call(["ACL", "LOG", "RESET"])
                conn.call(["FLUSHALL"])
                conn.call(["SCRIPT", "FLUSH"])
                conn.call(["FUNCTION", "FLUSH"])
                conn.call(["CLIENT", "SETNAME", ""])
                conn.call(["CLIENT", "NO-EVICT", "off"])
                conn.call(["CONFIG", "SET"] + [x for pair in defaults for x in pair])
                if a.notify:
                    conn.call(["CONFIG", "SET", "notify-keyspace-events", NOTIFY_FLAGS])
            for sub in subs:
                sub.events()  # what the resynchronisation fired
            if a.stats:
                for conn in (r, c):
                    conn.call(["CONFIG", "RESETSTAT"])  # also what only Redis was sent before (payloads, defaults)

        # Servers kept from an earlier run (--cinnabar-port, --redis-port) may still hold its
        # libraries, users and settings on one side only: both start from the same state.
        start_again()
        queued = None  # the commands queued in the open MULTI, to normalise EXEC's replies
        stale_errno = False

        # Redis's SORT reads errno without clearing it: after any strtoull or strtod overflow (a SCAN
        # cursor or an XADD id past 2^64, a score of 1e400) or underflow (a score of 5e-324: typed
        # seed 2, ZADD zs0 INCR LT 5e-324 -0 then SORT zs0; see sets_errno) a numeric SORT of good numbers can fail
        # "can't be converted into double" until something else sets errno. Cinnabar keeps no such
        # state, so its SORT answers (and SORT ... STORE stores).
        def stale_errno_sort(q, x, y):
            # (Run from Lua too: typed seed 2, FCALL ctx_call 1 zs1 SORT_RO zs1.)
            return stale_errno and str((ctx_inner(q) or q)[0]).upper() in ("SORT", "SORT_RO") and isinstance(x, Error) \
                and "converted into double" in x and isinstance(y, (list, int))

        def stats_differ():
            """--stats: the commands whose counts differ since both sides started again, printed."""
            rs_, cs_ = (command_stats(conn.call(["INFO", "commandstats", "errorstats"])) for conn in (r, c))
            if rs_ == cs_:
                return False
            print("#%d stats differ (since the last start)\n  only redis:    %s\n  only cinnabar: %s"
                  % (i, sorted(rs_ - cs_), sorted(cs_ - rs_)))
            return True

        for i in range(a.n):
            if a.stats and i and i % a.stats == 0 and queued is None and stats_differ():
                mismatches += 1
                start_again()
                history = []
            cmd = pick(families)()
            # --notify: never a client-output-buffer-limit for pubsub clients, which closes the subscribers,
            # nor notify-keyspace-events (see NOTIFY_FLAGS).
            while cmd[0].upper() in skip or a.notify and any(str(x).lower() in NOTIFY_UNTOUCHED for x in cmd):
                cmd = pick(families)()
            name = cmd[0].upper()
            in_multi_only = isinstance(cmd, InMulti)
            # Now and then a wrong number of arguments or a stray one: the arity and syntax errors.
            # (SPOP keeps its count, run from Lua too: which members a count-less SPOP removes is random.)
            spop_from_lua = str((ctx_inner(cmd) or [""])[0]).upper() == "SPOP"
            if random.random() < 0.04 and len(cmd) > (3 if name == "SPOP" else 1) and not spop_from_lua:
                cmd = cmd[:random.randint(1, len(cmd) - 1)]
            elif random.random() < 0.04 and name not in TIMEOUT_LAST:  # a stray last argument would be the timeout
                cmd = cmd + [pick(VALUES + ["NX", "XX", "COUNT", "LIMIT"])]
            # Inside MULTI a (P|S)SUBSCRIBE of several channels, or an UNSUBSCRIBE of all, would put
            # several replies in EXEC's array for one command: at most one channel there.
            if name in MULTI_REPLY and queued is not None:
                cmd = cmd[:2] if len(cmd) > 1 else ["PING"]
            if in_multi_only and queued is None:
                cmd = ["PING"]
            # SORT's ties depend on the source's type (see sort_ties): read it before the command runs
            # (also of a SORT run from Lua). Not inside MULTI, where TYPE would be queued too.
            base = ctx_inner(cmd) or cmd
            source_type = r.call(["TYPE", base[1]]) if str(base[0]).upper() in ("SORT", "SORT_RO") and len(base) > 1 \
                and queued is None else None
            # HSCAN/SSCAN/ZSCAN of a compact encoding answer everything at once, in the encoding's
            # order: compared exactly. Of a hash table: see scan_all. Read it before the command runs.
            scan_enc = r.call(["OBJECT", "ENCODING", cmd[1]]) if name in SCANS and name != "SCAN" and len(cmd) > 2 \
                and queued is None else None
            try:
                if name in MULTI_REPLY and queued is None:
                    rr, cr = r.call_all(cmd), c.call_all(cmd)
                else:
                    rr, cr = r.call(cmd), c.call(cmd)
            except (ConnectionError, OSError) as e:
                # A server closed the connection (or stopped answering): nothing after compares.
                print("#%d %s\n  connection lost: %s" % (i, " ".join(map(repr, cmd)), e))
                for h in history[-a.context:]:
                    print("    after: " + " ".join(map(repr, h)))
                return 2
            history.append(cmd)
            exec_queued = None
            scan_in_exec = lambda q, x: str((ctx_inner(q) or q)[0]).upper() in SCANS and scan_reply(x)
            spop_again = False
            errno_from = None  # inside EXEC: the index of a SORT that failed for its stale errno on Redis alone
            if name == "EXEC" and isinstance(rr, list) and isinstance(cr, list) and queued is not None \
                    and len(queued) == len(rr) == len(cr):
                # A SCAN inside EXEC cannot be followed to its end (see scan_all): its kind only.
                exec_queued = queued
                # SORT's source type cannot be read inside MULTI (TYPE would be queued): taken as a set,
                # whose ties sort_ties leaves to Redis in the most cases.
                in_exec = lambda q, x: "<scan>" if scan_in_exec(q, x) else "<allocator's text>" if shape_free(q, x) \
                    else normalise(q, x, "set")
                rn = [in_exec(q, x) for q, x in zip(queued, rr)]
                cn = [in_exec(q, x) for q, x in zip(queued, cr)]
                for j, (q, x, y) in enumerate(zip(queued, rr, cr)):
                    if spop_again:
                        # After an SPOP's random members the two sides' data differ: what the rest of
                        # this EXEC reads (SMEMBERS of that set...) is not compared.
                        rn[j] = cn[j] = "<after a random SPOP>"
                    elif stale_errno_sort(q, x, y):
                        # See SORT below: from here on this EXEC's data differ as after a random SPOP.
                        rn[j] = cn[j] = "<stale errno>"
                        spop_again = True
                        errno_from = j if errno_from is None else errno_from
                    elif random_spop(q, x) and random_spop(q, y):
                        # See SPOP below: compared by count, then both sides start again.
                        rn[j], cn[j], spop_again = len(x), len(set(map(bytes, y))), True
            else:
                rn, cn = normalise(cmd, rr, source_type), normalise(cmd, cr, source_type)
            if name == "MULTI" and rr == "OK":
                queued = []
            elif name in ("EXEC", "DISCARD") and not (isinstance(rr, Error) and rr.startswith("ERR wrong number of arguments")):
                # Even EXECABORT ends the transaction, an EXEC of the wrong arity's included (Redis
                # answers it EXECABORT); a DISCARD of the wrong arity ends nothing.
                queued = None
            elif queued is not None and rr == "QUEUED":
                queued.append(cmd)
            # A SORT ... STORE that failed on Redis for its stale errno (see stale_errno_sort) only
            # stored on Cinnabar, and any such SORT counted a failed call on Redis alone (--stats):
            # both sides start again from the same (empty) state.
            stale_errno = stale_errno or any(sets_errno(x) for x in cmd)
            if stale_errno_sort(cmd, rr, cr):
                stored = isinstance(cr, int)
                cn, cr = rn, rr
                if (stored or a.stats) and queued is None:
                    start_again()
                    history = []
            # LATENCY GRAPH of a command event (see normalise): a graph on one side, on the other an
            # error that counts (--stats): both sides start again. (Inside EXEC and from Lua too.)
            graphs = list(zip(exec_queued, rr, cr)) if exec_queued is not None else [(cmd, rr, cr)]
            if a.stats and queued is None and any(normalise(q, x) == "<graph or no samples>"
                                                  and isinstance(x, Error) != isinstance(y, Error) for q, x, y in graphs):
                start_again()
                history = []
            # SPOP with a count short of the set's size removes random members (sets of the
            # encoding family are large enough): compared by count, then both sides start again
            # from the same (empty) state.
            # (Run from Lua too; inside EXEC, see above.)
            if random_spop(cmd, rr) and random_spop(cmd, cr) and queued is None:
                rn, cn = len(rr), len(set(map(bytes, cr)))
                spop_again = True
            if spop_again and rn == cn:
                start_again()
                history = []
            rs, cs = shape(rr), shape(cr)
            if exec_queued is not None:
                # A SCAN's batch inside EXEC differs in length too: the types of its cursor and batch only.
                # Replies compared by kind only (see normalise), an allocator's text: so are their types.
                def in_exec_shape(q, x):
                    if scan_in_exec(q, x):
                        return repr([shape(x[0]), type(x[1]).__name__])
                    if shape_free(q, x):
                        return "<allocator's text>"
                    if lex_of_mixed_scores(q, x):
                        return type(x).__name__
                    n = normalise(q, x)
                    if n == "<graph or no samples>":
                        # LATENCY GRAPH of a command event: a graph on the server that had a command cross
                        # latency-monitor-threshold (the config family sets it to 1 ms), an error on the other.
                        return n
                    return n if isinstance(n, str) and n == type(x).__name__ else repr(shape(x))
                rs = (type(rr).__name__, sorted(in_exec_shape(q, x) for q, x in zip(exec_queued, rr)))
                # A SORT that failed for its stale errno on Redis alone (see stale_errno_sort), and what
                # that EXEC ran after it: their RESP3 types are not compared either (typed seed 7412,
                # RESP3: MULTI, SORT zs0, ZINCRBY zs0 2.5 -0, EXEC after a ZADD of 5e-324).
                seen = cr if errno_from is None else cr[:errno_from] + rr[errno_from:]
                cs = (type(cr).__name__, sorted(in_exec_shape(q, x) for q, x in zip(exec_queued, seen)))
            if isinstance(rn, str) and rn == type(rr).__name__ and cn == type(cr).__name__:
                rs, cs = rn, cn  # compared by kind only (see normalise): so are their RESP3 types
            if rn == cn == "<graph or no samples>":
                rs, cs = rn, cn  # an error on one side, a graph on the other (see normalise)
            if rn == cn == "<scan>" or (spop_again and exec_queued is None):
                rs, cs = rn, cn  # a SCAN batch run from Lua, an SPOP's random members: their lengths differ
            if name in SCANS and queued is None and scan_reply(rr) and scan_reply(cr) and scan_enc not in COMPACT:
                at = SCANS[name][0]
                if len(cmd) > at and cmd[at] == "0":
                    rn, cn = scan_all(r, cmd, rr), scan_all(c, cmd, cr)
                else:
                    # A cursor into the middle of a hash table: where it lands depends on the seed.
                    rn = cn = "<partial scan>"
                # The batches differ in length: only the types of the cursor and the batch are compared.
                rs, cs = [shape(rr[0]), type(rr[1]).__name__], [shape(cr[0]), type(cr[1]).__name__]
            if shape_free(cmd, rr) and shape_free(cmd, cr):
                rn = cn = rs = cs = "<allocator's text>"
            # A lex range of mixed scores (see lex_of_mixed_scores): its shape differs with its length, and
            # a write that removed or stored other members leaves the two sides apart.
            lex_pairs = list(zip(exec_queued, rr, cr)) if exec_queued is not None else [(cmd, rr, cr)]
            if any(lex_of_mixed_scores(q, x) and lex_of_mixed_scores(q, y) and x != y for q, x, y in lex_pairs):
                if exec_queued is None:
                    rs = cs = "<lex range of mixed scores>"
                if any(str((ctx_inner(q) or q)[0]).upper() in LEX_WRITES for q, x, y in lex_pairs
                       if lex_of_mixed_scores(q, x) and x != y) and rn == cn and queued is None:
                    start_again()
                    history = []
            revents, cevents = (subs[0].events(), subs[1].events()) if subs else (None, None)
            if rn != cn or (a.resp3 and rs != cs) or revents != cevents:
                mismatches += 1
                if mismatches <= a.max_report:
                    ks = [x for x in cmd[1:] if isinstance(x, str) and (x in KEYS or x in SPEC_KEYS or x in TYPED_KEYS)]
                    ctx = [h for h in history[:-1] if any(touches(h, k) for k in ks) or h[0] in ("MULTI", "EXEC")][-a.context:]
                    print("#%d %s\n  redis:    %r\n  cinnabar: %r" % (i, " ".join(map(repr, cmd)), rr, cr))
                    if a.resp3 and rs != cs:
                        print("  types:    %r\n  vs:       %r" % (rs, cs))
                    if revents != cevents:
                        print("  events:   %r\n  vs:       %r" % (revents, cevents))
                    for j, q in enumerate(exec_queued or []):
                        differs = rn[j] != cn[j] if isinstance(rn, list) and isinstance(cn, list) and j < min(len(rn), len(cn)) else False
                        print("    queued: " + " ".join(map(repr, q)) + ("   <- %r / %r" % (rn[j], cn[j]) if differs else ""))
                    if isinstance(rn, list) and isinstance(cn, list) and max(len(rn), len(cn)) > 20:
                        # Long replies (CONFIG GET *, full scans): what only one side has.
                        rs, cs = set(map(repr, rn)), set(map(repr, cn))
                        print("  only redis:    %s\n  only cinnabar: %s" % (sorted(rs - cs)[:10], sorted(cs - rs)[:10]))
                    for h in ctx:
                        print("    after: " + " ".join(map(repr, h)))
                    if a.history and mismatches == 1:
                        with open(a.history, "w") as f:
                            for h in history:
                                # Arguments can be bytes (RESTORE's payloads): kept as latin-1 text.
                                f.write(json.dumps([x.decode("latin-1") if isinstance(x, bytes) else x for x in h]) + "\n")
                start_again()
                history, queued = [], None
        if a.stats and queued is None and stats_differ():
            mismatches += 1
        print("seed %d: %d commands, %d mismatches" % (seed, a.n, mismatches))
        return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
