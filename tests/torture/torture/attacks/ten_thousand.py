"""Attack 1: 10,000 concurrent keep-alive connections held under load for 30 s (8 s in the short
mode): the node/rust seed's last row, where Node reset connections and Rust grew to 320 MB. Every
connection must really be established (counted on the server's side while the load runs: ss's
ESTABLISHED sockets on the port, and the descriptors the server accepted), the load must see zero
errors, and the server's peak RSS is printed against the goal of 24 MB. In the full mode nginx
(one worker, pinned the same way) takes the same attack; its figures are a note."""
from ..background_load import error_count, load_report, start_load
from ..framework import established, fd_count, status_kb, wait_until
from ..nginx_peer import start_nginx

NUMBER = 1
NAME = "ten-thousand-connections"
TITLE = "10,000 concurrent keep-alive connections held under load"
BUDGET_S = (30, 180)

CONNECTIONS = 10_000
RSS_GOAL_MB = 24
SAMPLE_INTERVAL_S = 0.25


def hold(ctx, server, label):
    """Holds CONNECTIONS keep-alive connections on `server` under load; returns the figures."""
    seconds = 8 if ctx.short else 30
    fds_before = fd_count(server.pid)
    load = start_load(ctx, "-c", CONNECTIONS, "-t", 1, "-d", f"{seconds}s", server.url("/"),
                      name=f"load-{label}")
    peak = {"established": 0, "accepted": 0}

    def sample():
        # ss is the kernel's count (handshakes done, accepted or still queued); the server's
        # descriptors are what it accepted. Both at their busiest moment.
        peak["established"] = max(peak["established"], established(server.port))
        peak["accepted"] = max(peak["accepted"], fd_count(server.pid) - fds_before)
        return not load.alive()

    ctx.progress(f"{label}: {CONNECTIONS} keep-alive connections for {seconds} s")
    wait_until(sample, seconds + 60, interval=SAMPLE_INTERVAL_S)
    code, report = load_report(load, 30)
    return {
        "established": peak["established"],
        "accepted": peak["accepted"],
        "opened": report["connections_opened"],
        "errors": error_count(report),
        "rps": report["requests_per_s"]["overall"],
        "completed": report["requests"]["completed"],
        "peak_rss_mb": status_kb(server.pid, "VmHWM") / 1024.0,
        "exit": code,
        "alive": server.alive(),
    }


def run(ctx, result):
    server = ctx.serve()  # backlog 65535 (net.core.somaxconn caps it), --max-connections 16384
    got = hold(ctx, server, "ringside")
    result.figure("established", got["established"])
    result.figure("accepted", got["accepted"])
    result.figure("errors", got["errors"])
    result.figure("rps", got["rps"])
    result.figure("peak_rss_mb", round(got["peak_rss_mb"], 1))
    result.expect(got["established"] >= CONNECTIONS,
                  f"{CONNECTIONS} connections established at once, counted {got['established']}")
    result.expect(got["accepted"] >= CONNECTIONS,
                  f"the server holding {CONNECTIONS} accepted connections at once, it held "
                  f"{got['accepted']}")
    result.expect(got["opened"] == CONNECTIONS,
                  f"the load opening {CONNECTIONS} connections, it opened {got['opened']}")
    result.expect(got["errors"] == 0, f"zero errors, the load counted {got['errors']}")
    result.expect(got["completed"] > 0 and got["exit"] == 0,
                  f"requests answered (load exit {got['exit']}, {got['completed']} completed)")
    result.expect(got["peak_rss_mb"] <= RSS_GOAL_MB,
                  f"peak RSS at most {RSS_GOAL_MB} MB, it was {got['peak_rss_mb']:.1f} MB")
    result.expect(got["alive"], "the server died under the connections")
    server.stop()

    if ctx.short:
        result.note("nginx: skipped in the short mode (tests/torture/run without --short runs it)")
        return
    nginx = start_nginx(ctx, worker_connections=CONNECTIONS + 2048)
    peer = hold(ctx, nginx, "nginx")
    nginx.stop()
    result.note(f"nginx (1 worker, same core, same load): established={peer['established']} "
                f"accepted={peer['accepted']} errors={peer['errors']} rps={peer['rps']:.0f} "
                f"peak_rss_mb={peer['peak_rss_mb']:.1f}")
