"""`ringside load` running in the background while an attack watches the server (counts its
sockets, samples its descriptors) or runs something beside it; Context.load runs one to its end.
Over TLS, which ringside load does not speak yet, the probe of tls_clients.py takes its place."""
import json
import os
import sys

from .framework import AttackError, kill_group, load_report  # noqa: F401  (load_report: re-exported)

TLS_CLIENTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tls_clients.py")


def start_load(ctx, *args, name="load"):
    """Starts `ringside load --json ARGS` pinned to the load core; returns its Child."""
    return ctx.spawn([ctx.bin, "load", "--json", *args], name=name, core=ctx.load_core)


def error_count(report):
    """Failed requests of every class (they sum to requests.failed)."""
    return sum(report["errors"].values())


def p99_ms(report):
    return report["latency_us"]["percentiles"]["99"] / 1000.0


def start_tls_probe(ctx, port, seconds, rate, name="tls-probe"):
    """Starts the keep-alive TLS probe (one connection, GET / at `rate` a second, latency from
    each request's intended send time) pinned to the load core; returns its Child."""
    return ctx.spawn([sys.executable, TLS_CLIENTS, "probe", "--port", port, "--rate", rate,
                      "--seconds", seconds], name=name, core=ctx.load_core)


def tls_client_report(child, timeout):
    """Waits (bounded) for a tls_clients.py child; returns its JSON document."""
    code = child.wait(timeout)
    if code is None:
        kill_group(child.pid)
        child.wait(10)
        raise AttackError(f"{child.name} ran past {timeout:.0f}s: {' '.join(child.argv)}")
    try:
        return json.loads(child.output())
    except ValueError:
        raise AttackError(f"{child.name} exited {code} without a JSON report: "
                          f"{child.errors()[-500:]}") from None


def probe_p99_ms(report):
    return report["latency_us"]["p99"] / 1000.0


def quiet_tls_probe(ctx, result, port, seconds, rate, when):
    """The TLS probe alone (before or after an attack); returns its p99 in ms, and records a
    failure if it lost requests."""
    report = tls_client_report(start_tls_probe(ctx, port, seconds, rate,
                                               name=f"probe-quiet-{when}"), seconds + 30)
    result.expect(report["errors"] == 0 and report["completed"] == report["requests"],
                  f"the quiet TLS probe ({when}) without errors: {report['completed']} of "
                  f"{report['requests']} answered, {report['error_samples']}")
    return probe_p99_ms(report)
