#!/usr/bin/env python3
"""COMMAND INFO (and COMMAND DOCS) of every Cinnabar command compared with the real Redis.

    scripts/command-info-diff.py --cinnabar-port 7502 --redis-port 7501          # COMMAND INFO
    scripts/command-info-diff.py --cinnabar-port 7502 --redis-port 7501 --docs   # COMMAND DOCS
    scripts/command-info-diff.py ... -v        # print both replies of each command that differs
    scripts/command-info-diff.py ... get set   # only these commands

Both servers must be running. The commands are those of Cinnabar's COMMAND LIST (subcommands
are compared inside their container). Replies are read in RESP3, so a map that should be a set
or an array counts as a difference. Redis lists a container's subcommands in the order of its
hash table, which changes from run to run, so subcommands are compared sorted by name; every
other part must be identical. Prints one line per differing command and a count; exit status 1
when any differed.
"""
import argparse
import difflib
import os
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import resp  # noqa: E402


class Resp3:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.settimeout(10)
        self.buf = b""
        self.call("HELLO", "3")

    def call(self, *args):
        self.sock.sendall(resp.command(args))
        return self.read()

    def _fill(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buf += chunk

    def _line(self):
        while b"\r\n" not in self.buf:
            self._fill(len(self.buf) + 1)
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def read(self):
        """A reply as a tagged tree: (type-char, value); aggregates hold lists of trees."""
        line = self._line()
        t, rest = chr(line[0]), line[1:]
        if t in "+-:,(#":
            return (t, rest)
        if t in "$=!":
            n = int(rest)
            if n < 0:
                return (t, None)
            self._fill(n + 2)
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return (t, data)
        if t == "_":
            return (t, None)
        if t in "*~>%|":
            n = int(rest)
            if n < 0:
                return (t, None)
            count = n * 2 if t in "%|" else n
            return (t, [self.read() for _ in range(count)])
        raise ValueError("bad reply type %r" % t)


def normalise(info):
    """Subcommands (the 10th element of COMMAND INFO) sorted by name, recursively."""
    t, v = info
    if t != "*" or v is None or len(v) != 10:
        return info
    subs_t, subs = v[9]
    if subs:
        subs = sorted((normalise(s) for s in subs), key=lambda s: s[1][0][1])
    return (t, v[:9] + [(subs_t, subs)])


def normalise_docs(docs):
    """COMMAND DOCS' "subcommands" map sorted by name, recursively."""
    t, v = docs
    if t not in "%*" or v is None:
        return docs
    out = []
    for i in range(0, len(v), 2):
        k, val = v[i], v[i + 1]
        if k[1] == b"subcommands" and val[0] in "%*" and val[1]:
            pairs = [(val[1][j], normalise_docs(val[1][j + 1])) for j in range(0, len(val[1]), 2)]
            pairs.sort(key=lambda p: p[0][1])
            val = (val[0], [x for p in pairs for x in p])
        out += [k, val]
    return (t, out)


def show(tree, indent=0):
    t, v = tree
    pad = "  " * indent
    if isinstance(v, list):
        lines = ["%s%s%d" % (pad, t, len(v) // (2 if t in "%|" else 1))]
        for x in v:
            lines.append(show(x, indent + 1))
        return "\n".join(lines)
    return "%s%s%s" % (pad, t, v.decode(errors="replace") if isinstance(v, bytes) else v)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cinnabar-port", type=int, required=True)
    ap.add_argument("--redis-port", type=int, required=True)
    ap.add_argument("--docs", action="store_true", help="compare COMMAND DOCS instead of COMMAND INFO")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("commands", nargs="*")
    a = ap.parse_args()
    ours, theirs = Resp3(a.cinnabar_port), Resp3(a.redis_port)
    names = a.commands or sorted(x[1].decode() for x in ours.call("COMMAND", "LIST")[1] if b"|" not in x[1])
    sub = "DOCS" if a.docs else "INFO"
    norm = normalise_docs if a.docs else normalise
    differ = 0
    for name in names:
        mine, real = norm(ours.call("COMMAND", sub, name)[1][-1]), norm(theirs.call("COMMAND", sub, name)[1][-1])
        if mine == real:
            continue
        differ += 1
        print("DIFF", name)
        if a.verbose:
            m, r = show(mine).splitlines(), show(real).splitlines()
            for line in difflib.unified_diff(r, m, "redis", "cinnabar", lineterm="", n=2):
                print("   ", line)
    print("%d of %d commands match (%d differ)" % (len(names) - differ, len(names), differ))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
