"""`ringside load` running in the background while an attack watches the server (counts its
sockets, samples its descriptors) or runs something beside it; Context.load runs one to its end."""
import json

from .framework import AttackError, kill_group


def start_load(ctx, *args, name="load"):
    """Starts `ringside load --json ARGS` pinned to the load core; returns its Child."""
    return ctx.spawn([ctx.bin, "load", "--json", *args], name=name, core=ctx.load_core)


def load_report(child, timeout):
    """Waits (bounded) for a load started by start_load; returns (exit code, parsed JSON)."""
    code = child.wait(timeout)
    if code is None:
        kill_group(child.pid)
        child.wait(10)
        raise AttackError(f"{child.name} ran past {timeout:.0f}s: {' '.join(child.argv)}")
    try:
        return code, json.loads(child.output())
    except ValueError:
        raise AttackError(f"{child.name} exited {code} without a JSON report: "
                          f"{child.errors()[-500:]}") from None


def error_count(report):
    """Failed requests of every class (they sum to requests.failed)."""
    return sum(report["errors"].values())


def p99_ms(report):
    return report["latency_us"]["percentiles"]["99"] / 1000.0
