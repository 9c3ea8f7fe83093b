"""Prints the per-case table of an ABBA benchmark: every run's requests per second on each server,
the medians and Cinnabar's median / Redis's median.

    python3 rounds_table.py WORK ROUNDS "title line"

WORK holds one file per server and round, WORK/<redis|cinnabar>.<round>, with lines
"<case> <requests per second or ->".
"""
import os
import statistics
import sys


def runs(work, server, rounds):
    out = {}
    for r in range(1, rounds + 1):
        path = f"{work}/{server}.{r}"
        if not os.path.exists(path):
            continue
        for line in open(path):
            case, value = line.split()
            out.setdefault(case, []).append(None if value == "-" else float(value))
    return out


def main():
    work, rounds, title = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    redis, cinna = runs(work, "redis", rounds), runs(work, "cinnabar", rounds)
    print(title)
    print("| case | redis runs | cinnabar runs | redis median | cinnabar median | ratio |")
    print("|---|---|---|---|---|---|")
    for case in dict.fromkeys(list(redis) + list(cinna)):
        rr = [x for x in redis.get(case, []) if x]
        cc = [x for x in cinna.get(case, []) if x]
        fmt = lambda xs: " ".join(f"{x:.0f}" for x in xs) or "-"
        mr = statistics.median(rr) if rr else None
        mc = statistics.median(cc) if cc else None
        ratio = f"{mc / mr:.2f}" if mr and mc else "-"
        print(f"| {case} | {fmt(rr)} | {fmt(cc)} | {mr or 0:.0f} | {mc or 0:.0f} | {ratio} |")


if __name__ == "__main__":
    main()
