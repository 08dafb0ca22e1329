"""Attack 6: rolling restart. Two `ringside serve` on one port (the second started with
`--reuse-port` on the port the first picked, one SO_REUSEPORT group), `ringside load` running,
SIGTERM to the older one: zero failed requests at the client (a churn run: at most one, lost to
the kernel's window at the listener's close, WINDOW_LOSSES below), every status 200, the old server
exits 0 and the new one goes on serving. Each run then starts the next server beside the
survivor and stops the survivor, alternating two loads: keep-alive (-c 50) and churn
(--no-keepalive -c 64, a connection per request).

What makes it lossless:
- keep-alive: the draining server answers each connection's next request with
  "Connection: close" and closes only the connections still idle at --drain-timeout (closing an
  idle one early races with the request the client is writing); the client reconnects, and a
  listener closed before those answers leaves only the new server for the reconnects.
- churn: new connections reach the old listener until it closes. The drain accepts everything
  queued before closing it, but a handshake completed between that last accept() and the
  close() is reset by the kernel. Linux >= 5.14 with net.ipv4.tcp_migrate_req = 1 migrates such
  connections (and half-open ones) to another listener of the group. It is 0 by default, so the
  attack runs the servers and the loads in a network namespace of its own (`unshare -n`, loopback
  up, the sysctl set there; the host is untouched). The full mode also measures the same runs
  with the sysctl at 0, as a note: the failures the kernel's window costs without it."""
import json
import signal
import time

from ..framework import LISTENING, AttackError, Served, wait_until

NUMBER = 6
NAME = "rolling-restart"
TITLE = "SIGTERM to a server under load while a second one shares its port: no failed request"
BUDGET_S = (45, 300)

DRAIN_TIMEOUT_S = 5
MIGRATE_SYSCTL = "/proc/sys/net/ipv4/tcp_migrate_req"


class Namespace:
    """A network namespace held open by a sleeping child; `argv(...)` runs a command inside."""

    def __init__(self, ctx):
        ctx.need_tools("unshare", "nsenter", "ip")
        script = ("ip link set lo up && echo 1 > " + MIGRATE_SYSCTL +
                  " && echo ready && exec sleep 3600")
        self.holder = ctx.spawn(["unshare", "--net", "sh", "-c", script], name="netns")
        if not wait_until(lambda: b"ready" in self.holder.output() or not self.holder.alive(), 20) \
                or not self.holder.alive():
            raise AttackError("cannot make a network namespace (unshare --net, needs "
                              f"CAP_SYS_ADMIN): {self.holder.errors()[-300:]}")
        self.path = f"/proc/{self.holder.pid}/ns/net"

    def argv(self, *command):
        return ["nsenter", f"--net={self.path}", *command]

    def set_migrate(self, ctx, value):
        child = ctx.spawn(self.argv("sh", "-c", f"echo {value} > {MIGRATE_SYSCTL}"), name="sysctl")
        if child.wait(20) != 0:
            raise AttackError(f"cannot set tcp_migrate_req in the namespace: {child.errors()}")

    def stop(self):
        self.holder.stop(5)


def start_server(ctx, ns, port, name):
    """`ringside serve` inside the namespace, on `port` (0: a free one; else shared with
    --reuse-port), bounded wait for its start-up line."""
    args = [ctx.bin, "serve", "--threads", "1", "--drain-timeout", DRAIN_TIMEOUT_S, "--db", "none",
            "--port", port]
    if port:
        args.append("--reuse-port")
    child = ctx.spawn(ns.argv(*map(str, args)), name=name, core=ctx.server_core)
    served = Served(child.name, child.argv, child.process, child.out_path, child.err_path)
    ctx.children[-1] = served

    def found():
        match = LISTENING.search(served.output())
        return int(match.group(1)) if match else (None if served.alive() else -1)
    listening = wait_until(found, 20)
    if not listening or listening < 0:
        raise AttackError(f"{name} did not start (exit {served.process.poll()}): "
                          f"{served.errors()[-300:]}")
    if port and listening != port:
        raise AttackError(f"{name} listens on {listening}, not on the shared port {port}")
    served.port = listening
    return served


def one_run(ctx, ns, old, port, index, keep_alive, before_s, after_s):
    """Starts the next server beside `old`, runs the load, SIGTERMs `old` `before_s` into it.
    Returns (the new server, the load's document, the old server's exit code, drain seconds)."""
    new = start_server(ctx, ns, port, f"serve-{index + 1}")
    mode = ["-c", "50"] if keep_alive else ["-c", "64", "--no-keepalive"]
    duration = before_s + after_s
    load = ctx.spawn(ns.argv(ctx.bin, "load", "--json", "-t", "1", "--timeout", "5s",
                             "-d", f"{duration:g}s", *mode, f"http://127.0.0.1:{port}/"),
                     name=f"load-{index}", core=ctx.load_core)
    started = time.monotonic()
    wait_until(lambda: time.monotonic() >= started + before_s or not load.alive(), before_s + 5,
               interval=0.01)
    signalled = time.monotonic()
    old.signal(signal.SIGTERM)
    exit_code = old.wait(DRAIN_TIMEOUT_S + 10)
    drained = time.monotonic() - signalled
    if load.wait(duration + 60) is None:
        raise AttackError(f"ringside load ran past {duration + 60:.0f}s")
    try:
        doc = json.loads(load.output())
    except ValueError:
        raise AttackError(f"ringside load gave no JSON report: {load.errors()[-300:]}") from None
    return new, doc, exit_code, drained


# What a churn run may lose to the kernel's window at the old listener's close, even with
# tcp_migrate_req = 1: one request (refused at connect, reset, or closed before its answer) in
# about 20 churn runs (2026-12-06: 2 in 38 runs with the restart, 0 in 16 of the same churn
# without one, so the restart is the cause; which kernel path, not established). Keep-alive runs
# may lose nothing.
WINDOW_LOSSES = 1
WINDOW_CLASSES = {"connect_error", "reset", "closed"}


def within_window(keep_alive, failed, errors):
    return not keep_alive and failed <= WINDOW_LOSSES and set(errors) <= WINDOW_CLASSES


def series(ctx, result, ns, runs, *, judge, label):
    """`runs` rolling restarts (keep-alive and churn alternately); returns per-run figures."""
    before_s, after_s = (1.0, 1.5) if ctx.short else (2.0, 2.0)
    old = start_server(ctx, ns, 0, "serve-0")
    port = old.port
    outcomes = []
    for index in range(runs):
        keep_alive = index % 2 == 0
        kind = "keep-alive" if keep_alive else "churn"
        new, doc, exit_code, drained = one_run(ctx, ns, old, port, index, keep_alive, before_s,
                                               after_s)
        codes = {int(k): v for k, v in doc["status"]["codes"].items()}
        errors = {kind_: n for kind_, n in doc["errors"].items() if n}
        failed = doc["requests"]["failed"]
        outcomes.append((kind, doc["requests"]["completed"] + failed, failed, codes, errors,
                         drained))
        ctx.progress(f"{label} run {index + 1}/{runs} ({kind}): {failed} failed, statuses {codes}, "
                     f"errors {errors}, old server drained in {drained:.2f} s")
        if judge:
            result.expect(failed == 0 or within_window(keep_alive, failed, errors),
                          f"run {index + 1} ({kind}): {failed} failed requests {errors}")
            result.expect(set(codes) <= {200} and codes.get(200, 0) > 0,
                          f"run {index + 1} ({kind}): statuses {codes}")
        result.expect(exit_code == 0, f"run {index + 1}: the old server exited {exit_code} "
                                      f"(drained {drained:.2f} s): {old.errors()[-300:]}")
        result.expect(new.alive(), f"run {index + 1}: the new server died: {new.errors()[-300:]}")
        old = new
    old.stop()
    return outcomes


def summary(outcomes):
    requests = sum(o[1] for o in outcomes)
    failed = sum(o[2] for o in outcomes)
    statuses = {}
    for outcome in outcomes:
        for code, n in outcome[3].items():
            statuses[code] = statuses.get(code, 0) + n
    per_run = "/".join(str(o[2]) for o in outcomes)
    return requests, failed, statuses, per_run


def run(ctx, result):
    ns = Namespace(ctx)
    try:
        runs = 4 if ctx.short else 20
        outcomes = series(ctx, result, ns, runs, judge=True, label="tcp_migrate_req=1")
        requests, failed, statuses, per_run = summary(outcomes)
        result.figure("runs", runs)
        result.figure("requests", requests)
        result.figure("failed", failed)
        result.figure("statuses", ",".join(f"{c}:{n}" for c, n in sorted(statuses.items())))
        result.figure("failed_per_run", per_run)
        keep = [o for o in outcomes if o[0] == "keep-alive"]
        result.figure("keepalive_failed", sum(o[2] for o in keep))
        result.figure("churn_failed", sum(o[2] for o in outcomes if o[0] == "churn"))
        churn_runs = sum(1 for o in outcomes if o[0] == "churn")
        result.expect(sum(o[2] for o in outcomes if o[0] == "churn") <= max(1, churn_runs // 5),
                      f"churn runs lost more than the kernel's window explains (at most one in "
                      f"five runs): {per_run}")
        result.figure("drain_max_s", round(max(o[5] for o in outcomes), 2))
        if not ctx.short:
            # The same runs without the kernel's migration: what its window costs, not judged.
            ns.set_migrate(ctx, 0)
            bare = series(ctx, result, ns, 10, judge=False, label="tcp_migrate_req=0")
            b_requests, b_failed, b_statuses, b_per_run = summary(bare)
            churn = [o for o in bare if o[0] == "churn"]
            keep = [o for o in bare if o[0] == "keep-alive"]
            result.note(f"without tcp_migrate_req (10 runs, not judged): requests={b_requests} "
                        f"failed={b_failed} failed_per_run={b_per_run} "
                        f"keepalive_failed={sum(o[2] for o in keep)} "
                        f"churn_failed={sum(o[2] for o in churn)} "
                        f"errors={[o[4] for o in bare if o[4]]}")
    finally:
        ns.stop()
