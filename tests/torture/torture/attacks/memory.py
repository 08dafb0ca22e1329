"""Attack 10: memory over time. A mixed load against one `ringside serve` -- keep-alive, churn
(--no-keepalive), pipelining (--pipeline 16), error statuses (404, 405) from ringside load, and a
Python client sending malformed requests, oversized heads, and requests it abandons half-written
(closing, or resetting) -- first as a warm-up pass, then for 10 minutes (about 20 s in the short
mode). The server's VmRSS after the warm-up and after the run, each read once every connection
is closed (its descriptors back to their count at start), must agree within 5%: what a request
or a connection allocates is given back, or reused.

Then the same mix, shorter, against the ASan+UBSan build, stopped with SIGTERM: exit 0 and no
LeakSanitizer, AddressSanitizer or UBSan report on its stderr."""
import json
import os
import socket
import struct
import threading
import time

from ..framework import AttackError, fd_count, status_kb, wait_until

NUMBER = 10
NAME = "memory-over-time"
TITLE = "mixed load for 10 minutes: RSS after equals RSS before; no leak under ASan"
BUDGET_S = (70, 900)

GROWTH_LIMIT_PCT = 5.0
REPORTS = ("LeakSanitizer", "ERROR: AddressSanitizer", "runtime error")

HOSTILE = [
    # (what, bytes, abandon: None reads the answer; "close" or "reset" leaves mid-request)
    ("malformed request line", b"GET / HTTP/1.1 extra\r\nHost: x\r\n\r\n", None),
    ("bad header", b"GET / HTTP/1.1\r\nHost: x\r\nBad Header: v\r\n\r\n", None),
    ("CL and TE", b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", None),
    ("oversized head", b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"h" * 70000 + b"\r\n\r\n", None),
    ("half a head, closed", b"GET /json HTTP/1.1\r\nHost: x\r\nAcc", "close"),
    ("half a body, closed", b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n"
                            + b"b" * 2000, "close"),
    ("half a head, reset", b"GET / HTTP/1.1\r\nHo", "reset"),
    ("half a chunked body, reset", b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked"
                                   b"\r\n\r\n10\r\nabc", "reset"),
]


class HostileClient(threading.Thread):
    """Sends HOSTILE in turn on fresh connections until `stop` is set; counts what it sent."""

    def __init__(self, port, stop):
        super().__init__(daemon=True)
        self.port, self.stop = port, stop
        self.sent = 0
        self.answered = 0
        self.problem = ""

    def run(self):
        try:
            while not self.stop.is_set():
                for _, data, abandon in HOSTILE:
                    self.one(data, abandon)
                    self.sent += 1
        except OSError as error:
            self.problem = f"hostile client: {error}"

    def one(self, data, abandon):
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as sock:
            try:
                sock.sendall(data)
            except (BrokenPipeError, ConnectionResetError):
                return  # answered (431) and closed before the rest went out
            if abandon == "reset":
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                return
            if abandon == "close":
                return
            try:
                if sock.recv(64).startswith(b"HTTP/1.1 4"):
                    self.answered += 1
            except (ConnectionResetError, socket.timeout):
                pass


def load_args(seconds):
    """The ringside load side of the mix: (name, args)."""
    d = f"{seconds:g}s"
    return [
        ("keepalive", ["-d", d, "-c", "50", "-t", "1"], "/"),
        ("churn", ["-d", d, "-c", "8", "-t", "1", "--no-keepalive"], "/json"),
        ("pipelined", ["-d", d, "-c", "8", "-t", "1", "--pipeline", "16"], "/"),
        ("not-found", ["-d", d, "-c", "4", "-t", "1"], "/missing"),
        ("bad-method", ["-d", d, "-c", "4", "-t", "1", "-m", "POST"], "/"),
    ]


def mix(ctx, served, seconds, label):
    """Runs the mix for `seconds`; returns the requests answered (every load's completions, and
    the hostile client's answered requests)."""
    stop = threading.Event()
    hostile = HostileClient(served.port, stop)
    loads = {name: ctx.spawn([ctx.bin, "load", "--json", *args, served.url(path)],
                             name=f"{label}-{name}", core=ctx.load_core)
             for name, args, path in load_args(seconds)}
    hostile.start()
    ended = wait_until(lambda: not any(child.alive() for child in loads.values()), seconds + 60,
                       interval=0.2)
    stop.set()
    hostile.join(30)
    if not ended:
        raise AttackError(f"{label}: ringside load ran past {seconds + 60:.0f} s")
    if hostile.problem:
        raise AttackError(f"{label}: {hostile.problem}")
    if hostile.answered == 0:
        raise AttackError(f"{label}: the hostile client's {hostile.sent} requests got no 4xx answer")
    requests = hostile.answered
    for name, child in loads.items():
        try:
            doc = json.loads(child.output())
        except ValueError:
            raise AttackError(f"{label}: ringside load {name} printed no JSON (exit "
                              f"{child.process.returncode}): {child.errors()[-300:]}") from None
        requests += doc["requests"]["completed"]
        if doc["requests"]["completed"] == 0:
            raise AttackError(f"{label}: ringside load {name} completed nothing: {doc['errors']}")
    return requests


def settled_rss_kb(served, baseline_fds, label):
    """VmRSS once the server holds only its start-up descriptors again (bounded wait)."""
    if not wait_until(lambda: fd_count(served.pid) <= baseline_fds, 30, interval=0.1):
        raise AttackError(f"{label}: the server still holds {fd_count(served.pid)} descriptors "
                          f"30 s after the load, {baseline_fds} at start")
    return status_kb(served.pid, "VmRSS")


def release_run(ctx, result):
    served = ctx.serve("--db", "none", threads=1)
    baseline_fds = fd_count(served.pid)
    warmup_s, run_s = (4, 16) if ctx.short else (30, 600)
    ctx.progress(f"warm-up pass of the mix, {warmup_s} s")
    mix(ctx, served, warmup_s, "warmup")
    before = settled_rss_kb(served, baseline_fds, "after the warm-up")
    ctx.progress(f"the mix for {run_s} s (RSS {before} kB after the warm-up)")
    requests = mix(ctx, served, run_s, "run")
    after = settled_rss_kb(served, baseline_fds, "after the run")
    result.expect(served.alive(), "the release server died during the mix")
    growth = (after - before) * 100.0 / before
    result.figure("rss_before_mb", round(before / 1024, 2))
    result.figure("rss_after_mb", round(after / 1024, 2))
    result.figure("growth_pct", round(growth, 2))
    result.figure("requests", requests)
    result.expect(abs(growth) <= GROWTH_LIMIT_PCT,
                  f"RSS {before} kB after the warm-up, {after} kB after {run_s} s of the mix: "
                  f"{growth:+.1f}%, beyond {GROWTH_LIMIT_PCT}%")
    served.stop()


def asan_run(ctx, result):
    if not os.access(ctx.asan_bin, os.X_OK):
        raise AttackError(f"no ASan build at {ctx.asan_bin}: build it with scripts/build asan "
                          f"(or pass --asan-bin)")
    # LeakSanitizer is on by default with ASan on Linux; said explicitly, so an ASAN_OPTIONS in
    # the caller's environment cannot turn it off for this run.
    options = os.environ.get("ASAN_OPTIONS", "")
    env = dict(os.environ, ASAN_OPTIONS=(options + ":" if options else "") + "detect_leaks=1")
    served = ctx.serve("--db", "none", threads=1, bin=ctx.asan_bin, name="serve-asan", env=env)
    seconds = 5 if ctx.short else 60
    ctx.progress(f"the mix for {seconds} s against the ASan+UBSan build")
    mix(ctx, served, seconds, "asan")
    code = served.stop(timeout=30)
    errors = served.errors()
    reports = sum(errors.count(marker) for marker in REPORTS)
    result.figure("lsan_reports", reports)
    result.expect(code == 0, f"the ASan server exited {code} on SIGTERM, not 0: {errors[-400:]}")
    result.expect(reports == 0, f"sanitizer reports on the ASan server's stderr: {errors[-600:]}")


def run(ctx, result):
    release_run(ctx, result)
    asan_run(ctx, result)
