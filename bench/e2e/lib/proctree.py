#!/usr/bin/env python3
"""CPU time and memory of a server's whole process tree, read from /proc.

A server may be several processes (nginx: master + worker), so every figure sums the root PID and
all its descendants; threads are already folded into their process's /proc/PID/stat.

    proctree.py cpu PID          utime+stime of the tree, in seconds (ticks / CLK_TCK)
    proctree.py rss PID          VmRSS of the tree, in KiB
    proctree.py sample PID OUT   sample the tree's VmRSS every 100 ms until SIGTERM, then write
                                 max(sampled peak, summed VmHWM) in KiB to OUT
"""
import os
import signal
import sys
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def parents():
    """Maps every live PID to its parent PID."""
    result = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue  # exited while we looked
        # The command name (field 2) may hold spaces and parentheses; the fields after it do not.
        fields = stat[stat.rindex(")") + 2:].split()
        result[int(entry)] = int(fields[1])
    return result


def tree(root):
    by_parent = {}
    for pid, ppid in parents().items():
        by_parent.setdefault(ppid, []).append(pid)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(by_parent.get(pid, []))
    return found


def cpu_ticks(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)


def status_kib(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_sum(root, measure):
    return sum(measure(pid) for pid in tree(root))


def sample(root, out_path):
    stop = False

    def on_term(_signum, _frame):
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_term)
    peak = 0
    while not stop:
        peak = max(peak, tree_sum(root, lambda p: status_kib(p, "VmRSS")))
        time.sleep(0.1)
    # VmHWM catches a spike shorter than the sampling period; each server process is fresh per run,
    # so its high-water mark covers only this run (and its warm-up at the same concurrency).
    peak = max(peak, tree_sum(root, lambda p: status_kib(p, "VmHWM")))
    with open(out_path, "w") as f:
        f.write(f"{peak}\n")


def main(argv):
    if len(argv) < 3 or argv[1] not in ("cpu", "rss", "sample"):
        sys.exit(__doc__)
    root = int(argv[2])
    if argv[1] == "cpu":
        print(f"{tree_sum(root, cpu_ticks) / CLK_TCK:.2f}")
    elif argv[1] == "rss":
        print(tree_sum(root, lambda p: status_kib(p, "VmRSS")))
    else:
        sample(root, argv[3])


if __name__ == "__main__":
    main(sys.argv)
