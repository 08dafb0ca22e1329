#!/usr/bin/env python3
"""Parsing and reporting for bench/e2e/hello.sh.

    hello_report.py parse-wrk WRK_OUTPUT
        One tab-separated line from `wrk --latency` output:
        rps p50_ms p99_ms requests runtime_s err_connect err_read err_write err_timeout non2xx

    hello_report.py report RAW_TSV --markdown FILE --command CMD [--meta KEY=VALUE ...]
        Medians over rounds per contestant and scenario, with ratios to nginx; plain tables on
        stdout and the Markdown version in FILE.
"""
import argparse
import math
import statistics
import sys
from collections import OrderedDict

from report_common import (NAN, add_report_arguments, find, markdown_table, median_and_mad_pct,
                           medians_of, ratio, read_tsv, text_table, wrk_errors, wrk_requests,
                           wrk_seconds, write_markdown_foot, write_markdown_head)

PEER = "nginx"  # every ratio is against this contestant, measured in the same run
FLOOR = "floor"  # the bare epoll loop: CPU per request is also divided by its


# ---------------------------------------------------------------------------------------------
# wrk output

def parse_wrk(text):
    """Returns the figures of one wrk run."""
    (rps,) = find(r"^Requests/sec:\s+([\d.]+)", text, "wrk")
    (p50,) = find(r"^\s+50%\s+(\S+)", text, "wrk")
    (p99,) = find(r"^\s+99%\s+(\S+)", text, "wrk")
    requests, runtime_s = wrk_requests(text)
    p50_ms, p99_ms = wrk_seconds(p50) * 1e3, wrk_seconds(p99) * 1e3
    # wrk 4.1.0's coordinated-omission correction can add samples below the histogram's minimum,
    # which its percentile walk never reaches: it then prints 0 (or a p99 under the p50). Such a
    # histogram is corrupt as a whole, so record no latency rather than a wrong one.
    if p50_ms <= 0 or p99_ms <= 0 or p99_ms < p50_ms:
        p50_ms = p99_ms = NAN
    return [rps, f"{p50_ms:.4f}", f"{p99_ms:.4f}", str(requests), f"{runtime_s:.2f}",
            *map(str, wrk_errors(text))]


# ---------------------------------------------------------------------------------------------
# aggregation

INT_FIELDS = ("conns", "round", "requests", "err_connect", "err_read", "err_write", "err_timeout",
              "non2xx", "idle_rss_kib", "peak_rss_kib")
FLOAT_FIELDS = ("rps", "p50_ms", "p99_ms", "runtime_s", "cpu_s")


def read_runs(path):
    runs = read_tsv(path)
    for run in runs:
        for key in INT_FIELDS:
            run[key] = int(run[key])
        for key in FLOAT_FIELDS:
            run[key] = float(run[key])
        run["errors"] = sum(run[k] for k in ("err_connect", "err_read", "err_write",
                                              "err_timeout", "non2xx"))
        run["cpu_per_100k"] = run["cpu_s"] / run["requests"] * 1e5 if run["requests"] else 0.0
        run["cpu_busy_pct"] = 100 * run["cpu_s"] / run["runtime_s"] if run["runtime_s"] else 0.0
    return runs


def median_known(values):
    """Median of the values that are not NaN (a latency wrk could not report); NaN if none."""
    known = [v for v in values if not math.isnan(v)]
    return statistics.median(known) if known else NAN


def summarise(runs):
    """Median of each figure over the rounds of one contestant in one scenario."""
    median_rps, mad_pct = median_and_mad_pct([r["rps"] for r in runs])
    return {
        "rounds": len(runs),
        "rps": median_rps,
        "rps_mad_pct": mad_pct,
        "p50_ms": median_known([r["p50_ms"] for r in runs]),
        "p99_ms": median_known([r["p99_ms"] for r in runs]),
        "cpu_per_100k": statistics.median(r["cpu_per_100k"] for r in runs),
        "cpu_busy_pct": statistics.median(r["cpu_busy_pct"] for r in runs),
        "idle_mib": statistics.median(r["idle_rss_kib"] for r in runs) / 1024,
        "peak_mib": statistics.median(r["peak_rss_kib"] for r in runs) / 1024,
        # A sum, not a median: one bad round must not vanish from the table.
        "errors": sum(r["errors"] for r in runs),
        "error_detail": "/".join(str(sum(r[k] for r in runs)) for k in
                                 ("err_connect", "err_read", "err_write", "err_timeout", "non2xx")),
    }


def group(runs):
    """(scenario, conns) -> contestant -> runs, in the order they were run."""
    groups = OrderedDict()
    for run in runs:
        groups.setdefault((run["scenario"], run["conns"]), OrderedDict()) \
            .setdefault(run["contestant"], []).append(run)
    return groups


# ---------------------------------------------------------------------------------------------
# tables

def fmt_ms(ms):
    if math.isnan(ms):
        return "n/a"
    if ms < 1:
        return f"{ms * 1000:.0f} us"
    if ms < 1000:
        return f"{ms:.2f} ms"
    return f"{ms / 1000:.2f} s"


def throughput_table(by_contestant, with_latency=True):
    """with_latency=False for pipelined runs: wrk times a batch there, not a request."""
    stats = {name: summarise(runs) for name, runs in by_contestant.items()}
    peer = stats.get(PEER)
    floor = stats.get(FLOOR)
    header = ["contestant", "req/s", "+-MAD", "p50", "p99", "CPU-s/100k req", "server CPU",
              "idle RSS MiB", "peak RSS MiB", "errors", "req/s vs nginx", "CPU/req vs nginx",
              "CPU/req vs floor"]
    rows = []
    for name, s in stats.items():
        rows.append([name, f"{s['rps']:,.0f}", f"{s['rps_mad_pct']:.1f}%", fmt_ms(s["p50_ms"]),
                     fmt_ms(s["p99_ms"]), f"{s['cpu_per_100k']:.3f}", f"{s['cpu_busy_pct']:.0f}%",
                     f"{s['idle_mib']:.1f}",
                     f"{s['peak_mib']:.1f}", str(s["errors"]),
                     ratio(s["rps"], peer["rps"]) if peer else "n/a",
                     ratio(s["cpu_per_100k"], peer["cpu_per_100k"]) if peer else "n/a",
                     ratio(s["cpu_per_100k"], floor["cpu_per_100k"]) if floor else "n/a"])
    if not with_latency:
        header = header[:3] + header[5:]
        rows = [row[:3] + row[5:] for row in rows]
    return header, rows


def memory_table(by_contestant):
    stats = {name: summarise(runs) for name, runs in by_contestant.items()}
    peer = stats.get(PEER)
    header = ["contestant", "idle RSS MiB", "peak RSS MiB", "peak RSS vs nginx", "req/s",
              "errors", "connect/read/write/timeout/non-2xx"]
    rows = []
    for name, s in stats.items():
        rows.append([name, f"{s['idle_mib']:.1f}", f"{s['peak_mib']:.1f}",
                     ratio(s["peak_mib"], peer["peak_mib"]) if peer else "n/a",
                     f"{s['rps']:,.0f}", str(s["errors"]), s["error_detail"]])
    return header, rows


def title(scenario, conns, rounds):
    medians = medians_of(rounds)
    if scenario == "pipeline":
        return f"c={conns}, pipelined depth 16, GET /plaintext ({medians}; no latency, see notes)"
    if scenario == "10k":
        return f"c={conns}, peak RSS under 10k connections, GET / ({medians})"
    return f"c={conns}, GET / ({medians})"


def report(args):
    groups = group(read_runs(args.raw))
    text_parts, md_parts = [], []
    for (scenario, conns), by_contestant in groups.items():
        if scenario == "10k":
            header, rows = memory_table(by_contestant)
        else:
            header, rows = throughput_table(by_contestant, with_latency=scenario != "pipeline")
        rounds = max(len(runs) for runs in by_contestant.values())
        heading = title(scenario, conns, rounds)
        text_parts.append(f"== {heading}\n{text_table(header, rows)}\n")
        md_parts.append(f"### {heading}\n\n{markdown_table(header, rows)}\n")
    print("\n".join(text_parts))

    with open(args.markdown, "w") as f:
        write_markdown_head(f, "ringside hello-world benchmark", args, NOTES)
        f.write("\n".join(md_parts))
        write_markdown_foot(f, args)


NOTES = """\
Each server is pinned to one core and wrk (`-t1`) to another. Every run starts a fresh server,
waits until it answers, reads its idle RSS, warms it up, then measures. Rounds interleave the
contestants so that drift on a shared machine hits all alike. Figures are medians over rounds
(`+-MAD` is the median absolute deviation of req/s, as a share of the median); errors are summed
over rounds (wrk socket errors plus non-2xx/3xx responses).

CPU is utime+stime of the server's process tree over the measured run, per 100k requests and as
a share of one core ("server CPU": well under 100% means the server waited for wrk, or another
process took its core). Peak RSS is the larger of VmRSS sampled every 100 ms and the tree's
VmHWM; kernel socket buffers are not part of RSS. Ratios divide by nginx: above 1x is better for
req/s, worse for CPU/req and RSS.

Latency is wrk's, after its coordinated-omission correction; "n/a" marks a run whose histogram
wrk 4.1.0 printed corrupt (a 0, or a p99 below the p50). Pipelined runs show no latency: wrk
times a batch of 16 there but scales its correction per request, which corrupts the histogram.
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command_name", required=True)
    parse = sub.add_parser("parse-wrk")
    parse.add_argument("wrk_output")
    add_report_arguments(sub)
    args = parser.parse_args()
    if args.command_name == "parse-wrk":
        with open(args.wrk_output) as f:
            try:
                print("\t".join(parse_wrk(f.read())))
            except ValueError as error:
                sys.exit(f"hello_report.py: {error}")
    else:
        report(args)


if __name__ == "__main__":
    main()
