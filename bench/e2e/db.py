#!/usr/bin/env python3
"""Database-route benchmark (issue 7): `ringside serve` against the rust-hyper and node-http
contestants on one throwaway PostgreSQL, `/users/:id` with random ids at several concurrencies, the
node/rust seed's `ab -n 10000 -c 1000 /users/1`, and ringside's own `/db`.

A benchmark, not a test: it passes whatever the numbers are and prints them next to peers measured
in the same run. The server under test and PostgreSQL share SERVER_CPU (say so: the database's
work is part of every request), the load generator runs alone on CLIENT_CPU. Each point starts a
fresh server, warms it up, then measures: requests/s, p50/p99 latency, errors, the server's CPU
per request, PostgreSQL's CPU per query (the floor no server can go under) and the queries per
request that PostgreSQL counted. Rounds interleave the contestants; tables show medians.

    bench/e2e/db.py                            # about 8 minutes
    bench/e2e/db.py --rounds 1 --duration 3 --connections 10,100 --no-ab    # a quick look
"""
import argparse
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))
import proctree  # noqa: E402
from report_common import markdown_table, median_and_mad_pct, text_table  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
CONTESTANTS_DIR = os.path.join(REPO, "contestants")
USERS = 10_000


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def die(message):
    print(f"db.py: error: {message}", file=sys.stderr)
    sys.exit(1)


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    return proctree.tree_sum(pid, proctree.cpu_ticks) / proctree.CLK_TCK


def psql(url, sql):
    out = subprocess.run(["psql", "-X", "-A", "-t", "-d", url, "-c", sql], capture_output=True,
                         text=True, timeout=60)
    if out.returncode != 0:
        die(f"psql failed: {out.stderr.strip()}")
    return out.stdout.strip()


def user_queries(url):
    """Calls of every statement that reads users, as pg_stat_statements counts them."""
    return int(psql(url, "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements "
                         "WHERE query ILIKE '%from users%'") or 0)


def world_queries(url):
    return int(psql(url, "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements "
                         "WHERE query ILIKE '%from world%'") or 0)


class Contestant:
    """A server started from its contestants/NAME/contestant.toml, pinned to one core."""

    def __init__(self, name, ringside, pool):
        self.name = name
        self.dir = os.path.join(CONTESTANTS_DIR, name)
        with open(os.path.join(self.dir, "contestant.toml"), "rb") as f:
            self.manifest = tomllib.load(f)
        self.ringside = ringside
        self.pool = pool
        self.process = None

    def check(self):
        if not self.manifest.get("available", True):
            return f"not available: {self.manifest.get('reason', '')}"
        start = self.expand(self.manifest["start"], 0, "", "")
        executable = start[0]
        if not os.path.isabs(executable) and "/" in executable:
            executable = os.path.join(self.dir, executable)
        if shutil.which(executable) is None and not os.access(executable, os.X_OK):
            return f"{start[0]} not found: run scripts/setup"
        return ""

    def expand(self, words, port, db_url, workdir):
        values = {"{port}": str(port), "{threads}": "1", "{db_url}": db_url, "{dir}": self.dir,
                  "{workdir}": workdir, "{ringside}": self.ringside}
        out = []
        for word in words:
            for key, value in values.items():
                word = word.replace(key, value)
            out.append(word)
        return out

    def start(self, port, db_url, server_cpu, workdir):
        argv = self.expand(self.manifest["start"], port, db_url, workdir)
        if self.name == "ringside":
            argv += ["--db-pool", str(self.pool)]
        env = dict(os.environ)
        for key, value in self.manifest.get("env", {}).items():
            env[key] = self.expand([value], port, db_url, workdir)[0]
        self.log_path = os.path.join(workdir, "server.log")
        self.process = subprocess.Popen(["taskset", "-c", str(server_cpu)] + argv, cwd=self.dir,
                                        env=env, stdout=open(self.log_path, "w"),
                                        stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        url = f"http://127.0.0.1:{port}{self.manifest.get('ready_path', '/')}"
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                die(f"{self.name} exited with {self.process.returncode}: {self.last_output()}")
            try:
                if opener.open(url, timeout=1).status == 200:
                    return
            except OSError:
                time.sleep(0.05)  # readiness poll interval, bounded by the deadline above
        die(f"{self.name} was not ready within 60 s: {self.last_output()}")

    def last_output(self):
        try:
            with open(self.log_path) as f:
                return " | ".join(f.read().splitlines()[-5:])
        except OSError:
            return ""

    def stop(self):
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=10)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.process.wait(timeout=10)
        self.process = None


def ringside_load(args, ringside, client_cpu):
    out = subprocess.run(["taskset", "-c", str(client_cpu), ringside, "load", "--json", "-t", "1",
                          *args], capture_output=True, text=True, timeout=600)
    try:
        return json.loads(out.stdout)
    except ValueError:
        die(f"ringside load {' '.join(args)} gave no JSON: {out.stderr.strip()}")


def load_figures(doc):
    requests = doc["requests"]["completed"]
    codes = doc["status"]["codes"]
    non_2xx = sum(n for code, n in codes.items() if not code.startswith("2"))
    return {
        "rps": doc["requests_per_s"]["overall"],
        "p50_ms": doc["latency_us"]["percentiles"]["50"] / 1000.0,
        "p99_ms": doc["latency_us"]["percentiles"]["99"] / 1000.0,
        "errors": doc["requests"]["failed"] + non_2xx,
        "requests": requests,
    }


def ab_figures(text):
    def find(pattern):
        match = re.search(pattern, text)
        return float(match.group(1)) if match else 0.0
    completed = find(r"Complete requests:\s+(\d+)")
    return {
        "rps": find(r"Requests per second:\s+([\d.]+)"),
        "p50_ms": find(r"\n\s+50%\s+(\d+)"),
        "p99_ms": find(r"\n\s+99%\s+(\d+)"),
        "errors": find(r"Failed requests:\s+(\d+)") + find(r"Non-2xx responses:\s+(\d+)"),
        "requests": completed,
    }


def measure_point(contestant, workload, conns, args, db):
    """One fresh server, warm-up, measured run; returns its figures."""
    workdir = tempfile.mkdtemp(prefix=f"ringside-dbbench-{contestant.name}-")
    port = free_port()
    contestant.start(port, db["url"], args.server_cpu, workdir)
    try:
        base = f"http://127.0.0.1:{port}"
        if workload == "users":
            urls = os.path.join(workdir, "urls.txt")
            ids = list(range(1, USERS + 1))
            random.Random(conns).shuffle(ids)
            with open(urls, "w") as f:
                f.write("".join(f"{base}/users/{i}\n" for i in ids))
            target = ["--urls-file", urls]
        else:
            target = [f"{base}/{workload}"]
        if workload != "ab":
            ringside_load(["-c", str(conns), "-d", f"{args.warmup}s", *target], args.ringside,
                          args.client_cpu)
        queries_before = user_queries(db["url"]) + world_queries(db["url"])
        server_before, pg_before = cpu_seconds(contestant.process.pid), cpu_seconds(db["pid"])
        if workload == "ab":
            out = subprocess.run(["taskset", "-c", str(args.client_cpu), "ab", "-q", "-n", "10000",
                                  "-c", str(conns), f"{base}/users/1"], capture_output=True,
                                 text=True, timeout=600)
            figures = ab_figures(out.stdout)
        else:
            figures = load_figures(ringside_load(["-c", str(conns), "-d", f"{args.duration}s",
                                                  *target], args.ringside, args.client_cpu))
        server_cpu = cpu_seconds(contestant.process.pid) - server_before
        pg_cpu = cpu_seconds(db["pid"]) - pg_before
        queries = user_queries(db["url"]) + world_queries(db["url"]) - queries_before
        if contestant.process.poll() is not None:
            die(f"{contestant.name} died during the run: {contestant.last_output()}")
    finally:
        contestant.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    requests = max(figures["requests"], 1)
    figures.update({
        "server_us": 1e6 * server_cpu / requests,
        "pg_us_per_query": 1e6 * pg_cpu / max(queries, 1),
        "queries_per_request": queries / requests,
    })
    return figures


def median_row(name, runs, peer):
    rps, mad = median_and_mad_pct([r["rps"] for r in runs])

    def med(key):
        return statistics.median(r[key] for r in runs)
    row = [name, f"{rps:,.0f}", f"{mad:.1f}%", f"{med('p50_ms'):.2f}", f"{med('p99_ms'):.2f}",
           f"{med('errors'):.0f}", f"{med('server_us'):.1f}", f"{med('pg_us_per_query'):.1f}",
           f"{med('queries_per_request'):.2f}"]
    row.append(f"{rps / peer:.2f}x" if peer else "n/a")
    return row


HEADER = ["contestant", "req/s", "+-MAD", "p50 ms", "p99 ms", "errors", "server CPU µs/req",
          "PostgreSQL CPU µs/query", "queries/req", "req/s vs rust-hyper"]


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=8, help="seconds per measured run")
    parser.add_argument("--warmup", type=int, default=2, help="seconds of warm-up per run")
    parser.add_argument("--connections", default="10,100,500")
    parser.add_argument("--contestants", default="ringside,rust-hyper,node-http")
    parser.add_argument("--pool", type=int, default=2, help="ringside's --db-pool")
    parser.add_argument("--no-ab", action="store_true", help="skip ab -n 10000 -c 1000 /users/1")
    parser.add_argument("--no-db-route", action="store_true", help="skip ringside's /db")
    parser.add_argument("--server-cpu", type=int, default=0)
    parser.add_argument("--client-cpu", type=int, default=1)
    parser.add_argument("--ringside", default=os.path.join(REPO, "build/release/apps/ringside"))
    parser.add_argument("--markdown", help="also write the tables here")
    args = parser.parse_args()
    for tool in ("taskset", "psql", "ab"):
        if shutil.which(tool) is None:
            die(f"{tool} is missing: run scripts/setup")
    if not os.access(args.ringside, os.X_OK):
        die(f"no ringside binary at {args.ringside}: run scripts/build release")
    if args.server_cpu == args.client_cpu:
        die("--server-cpu and --client-cpu must differ")
    conns = [int(c) for c in args.connections.split(",")]
    contestants = []
    for name in args.contestants.split(","):
        contestant = Contestant(name, args.ringside, args.pool)
        problem = contestant.check()
        if problem:
            log(f"skipping {name}: {problem}")
        else:
            contestants.append(contestant)
    if not contestants:
        die("no runnable contestant")

    log(f"starting PostgreSQL on core {args.server_cpu}, beside the server under test")
    temp = subprocess.Popen(["taskset", "-c", str(args.server_cpu), args.ringside, "db", "temp"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    db = {"url": temp.stdout.readline().strip(), "pid": temp.pid}
    if not db["url"]:
        die("ringside db temp printed no URL")
    points = [("users", c) for c in conns]
    if not args.no_ab:
        points.append(("ab", 1000))
    if not args.no_db_route:
        points += [("db", c) for c in conns]
    results = {}
    try:
        for round_number in range(1, args.rounds + 1):
            order = contestants[round_number - 1:] + contestants[:round_number - 1]
            for workload, c in points:
                for contestant in order:
                    if workload == "db" and contestant.name != "ringside":
                        continue  # /db is TechEmpower's route; the contestants serve /users/:id
                    figures = measure_point(contestant, workload, c, args, db)
                    results.setdefault((workload, c), {}).setdefault(contestant.name, []).append(figures)
                    log(f"round {round_number} {workload} c={c} {contestant.name}: "
                        f"{figures['rps']:,.0f} req/s p99 {figures['p99_ms']:.2f} ms "
                        f"errors {figures['errors']:.0f} server {figures['server_us']:.1f} µs/req "
                        f"PostgreSQL {figures['pg_us_per_query']:.1f} µs/query "
                        f"{figures['queries_per_request']:.2f} q/req")
    finally:
        temp.send_signal(signal.SIGTERM)
        temp.wait(timeout=60)

    titles = {"users": "GET /users/:id, random ids, ringside load -t1 -c {c}",
              "ab": "ab -n 10000 -c {c} /users/1 (the node/rust seed's run)",
              "db": "GET /db (ringside only), ringside load -t1 -c {c}"}
    sections = []
    for (workload, c), by_name in results.items():
        peer = statistics.median(r["rps"] for r in by_name["rust-hyper"]) if "rust-hyper" in by_name else 0
        rows = [median_row(name, runs, peer) for name, runs in by_name.items()]
        sections.append((titles[workload].format(c=c), rows))
    notes = (f"Server and PostgreSQL share core {args.server_cpu} (each server runs one worker "
             f"thread: ringside --threads 1 --db-pool {args.pool}, rust-hyper --threads 1, node "
             f"single-threaded); the load generator runs on core {args.client_cpu}. Median of "
             f"{args.rounds} rounds; {args.duration} s measured after {args.warmup} s of warm-up, "
             f"each point on a fresh server. CPU from /proc (utime+stime of each process tree).")
    print(notes)
    for title, rows in sections:
        print(f"\n{title}\n{text_table(HEADER, rows)}")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(f"```sh\n{' '.join(sys.argv)}\n```\n\n{notes}\n")
            for title, rows in sections:
                f.write(f"\n#### {title}\n\n{markdown_table(HEADER, rows)}\n")


if __name__ == "__main__":
    main()
