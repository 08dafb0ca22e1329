#!/usr/bin/env python3
"""How far two `ringside compare` runs of one scenario agree: the figures issue 19 asks of the
default scenario run twice back to back.

    bench/repeatability/agreement.py RUN_A/results.json RUN_B/results.json

Prints, over the closed points both runs measured: the share whose median requests/s agree
within 5% (and 10%), the same for server CPU per request, how many points each run left noisy or
flagged server-starved, and whether each workload's ranking agrees (by the geometric mean of a
contestant's median requests/s over the workload's levels, ties where the two contestants'
intervals overlap, as harness/verdict ranks them). Exit 0; this reports, it does not judge."""
import json
import math
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def closed_points(document):
    return {(p["workload"], p["contestant"], p["connections"]): p for p in document["points"]
            if p["mode"] == "closed" and not p["failure"] and p["rounds"]}


def agree(a, b, within):
    if a is None or b is None or a <= 0 or b <= 0:
        return None
    return abs(b - a) / a <= within


def share(results):
    known = [r for r in results if r is not None]
    return f"{sum(known)}/{len(known)} ({100 * sum(known) / len(known):.0f}%)" if known else "-"


def interval(point, key, figure):
    i = point.get(key) or {}
    low, high = i.get("low"), i.get("high")
    if low is None or high is None:
        values = [r[figure] for r in point["rounds"] if r[figure] is not None]
        low, high = min(values), max(values)
    return low, high


def ranking(document, workload):
    """Groups of contestants, best first; a group holds those whose intervals overlap its first."""
    points = [p for p in closed_points(document).values() if p["workload"] == workload]
    levels = {}
    for p in points:
        levels.setdefault(p["contestant"], {})[p["connections"]] = p
    common = set.intersection(*(set(v) for v in levels.values())) if levels else set()
    scores = []
    for name, by_level in levels.items():
        chosen = [by_level[c] for c in sorted(common)]
        if not chosen:
            continue
        geo = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
        median = geo([p["median"]["requests_per_s"] for p in chosen])
        low = geo([interval(p, "requests_per_s_interval", "requests_per_s")[0] for p in chosen])
        high = geo([interval(p, "requests_per_s_interval", "requests_per_s")[1] for p in chosen])
        scores.append((median, low, high, name))
    scores.sort(reverse=True)
    groups = []
    for median, low, high, name in scores:
        if groups and high >= groups[-1][0][1]:
            groups[-1][1].append(name)
        else:
            groups.append(((median, low, high), [name]))
    return [sorted(names) for _, names in groups]


def rankings_agree(a, b):
    """Every pair ordered in both runs is ordered the same way (ties in either run allowed)."""
    def order(groups):
        place = {}
        for index, names in enumerate(groups):
            for name in names:
                place[name] = index
        return place
    pa, pb = order(a), order(b)
    names = sorted(set(pa) & set(pb))
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            da, db = pa[x] - pa[y], pb[x] - pb[y]
            if da * db < 0:
                return False, f"{x} vs {y}"
    return True, ""


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = load(sys.argv[1]), load(sys.argv[2])
    pa, pb = closed_points(a), closed_points(b)
    keys = sorted(set(pa) & set(pb))
    rps5 = [agree(pa[k]["median"]["requests_per_s"], pb[k]["median"]["requests_per_s"], 0.05) for k in keys]
    rps10 = [agree(pa[k]["median"]["requests_per_s"], pb[k]["median"]["requests_per_s"], 0.10) for k in keys]
    cpu5 = [agree(pa[k]["median"]["server_cpu_us_per_request"], pb[k]["median"]["server_cpu_us_per_request"], 0.05)
            for k in keys]
    cpu10 = [agree(pa[k]["median"]["server_cpu_us_per_request"], pb[k]["median"]["server_cpu_us_per_request"], 0.10)
             for k in keys]
    print(f"closed points in both runs: {len(keys)}")
    print(f"median req/s within 5%: {share(rps5)}; within 10%: {share(rps10)}")
    print(f"CPU per request within 5%: {share(cpu5)}; within 10%: {share(cpu10)}")
    for label, document, points in (("A", a, pa), ("B", b, pb)):
        all_points = [p for p in document["points"] if p["rounds"]]
        noisy = sum(1 for p in all_points if p["noisy"])
        starved = sum(1 for p in all_points if "server-starved" in p["median"]["flags"])
        rounds = [len(p["rounds"]) for p in points.values()]
        took = document.get("started_at", ""), document.get("finished_at", "")
        print(f"run {label}: {noisy} of {len(all_points)} points noisy, {starved} server-starved, "
              f"rounds per closed point {min(rounds)}-{max(rounds)}, {took[0]} .. {took[1]}")
    workloads = sorted({k[0] for k in keys})
    for workload in workloads:
        ra, rb = ranking(a, workload), ranking(b, workload)
        same, why = rankings_agree(ra, rb)
        print(f"{workload}: rankings {'agree' if same else 'DISAGREE (' + why + ')'}")
        print(f"  A: {' > '.join('=' .join(g) for g in ra)}")
        print(f"  B: {' > '.join('=' .join(g) for g in rb)}")
    worst = sorted(((abs(pb[k]["median"]["requests_per_s"] / pa[k]["median"]["requests_per_s"] - 1), k)
                    for k in keys if pa[k]["median"]["requests_per_s"]), reverse=True)[:8]
    print("largest req/s differences:")
    for change, (workload, contestant, connections) in worst:
        print(f"  {workload} {contestant} c={connections}: {100 * change:.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
