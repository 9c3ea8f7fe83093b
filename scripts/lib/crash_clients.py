#!/usr/bin/env python3
"""Writer clients and the checker for scripts/crash-test.sh (no dependencies: raw RESP on sockets).

  crash_clients.py write  --port P --round R --clients K --ledger FILE --ready FILE [--seed S]
  crash_clients.py verify --port P LEDGER...

write: K client threads write unique keys until the server goes away, each recording every write
whose reply arrived (an acknowledged write) with the wall-clock time of the reply. Operations:
SET of a new key, INCR of the client's counter, RPUSH of a new element, HSET of a new field, and
MULTI/SET/HSET/INCR/EXEC. Even-numbered clients send one command at a time, odd ones pipeline 4
operations. Writes the ledger (JSON) when every client has stopped.

verify: reads what the restarted server holds and prints one JSON line per ledger: acknowledged
writes, those lost (a SET key or RPUSH element or HSET field missing, a counter below an
acknowledged value, a transaction's effects missing), the loss window (from the earliest lost
acknowledgement to the round's last acknowledgement, in ms), and transactions that were applied only in part (atomicity, acknowledged or not).
"""
import json
import random
import sys
import threading
import time

from resp import Connection as Conn, ServerError  # noqa: E402 (lib/ is the script's directory)


def key(r, c, kind, seq=None):
    return "cr:%d:%d:%s" % (r, c, kind) if seq is None else "cr:%d:%d:%s:%d" % (r, c, kind, seq)


# ---- write ----

def writer(port, r, c, depth, seed, out, connected):
    rnd = random.Random(seed * 1000 + c)
    acks = {"set": [], "incr": [], "rpush": [], "hset": [], "tx": [], "tx_sent": [], "errors": 0}
    out[c] = acks
    try:
        conn = Conn(port)
    except OSError:
        connected.release()
        return
    connected.release()
    seq = 0
    try:
        while True:
            batch = []  # (kind, seq, number of replies)
            commands = []
            for _ in range(depth):
                seq += 1
                p = rnd.random()
                if p < 0.30:
                    commands.append(("SET", key(r, c, "s", seq), "v%d" % seq))
                    batch.append(("set", seq, 1))
                elif p < 0.50:
                    commands.append(("INCR", key(r, c, "n")))
                    batch.append(("incr", seq, 1))
                elif p < 0.70:
                    commands.append(("RPUSH", key(r, c, "l"), "e%d" % seq))
                    batch.append(("rpush", seq, 1))
                elif p < 0.85:
                    commands.append(("HSET", key(r, c, "h"), "f%d" % seq, "%d" % seq))
                    batch.append(("hset", seq, 1))
                else:
                    commands += [("MULTI",), ("SET", key(r, c, "t", seq), "%d" % seq),
                                 ("HSET", key(r, c, "th"), "f%d" % seq, "%d" % seq),
                                 ("INCR", key(r, c, "tn")), ("EXEC",)]
                    batch.append(("tx", seq, 5))
                    acks["tx_sent"].append(seq)
            conn.send(commands)
            for kind, s, n in batch:
                replies = [conn.read() for _ in range(n)]
                now = time.time()
                if any(isinstance(x, ServerError) for x in replies) or (kind == "tx" and not isinstance(replies[-1], list)):
                    acks["errors"] += 1
                elif kind == "incr":
                    acks["incr"].append((now, replies[0]))
                else:
                    acks[kind].append((now, s))
    except (OSError, ConnectionError, ValueError):
        pass


def write(args):
    port, r, k = int(args["--port"]), int(args["--round"]), int(args["--clients"])
    seed = int(args.get("--seed", "1"))
    out = {}
    connected = threading.Semaphore(0)
    threads = []
    for c in range(k):
        depth = 1 if c % 2 == 0 else 4
        t = threading.Thread(target=writer, args=(port, r, c, depth, seed + r, out, connected), daemon=True)
        t.start()
        threads.append(t)
    for _ in range(k):
        connected.acquire()
    started = time.time()
    open(args["--ready"], "w").write("%f\n" % started)
    for t in threads:
        t.join(120)
    json.dump({"round": r, "start": started, "end": time.time(),
               "clients": {str(c): out.get(c, {}) for c in range(k)}}, open(args["--ledger"], "w"))


# ---- verify ----

def chunks(xs, n=1000):
    for i in range(0, len(xs), n):
        yield xs[i:i + n]


def verify_ledger(conn, ledger):
    r = ledger["round"]
    acked = lost = partial = 0
    lost_times = []
    for cs, a in ledger["clients"].items():
        if not a:
            continue
        c = int(cs)
        # SET: each acknowledged key holds its value.
        sets = a["set"]
        for part in chunks(sets):
            vals = conn.call("MGET", *[key(r, c, "s", s) for _, s in part])
            for (t, s), v in zip(part, vals):
                if v != b"v%d" % s:
                    lost += 1
                    lost_times.append(t)
        # INCR: the counter is at least every acknowledged value.
        v = conn.call("GET", key(r, c, "n"))
        n = int(v) if v is not None else 0
        for t, value in a["incr"]:
            if value > n:
                lost += 1
                lost_times.append(t)
        # RPUSH: each acknowledged element is in the list.
        elems = set(conn.call("LRANGE", key(r, c, "l"), 0, -1) or [])
        for t, s in a["rpush"]:
            if b"e%d" % s not in elems:
                lost += 1
                lost_times.append(t)
        # HSET: each acknowledged field holds its value.
        h = conn.call("HGETALL", key(r, c, "h")) or []
        fields = dict(zip(h[0::2], h[1::2]))
        for t, s in a["hset"]:
            if fields.get(b"f%d" % s) != b"%d" % s:
                lost += 1
                lost_times.append(t)
        # MULTI/EXEC: acknowledged ones are there in full; every one sent is all or nothing.
        th = conn.call("HGETALL", key(r, c, "th")) or []
        tfields = dict(zip(th[0::2], th[1::2]))
        present = set()
        sent = a["tx_sent"]
        for part in chunks(sent):
            vals = conn.call("MGET", *[key(r, c, "t", s) for s in part])
            for s, v in zip(part, vals):
                has_key, has_field = v == b"%d" % s, tfields.get(b"f%d" % s) == b"%d" % s
                if has_key != has_field:
                    partial += 1
                if has_key and has_field:
                    present.add(s)
        v = conn.call("GET", key(r, c, "tn"))
        if (int(v) if v is not None else 0) != len(present):
            partial += 1
        for t, s in a["tx"]:
            if s not in present:
                lost += 1
                lost_times.append(t)
        acked += len(sets) + len(a["incr"]) + len(a["rpush"]) + len(a["hset"]) + len(a["tx"])
    # The loss window: from the earliest lost acknowledgement to the last acknowledgement of all.
    last_ack = max((t for a in ledger["clients"].values() if a
                    for kind in ("set", "incr", "rpush", "hset", "tx") for t, _ in a[kind]), default=0)
    window_ms = (last_ack - min(lost_times)) * 1000 if lost_times else 0.0
    return {"round": r, "acked": acked, "lost": lost, "lost_window_ms": round(window_ms, 1), "partial_tx": partial,
            "errors": sum(a.get("errors", 0) for a in ledger["clients"].values() if a),
            "secs": round(ledger["end"] - ledger["start"], 2)}


def verify(args, ledgers):
    conn = Conn(int(args["--port"]))
    for path in ledgers:
        print(json.dumps(verify_ledger(conn, json.load(open(path)))))


def main():
    cmd, rest = sys.argv[1], sys.argv[2:]
    args, positional = {}, []
    i = 0
    while i < len(rest):
        if rest[i].startswith("--"):
            args[rest[i]] = rest[i + 1]
            i += 2
        else:
            positional.append(rest[i])
            i += 1
    if cmd == "write":
        write(args)
    elif cmd == "verify":
        verify(args, positional)
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
