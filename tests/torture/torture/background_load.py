"""`ringside load` running in the background while an attack watches the server (counts its
sockets, samples its descriptors) or runs something beside it; Context.load runs one to its end."""
from .framework import load_report  # noqa: F401  (the attacks take both from here)


def start_load(ctx, *args, name="load"):
    """Starts `ringside load --json ARGS` pinned to the load core; returns its Child."""
    return ctx.spawn([ctx.bin, "load", "--json", *args], name=name, core=ctx.load_core)


def error_count(report):
    """Failed requests of every class (they sum to requests.failed)."""
    return sum(report["errors"].values())


def p99_ms(report):
    return report["latency_us"]["percentiles"]["99"] / 1000.0
