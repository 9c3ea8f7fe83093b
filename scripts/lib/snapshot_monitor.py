#!/usr/bin/env python3
"""Used by scripts/bgsave-latency.sh: samples a server's memory and, optionally, keeps a
background snapshot running, until a stop file appears.

  snapshot_monitor.py --port P --pid PID --stop FILE --out FILE [--command BGSAVE|BGREWRITEAOF]

Every 100 ms: the RSS of PID (VmRSS) plus, for each child process (Redis's fork), the memory the
child holds privately (Private_Clean + Private_Dirty of smaps_rollup: the pages copied on write,
the child's own buffers), and the sum of both; the peaks are kept. With --command, the command is
sent, INFO persistence is polled every 50 ms until the snapshot is over, its duration recorded,
and the next one is started at once, until the stop file appears (a snapshot still running then
is waited for). Writes JSON: peaks in kB, durations in seconds, failures.
"""
import json
import os
import socket
import sys
import time


def call(sock, f, *args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    sock.sendall(b"".join(out))
    line = f.readline()
    if line[:1] == b"$":
        n = int(line[1:-2])
        return f.read(n + 2)[:-2].decode() if n >= 0 else None
    return line[:-2].decode()


def info_field(text, name):
    for line in text.splitlines():
        if line.startswith(name + ":"):
            return line.split(":", 1)[1].strip()
    return None


def kb(path, names):
    total = 0
    try:
        for line in open(path):
            parts = line.split()
            if parts and parts[0].rstrip(":") in names:
                total += int(parts[1])
    except OSError:
        pass
    return total


def children(pid):
    out = []
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                out += [int(c) for c in open("/proc/%d/task/%s/children" % (pid, tid)).read().split()]
            except OSError:
                pass
    except OSError:
        pass
    return out


def main():
    a = dict(zip(sys.argv[1::2], sys.argv[2::2]))
    port, pid, stop, out = int(a["--port"]), int(a["--pid"]), a["--stop"], a["--out"]
    command = a.get("--command")
    flag, status = {"BGSAVE": ("rdb_bgsave_in_progress", "rdb_last_bgsave_status"),
                    "BGREWRITEAOF": ("aof_rewrite_in_progress", "aof_last_bgrewrite_status")}.get(command, (None, None))
    sock = socket.create_connection(("127.0.0.1", port))
    f = sock.makefile("rb")
    peak_parent = peak_child = peak_total = 0
    durations, failures = [], []
    started = None
    next_sample = 0.0
    while True:
        now = time.time()
        stopping = os.path.exists(stop)
        if now >= next_sample:
            parent = kb("/proc/%d/status" % pid, {"VmRSS"})
            child = sum(kb("/proc/%d/smaps_rollup" % c, {"Private_Clean", "Private_Dirty"}) for c in children(pid))
            peak_parent, peak_child = max(peak_parent, parent), max(peak_child, child)
            peak_total = max(peak_total, parent + child)
            next_sample = now + 0.1
        if flag:
            if started is None and not stopping:
                reply = call(sock, f, command)
                if reply.startswith("-"):
                    failures.append(reply)
                    time.sleep(0.1)
                else:
                    started = time.time()
            elif started is not None:
                info = call(sock, f, "INFO", "persistence")
                if info_field(info, flag) == "0":
                    if info_field(info, status) == "ok":
                        durations.append(round(time.time() - started, 3))
                    else:
                        failures.append("%s ended with %s:%s" % (command, status, info_field(info, status)))
                    started = None
        if stopping and started is None:
            break
        time.sleep(0.05)
    json.dump({"peak_rss_kb": peak_parent, "peak_child_private_kb": peak_child, "peak_total_kb": peak_total,
               "durations": durations, "failures": failures}, open(out, "w"))


if __name__ == "__main__":
    main()
