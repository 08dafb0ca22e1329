"""Attack 14: HTTP/2 floods. Eight floods one after another against the same one-thread server
(h2c with prior knowledge on its plain port, `--idle-timeout 2`), each for 10 s (3 s short) from
torture/h2_attacker.py (Python, raw sockets, frames made by hand) at nice 10 on the load core,
each connection reopened when the server ends it: rapid reset (CVE-2023-44487), CONTINUATION
without end (small fields, and one endless 16 KiB-a-frame value; CVE-2024-27316/28182), PING and
SETTINGS floods never reading the ACKs (CVE-2019-9512/9515), empty frames (zero-length DATA on an
open stream, zero-length CONTINUATION; CVE-2019-9518), MadeYouReset (frames that make the server
reset the stream it was just asked on; CVE-2025-8671), a stalled window (streams whose
answers the client never reads, or cannot receive: SETTINGS_INITIAL_WINDOW_SIZE 0), and free
frames (connection WINDOW_UPDATEs of 1, PRIORITY, frames of an unknown type: valid, unanswered,
counted by no budget).

Beside each flood a normal client: `ringside load -R 500 -c 2` over HTTP/1.1 keep-alive (latency
from each request's intended send time), measured alone before and after the floods too.

Expectations, for each flood: the server stays up and answers a GET / on a new h2c connection
afterwards, with its descriptors back to their count before; its VmRSS, sampled every 100 ms,
stays within RSS_GROWTH_LIMIT_MB of its VmRSS before the floods; the normal client loses no
request, and its p99 stays within FACTOR x its quiet p99 or under FLOOR_MS; and where the server
has a defence, every attacking connection is ended by the server (a GOAWAY, a close or a reset)
within the flood's bound: rapid reset, PING and SETTINGS floods, zero-length DATA frames and
MadeYouReset (the server's budget, --h2-reset-burst/-rate: GOAWAY ENHANCE_YOUR_CALM), CONTINUATION
(nghttp2's limit on CONTINUATION frames and on a field's length) and the empty CONTINUATION frames,
and the stalled window (closed within --idle-timeout + STALL_MARGIN_S of the client's last byte
taken, or sooner). The free frames' connections are not judged by how they end (each frame is
legitimate alone), only by the rest: the probe served beside them.

Figures per flood: attack frames sent, connections opened and how they ended, the server's CPU
seconds during the flood (its threads' schedstat), its peak VmRSS, the probe's p99."""
import dataclasses
import json
import os
import sys

from ..background_load import error_count, load_report, p99_ms, start_load
from ..framework import (AttackError, cpu_ns, fd_count, kernel_drops, status_kb,
                         wait_until)
from ..h2_attacker import h2_status

NUMBER = 14
NAME = "h2-floods"
TITLE = ("HTTP/2 floods: rapid reset, CONTINUATION, PING, SETTINGS, empty frames, MadeYouReset, "
         "stalled window, beside a keep-alive client")
BUDGET_S = (80, 260)

ATTACKER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "h2_attacker.py")
ATTACKER_NICE = 10
IDLE_TIMEOUT_S = 2
PROBE_RATE = 500
PROBE_CONNECTIONS = 2
MIN_RATE_SHARE = 0.9  # of the probe's requests meant to start in its time, at least this share
FD_MARGIN = 2
# The floods may make the server hold, at most: 8 connections at once (the stalled flood) x 100
# streams, each with a 16 KiB head block and a 32 KiB body block of which a page or two is ever
# touched (12-byte answers): about 6 MiB, plus nghttp2's per-connection state. A queue without
# bound grows far past 32 MiB within a second at these rates (an outbound PING ACK is an item of
# about 100 bytes; the PING flood sends half a million a second), so 32 MiB parts the two.
RSS_GROWTH_LIMIT_MB = 32
# The probe under a flood shares the server's one thread with the attacker's reads (16 KiB of
# frames a turn): its p99 within 2x its quiet p99, or under 25 ms. The short mode loosens this as
# tls-handshake-storm does, for the shared 2-core machine of the test command (the fuzz targets
# or a build on the other core): 10x or 250 ms.
FACTOR, FLOOR_MS = 2.0, 25.0
SHORT_FACTOR, SHORT_FLOOR_MS = 10.0, 250.0
# A defended flood's connection ends within this many seconds of its start (the server's
# defence, not the attacker's end); the stalled window within the idle timeout after the client's
# last byte taken (plus STALL_MARGIN_S).
DEFENCE_S = 2.0
STALL_MARGIN_S = 1.0
GRACE_S = IDLE_TIMEOUT_S + 2.5


@dataclasses.dataclass
class Flood:
    key: str          # the figures' prefix
    mode: str         # h2_attacker.py's mode
    connections: int  # at once
    ends_within_s: float = None  # every connection ended by the server within this (None: not
    #                              judged); "stall": within the idle timeout of its last byte taken
    grace_s: float = 0.0         # after the flood, the wait for the server to end the rest
    unjudged: tuple = ()         # variants whose ends are not judged (no defence to expect)


FLOODS = (
    Flood("rapid_reset", "rapid-reset", 2, DEFENCE_S),
    Flood("continuation", "continuation", 2, DEFENCE_S),
    Flood("ping", "ping", 2, DEFENCE_S, GRACE_S),
    Flood("settings", "settings", 2, DEFENCE_S, GRACE_S),
    Flood("empty_frames", "empty-frames", 2, DEFENCE_S),
    Flood("made_you_reset", "made-you-reset", 2, DEFENCE_S),
    Flood("stalled", "stalled", 8, "stall", GRACE_S),
    # Not in the list: frames that cost the server a little work each and no budget
    # counts (legitimate one by one: a connection WINDOW_UPDATE follows every read of a download).
    # What is judged is that the rest of the worker is still served, not that these end.
    Flood("free_frames", "free-frames", 3, None),
)
# Why a probe starves beside a connection the server reads faster than it parses: said with a
# failure of the probe's p99 (found with free-frames, 2026-12-05).
STARVED = ("a worker that reads one connection for as long as the peer keeps its socket full "
           "serves no other (EpollTransport::kReadBudget bounds what one connection is read for "
           "in a turn: check it still holds)")


def start_probe(ctx, server, seconds, name):
    """The normal client: HTTP/1.1 keep-alive GET / at PROBE_RATE, on the load core."""
    return start_load(ctx, "-c", PROBE_CONNECTIONS, "-t", 1, "-R", PROBE_RATE, "-d",
                      f"{seconds}s", server.url("/"), name=name)


def probe_problems(code, report, seconds):
    """What went wrong for the probe (lost requests, errors, statuses other than 200, its rate not
    kept), or ""."""
    requests, codes = report["requests"], report["status"]["codes"]
    # ringside load sends a connection's next request once its answer is in: a server that stops
    # answering shows as requests never started (their latency is in no percentile).
    intended = PROBE_RATE * seconds
    # A request still on its way on each connection when the probe's time ran out is not lost
    # (ringside load stops waiting at its duration's end); more would be a server that stopped
    # answering (and one that stops answering also shows as requests never started, below).
    in_flight = requests.get("in_flight", 0)
    if (code == 0 and error_count(report) == 0 and in_flight <= PROBE_CONNECTIONS
            and requests["completed"] + in_flight == requests["started"] and set(codes) <= {"200"}
            and requests["started"] >= MIN_RATE_SHARE * intended):
        return ""
    return (f"exit {code}, {requests['completed']} of {requests['started']} answered "
            f"({in_flight} in flight at the end; {intended} meant to start, at least "
            f"{MIN_RATE_SHARE:.0%} wanted), errors "
            f"{ {k: v for k, v in report['errors'].items() if v} }, statuses {codes}")


def quiet_probe(ctx, result, server, seconds, when):
    """The probe alone; returns its p99 in ms, and records a failure if it lost requests."""
    code, report = load_report(start_probe(ctx, server, seconds, f"probe-quiet-{when}"),
                               seconds + 30)
    problems = probe_problems(code, report, seconds)
    result.expect(not problems, f"the probe alone ({when}) without errors: {problems}")
    return p99_ms(report)


def attacker_report(child, timeout):
    code = child.wait(timeout)
    if code is None:
        child.stop(5)
        raise AttackError(f"{child.name} ran past {timeout:.0f}s: {' '.join(child.argv)}")
    try:
        return json.loads(child.output())
    except ValueError:
        raise AttackError(f"{child.name} exited {code} without a JSON report: "
                          f"{child.errors()[-500:]}") from None


def flood_once(ctx, server, flood, seconds, fds_before):
    """The probe beside one flood; returns what was measured."""
    cpu_before, drops_before = cpu_ns(server.pid), kernel_drops()
    probe = start_probe(ctx, server, seconds, f"probe-{flood.mode}")
    attacker = ctx.spawn(["nice", "-n", ATTACKER_NICE, sys.executable, ATTACKER, flood.mode,
                          "--port", server.port, "--seconds", seconds, "--connections",
                          flood.connections, "--grace", flood.grace_s],
                         name=f"attacker-{flood.mode}", core=ctx.load_core)
    peak = {"kb": status_kb(server.pid, "VmRSS")}

    def sample():
        peak["kb"] = max(peak["kb"], status_kb(server.pid, "VmRSS"))
        return not attacker.alive() and not probe.alive()

    wait_until(sample, seconds + flood.grace_s + 60, interval=0.1)
    got = {"attack": attacker_report(attacker, 30), "rss_peak_kb": peak["kb"],
           "cpu_s": (cpu_ns(server.pid) - cpu_before) / 1e9}
    got["probe_code"], got["probe"] = load_report(probe, 30)
    got["drops"] = [after - before for after, before in zip(kernel_drops(), drops_before)]
    # Before the next flood: the attacking connections gone, the server up and answering h2c.
    got["returned"] = wait_until(lambda: fd_count(server.pid) <= fds_before + FD_MARGIN, 10)
    got["fds_after"] = fd_count(server.pid)
    got["alive"] = server.alive()
    got["status"] = h2_status(server.port)
    return got


def ends_text(attack):
    """How the attacking connections ended, as one token: goaway(CODE):n,reset:n,open:n."""
    ends = {}
    for variant in attack["variants"].values():
        for how, count in variant["ends"].items():
            ends[how] = ends.get(how, 0) + count
    return ",".join(f"{how.replace('goaway:', 'goaway(') + (')' if ':' in how else '')}:{n}"
                    for how, n in sorted(ends.items(), key=lambda item: -item[1]))


def check_defence(result, flood, attack, seconds):
    """Every connection of a defended variant ended by the server within the flood's bound."""
    for name, variant in attack["variants"].items():
        if flood.ends_within_s is None or name in flood.unjudged:
            continue
        if flood.ends_within_s == "stall":
            bound = IDLE_TIMEOUT_S + STALL_MARGIN_S
            stalls = variant["stall_to_close_s"]
            # A server that ends the connection before the client even stalls (its streams
            # refused, its output queue flooded) has defended itself sooner than the timeout.
            ended_early = not stalls and variant["ended_by_server"] == variant["opened"]
            ok = (variant["ended_by_server"] >= 1 and variant["open_at_end"] == 0
                  and (ended_early or (stalls and stalls[1] <= bound)))
            result.expect(ok, f"{flood.mode} ({name}): every connection closed by the server "
                          f"within --idle-timeout {IDLE_TIMEOUT_S} s + {STALL_MARGIN_S:g} s of "
                          f"the last byte it took: {variant}")
            continue
        bound = flood.ends_within_s
        ok = (variant["ended_by_server"] >= 1 and variant["max_life_s"] <= bound
              and variant["max_open_s"] <= bound)
        if flood.mode == "made-you-reset":
            result.expect(ok, made_you_reset_failure(attack, variant, seconds, bound))
        else:
            result.expect(ok, f"{flood.mode} ({name}): every attacking connection ended by the "
                          f"server (GOAWAY, close or reset) within {bound:g} s of its start: "
                          f"{variant}")


def made_you_reset_failure(attack, variant, seconds, bound):
    resets = attack["server_resets"]
    made = sum(count for code, count in resets.items() if code != "REFUSED_STREAM")
    return (f"made-you-reset (CVE-2025-8671): the server ended no attacking connection within "
            f"{bound:g} s ({variant['opened']} opened, {variant['ended_by_server']} ended by it, "
            f"{variant['open_at_end']} still open after {variant['max_open_s']:g} s) while it "
            f"reset {made} streams at the client's bidding in {seconds} s "
            f"({resets.get('FLOW_CONTROL_ERROR', 0)} FLOW_CONTROL_ERROR after a WINDOW_UPDATE "
            f"overflowing the stream's window, each request routed and answered first; "
            f"{resets.get('PROTOCOL_ERROR', 0)} PROTOCOL_ERROR for content-length 1 without a "
            f"body; and {resets.get('REFUSED_STREAM', 0)} REFUSED_STREAM past 100 open "
            f"streams): nghttp2 1.52's limit behind --h2-reset-burst/--h2-reset-rate counts only "
            f"the client's RST_STREAMs, so nothing bounds the resets the server makes; expected "
            f"a GOAWAY (ENHANCE_YOUR_CALM) once those pass the same limit")


def judge_flood(result, flood, got, bounds):
    """The flood's figures and expectations; bounds: (quiet p99 ms, factor, floor ms, seconds,
    RSS before in kB, descriptors before)."""
    quiet_p99, factor, floor_ms, seconds, rss_before_kb, fds_before = bounds
    attack, probe = got["attack"], got["probe"]
    key, p99 = flood.key, p99_ms(probe)
    result.figure(f"{key}_frames", attack["frames"])
    result.figure(f"{key}_conns", attack["opened"])
    result.figure(f"{key}_ends", ends_text(attack))
    if flood.ends_within_s == "stall":
        stalls = [v["stall_to_close_s"][1] for v in attack["variants"].values()
                  if v["stall_to_close_s"]]
        result.figure(f"{key}_close_s", max(stalls, default=0.0))
    else:
        result.figure(f"{key}_life_s", max(v["max_life_s"] for v in attack["variants"].values()))
    if flood.mode == "made-you-reset":
        result.figure(f"{key}_server_resets", sum(
            n for code, n in attack["server_resets"].items() if code != "REFUSED_STREAM"))
    result.figure(f"{key}_cpu_s", round(got["cpu_s"], 2))
    result.figure(f"{key}_rss_mb", round(got["rss_peak_kb"] / 1024, 1))
    result.figure(f"{key}_p99_ms", round(p99, 2))
    result.figure(f"{key}_answered", probe["requests"]["completed"])  # of PROBE_RATE x seconds
    result.expect(not attack["errors"], f"{flood.mode}: the attacker connected every time: "
                  f"{attack['errors']}")
    check_defence(result, flood, attack, seconds)
    growth_mb = (got["rss_peak_kb"] - rss_before_kb) / 1024
    result.expect(growth_mb <= RSS_GROWTH_LIMIT_MB,
                  f"{flood.mode}: the server's VmRSS within {RSS_GROWTH_LIMIT_MB} MiB of its "
                  f"{rss_before_kb / 1024:.1f} MiB before the floods, it peaked "
                  f"{growth_mb:+.1f} MiB")
    problems = probe_problems(got["probe_code"], probe, seconds)
    result.expect(not problems, f"{flood.mode}: the probe without errors beside the flood: "
                  f"{problems} (if it stalled: {STARVED})")
    bound_ms = max(factor * quiet_p99, floor_ms)
    result.expect(p99 <= bound_ms,
                  f"{flood.mode}: the probe's p99 within {factor:g}x its quiet {quiet_p99:.2f} ms "
                  f"or under {floor_ms:g} ms, it was {p99:.2f} ms (machine-wide meanwhile, "
                  f"packets dropped at the kernel's backlog and TCP retransmission timeouts: "
                  f"{got['drops']}; if the server's queue for the attacker stayed full: "
                  f"{STARVED})")
    result.expect(got["alive"], f"{flood.mode}: the server died in the flood")
    result.expect(got["status"] == 200, f"{flood.mode}: GET / on a new h2c connection after the "
                  f"flood answered 200, got {got['status']}")
    result.expect(got["returned"], f"{flood.mode}: the server's descriptors back to {fds_before} "
                  f"(+{FD_MARGIN}) within 10 s of the flood, {got['fds_after']}")
    for name in flood.unjudged:
        variant = attack["variants"][name]
        result.note(f"{flood.mode} ({name}), not judged (nghttp2 1.52 has no defence for it): "
                    f"{variant['frames']} frames on {variant['opened']} connections, "
                    f"{variant['open_at_end']} open at the end; the server's CPU in the flood "
                    f"{got['cpu_s']:.2f} s")


def run(ctx, result):
    seconds = 3 if ctx.short else 10
    factor, floor_ms = (SHORT_FACTOR, SHORT_FLOOR_MS) if ctx.short else (FACTOR, FLOOR_MS)
    server = ctx.serve("--db", "none", "--idle-timeout", IDLE_TIMEOUT_S)
    fds_before = fd_count(server.pid)
    if h2_status(server.port) != 200:
        raise AttackError("the server did not answer GET / over h2c before the floods")
    ctx.progress(f"quiet: the probe alone for {seconds} s")
    quiet_before = quiet_probe(ctx, result, server, seconds, "before")
    rss_before_kb = status_kb(server.pid, "VmRSS")
    result.figure("rss_before_mb", round(rss_before_kb / 1024, 1))
    floods = []
    for flood in FLOODS:
        ctx.progress(f"{flood.mode}: {flood.connections} connections for {seconds} s beside the "
                     f"probe")
        floods.append((flood, flood_once(ctx, server, flood, seconds, fds_before)))
    quiet_after = quiet_probe(ctx, result, server, seconds, "after")
    quiet_p99 = min(quiet_before, quiet_after)
    result.figure("quiet_p99_ms", round(quiet_p99, 2))
    bounds = (quiet_p99, factor, floor_ms, seconds, rss_before_kb, fds_before)
    for flood, got in floods:
        judge_flood(result, flood, got, bounds)
    result.figure("rss_hwm_mb", round(status_kb(server.pid, "VmHWM") / 1024, 1))
    server.stop()
    result.expect(server.process.returncode == 0,
                  f"the server exited {server.process.returncode} on SIGTERM")
    if ctx.short:
        result.note(f"short mode: the probe's p99 bound loosened to {SHORT_FACTOR:g}x quiet or "
                    f"{SHORT_FLOOR_MS:g} ms; the full mode asserts {FACTOR:g}x or {FLOOR_MS:g} ms")
