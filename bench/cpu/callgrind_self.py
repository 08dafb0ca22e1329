"""Sums the self cost (instructions) per function of one callgrind output file and prints it per
request: the total, then the costliest functions.

    python3 bench/cpu/callgrind_self.py callgrind.out.2 160000 [--top 15]

Reads the uncompressed format (callgrind --compress-strings=no --compress-pos=no): a `fn=` line
names the function the cost lines below it belong to; a `calls=` line is followed by one line of
inclusive cost of that call, which is not the caller's own cost and is skipped.
"""
import argparse
import collections


def self_costs(path):
    costs = collections.Counter()
    function = None
    skip_next = False
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("fn="):
                function = line[3:].rstrip("\n")
            elif line.startswith("calls="):
                skip_next = True
            elif line[:1].isdigit() or line[:1] in "+-*":
                if skip_next:
                    skip_next = False
                    continue
                fields = line.split()
                if len(fields) > 1 and function:
                    costs[function] += int(fields[1])
    return costs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("requests", type=int)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    costs = self_costs(args.file)
    total = sum(costs.values())
    print(f"{total / args.requests:9.1f}  instructions per request in all")
    for function, cost in costs.most_common(args.top):
        print(f"{cost / args.requests:9.1f}  {function[:140]}")


if __name__ == "__main__":
    main()
