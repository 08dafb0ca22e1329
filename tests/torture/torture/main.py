"""The runner: finds the attacks, runs each within its time bound, prints one line of figures per
attack, checks nothing of the attack's is left running, and exits 0 only when every attack passed."""
import argparse
import contextlib
import importlib
import json
import os
import pkgutil
import shutil
import signal
import sys
import tempfile
import time
import traceback

from . import attacks
from .framework import AttackError, Context, Result

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


class Timeout(Exception):
    pass


class OneLineParser(argparse.ArgumentParser):
    """A bad flag gets one line naming it and exit code 2 (argparse prints usage too)."""

    def error(self, message):
        print(f"torture: {message} (see tests/torture/run --help)", file=sys.stderr)
        sys.exit(2)


def discover():
    """Every module in torture/attacks, ordered by its NUMBER."""
    found = []
    for info in pkgutil.iter_modules(attacks.__path__):
        module = importlib.import_module(f"{attacks.__name__}.{info.name}")
        for field in ("NUMBER", "NAME", "TITLE", "BUDGET_S", "run"):
            if not hasattr(module, field):
                raise SystemExit(f"torture: attacks/{info.name}.py lacks {field}")
        found.append(module)
    return sorted(found, key=lambda m: (m.NUMBER, m.NAME))


def format_value(value):
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 100 else f"{value:.0f}"
    return str(value)


def figures_line(number, name, result, elapsed):
    verdict = "PASS" if result.passed else "FAIL"
    figures = " ".join(f"{key}={format_value(value)}" for key, value in result.figures.items())
    return f"{number:2d} {name:<22} {verdict}  {figures}  ({elapsed:.1f} s)"


class Interrupted(Exception):
    """SIGINT, SIGTERM or SIGHUP reached the runner; args[0] is the signal's name."""


@contextlib.contextmanager
def stop_signals_held():
    """SIGINT, SIGTERM and SIGHUP wait until the block is done (then act as usual)."""
    stops = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)


def parse(argv):
    parser = OneLineParser(
        prog="tests/torture/run",
        description="Attacks ringside serve, load and compare; one line of figures per attack. "
                    "Without --short each attack runs its full length (docs/reliability.md).")
    parser.add_argument("--short", action="store_true",
                        help="the bounded version the test command runs (each attack shortened)")
    parser.add_argument("--only", default="", help="comma-separated attack names to run")
    parser.add_argument("--skip", default="", help="comma-separated attack names not to run")
    parser.add_argument("--list", action="store_true", help="list the attacks and exit")
    parser.add_argument("--bin", default=os.path.join(ROOT, "build/release/apps/ringside"),
                        help="the ringside binary under attack (default: the release build)")
    parser.add_argument("--asan-bin", default=os.path.join(ROOT, "build/asan/apps/ringside"),
                        help="the AddressSanitizer+UBSan build (leak and sanitizer checks)")
    parser.add_argument("--fuzz-dir", default=os.path.join(ROOT, "build/fuzz/fuzz"),
                        help="where the libFuzzer targets are (scripts/build fuzz)")
    parser.add_argument("--json", dest="json_path", default="",
                        help="also write every attack's figures and failures to this file")
    return parser.parse_args(argv)


def main(argv, modules=None):
    """modules: the attacks to choose from (default: every module in torture/attacks)."""
    options = parse(argv)
    modules = discover() if modules is None else modules
    names = {m.NAME for m in modules}
    for flag in ("only", "skip"):
        for name in filter(None, getattr(options, flag).split(",")):
            if name not in names:
                print(f"torture: --{flag}: no attack named '{name}' (tests/torture/run --list)",
                      file=sys.stderr)
                return 2
    if options.list:
        for m in modules:
            short, full = m.BUDGET_S
            print(f"{m.NUMBER:2d} {m.NAME:<22} {m.TITLE} (bound {short}s short, {full}s full)")
        return 0
    only = set(filter(None, options.only.split(",")))
    skip = set(filter(None, options.skip.split(",")))
    chosen = [m for m in modules if (not only or m.NAME in only) and m.NAME not in skip]
    if not os.access(options.bin, os.X_OK):
        print(f"torture: --bin {options.bin} is not an executable: build it with "
              f"scripts/build release", file=sys.stderr)
        return 2

    def on_alarm(signum, frame):
        raise Timeout()

    def on_stop(signum, frame):
        raise Interrupted(signal.Signals(signum).name)

    # Ctrl-C (SIGINT), SIGTERM, SIGHUP: the attack running stops where it is, its children are
    # stopped, its line and the JSON say what was measured, and the suite exits 130.
    handled = (signal.SIGALRM, signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    before = {number: signal.getsignal(number) for number in handled}
    signal.signal(signal.SIGALRM, on_alarm)
    for stop in handled[1:]:
        signal.signal(stop, on_stop)
    try:
        return run_attacks(options, chosen)
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)


def run_attacks(options, chosen):
    interrupted = None
    mode = "short" if options.short else "full"
    print(f"torture: {len(chosen)} attacks, {mode} mode, {options.bin}", file=sys.stderr)
    records, failed = [], 0
    run_started = time.monotonic()
    for module in chosen:
        bound = module.BUDGET_S[0 if options.short else 1]
        scratch = tempfile.mkdtemp(prefix=f"ringside-torture-{module.NAME}-")
        os.chmod(scratch, 0o755)  # the postgres user runs a throwaway cluster under it
        tag = f"{os.getpid()}-{module.NAME}-{time.monotonic_ns()}"
        ctx = Context(root=ROOT, bin=options.bin, asan_bin=options.asan_bin,
                      fuzz_dir=options.fuzz_dir, short=options.short, scratch=scratch, tag=tag,
                      attack_name=module.NAME)
        print(f"torture: {module.NUMBER} {module.NAME}: {module.TITLE} (bound {bound} s)",
              file=sys.stderr, flush=True)
        started = time.monotonic()
        result = Result()
        signal.alarm(bound)
        try:
            module.run(ctx, result)
        except Interrupted as stop:
            interrupted = stop.args[0]
            result.failures.append(f"interrupted by {interrupted}: its children were stopped; the "
                                   "figures are what it measured until then")
        except Timeout:
            result.failures.append(f"did not finish within its bound of {bound} s")
        except AttackError as error:
            result.failures.append(str(error))
        except Exception as error:  # an attack's own bug fails that attack, not the suite
            where = traceback.extract_tb(error.__traceback__)[-1]
            result.failures.append(f"{type(error).__name__}: {error} "
                                   f"({os.path.basename(where.filename)}:{where.lineno})")
        finally:
            signal.alarm(0)
        with stop_signals_held():  # a second Ctrl-C must not cut the clean-up short
            leftovers = ctx.cleanup()
        elapsed = time.monotonic() - started
        result.expect(not leftovers, "left running after the attack: "
                      + "; ".join(f"{pid} {cmd[:80]}" for pid, cmd in leftovers))
        if result.passed:
            shutil.rmtree(scratch, ignore_errors=True)
        else:
            result.note(f"children's output kept in {scratch}")
            failed += 1
        print(figures_line(module.NUMBER, module.NAME, result, elapsed), flush=True)
        for failure in result.failures:
            print(f"     FAIL: {failure}", flush=True)
        for note in result.notes:
            print(f"     {note}", flush=True)
        records.append({"number": module.NUMBER, "name": module.NAME, "title": module.TITLE,
                        "passed": result.passed, "elapsed_s": round(elapsed, 2),
                        "figures": result.figures, "failures": result.failures,
                        "notes": result.notes})
        if interrupted:
            break
    total = time.monotonic() - run_started
    print(f"torture: {len(records) - failed} passed, {failed} failed, {total:.0f} s ({mode})"
          + (f"; interrupted by {interrupted}, {len(chosen) - len(records)} attacks not run"
             if interrupted else ""), flush=True)
    if options.json_path:
        with open(options.json_path, "w") as f:
            json.dump({"mode": mode, "bin": options.bin, "interrupted": interrupted,
                       "attacks": records}, f, indent=2)
    if interrupted:
        return 130
    return 1 if failed else 0
