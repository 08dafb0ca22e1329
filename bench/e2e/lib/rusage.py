#!/usr/bin/env python3
"""CPU time of a command and of the children it waited for: the load generator's own bill.

    rusage.py OUT -- COMMAND [ARG...]

Runs COMMAND (stdin, stdout and stderr are ours), waits for it, and writes one tab-separated line
to OUT: wall_s user_s sys_s. The times come from getrusage(RUSAGE_CHILDREN), which the kernel keeps
for every process we waited for, folding in the threads of each and every descendant that a parent
waited for: the same figures as `/usr/bin/time -f "%e %U %S"`. Reading /proc instead would miss
the last moments, since a process's entry is gone by the time we learn that it exited.

Unlike /usr/bin/time, SIGTERM and SIGINT are passed on to COMMAND, so stopping this wrapper stops
the generator too instead of leaving it running against the next server. Exits with COMMAND's
status (128 + N when signal N ended it).
"""
import resource
import signal
import subprocess
import sys
import time


def run(out_path, command):
    start = time.monotonic()
    try:
        child = subprocess.Popen(command)
    except OSError as error:
        sys.exit(f"rusage.py: cannot run {command[0]}: {error}")

    def forward(signum, _frame):
        child.send_signal(signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    status = child.wait()
    wall = time.monotonic() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out_path, "w") as f:
        f.write(f"{wall:.3f}\t{usage.ru_utime:.3f}\t{usage.ru_stime:.3f}\n")
    return status if status >= 0 else 128 - status


def main(argv):
    if len(argv) < 4 or argv[2] != "--":
        sys.exit(__doc__)
    sys.exit(run(argv[1], argv[3:]))


if __name__ == "__main__":
    main(sys.argv)
