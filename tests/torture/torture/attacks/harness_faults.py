"""Attack 9: the harness under faults. `ringside compare` on tiny scenarios whose contestants
misbehave (one crashes mid-point, one ignores SIGTERM, one forks a child that leaves its group,
one daemonizes: forks and exits), whose throwaway PostgreSQL is killed mid-point, and which is
itself sent SIGINT or SIGTERM mid-point. After each: nothing of it left running, its TMPDIR
empty, and results.json written, valid against docs/compare-json.schema.json, and marked (the
failed contestant and its points, the partial run, the point the database died in).

Each fault is its own `ringside compare` in its own folder (contestants, TMPDIR, results), all
side by side. The contestants are tests/fixtures/contestants/fixture_server.py in its modes, plus
ringside serve on the harness's database; their [env] carries the fault's folder, so whatever they
start is found by it, and the throwaway cluster names its TMPDIR on its command line."""
import glob
import json
import os
import signal
import time

from ..framework import AttackError, wait_until

NUMBER = 9
NAME = "harness-faults"
TITLE = "ringside compare with crashing, stubborn and escaping contestants, a killed database, signals"
BUDGET_S = (90, 300)

FAULT_VARIABLE = "RINGSIDE_TORTURE_FAULT"

PYTHON_MANIFEST = """name = "{name}"
description = "torture: {mode}"
language = "Python"
runtime = "python3"
requires = ["python3"]
install = "scripts/setup"
version = ["python3", "--version"]
start = [{start}]
ready_path = "/"
routes = ["/", "/json", "/users/:id"]
threads = 1
db_pool = 0
stop_signal = "SIGTERM"
build = []
build_inputs = []
[env]
PYTHONDONTWRITEBYTECODE = "1"
FIXTURE_DIE_AFTER = "200"
# dies-mid-run: not in the first start, the validation (its fairness burst sends thousands).
FIXTURE_DIE_FROM_START = "2"
FIXTURE_STATE_DIR = "{{dir}}"
{variable} = "{folder}"
"""

RINGSIDE_PG_MANIFEST = """name = "{name}"
description = "torture: ringside serve on the harness's PostgreSQL"
language = "C++"
runtime = "native"
requires = []
install = "scripts/build release"
version = ["{{ringside}}", "--version"]
start = ["{{ringside}}", "serve", "--host", "127.0.0.1", "--port", "{{port}}", "--threads", "1",
         "--db", "{{db_url}}"]
ready_path = "/"
routes = ["/", "/users/:id"]
threads = 1
db_pool = 2
stop_signal = "SIGTERM"
build = []
build_inputs = []
[env]
{variable} = "{folder}"
"""

# A launcher that daemonizes: forks, the child starts a session and forks again, the grandchild
# becomes the server, and the launcher exits at once (what `nginx` without `daemon off` does).
DAEMONIZE = """import os, sys
if os.fork() > 0:
    os._exit(0)
os.setsid()
if os.fork() > 0:
    os._exit(0)
os.execvp("python3", ["python3", *sys.argv[1:]])
"""


def scenario_text(duration_s, database="none", connections="[2, 4]", rounds=1):
    return (f'rounds = {rounds}\nwarmup = "0s"\nduration = "{duration_s}s"\nsettle = "0s"\n'
            f'database = "{database}"\nequal_load = false\n[[workload]]\nname = "users"\n'
            f'path = "/users/{{1..100}}"\nconnections = {connections}\n')


class Fault:
    """One `ringside compare` with its own contestants, TMPDIR, cache and results folder."""

    def __init__(self, ctx, name, contestants, scenario):
        self.ctx, self.name = ctx, name
        self.folder = os.path.join(ctx.scratch, name)
        self.tmp = os.path.join(self.folder, "tmp")
        self.out = os.path.join(self.folder, "out")
        self.contestants = os.path.join(self.folder, "contestants")
        for path in (self.tmp, self.contestants):
            os.makedirs(path)
        os.chmod(self.folder, 0o755)  # the throwaway cluster, under TMPDIR, is the postgres user's
        fixture = os.path.join(ctx.root, "tests", "fixtures", "contestants", "fixture_server.py")
        daemonize = os.path.join(self.folder, "daemonize.py")
        with open(daemonize, "w") as f:
            f.write(DAEMONIZE)
        for contestant, mode in contestants:
            os.mkdir(os.path.join(self.contestants, contestant))
            if mode == "ringside-pg":
                text = RINGSIDE_PG_MANIFEST.format(name=contestant, variable=FAULT_VARIABLE,
                                                   folder=self.folder)
            else:
                argv = ["python3", fixture, "--port", "{port}", "--mode", mode]
                if mode == "daemonizes":
                    argv = ["python3", daemonize, fixture, "--port", "{port}", "--mode", "good"]
                text = PYTHON_MANIFEST.format(
                    name=contestant, mode=mode, variable=FAULT_VARIABLE, folder=self.folder,
                    start=", ".join(json.dumps(a) for a in argv))
            with open(os.path.join(self.contestants, contestant, "contestant.toml"), "w") as f:
                f.write(text)
        self.scenario = os.path.join(self.folder, "scenario.toml")
        with open(self.scenario, "w") as f:
            f.write(scenario)
        self.child = None
        self.code = None
        self.injected = None  # what was done to it mid-run, when it was

    def start(self):
        # Side by side, and some killed: the CPU shield moves nothing (scope "none") and keeps its
        # state file in the run's own folder, away from a real run's.
        env = dict(os.environ, TMPDIR=self.tmp, XDG_CACHE_HOME=os.path.join(self.folder, "cache"),
                   RINGSIDE_SHIELD_SCOPE="none",
                   RINGSIDE_SHIELD_STATE_DIR=os.path.join(self.folder, "shield"))
        self.child = self.ctx.spawn([self.ctx.bin, "compare", self.scenario, "--no-bundled",
                                     "--contestants", self.contestants, "--out", self.out],
                                    name=f"compare-{self.name}", env=env, cwd=self.folder)

    def progress(self):
        return self.child.errors()

    def leftovers(self):
        """Live processes of this fault: carrying its folder in their environment (contestants
        and what they start) or naming it on their command line (the harness, the cluster)."""
        needle = f"{FAULT_VARIABLE}={self.folder}".encode()
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    if f.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                        continue
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    cmdline = f.read()
                with open(f"/proc/{entry}/environ", "rb") as f:
                    environ = f.read().split(b"\0")
            except (OSError, IndexError):
                continue
            if needle in environ or self.folder.encode() in cmdline:
                found.append((int(entry), cmdline.replace(b"\0", b" ").decode(errors="replace")))
        return found

    def results(self, validator):
        """results.json, checked against its schema; (document or None, problem)."""
        path = os.path.join(self.out, "results.json")
        if not os.path.exists(path):
            return None, "no results.json"
        try:
            with open(path) as f:
                document = json.load(f)
        except ValueError as error:
            return None, f"results.json is not JSON: {error}"
        problems = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
        if problems:
            return None, "results.json not valid against compare-json.schema.json: " + "; ".join(
                f"{list(e.path)}: {e.message}" for e in problems[:3])
        return document, ""


def contestant(document, name):
    return next((c for c in document["contestants"] if c["name"] == name), {})


def marked_failed(document, name, reason_has):
    """The contestant is failed with a reason naming what happened, and each of its points, if
    any, carries a failure."""
    entry = contestant(document, name)
    points = [p for p in document["points"] if p["contestant"] == name]
    problems = []
    if entry.get("status") != "failed" or reason_has not in entry.get("reason", ""):
        problems.append(f"{name} not failed with '{reason_has}': {entry.get('status')} "
                        f"{entry.get('reason', '')!r}")
    problems += [f"{name}'s point c={p['connections']} not marked" for p in points if not p["failure"]]
    return problems


def judge_crash(fault, document):
    problems = marked_failed(document, "crashes", "exited (exit 7)")
    if not any(p["contestant"] == "crashes" and p["failure"] for p in document["points"]):
        problems.append("no point of crashes carries its failure")
    good = contestant(document, "good")
    if good.get("status") != "ran":
        problems.append(f"the good contestant did not run on: {good}")
    if document["partial"] or fault.code != 0:
        problems.append(f"wanted a complete run, exit 0: partial {document['partial']}, "
                        f"exit {fault.code}")
    return problems


def judge_stubborn(fault, document):
    return marked_failed(document, "stubborn", "did not exit within") + (
        [] if fault.code == 0 else [f"exit {fault.code}, wanted 0"])


def judge_escaping(fault, document):
    return marked_failed(document, "escaping", "escaped its process group") + (
        [] if fault.code == 0 else [f"exit {fault.code}, wanted 0"])


def judge_daemon(fault, document):
    # Which the harness sees first is a race: the launcher exiting (python3 forks within tens of
    # ms) before the first readiness probe, or the daemon answering and then outliving the stop.
    # Either way the contestant is failed, and the attack's leftover count (0) says the daemon
    # was found and killed.
    exited = marked_failed(document, "daemon", "exited (exit 0) before it was ready")
    outlived = marked_failed(document, "daemon", "running after the stop")
    return (outlived if exited else []) + ([] if fault.code == 0 else [f"exit {fault.code}, wanted 0"])


def judge_database(fault, document):
    problems = []
    if fault.code != 1 or not document["partial"]:
        problems.append(f"wanted exit 1 and a partial run: exit {fault.code}, "
                        f"partial {document['partial']}")
    died = [p for p in document["points"] if "PostgreSQL" in p["failure"]]
    if len(died) != 1:
        problems.append(f"wanted the point the database died in marked: "
                        f"{[(p['connections'], p['failure']) for p in document['points']]}")
    return problems


def judge_signal(fault, document):
    problems = []
    if fault.code != 130 or not document["partial"]:
        problems.append(f"wanted exit 130 and a partial run: exit {fault.code}, "
                        f"partial {document['partial']}")
    measured = [p for p in document["points"] if p["rounds"]]
    if len(measured) < 1:
        problems.append("the point measured before the signal was not kept")
    return problems


def own_postmaster(fault):
    """The postmaster of this run's own throwaway cluster, found by its data folder (under the
    run's TMPDIR): the PID its postmaster.pid names, alive and started with -D on that folder.
    Never a postmaster picked by name: other runs, tests and engineers have theirs."""
    for pid_file in glob.glob(os.path.join(fault.tmp, "*", "data", "postmaster.pid")):
        data = os.path.dirname(pid_file)
        try:
            with open(pid_file) as f:
                pid = int(f.readline())
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except (OSError, ValueError):
            continue
        if data.encode() in argv:
            return pid
    return None


def kill_postmaster(fault):
    pid = own_postmaster(fault)
    if pid is None:
        return (f"no live postmaster of this run (no postmaster.pid naming one under {fault.tmp}); "
                f"its processes: {[cmd[:80] for _, cmd in fault.leftovers()]}")
    os.kill(pid, signal.SIGKILL)
    return ""


def run(ctx, result):
    try:
        import jsonschema
    except ImportError:
        raise AttackError("python3-jsonschema is not installed: run scripts/setup") from None
    with open(os.path.join(ctx.root, "docs", "compare-json.schema.json")) as f:
        validator = jsonschema.Draft202012Validator(json.load(f))
    ctx.need_tools("python3")
    duration = 1 if ctx.short else 3
    rounds = 1 if ctx.short else 2
    # name: (contestants, scenario, what to do once a point is being measured, judge)
    plans = {
        "crash": ([("crashes", "dies-mid-run"), ("good", "good")],
                  scenario_text(duration, rounds=rounds), None, judge_crash),
        "ignores-sigterm": ([("stubborn", "ignores-sigterm")], scenario_text(duration), None,
                            judge_stubborn),
        "escaping-child": ([("escaping", "escaping-child")], scenario_text(duration), None,
                           judge_escaping),
        "daemonizes": ([("daemon", "daemonizes")], scenario_text(duration), None, judge_daemon),
        "postgres-killed": ([("pg", "ringside-pg")],
                            scenario_text(max(duration, 2), database="temp", rounds=rounds),
                            ("[1/", kill_postmaster), judge_database),
        "sigint": ([("alpha", "good"), ("beta", "good")], scenario_text(max(duration, 2)),
                   ("[2/", lambda fault: fault.child.signal(signal.SIGINT)), judge_signal),
        "sigterm": ([("alpha", "good"), ("beta", "good")], scenario_text(max(duration, 2)),
                    ("[2/", lambda fault: fault.child.signal(signal.SIGTERM)), judge_signal),
    }
    faults = {name: Fault(ctx, name, contestants, scenario)
              for name, (contestants, scenario, _, _) in plans.items()}
    ctx.progress(f"{len(faults)} faulty `ringside compare` runs side by side")
    for fault in faults.values():
        fault.start()

    def step():
        """Injects each fault once its point is being measured; true once every run ended."""
        for name, fault in faults.items():
            inject = plans[name][2]
            if inject and fault.injected is None and fault.child.alive():
                needle, action = inject
                if needle in fault.progress():
                    fault.injected = action(fault) or ""
                    if fault.injected:
                        result.failures.append(f"{name}: could not inject: {fault.injected}")
            if fault.code is None and not fault.child.alive():
                fault.code = fault.child.process.returncode
        return all(f.code is not None for f in faults.values())

    bound = 60 if ctx.short else 240
    if not wait_until(step, bound, interval=0.05):
        hung = [name for name, fault in faults.items() if fault.code is None]
        result.failures.append(f"ringside compare still running after {bound} s: {hung}")
        for name in hung:
            faults[name].child.stop(timeout=5)
    leftovers = temp_left = marked = 0
    for name, fault in faults.items():
        if fault.code is None:
            continue
        inject = plans[name][2]
        if inject and fault.injected is None:
            result.failures.append(f"{name}: the run ended (exit {fault.code}) before the fault "
                                   f"could be injected: {fault.progress()[-300:]}")
            continue
        # Not injected (the failure is recorded): its run is no test of the fault, so it is not
        # judged, only cleaned up after.
        injected = not inject or fault.injected == ""
        # The harness is gone; whatever of its run is still alive now was left behind.
        wait_until(lambda: not fault.leftovers(), 2)
        left = fault.leftovers()
        leftovers += len(left)
        result.expect(not left, f"{name}: left running: "
                      + "; ".join(f"{pid} {cmd[:90]}" for pid, cmd in left))
        for pid, _ in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        in_tmp = os.listdir(fault.tmp)
        temp_left += len(in_tmp)
        result.expect(not in_tmp, f"{name}: left in TMPDIR: {in_tmp}")
        if not injected:
            continue
        document, problem = fault.results(validator)
        if document is None:
            result.failures.append(f"{name}: {problem} (exit {fault.code}): "
                                   f"{fault.progress()[-300:]}")
            continue
        problems = plans[name][3](fault, document)
        marked += not problems
        for line in problems:
            result.failures.append(f"{name}: {line}")
    result.figure("faults", len(faults))
    result.figure("leftovers", leftovers)
    result.figure("temp_dirs_left", temp_left)
    result.figure("results_marked", marked)
