"""Attack 3: hostile bytes. The malformed and smuggling set over the wire (each gets its documented
status and a close, and the next client is served normally; against the release and the ASan+UBSan
builds), then the libFuzzer targets, under ASan+UBSan, over their committed corpora: 60 s each in
the short mode (the four side by side), 10 minutes each, one after another, in the full mode. A
finding fails the attack; the fuzzer's crash file is named, to be added to
fuzz/corpus/<target>/ with a regression test once fixed. (The TLS port's own hostile bytes are
attack 13; its connection target, tls_connection, runs here with the others.)"""
import os
import socket
import sys
import time

from ..framework import AttackError, wait_until

NUMBER = 3
NAME = "hostile-bytes"
TITLE = "malformed and smuggling requests, then the fuzz targets under ASan+UBSan"
BUDGET_S = (240, 2700)

FUZZ_TARGETS = ("request_parser", "response_parser", "connection", "tls_connection",
                "h2_response_reader", "h2_connection", "hpack_decoder")
# The targets that drive a whole connection take scripts: a longer input is a longer session.
LONG_INPUTS = ("connection", "tls_connection", "h2_connection")

# The integration tests' set (tests/integration/test_malformed.py), plus the issue's named bytes.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "integration"))
from test_malformed import CASES  # noqa: E402

HOST = b"Host: x\r\n"
EXTRA = [
    ("signed content-length", 400, b"POST / HTTP/1.1\r\n" + HOST + b"Content-Length: +3\r\n\r\nabc"),
    ("duplicate equal content-length then a differing one", 400,
     b"POST / HTTP/1.1\r\n" + HOST + b"Content-Length: 3\r\nContent-Length: 3\r\n"
     b"Content-Length: 4\r\n\r\nabcd"),
    ("content-length over 2^64", 400,
     b"POST / HTTP/1.1\r\n" + HOST + b"Content-Length: 99999999999999999999999\r\n\r\n"),
    ("chunk size over 2^64", 400,
     b"POST / HTTP/1.1\r\n" + HOST + b"Transfer-Encoding: chunked\r\n\r\n"
     b"fffffffffffffffffffffff\r\n"),
    ("chunk size with leading whitespace", 400,
     b"POST / HTTP/1.1\r\n" + HOST + b"Transfer-Encoding: chunked\r\n\r\n 3\r\nabc\r\n0\r\n\r\n"),
    ("transfer-encoding with a tab and xchunked", 501,
     b"POST / HTTP/1.1\r\n" + HOST + b"Transfer-Encoding:\txchunked\r\n\r\n"),
    ("NUL in the target", 400, b"GET /\x00 HTTP/1.1\r\n" + HOST + b"\r\n"),
    ("NUL in a header value", 400, b"GET / HTTP/1.1\r\n" + HOST + b"X-A: a\x00b\r\n\r\n"),
    ("DEL in a header name", 400, b"GET / HTTP/1.1\r\n" + HOST + b"X\x7fA: a\r\n\r\n"),
    ("bare CR in a header", 400, b"GET / HTTP/1.1\r\n" + HOST + b"X-A: a\rb\r\n\r\n"),
    ("huge header (64 KiB)", 431, b"GET / HTTP/1.1\r\n" + HOST + b"X-Big: " + b"h" * 65536
     + b"\r\n\r\n"),
    ("bad version", 400, b"GET / HTTP/1.x\r\n" + HOST + b"\r\n"),
    ("HTTP/3.0", 505, b"GET / HTTP/3.0\r\n" + HOST + b"\r\n"),
    ("lower-case version", 400, b"GET / http/1.1\r\n" + HOST + b"\r\n"),
    ("absolute-form with a port and a path", 200, b"GET http://x:80/ HTTP/1.1\r\n" + HOST + b"\r\n"),
    # The preface itself starts HTTP/2 (tests/integration/test_serve_http2.py); one byte off it is
    # an HTTP/1.1 request line of version 2.0.
    ("HTTP/2 preface, broken", 505, b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n"),
    ("TLS ClientHello on the plain port", 400,
     # Fixed bytes: a random field could hold a LF, which a parser may reject for that instead.
     bytes.fromhex("16030100a5010000a10303") + bytes(range(0x20, 0x40)) + b"\x00\x00\x02\x13\x01\x01\x00"),
]


def read_answer(sock, timeout):
    """Reads until the peer closes or `timeout`: (status or None, bytes read, closed)."""
    sock.settimeout(timeout)
    data, closed = b"", False
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            chunk = sock.recv(65536)
            if not chunk:
                closed = True
                break
            data += chunk
    except ConnectionResetError:
        closed = True
    except socket.timeout:
        pass
    status = None
    if data.startswith(b"HTTP/1.1 ") and len(data) >= 12:
        status = int(data[9:12])
    return status, data, closed


def wire_attack(ctx, result, bin, label):
    served = ctx.serve(threads=1, core=None, bin=bin, name=f"serve-{label}")
    cases = [(n, s, r) for n, s, r in CASES] + EXTRA
    wrong = []
    for name, status, request in cases:
        with socket.create_connection(("127.0.0.1", served.port), timeout=5) as sock:
            try:
                sock.sendall(request)
                if status == 200:
                    # A good request: answered, connection kept; close our side to end the read.
                    sock.shutdown(socket.SHUT_WR)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the server answered and closed before we finished sending
            got, data, closed = read_answer(sock, 5)
        if got != status or not closed:
            wrong.append(f"{name}: wanted {status} and a close, got {got} "
                         f"{'closed' if closed else 'left open'} {data[:60]!r}")
            continue
        # The next client is served normally.
        with socket.create_connection(("127.0.0.1", served.port), timeout=5) as sock:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            after, data, _ = read_answer(sock, 5)
        if after != 200:
            wrong.append(f"after {name}: the next client got {after} {data[:60]!r}")
    result.figure(f"{label}_requests", len(cases))
    result.figure(f"{label}_wrong", len(wrong))
    for line in wrong:
        result.failures.append(f"{label}: {line}")
    result.expect(served.alive(), f"{label}: the server died during the malformed set")
    served.stop()
    result.expect(served.process.returncode == 0,
                  f"{label}: the server exited {served.process.returncode} on SIGTERM: "
                  f"{served.errors()[-400:]}")


def fuzz_attack(ctx, result):
    seconds = 60 if ctx.short else 600
    binaries = {t: os.path.join(ctx.fuzz_dir, t) for t in FUZZ_TARGETS}
    absent = [path for path in binaries.values() if not os.access(path, os.X_OK)]
    if absent:
        raise AttackError(f"no fuzz target at {', '.join(absent)}: build them with "
                          f"scripts/build fuzz (or pass --fuzz-dir)")
    corpus_root = os.path.join(ctx.root, "fuzz", "corpus")
    def start(target):
        # New inputs go to a scratch directory; the committed corpus is read, never written.
        grown = os.path.join(ctx.scratch, f"corpus-{target}")
        os.makedirs(grown, exist_ok=True)
        argv = [binaries[target], f"-max_total_time={seconds}", "-timeout=10",
                "-rss_limit_mb=2048", f"-artifact_prefix={ctx.scratch}/{target}-",
                "-print_final_stats=1",
                f"-dict={os.path.join(ctx.root, 'fuzz', target + '.dict')}",
                *(["-max_len=8192"] if target in LONG_INPUTS else []),
                grown, os.path.join(corpus_root, target)]
        return ctx.spawn(argv, name=f"fuzz-{target}", cwd=ctx.scratch)

    def finish(batch):
        wait_until(lambda: not any(r.alive() for r in batch), seconds + 120, interval=1)

    runs = {}
    if ctx.short:
        # Side by side: 60 s of wall time each, the two cores shared by all of them.
        ctx.progress(f"fuzzing {', '.join(FUZZ_TARGETS)} for {seconds} s each, side by side")
        runs = {target: start(target) for target in FUZZ_TARGETS}
        finish(runs.values())
    else:
        # One at a time, so each has a core of its own for its whole 10 minutes.
        for target in FUZZ_TARGETS:
            ctx.progress(f"fuzzing {target} for {seconds} s")
            runs[target] = start(target)
            finish([runs[target]])
    executions = 0
    for target, run in runs.items():
        code = run.wait(0)
        log = run.errors()
        executions_here = 0
        for line in log.splitlines():
            if line.startswith("stat::number_of_executed_units:"):
                executions_here = int(line.rsplit(":", 1)[1])
        executions += executions_here
        result.figure(f"{target}_execs", executions_here)
        artifacts = [f for f in os.listdir(ctx.scratch) if f.startswith(target + "-")]
        if code is None:
            result.failures.append(f"fuzz target {target} ran past {seconds + 120} s")
        elif code != 0 or artifacts:
            summary = [l for l in log.splitlines() if "ERROR" in l or "SUMMARY" in l][:3]
            result.failures.append(
                f"fuzz target {target} found something (exit {code}; input kept as "
                f"{', '.join(os.path.join(ctx.scratch, a) for a in artifacts) or 'none'}): "
                f"{' | '.join(summary)}. Fix it, add the input to fuzz/corpus/{target}/ and a "
                f"regression test")
    result.figure("fuzz_s_each", seconds)
    result.figure("findings", sum(1 for f in result.failures if f.startswith("fuzz target")))


def run(ctx, result):
    if not os.access(ctx.asan_bin, os.X_OK):
        raise AttackError(f"no ASan build at {ctx.asan_bin}: build it with scripts/build asan")
    for bin, label in ((ctx.bin, "release"), (ctx.asan_bin, "asan")):
        ctx.progress(f"the malformed and smuggling set, one connection each ({label} build)")
        wire_attack(ctx, result, bin, label)
    fuzz_attack(ctx, result)
