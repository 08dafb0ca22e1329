#!/usr/bin/env python3
"""Parsing and reporting for bench/e2e/loaders.sh.

    loaders_report.py parse GENERATOR OUTPUT
        One tab-separated line from a generator's own report: completed elapsed_s errors.
        completed counts responses of any status; errors are transport errors plus non-2xx
        responses, as the generator classes them. GENERATOR: ringside wrk hey ab h2load autocannon.

    loaders_report.py report RAW_TSV --markdown FILE --command CMD [--meta KEY=VALUE ...]
                             [--invocation GENERATOR=COMMAND ...]
        Medians over rounds per generator, ratios to wrk and the goals of ringside load; plain
        tables on stdout and the Markdown version in FILE.
"""
import argparse
import json
import re
import statistics
import sys
from collections import OrderedDict
from datetime import datetime

from report_common import (add_report_arguments, find, markdown_table, median_and_mad_pct,
                           medians_of, ratio, read_tsv, seconds, text_table, wrk_errors,
                           wrk_requests, write_markdown_foot, write_markdown_head)

PEER = "wrk"  # every ratio is against this generator, measured in the same run
SUBJECT = "ringside"
LABELS = {"ringside": "ringside load"}
# The goals of ringside load, as ratios to wrk: (figure, label, minimum).
GOALS = (("rpcs", "req per CPU-s", 1.2), ("rps", "req/s", 1.0))


# ---------------------------------------------------------------------------------------------
# each generator's output

def parse_wrk(text):
    count, elapsed = wrk_requests(text)
    return count, elapsed, sum(wrk_errors(text))


def parse_hey(text):
    (total,) = find(r"^\s*Total:\s+([\d.]+) secs", text, "hey")
    # Status lines and error lines look alike ("[200] 123 responses", "[5] Get ...: EOF").
    statuses, _, failures = text.partition("Error distribution:")
    codes = [(int(code), int(n)) for code, n in
             re.findall(r"^\s*\[(\d+)\]\s+(\d+) responses", statuses, re.MULTILINE)]
    errors = sum(int(n) for n in re.findall(r"^\s*\[(\d+)\]", failures, re.MULTILINE))
    non2xx = sum(n for code, n in codes if not 200 <= code < 300)
    return sum(n for _, n in codes), float(total), errors + non2xx


def parse_ab(text):
    (complete,) = find(r"^Complete requests:\s+(\d+)", text, "ab")
    (failed,) = find(r"^Failed requests:\s+(\d+)", text, "ab")
    (non2xx,) = find(r"^Non-2xx responses:\s+(\d+)", text, "ab", ("0",))
    (taken,) = find(r"^Time taken for tests:\s+([\d.]+) seconds", text, "ab")
    return int(complete), float(taken), int(failed) + int(non2xx)


def parse_h2load(text):
    value, unit = find(r"^finished in ([\d.]+)(us|ms|s|m|h),", text, "h2load")
    # done = succeeded + failed; failed already includes the errored and timed-out requests.
    done, failed = find(r"^requests: \d+ total, \d+ started, (\d+) done, \d+ succeeded, "
                        r"(\d+) failed", text, "h2load")
    return int(done), seconds(value, unit), int(failed)


def parse_json(text, name):
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{name} printed no JSON ({error}); output:\n{text}") from None


def parse_autocannon(text):
    doc = parse_json(text, "autocannon")
    # `duration` is rounded to 0.1 s; start and finish are exact to the millisecond.
    start, finish = (datetime.fromisoformat(doc[k].replace("Z", "+00:00"))
                     for k in ("start", "finish"))
    elapsed = (finish - start).total_seconds() or float(doc["duration"])
    # `errors` already counts the timeouts.
    return int(doc["requests"]["total"]), elapsed, int(doc["errors"]) + int(doc["non2xx"])


def parse_ringside(text):
    doc = parse_json(text, "ringside load")
    completed = int(doc["requests"]["completed"])
    non2xx = completed - int(doc["status"]["classes"]["2xx"])
    return completed, float(doc["elapsed_s"]), sum(doc["errors"].values()) + non2xx


PARSERS = {"ringside": parse_ringside, "wrk": parse_wrk, "hey": parse_hey, "ab": parse_ab,
           "h2load": parse_h2load, "autocannon": parse_autocannon}


# ---------------------------------------------------------------------------------------------
# aggregation

def read_runs(path):
    """Every line of RAW_TSV as a dict, with the figures derived from the measured ones."""
    runs = read_tsv(path)
    for run in runs:
        if run["status"] != "ok":
            continue
        for key in ("completed", "errors"):
            run[key] = int(run[key])
        for key in ("elapsed_s", "wall_s", "user_s", "sys_s", "nginx_cpu_s"):
            run[key] = float(run[key])
        cpu_s = run["user_s"] + run["sys_s"]
        run["rps"] = run["completed"] / run["elapsed_s"] if run["elapsed_s"] else 0.0
        run["rpcs"] = run["completed"] / cpu_s if cpu_s else 0.0
        run["cpu_pct"] = 100 * cpu_s / run["wall_s"] if run["wall_s"] else 0.0
        run["nginx_pct"] = 100 * run["nginx_cpu_s"] / run["wall_s"] if run["wall_s"] else 0.0
    return runs


def group(runs):
    """generator -> its runs, generators in the order they first ran (or were skipped)."""
    groups = OrderedDict()
    for run in runs:
        groups.setdefault(run["generator"], []).append(run)
    return groups


def summarise(runs, rounds):
    ok = [r for r in runs if r["status"] == "ok"]
    summary = {"ok": len(ok), "rounds": rounds,
               "note": next((r["note"] for r in runs if r["status"] != "ok"), "")}
    if not ok:
        return summary
    median_rps, mad_pct = median_and_mad_pct([r["rps"] for r in ok])
    summary.update({
        "rps": median_rps,
        "rps_mad_pct": mad_pct,
        "rpcs": statistics.median(r["rpcs"] for r in ok),
        "cpu_pct": statistics.median(r["cpu_pct"] for r in ok),
        "nginx_pct": statistics.median(r["nginx_pct"] for r in ok),
        # A sum, not a median: one bad round must not vanish from the table.
        "errors": sum(r["errors"] for r in ok),
    })
    return summary


# ---------------------------------------------------------------------------------------------
# tables

HEADER = ["generator", "req/s", "+-MAD", "req/CPU-s", "generator CPU", "nginx CPU", "errors",
          "rounds", "req/s vs wrk", "req/CPU-s vs wrk"]


def table_rows(stats):
    peer = stats.get(PEER, {})
    rows = []
    for name, s in stats.items():
        label = LABELS.get(name, name)
        if not s["ok"]:
            reason = "skipped" if s["rounds"] == 0 else "failed"
            rows.append([label, f"{reason}: {s['note']}"] + [""] * (len(HEADER) - 2))
            continue
        rounds = f"{s['ok']}/{s['rounds']}"
        rows.append([label, f"{s['rps']:,.0f}", f"{s['rps_mad_pct']:.1f}%", f"{s['rpcs']:,.0f}",
                     f"{s['cpu_pct']:.0f}%", f"{s['nginx_pct']:.0f}%", str(s["errors"]), rounds,
                     ratio(s["rps"], peer.get("rps")), ratio(s["rpcs"], peer.get("rpcs"))])
    return rows


def per_round_ratios(runs, key):
    """ringside load over wrk in each round where both ran: the spread behind the median."""
    by_round = {}
    for run in runs:
        if run["status"] == "ok" and run["generator"] in (SUBJECT, PEER):
            by_round.setdefault(run["round"], {})[run["generator"]] = run[key]
    return [pair[SUBJECT] / pair[PEER] for _, pair in sorted(by_round.items(), key=lambda p: int(p[0]))
            if len(pair) == 2 and pair[PEER]]


def goal_lines(stats, runs):
    subject, peer = stats.get(SUBJECT, {}), stats.get(PEER, {})
    lines = []
    for key, label, minimum in GOALS:
        head = f"ringside load {label} >= {minimum:.1f}x wrk's:"
        if not subject.get("ok") or not peer.get("ok") or not peer[key]:
            lines.append(f"{head} n/a (ringside load and wrk must both have run)")
            continue
        value = subject[key] / peer[key]
        rounds = " ".join(f"{r:.2f}x" for r in per_round_ratios(runs, key))
        verdict = "met" if value >= minimum else "NOT met"
        lines.append(f"{head} {value:.2f}x, {verdict} (per round: {rounds})")
    return lines


def report(args):
    runs = read_runs(args.raw)
    rounds = max((int(r["round"]) for r in runs if r["round"].isdigit()), default=0)
    groups = group(runs)
    # Skipped generators last, so the measured ones stand together at the top.
    order = sorted(groups, key=lambda name: groups[name][0]["status"] == "skipped")
    stats = OrderedDict((name, summarise(groups[name], 0 if groups[name][0]["status"] == "skipped"
                                         else rounds))
                        for name in order)
    rows = table_rows(stats)
    goals = goal_lines(stats, runs)
    heading = f"load generators against nginx, c={args.connections}, {medians_of(rounds)}"
    print(f"== {heading}\n{text_table(HEADER, rows)}\n")
    print("\n".join(goals))

    invocations = [i.split("=", 1) for i in args.invocation]
    with open(args.markdown, "w") as f:
        write_markdown_head(f, "ringside load-generator benchmark", args, NOTES)
        f.write(f"### {heading}\n\n{markdown_table(HEADER, rows)}\n\n")
        f.write("".join(f"- {line}\n" for line in goals))
        f.write("\n### Invocations\n\n")
        f.write("".join(f"- {LABELS.get(name, name)}: `{command}`\n"
                        for name, command in invocations))
        write_markdown_foot(f, args)


NOTES = """\
nginx (one worker) runs on one core and each generator, with one thread, on the other; every run
gets a fresh nginx. Rounds interleave the generators, each round starting one later, so that drift
on a shared machine hits all alike. Figures are medians over rounds (`+-MAD` is the median absolute
deviation of req/s, as a share of the median); errors are summed over rounds.

req/s is the responses the generator counted (any status) over the measuring time it reported.
req/CPU-s divides the same count by the generator's user+sys CPU time over its whole life, start-up
included (node's matters for autocannon), summed over its threads and any children it waited for.
"generator CPU" is that time over the generator's wall time; "nginx CPU" is nginx's (master and
worker) over the same span. When nginx is near 100% the server, not the generator, set the req/s,
and the generators differ in how little CPU they needed to keep it busy; a generator near 100%
with nginx well below it is the bottleneck itself. Both well below 100% means other work took the
cores (see the load average above). Ratios divide by wrk: above 1x is better.
"""


# ---------------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command_name", required=True)
    parse = sub.add_parser("parse")
    parse.add_argument("generator", choices=sorted(PARSERS))
    parse.add_argument("output")
    rep = add_report_arguments(sub)
    rep.add_argument("--connections", required=True)
    rep.add_argument("--invocation", action="append", default=[])
    args = parser.parse_args()
    if args.command_name == "parse":
        with open(args.output) as f:
            try:
                completed, elapsed, errors = PARSERS[args.generator](f.read())
            except KeyError as error:
                sys.exit(f"loaders_report.py: {args.generator}: its JSON lacks the field {error}")
            except (ValueError, TypeError) as error:
                sys.exit(f"loaders_report.py: {args.generator}: {error}")
        print(f"{completed}\t{elapsed:.3f}\t{errors}")
    else:
        report(args)


if __name__ == "__main__":
    main()
