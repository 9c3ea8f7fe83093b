#!/usr/bin/env python3
"""Malformed requests sent as raw bytes to real Redis 7.0 and to Cinnabar, what comes back compared.

    scripts/proto-fuzz.py                      # 3000 cases, seed from the clock
    scripts/proto-fuzz.py -n 10000 --seed 7    # reproducible
    scripts/proto-fuzz.py --redis-port 7701 --cinnabar-port 7702   # servers already running

Each case is a few requests (RESP multi-bulk or inline, a tenth with bytes that are not UTF-8 or
a NUL in an argument) cut, spliced and overwritten at random: bytes replaced, CR/LF, markers, quotes
and NULs inserted, stretches repeated or dropped, the whole cut short. It goes to a fresh connection
on each server, and everything that comes back before the server closes or goes quiet is compared
byte for byte, with whether it closed (a case that differs is tried again with a 1 s window, as
a loaded machine can keep a server quiet past the usual 0.15 s). Cases run several at a time.
Normalised: HELLO's connection id (an inline "hello" is a common mutation). Exit status 1 on a
difference. diff-fuzz.py compares commands; this compares what the parser makes of broken bytes.
"""
import argparse
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import resp  # noqa: E402

QUIET = 0.15  # seconds without a byte after which a server is taken to be waiting for more
REQUESTS = [["PING"], ["ECHO", "hello"], ["SET", "k", "v"], ["GET", "k"], ["DEL", "k"], ["INCR", "n"],
            ["RPUSH", "l", "a", "b"], ["LRANGE", "l", "0", "-1"], ["HSET", "h", "f", "v"], ["MULTI"], ["EXEC"],
            ["SELECT", "1"], ["CLIENT", "SETNAME", "x"], ["SET", "k", "v", "EX", "100"], ["OBJECT", "ENCODING", "k"]]
ODD_ARGS = [b"\xe9", b"\xff\xfe", b"caf\xc3\xa9", b"a\x00b", b"\x80x", b"\"q\"", b"'q'"]
INSERTS = [b"\r", b"\n", b"\r\n", b"*", b"$", b"-", b"0", b"9", b"\"", b"'", b"\\", b" ", b"\x00", b"+", b":",
           b"\xff", b"$-1\r\n", b"*-1\r\n", b"*0\r\n", b"$0\r\n\r\n", b"*2\r\n", b"\\x41", b"\\xZZ"]


KEYS = {"k", "n", "l", "h"}


def request(r, case):
    # Keys of the case's own: cases run side by side.
    args = [("%s:%d" % (a, case) if a in KEYS else a).encode() for a in r.choice(REQUESTS)]
    if r.random() < 0.1:
        args.append(r.choice(ODD_ARGS))
    if r.random() < 0.7:
        return resp.command(args)
    return b" ".join(args) + r.choice([b"\r\n", b"\n"])


def mutate(r, b):
    b = bytearray(b)
    for _ in range(r.randint(1, 3)):
        op, i = r.randrange(5), r.randrange(len(b) + 1)
        if op == 0 and b:
            b[min(i, len(b) - 1)] = r.randrange(256)
        elif op == 1:
            b[i:i] = r.choice(INSERTS)
        elif op == 2 and b:
            del b[min(i, len(b) - 1)]
        elif op == 3:
            b[i:i] = b[i:i + r.randint(1, 8)]
        else:
            del b[i:]
    return bytes(b)


def exchange(port, data, quiet=QUIET):
    """What the server sends back for data on a fresh connection, and whether it closed."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.settimeout(quiet)
        s.sendall(data)
        out = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    return out, True
                out += chunk
        except socket.timeout:
            return out, False
        except ConnectionResetError:
            return out, True


def normalise(reply):
    out, closed = reply
    return re.sub(rb"\$2\r\nid\r\n:\d+\r\n", b"$2\r\nid\r\n:<id>\r\n", out), closed


def start(binary_args, port, workdir):
    return subprocess.Popen(binary_args + ["--port", str(port), "--save", "", "--appendonly", "no", "--dir", workdir],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(port):
    for _ in range(300):
        try:
            if exchange(port, b"PING\r\n")[0] == b"+PONG\r\n":
                return
        except OSError:
            pass
        time.sleep(0.1)
    sys.exit("server on port %d did not start" % port)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--redis-port", type=int)
    ap.add_argument("--cinnabar-port", type=int)
    ap.add_argument("--jar", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "cinnabar.jar"))
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else int(time.time())
    servers = []
    try:
        rport, cport = a.redis_port, a.cinnabar_port
        if rport is None:
            rport = free_port()
            servers.append(start(["redis-server"], rport, tempfile.mkdtemp(prefix="proto-fuzz.")))
        if cport is None:
            cport = free_port()
            servers.append(start(["java", "-jar", a.jar], cport, tempfile.mkdtemp(prefix="proto-fuzz.")))
        wait_ready(rport)
        wait_ready(cport)
        r = random.Random(seed)
        cases = [mutate(r, b"".join(request(r, i) for _ in range(r.randint(1, 4)))) for i in range(a.n)]
        differ = 0
        with ThreadPoolExecutor(max_workers=16) as pool:
            redis = pool.map(lambda d: exchange(rport, d), cases)
            cinnabar = pool.map(lambda d: exchange(cport, d), cases)
            for i, (data, x, y) in enumerate(zip(cases, redis, cinnabar)):
                if normalise(x) != normalise(y):
                    # A loaded machine can keep one server quiet past the window: such a case
                    # counts only when it differs again with a window of a second.
                    x, y = exchange(rport, data, 1.0), exchange(cport, data, 1.0)
                if normalise(x) != normalise(y):
                    differ += 1
                    if differ <= 10:
                        print("#%d %r\n  redis:    %r\n  cinnabar: %r" % (i, data, x, y))
        print("seed %d: %d cases, %d differ" % (seed, a.n, differ))
        sys.exit(1 if differ else 0)
    finally:
        for p in servers:
            p.terminate()
            p.wait()


if __name__ == "__main__":
    main()
