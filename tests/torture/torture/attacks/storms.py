"""Attack 7: connection storms. (a) 50,000 connect/request/close cycles as fast as the load
generator goes (10,000 in the short mode): no errors, and a normal request afterwards gets 200.
(b) The server started with RLIMIT_NOFILE 256 (soft and hard: serve raises its soft limit to the
hard one) under 1,000 keep-alive connections: it keeps serving the connections it has, logs the
shortage at most once a second (lines <= elapsed seconds + 1), and recovers once the load stops
(its descriptors back to their count before, a new connection answered 200)."""
import math
import re
import resource
import socket
import time

from ..background_load import error_count, load_report, start_load
from ..framework import fd_count, get_status, wait_until

NUMBER = 7
NAME = "connection-storms"
TITLE = "connect/close storms, then a descriptor limit far below the connection count"
BUDGET_S = (25, 150)

STORM_CONNECTIONS = 50
FILE_LIMIT = 256
STARVED_CONNECTIONS = 1000
FD_MARGIN = 2
SHORTAGE_LINE = re.compile(r"cannot accept connections: [^;]*?"
                           r"(?:, (\d+) more times since the last such line)?;")


def storm(ctx, result):
    cycles = 10_000 if ctx.short else 50_000
    server = ctx.serve()
    ctx.progress(f"{cycles} connect/request/close cycles, {STORM_CONNECTIONS} at a time")
    code, report = ctx.load("--no-keepalive", "-n", cycles, "-c", STORM_CONNECTIONS, "-t", 1,
                            server.url("/"), timeout=cycles / 200 + 60)
    errors = error_count(report)
    result.figure("cycles", report["connections_opened"])
    result.figure("cycles_per_s", report["requests_per_s"]["overall"])
    result.figure("storm_errors", errors)
    result.expect(report["requests"]["completed"] == cycles and errors == 0 and code == 0,
                  f"{cycles} cycles answered without errors: {report['requests']['completed']} "
                  f"completed, {errors} errors {report['errors']}, exit {code}")
    status = get_status(server.port)
    result.expect(status == 200, f"a request after the storm answered 200, got {status}")
    result.expect(server.alive(), "the server died in the storm")
    server.stop()


def starved(ctx, result):
    seconds = 5 if ctx.short else 15

    def low_file_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (FILE_LIMIT, FILE_LIMIT))

    server = ctx.serve(preexec_fn=low_file_limit)
    fds_before = fd_count(server.pid)
    ctx.progress(f"{STARVED_CONNECTIONS} connections for {seconds} s to a server limited to "
                 f"{FILE_LIMIT} descriptors")
    started = time.monotonic()
    load = start_load(ctx, "-c", STARVED_CONNECTIONS, "-t", 1, "-d", f"{seconds}s",
                      server.url("/"), name="load-starved")
    peak = {"fds": 0}

    def sample():
        peak["fds"] = max(peak["fds"], fd_count(server.pid))
        return not load.alive()

    wait_until(sample, seconds + 60, interval=0.1)
    code, report = load_report(load, 30)
    recovered = wait_until(lambda: fd_count(server.pid) <= fds_before + FD_MARGIN, 20)
    fds_after = fd_count(server.pid)
    status = get_status(server.port)
    alive = server.alive()
    server.stop()
    elapsed = time.monotonic() - started
    lines = [SHORTAGE_LINE.search(line) for line in server.errors().splitlines()]
    lines = [match for match in lines if match]
    repeats = sum(int(match.group(1) or 0) for match in lines)
    # Every whole second of the run, not only the first ones: the open connections are served
    # all along (the load's last second may be partial, and is left out).
    per_second = report["per_second"][:-1] or report["per_second"]
    result.figure("starved_rps", report["requests_per_s"]["overall"])
    result.figure("starved_min_per_s", min(per_second) if per_second else 0)
    result.figure("starved_fds_peak", peak["fds"])
    result.figure("log_lines", len(lines))
    result.figure("log_repeats", repeats)
    result.figure("elapsed_s", round(elapsed, 1))
    result.figure("fds_before", fds_before)
    result.figure("fds_after", fds_after)
    result.expect(peak["fds"] >= FILE_LIMIT - 8,
                  f"the server reaching its limit of {FILE_LIMIT} descriptors, it peaked at "
                  f"{peak['fds']}")
    result.expect(per_second and min(per_second) > 0,
                  f"the connections the server holds answered in every second of the load: "
                  f"{report['per_second']}")
    result.expect(1 <= len(lines) <= math.floor(elapsed) + 1,
                  f"the shortage logged at least once and at most once a second "
                  f"({math.floor(elapsed) + 1} lines in {elapsed:.1f} s), it logged {len(lines)}")
    result.expect(recovered, f"descriptors back to {fds_before} (+{FD_MARGIN}) within 20 s "
                  f"after the load, {fds_after}")
    result.expect(status == 200, f"a new connection after the load answered 200, got {status}")
    result.expect(alive, "the server died short of descriptors")
    result.expect(code == 0, f"the load completed requests (exit {code})")


def run(ctx, result):
    storm(ctx, result)
    starved(ctx, result)
