"""Attack 15: HTTP/2 conformance from raw frames. The cases of torture/h2_conformance_cases.py
(frames a correct client never sends: bad prefaces and SETTINGS, frame sizes and stream ids,
flow control, HPACK errors, malformed requests, content-length against DATA; and a few valid
requests), each on a fresh h2c connection, run by torture/h2_conformance_client.py against a
one-thread `ringside serve` and, at the same time, against nghttpd (nghttp2 1.52's reference
server, h2c on a free port) with the same frames.

Judged: ringside's outcome of every case (first GOAWAY code, RST_STREAM code on the case's
stream, :status, `ignored`: the connection still answers a PING) is one RFC 9113 allows for it
(the case's acceptable set); every connection's first frame from ringside is its SETTINGS (RFC
9113 3.4); and after the cases the server is up and answers GET / on a new h2c connection.
nghttpd is not judged: how often it agrees with ringside is a figure, and each case where the two
differ is a note (nghttpd is lenient in places).

Both servers advertise a stream window of 1,023 bytes (`--h2-initial-window 1023`, nghttpd's
`-w 10`): the flow-control case's one DATA frame, one byte over it, then reaches the server in
one read (see the case). The short mode runs the issue's cases once; the full mode adds the cases
beyond its list and runs every case three times."""
import json
import os
import shutil
import subprocess

from ..framework import AttackError, accepts, wait_until
from ..h2_attacker import h2_status
from ..nginx_peer import free_port

NUMBER = 15
NAME = "h2-conformance"
TITLE = ("HTTP/2 conformance from raw frames (RFC 9113, RFC 7541): ringside's answers judged, "
         "nghttpd's beside them")
BUDGET_S = (30, 90)

TORTURE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Debian's python3 has hpack and hyperframe (python3-h2, from scripts/setup); the runner's own
# interpreter may not.
CLIENT_PYTHON = "/usr/bin/python3"
NGHTTPD = shutil.which("nghttpd") or "/usr/sbin/nghttpd"
WINDOW_BITS = 10
WINDOW = 2 ** WINDOW_BITS - 1
CASE_TIMEOUT_S = 2.0  # what a case may wait for its outcome (every wait a socket timeout)
REPEATS = (1, 3)      # short, full
CLIENT_BOUND_S = (20, 75)


def check_client_python():
    done = subprocess.run([CLIENT_PYTHON, "-c", "import hpack, hyperframe"], capture_output=True,
                          text=True, timeout=30)
    if done.returncode != 0:
        raise AttackError(f"{CLIENT_PYTHON} cannot import hpack and hyperframe (install "
                          f"python3-h2: scripts/setup): {done.stderr.strip()[-300:]}")


def start_nghttpd(ctx):
    """nghttpd as h2c on a free port of 127.0.0.1, serving a docroot whose index.html makes GET /
    a 200; returns (child, port). A port taken between choosing and binding gets another try."""
    if not os.access(NGHTTPD, os.X_OK):
        raise AttackError("nghttpd is missing: install nghttp2-server (scripts/setup)")
    docroot = os.path.join(ctx.scratch, "nghttpd-root")
    os.makedirs(docroot, exist_ok=True)
    with open(os.path.join(docroot, "index.html"), "w") as f:
        f.write("Hello World!")
    child = None
    for _ in range(3):
        port = free_port()
        child = ctx.spawn([NGHTTPD, "--no-tls", "-a", "127.0.0.1", "-w", WINDOW_BITS, "-d",
                           docroot, port], name="nghttpd")
        if wait_until(lambda: accepts(port) or not child.alive(), 10) and child.alive():
            return child, port
        child.stop()
    raise AttackError(f"nghttpd did not start (exit {child.process.poll()}): "
                      f"{child.errors()[-400:]}")


def start_client(ctx, port, name):
    argv = [CLIENT_PYTHON, "-m", "torture.h2_conformance_client", "--port", port, "--timeout",
            CASE_TIMEOUT_S, "--repeat", REPEATS[0 if ctx.short else 1]]
    return ctx.spawn(argv + ([] if ctx.short else ["--extra"]), name=f"cases-{name}",
                     core=ctx.load_core, cwd=TORTURE_DIR)


def client_report(child, timeout):
    code = child.wait(timeout)
    if code is None:
        child.stop(5)
        raise AttackError(f"{child.name} ran past {timeout:.0f}s: {' '.join(child.argv)}")
    try:
        return json.loads(child.output())
    except ValueError:
        raise AttackError(f"{child.name} exited {code} without a JSON report: "
                          f"{child.errors()[-800:]}") from None


def kinds(cases):
    """ringside's outcomes by kind, as one token: goaway:31,rst:15,status:9,..."""
    counts = {}
    for case in cases:
        for found in case["outcomes"]:
            kind = found.split(":")[0]
            counts[kind] = counts.get(kind, 0) + 1
    return ",".join(f"{kind}:{n}" for kind, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def judge_ringside(result, cases):
    """Every run of every case within its acceptable set; returns the names that failed."""
    failed = []
    for case in cases:
        wrong = [(found, received) for found, received in zip(case["outcomes"], case["received"])
                 if found not in case["expect"]]
        if wrong:
            failed.append(case["name"])
        found, received = wrong[0] if wrong else (None, None)
        result.expect(not wrong, f"{case['name']} ({case['section']}): sent {case['sent']}; "
                      f"expected {' or '.join(case['expect'])}, got {found} in "
                      f"{len(wrong)} of {len(case['outcomes'])} runs (ringside sent: {received})")
    return failed


def compare(result, ours, theirs):
    """nghttpd beside ringside: figures, and a note for each case where they differ."""
    agree = differ = 0
    for mine, peer in zip(ours, theirs):
        if sorted(set(mine["outcomes"])) == sorted(set(peer["outcomes"])):
            agree += 1
            continue
        differ += 1
        allowed = all(found in peer["expect"] for found in peer["outcomes"])
        result.note(f"nghttpd differs on {mine['name']} ({mine['section']}): ringside "
                    f"{'/'.join(sorted(set(mine['outcomes'])))}, nghttpd "
                    f"{'/'.join(sorted(set(peer['outcomes'])))} "
                    f"({'also' if allowed else 'not'} allowed; nghttpd sent: "
                    f"{peer['received'][0]})")
    result.figure("agree_with_nghttpd", f"{agree}/{agree + differ}")
    wrong = [c["name"] for c in theirs if not all(f in c["expect"] for f in c["outcomes"])]
    result.figure("nghttpd_right", f"{len(theirs) - len(wrong)}/{len(theirs)}")
    if wrong:
        result.note(f"nghttpd outside the RFC's outcomes (not judged): {', '.join(wrong)}")


def run(ctx, result):
    check_client_python()
    server = ctx.serve("--db", "none", "--h2-initial-window", WINDOW)
    nghttpd, nghttpd_port = start_nghttpd(ctx)
    ctx.progress(f"{'the issue list' if ctx.short else 'every'} case against ringside "
                 f"(:{server.port}) and nghttpd (:{nghttpd_port}), "
                 f"{REPEATS[0 if ctx.short else 1]} run(s) each")
    clients = [start_client(ctx, server.port, "ringside"),
               start_client(ctx, nghttpd_port, "nghttpd")]
    bound = CLIENT_BOUND_S[0 if ctx.short else 1]
    ours, theirs = (client_report(child, bound) for child in clients)
    cases = ours["cases"]
    result.figure("cases", len(cases))
    result.figure("runs", sum(len(c["outcomes"]) for c in cases))
    failed = judge_ringside(result, cases)
    result.figure("ringside_right", f"{len(cases) - len(failed)}/{len(cases)}")
    result.figure("ringside_outcomes", kinds(cases))
    connections = sum(ours["first_frames"].values())
    settings_first = ours["first_frames"].get("SETTINGS", 0)
    result.figure("settings_first", f"{settings_first}/{connections}")
    result.expect(settings_first == connections,
                  f"the server's first frame is its SETTINGS on every connection (RFC 9113 3.4): "
                  f"first frames {ours['first_frames']}")
    compare(result, cases, theirs["cases"])
    result.figure("nghttpd_alive", nghttpd.alive())
    status = h2_status(server.port)
    result.figure("get_after", status)
    result.expect(server.alive() and status == 200,
                  f"after the cases the server is up and answers GET / on a new h2c connection "
                  f"with 200: alive={server.alive()}, status {status}")
    if failed:
        result.note(f"ringside outside the RFC's outcomes: {', '.join(failed)}")
    server.stop()
    result.expect(server.process.returncode == 0,
                  f"the server exited {server.process.returncode} on SIGTERM")
