"""`ringside compare SCENARIO`, the benchmark run, end to end on tiny scenarios (1 s points,
database "none") against contestants written by the tests: the fixture server of
tests/fixtures/contestants in its modes (`good`, `dies-mid-run`, `tiny-backlog`) and `ringside
serve` itself as a fast server. The contestants live in a scratch folder, not in
tests/fixtures/contestants, whose exact list test_compare_validate.py checks.

Checked: results.json against docs/compare-json.schema.json, with every point, round and histogram
log; a contestant dying mid-run (recorded failed with its last output, the others measured);
Ctrl-C mid-run (exit 130, results.json marked partial, no process or temporary directory left);
the throwaway PostgreSQL killed mid-run (the point marked, the run stopped, partial, exit 1);
a starved loader flagged loader-bound; a listen-queue overflow flagged; bad scenario files (one
line naming the file, line and field, exit 2).

Kernel counters are system-wide and other tests may run at the same time, so the tests assert
that a flag is raised where it must be, never that one is absent."""
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import jsonschema

from ringside_testlib import BIN

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))
SERVER = os.path.join(SOURCE, "tests", "fixtures", "contestants", "fixture_server.py")
SCHEMA = os.path.join(SOURCE, "docs", "compare-json.schema.json")
# Validation, starts, stops and 1 s points under the sanitizers on a loaded 2-core machine.
RUN_TIMEOUT = 240

PYTHON_MANIFEST = """name = "{name}"
description = "fixture: {mode}"
language = "Python"
runtime = "python3"
requires = ["python3"]
install = "scripts/setup"
version = ["python3", "--version"]
start = ["python3", "{server}", "--port", "{{port}}", "--mode", "{mode}"]
ready_path = "/"
routes = ["/", "/json", "/users/:id"]
threads = 1
db_pool = 0
stop_signal = "SIGTERM"
build = []
build_inputs = []
[env]
PYTHONDONTWRITEBYTECODE = "1"
FIXTURE_DIE_AFTER = "{die_after}"
# dies-mid-run: not in the first start, the validation (its fairness burst sends thousands).
FIXTURE_DIE_FROM_START = "2"
FIXTURE_STATE_DIR = "{{dir}}"
FIXTURE_DELAY_MS = "{delay_ms}"
RINGSIDE_TEST_SCRATCH = "{scratch}"
"""

RINGSIDE_MANIFEST = """name = "{name}"
description = "ringside serve, no database"
language = "C++"
runtime = "native"
requires = []
install = "scripts/build release"
version = ["{{ringside}}", "--version"]
start = ["{{ringside}}", "serve", "--host", "127.0.0.1", "--port", "{{port}}", "--threads", "1",
         "--db", "none"]
ready_path = "/"
routes = ["/", "/json"]
threads = 1
db_pool = 0
stop_signal = "SIGTERM"
build = []
build_inputs = []
[env]
RINGSIDE_TEST_SCRATCH = "{scratch}"
"""


RINGSIDE_PG_MANIFEST = """name = "{name}"
description = "ringside serve on the harness's PostgreSQL"
language = "C++"
runtime = "native"
requires = []
install = "scripts/build release"
version = ["{{ringside}}", "--version"]
start = ["{{ringside}}", "serve", "--host", "127.0.0.1", "--port", "{{port}}", "--threads", "1",
         "--db", "{{db_url}}"]
ready_path = "/"
routes = ["/", "/users/:id", "/db"]
threads = 1
db_pool = 2
stop_signal = "SIGTERM"
build = []
build_inputs = []
[env]
RINGSIDE_TEST_SCRATCH = "{scratch}"
"""


def our_processes(root):
    """Live processes started for this test: the contestants carry RINGSIDE_TEST_SCRATCH=root in
    their environment (and their children inherit it); anything else naming root runs there."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
            with open(f"/proc/{entry}/environ", "rb") as f:
                environ = f.read().split(b"\0")
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        tagged = b"RINGSIDE_TEST_SCRATCH=" + root.encode() in environ
        if state != "Z" and (tagged or root.encode() in cmdline):
            found.append((int(entry), cmdline.replace(b"\0", b" ").decode(errors="replace")))
    return found


def make_quota_cgroup(name, quota_us, period_us):
    """A CPU cgroup with a quota (cgroup v1's cpu controller, else v2); its path."""
    v1 = "/sys/fs/cgroup/cpu"
    if os.path.isfile(os.path.join(v1, "cpu.cfs_quota_us")):
        path = os.path.join(v1, name)
        os.mkdir(path)
        with open(os.path.join(path, "cpu.cfs_period_us"), "w") as f:
            f.write(str(period_us))
        with open(os.path.join(path, "cpu.cfs_quota_us"), "w") as f:
            f.write(str(quota_us))
        return path
    for root in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified"):
        if os.path.isfile(os.path.join(root, "cgroup.subtree_control")):
            with open(os.path.join(root, "cgroup.subtree_control"), "w") as f:
                f.write("+cpu")
            path = os.path.join(root, name)
            os.mkdir(path)
            with open(os.path.join(path, "cpu.max"), "w") as f:
                f.write(f"{quota_us} {period_us}")
            return path
    raise AssertionError("no CPU cgroup controller to set a quota with (run as root)")


class CompareRunTest(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix="compare-run-test-")
        self.contestants = os.path.join(self.scratch, "contestants")
        self.tmp = os.path.join(self.scratch, "tmp")
        self.out = os.path.join(self.scratch, "out")
        os.mkdir(self.contestants)
        os.mkdir(self.tmp)
        self.env = dict(os.environ, XDG_CACHE_HOME=os.path.join(self.scratch, "cache"),
                        XDG_CONFIG_HOME=os.path.join(self.scratch, "config"), TMPDIR=self.tmp)
        with open(SCHEMA) as f:
            self.schema = json.load(f)

    def tearDown(self):
        for pid, _ in our_processes(self.scratch):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        shutil.rmtree(self.scratch, ignore_errors=True)

    def python_contestant(self, name, mode="good", die_after=300, delay_ms=0):
        os.mkdir(os.path.join(self.contestants, name))
        with open(os.path.join(self.contestants, name, "contestant.toml"), "w") as f:
            f.write(PYTHON_MANIFEST.format(name=name, mode=mode, server=SERVER, die_after=die_after,
                                          scratch=self.scratch, delay_ms=delay_ms))

    def ringside_contestant(self, name, protocols=None):
        os.mkdir(os.path.join(self.contestants, name))
        manifest = RINGSIDE_MANIFEST.format(name=name, scratch=self.scratch)
        if protocols:  # a top-level key: before the [env] table
            listed = ", ".join(f'"{p}"' for p in protocols)
            manifest = manifest.replace("[env]", f"protocols = [{listed}]\n[env]", 1)
        with open(os.path.join(self.contestants, name, "contestant.toml"), "w") as f:
            f.write(manifest)

    def scenario(self, text):
        path = os.path.join(self.scratch, "scenario.toml")
        with open(path, "w") as f:
            f.write(text)
        return path

    def command(self, scenario, *args):
        # Only the test's own contestants: the bundled ones (and a user's) left out.
        return [BIN, "compare", scenario, "--no-bundled", "--contestants", self.contestants,
                "--out", self.out, *args]

    def run_compare(self, scenario, *args):
        try:
            result = subprocess.run(self.command(scenario, *args), stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, timeout=RUN_TIMEOUT, env=self.env)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"ringside compare ran over {RUN_TIMEOUT}s") from None
        return result.returncode, result.stdout.decode(), result.stderr.decode()

    def results(self):
        with open(os.path.join(self.out, "results.json")) as f:
            document = json.load(f)
        jsonschema.validate(document, self.schema)
        return document

    def assert_nothing_left(self):
        self.assertEqual(our_processes(self.scratch), [], "processes of the run left running")
        self.assertEqual(os.listdir(self.tmp), [], "temporary directories left behind")

    def points(self, document, contestant, mode="closed"):
        return {p["connections"]: p for p in document["points"]
                if p["contestant"] == contestant and p["mode"] == mode}


class AutoRoundsTest(CompareRunTest):
    """rounds = "auto": every point gets min_rounds; a point whose rounds disagree gets more,
    up to max_rounds, within the time budget, and ends noisy saying why."""

    SCENARIO = """
name = "auto"
baseline = "steady"
rounds = "auto"
min_rounds = 3
max_rounds = 5
target = "50%"
warmup = "0s"
duration = "300ms"
settle = "0s"
database = "none"
equal_load = false

[[workload]]
name = "hello"
path = "/"
connections = [2]
"""

    def setUp(self):
        super().setUp()
        # Bound by a 5 ms wait a request, not by a CPU it shares with the rest of the machine:
        # within +-50% even beside other work. wobbly's starts differ 5-fold.
        self.python_contestant("steady", delay_ms=5)
        self.python_contestant("wobbly", mode="uneven")

    def point(self, document, name):
        [point] = [p for p in document["points"] if p["contestant"] == name]
        return point

    def test_an_unsettled_point_gets_more_rounds_up_to_the_maximum(self):
        code, out, err = self.run_compare(self.scenario(self.SCENARIO))
        self.assertEqual(code, 0, out + err)
        document = self.results()
        policy = document["rounds_policy"]
        self.assertTrue(policy["automatic"])
        self.assertEqual((policy["min"], policy["max"]), (3, 5))
        self.assertAlmostEqual(policy["target"], 0.5)
        self.assertIn("order-statistic", policy["method"])
        steady, wobbly = self.point(document, "steady"), self.point(document, "wobbly")
        # Three rounds settle it; beside other work a round may be left out as server-starved,
        # and then one more replaces it (never the maximum).
        rounds = [r["round"] for r in steady["rounds"]]
        self.assertEqual(rounds[:3], [1, 2, 3])
        self.assertLess(len(rounds) - len(steady["left_out"]), 5, steady["rounds"])
        self.assertFalse(steady["noisy"], steady["requests_per_s_interval"])
        interval = steady["requests_per_s_interval"]
        # The narrowest interval that covers at least 75%: exactly 75% from three rounds, more
        # when a slow round on a busy machine asked for a fourth.
        self.assertGreaterEqual(interval["confidence"], 0.75)
        self.assertLessEqual(interval["low"], steady["median"]["requests_per_s"])
        self.assertGreaterEqual(interval["high"], steady["median"]["requests_per_s"])
        # Fast and slow starts in turn never agree: every round up to the maximum, then noisy.
        self.assertEqual([r["round"] for r in wobbly["rounds"]], [1, 2, 3, 4, 5])
        # Beside other work a round may be left out as server-starved (another process on the
        # server's CPU); when the slow ones all are, the fast ones left agree. Otherwise: noisy.
        if not wobbly["left_out"]:
            self.assertTrue(wobbly["noisy"], (wobbly["rounds"], wobbly["requests_per_s_interval"]))
            self.assertIn("is not known to within +-50%", wobbly["noisy_note"])
        self.assertEqual(document["rounds"], 5)
        self.assertRegex(err, r"round 4: [12] point\(s\) not yet known to within \+-50%")

    def test_the_time_budget_stops_extra_rounds(self):
        code, out, err = self.run_compare(self.scenario(self.SCENARIO), "--time-budget", "1s")
        self.assertEqual(code, 0, out + err)
        document = self.results()
        wobbly = self.point(document, "wobbly")
        self.assertEqual(len(wobbly["rounds"]), 3)  # the minimum always runs
        self.assertTrue(wobbly["noisy"])
        self.assertRegex(err, r"time budget: [12] point\(s\) not yet known to within \+-50%")
        self.assertEqual(document["rounds"], 3)

    def test_rounds_flag_fixes_the_rounds(self):
        code, out, err = self.run_compare(self.scenario(self.SCENARIO), "--rounds", "2")
        self.assertEqual(code, 0, out + err)
        document = self.results()
        self.assertFalse(document["rounds_policy"]["automatic"])
        for name in ("steady", "wobbly"):
            self.assertEqual(len(self.point(document, name)["rounds"]), 2)


class EndToEndTest(CompareRunTest):
    def test_two_contestants_two_levels_two_rounds(self):
        self.python_contestant("alpha")
        self.python_contestant("beta")
        scenario = self.scenario("""
name = "tiny"
baseline = "alpha"
rounds = 2
warmup = "100ms"
duration = "500ms"
settle = "50ms"
database = "none"
equal_load_fraction = 0.25

[[workload]]
name = "hello"
path = "/"
connections = [2, 8]

[[workload]]
name = "users"
path = "/users/{1..100}"
connections = [4]
""")
        code, out, err = self.run_compare(scenario)
        self.assertEqual(code, 0, out + err)
        document = self.results()
        self.assertEqual(document["scenario"]["name"], "tiny")
        self.assertFalse(document["partial"])
        self.assertEqual(document["rounds"], 2)
        self.assertEqual(document["machine"]["server_cpus"], "0")
        self.assertGreaterEqual(document["machine"]["cores"], 1)
        self.assertEqual([c["name"] for c in document["contestants"]], ["alpha", "beta"])
        for contestant in document["contestants"]:
            self.assertEqual(contestant["status"], "ran", contestant)
            self.assertRegex(contestant["version"], r"^Python 3")
            self.assertGreater(contestant["rss_idle_kib"], 1000)  # a Python process: megabytes
            self.assertGreater(contestant["rss_after_kib"], 1000)
        for name in ("alpha", "beta"):
            closed = self.points(document, name)
            self.assertEqual(sorted(closed), [2, 4, 8])
            for connections, point in closed.items():
                self.assertEqual(point["failure"], "")
                self.assertEqual([r["round"] for r in point["rounds"]], [1, 2])
                for figures in point["rounds"] + [point["median"]]:
                    self.assertGreater(figures["completed"], 0)
                    self.assertEqual(figures["failed"], 0)
                    self.assertEqual(set(figures["statuses"]), {"200"})
                    self.assertEqual(figures["statuses"]["200"], figures["completed"])
                    self.assertGreater(figures["requests_per_s"], 0)
                    self.assertLessEqual(figures["latency_us"]["p50"], figures["latency_us"]["p99"])
                    self.assertLessEqual(figures["latency_us"]["p99"], figures["latency_us"]["max"])
                    self.assertGreater(figures["server_cpu_s"], 0)
                    self.assertGreater(figures["loader_cpu_s"], 0)
                    self.assertGreater(figures["rss_peak_kib"], 1000)
                    # Every connection of a closed point reached the server.
                    self.assertGreaterEqual(figures["kernel"]["established_peak"], connections)
                for figures in point["rounds"]:
                    log = os.path.join(self.out, figures["histogram_log"])
                    with open(log) as f:
                        text = f.read()
                    self.assertIn("#[StartTime: ", text)
                    self.assertIn(",HISTF", text)
                self.assertLessEqual(point["requests_per_s_min"], point["median"]["requests_per_s"])
                self.assertGreaterEqual(point["requests_per_s_max"], point["median"]["requests_per_s"])
            # Equal load: one open point per workload, at one rate for both, once, after the
            # closed rounds (the rate needs every contestant's medians).
            open_points = [p for p in document["points"] if p["contestant"] == name and p["mode"] == "open"]
            self.assertEqual(sorted(p["workload"] for p in open_points), ["hello", "users"])
            for point in open_points:
                self.assertEqual([r["round"] for r in point["rounds"]], [1])
                self.assertEqual(point["connections"], 8 if point["workload"] == "hello" else 4)
                self.assertAlmostEqual(point["median"]["target_rate"], point["rate"])
        rates = {(p["workload"], p["contestant"]): p["rate"] for p in document["points"] if p["mode"] == "open"}
        self.assertEqual(rates[("hello", "alpha")], rates[("hello", "beta")])
        # Of two contestants the slower one's sustained rate: its best level by the median of
        # its rounds (two rounds: their mean).
        def sustained(name):
            return max(sum(r["requests_per_s"] for r in p["rounds"]) / len(p["rounds"])
                       for p in self.points(document, name).values() if p["workload"] == "hello")
        slower = min(sustained("alpha"), sustained("beta"))
        self.assertAlmostEqual(rates[("hello", "alpha")], 0.25 * slower, delta=0.01)
        # The terminal table, and where the results went.
        self.assertIn("hello (GET /)", out)
        self.assertIn("users (GET /users/{1..100})", out)
        self.assertIn("vs alpha", out)
        self.assertIn("baseline", out)
        self.assertTrue(out.rstrip().endswith(
            f"results in {self.out} (results.json, report.md, report.html)"), out)
        # The reports are written with the results.
        for name in ("report.md", "report.html"):
            self.assertGreater(os.path.getsize(os.path.join(self.out, name)), 0, name)
        # Live progress: the point measured and the time left.
        self.assertRegex(err, r"\[1/\d+\] round 1/2: (alpha|beta) hello c=2 \(0\.6s\), about \d")
        self.assert_nothing_left()

    def test_the_database_share_is_measured_on_the_harness_postgresql(self):
        """database = "temp": the harness starts PostgreSQL, and each point says how many queries
        it ran per request (pg_stat_statements) and how much CPU it spent on them; a route that
        never queries shows none, and a contestant that does not claim /db does not run it."""
        os.chmod(self.scratch, 0o755)  # the cluster, under TMPDIR, belongs to the postgres user
        os.mkdir(os.path.join(self.contestants, "ringside-pg"))
        with open(os.path.join(self.contestants, "ringside-pg", "contestant.toml"), "w") as f:
            f.write(RINGSIDE_PG_MANIFEST.format(name="ringside-pg", scratch=self.scratch))
        self.python_contestant("alpha")  # claims /, /json, /users/:id, not /db; no database
        scenario = self.scenario("""
name = "db-tiny"
baseline = "ringside-pg"
rounds = 1
warmup = "300ms"
duration = "1s"
settle = "100ms"
database = "temp"
equal_load = false

[[workload]]
name = "users"
path = "/users/{1..10000}"
connections = [4]

[[workload]]
name = "users-churn"
path = "/users/1"
connections = [4]
requests = 300
keep_alive = false

[[workload]]
name = "db"
path = "/db"
connections = [4]

[[workload]]
name = "hello"
path = "/"
connections = [4]
""")
        # A CPU hog of the test's own on the servers' CPU (server_cpus "0"), for the run and no
        # longer (it ends itself after RUN_TIMEOUT): queued requests are in flight whenever a
        # reading is taken mid-point, which is what made the counted point read 1.10 queries
        # per request on a busy machine.
        hog = subprocess.Popen([sys.executable, "-c",
                                "import os, time\n"
                                "os.sched_setaffinity(0, {0})\n"
                                f"end = time.monotonic() + {RUN_TIMEOUT}\n"
                                "while time.monotonic() < end: pass\n"])
        try:
            code, out, err = self.run_compare(scenario)
        finally:
            hog.kill()
            hog.wait()
        self.assertEqual(code, 0, out + err)
        document = self.results()
        self.assertEqual([(c["name"], c["status"]) for c in document["contestants"]],
                         [("alpha", "ran"), ("ringside-pg", "ran")], out + err)
        points = {(p["workload"], p["contestant"]): p for p in document["points"]}
        self.assertNotIn(("db", "alpha"), points, "alpha does not claim /db")
        for workload in ("users", "users-churn", "db"):
            database = points[(workload, "ringside-pg")]["median"]["database"]
            # One query per request, as PostgreSQL counted them; a few requests straddle the
            # readings of a timed point.
            self.assertAlmostEqual(database["queries_per_request"], 1.0, delta=0.1, msg=(workload, database))
            self.assertGreater(database["queries"], 0)
            # /proc counts CPU in 10 ms ticks: the 300 requests of the counted point may fit in
            # less than one.
            if workload != "users-churn":
                self.assertGreater(database["cpu_s"], 0)
                self.assertGreater(database["cpu_us_per_request"], 0)
            self.assertAlmostEqual(database["cpu_us_per_query"] * database["queries"],
                                   database["cpu_s"] * 1e6, delta=database["cpu_s"] * 1e6 * 1e-6)
        self.assertEqual(points[("users-churn", "ringside-pg")]["median"]["completed"], 300)
        # The counted churn point is read before its loader starts and after its last answer,
        # with nothing in flight: every query is one of the requests answered, warm-up included.
        churn = points[("users-churn", "ringside-pg")]["median"]["database"]
        self.assertEqual(churn["queries_per_request"], 1.0, churn)
        self.assertGreaterEqual(churn["queries"], 300)
        for contestant in ("ringside-pg", "alpha"):
            self.assertEqual(points[("hello", contestant)]["median"]["database"]["queries"], 0)
        # alpha answers /users/:id from memory: the database saw nothing of it.
        self.assertEqual(points[("users", "alpha")]["median"]["database"]["queries"], 0)
        users_table = out[out.index("users (GET /users/{1..10000})"):out.index("users-churn (")]
        self.assertIn("DB us/req", users_table)
        self.assertIn("q/req", users_table)
        hello_table = out[out.index("hello (GET /)"):]
        self.assertNotIn("DB us/req", hello_table.split("\n\n")[0])
        self.assert_nothing_left()

    def test_without_a_database_a_database_optional_server_runs_its_other_routes(self):
        """database = "none": a server whose manifest says database_optional starts with
        {db_url} = none and runs the hello workload; its /users/:id is neither validated nor
        timed; one that needs its database is skipped, saying why."""
        os.mkdir(os.path.join(self.contestants, "ringside-opt"))
        with open(os.path.join(self.contestants, "ringside-opt", "contestant.toml"), "w") as f:
            f.write(RINGSIDE_PG_MANIFEST.format(name="ringside-opt", scratch=self.scratch)
                    .replace("db_pool = 2\n", "db_pool = 2\ndatabase_optional = true\n"))
        os.mkdir(os.path.join(self.contestants, "needs-db"))
        with open(os.path.join(self.contestants, "needs-db", "contestant.toml"), "w") as f:
            f.write(RINGSIDE_PG_MANIFEST.format(name="needs-db", scratch=self.scratch))
        scenario = self.scenario('rounds = 1\nwarmup = "100ms"\nduration = "300ms"\nsettle = "0s"\n'
                                 'database = "none"\nequal_load = false\n'
                                 '[[workload]]\nname = "hello"\nconnections = [2]\n'
                                 '[[workload]]\nname = "users"\npath = "/users/{1..10}"\nconnections = [2]\n')
        code, out, err = self.run_compare(scenario)
        self.assertEqual(code, 0, out + err)
        document = self.results()
        status = {c["name"]: (c["status"], c["reason"]) for c in document["contestants"]}
        self.assertEqual(status["ringside-opt"][0], "ran", status)
        self.assertEqual(status["needs-db"][0], "skipped", status)
        self.assertIn("needs a database", status["needs-db"][1])
        self.assertEqual([(p["workload"], p["contestant"]) for p in document["points"]],
                         [("hello", "ringside-opt")])
        self.assertEqual(document["points"][0]["failure"], "")
        self.assertEqual(document["points"][0]["median"]["failed"], 0)
        self.assert_nothing_left()

    def test_only_skip_rounds_and_duration_flags(self):
        self.python_contestant("alpha")
        self.python_contestant("beta")
        scenario = self.scenario('rounds = 3\nwarmup = "0s"\nduration = "9s"\nsettle = "0s"\n'
                                 'database = "none"\nequal_load = false\n'
                                 '[[workload]]\nname = "hello"\nconnections = [1]\n')
        code, out, err = self.run_compare(scenario, "--only", "beta", "--rounds", "1",
                                          "--duration", "300ms")
        self.assertEqual(code, 0, out + err)
        document = self.results()
        self.assertEqual([c["name"] for c in document["contestants"]], ["beta"])
        self.assertEqual(document["rounds"], 1)
        (point,) = document["points"]
        self.assertAlmostEqual(point["rounds"][0]["duration_s"], 0.3, delta=0.05)
        code, out, err = self.run_compare(scenario, "--skip", "alpha,beta")
        self.assertEqual(code, 2, out + err)
        self.assertIn("no contestant left to run", err)


class FailureTest(CompareRunTest):
    def test_a_contestant_dying_mid_run_is_recorded_and_the_run_goes_on(self):
        self.python_contestant("dies", mode="dies-mid-run", die_after=400)
        self.python_contestant("good")
        scenario = self.scenario("""
rounds = 2
warmup = "0s"
duration = "1s"
settle = "0s"
database = "none"
baseline = "good"
[[workload]]
name = "hello"
connections = [4, 8]
""")
        code, out, err = self.run_compare(scenario)
        self.assertEqual(code, 0, out + err)  # the run succeeded; a contestant failed in it
        document = self.results()
        self.assertFalse(document["partial"])
        dies, good = document["contestants"]
        self.assertEqual(dies["status"], "failed")
        self.assertRegex(dies["reason"], r"^exited \(exit 7\) during hello at [48] connections$")
        self.assertIn("dying after 400 requests", dies["last_output"])
        self.assertEqual(good["status"], "ran", good)
        # Every point of the dead one carries the reason; the good one measured all of its own.
        for point in (p for p in document["points"] if p["contestant"] == "dies"):
            self.assertIn("exited (exit 7)", point["failure"])
        for connections, point in self.points(document, "good").items():
            self.assertEqual(point["failure"], "")
            self.assertEqual(len(point["rounds"]), 2)
            self.assertGreater(point["median"]["completed"], 0)
        self.assertIn("dies: failed: exited (exit 7)", out)
        self.assert_nothing_left()

    def test_ctrl_c_writes_a_partial_result_and_leaves_nothing(self):
        self.python_contestant("alpha")
        self.python_contestant("beta")
        scenario = self.scenario('rounds = 3\nwarmup = "0s"\nduration = "2s"\nsettle = "0s"\n'
                                 'database = "none"\n[[workload]]\nname = "hello"\n'
                                 'connections = [4, 8]\n')
        process = subprocess.Popen(self.command(scenario), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, env=self.env)
        err = b""
        try:
            # Interrupt in the middle of the second point: one point is in, one is being measured.
            deadline = time.monotonic() + RUN_TIMEOUT
            while b"[2/" not in err:
                remaining = deadline - time.monotonic()
                self.assertGreater(remaining, 0, f"never reached the second point: {err!r}")
                ready, _, _ = select.select([process.stderr], [], [], remaining)
                if ready:
                    chunk = os.read(process.stderr.fileno(), 4096)
                    self.assertTrue(chunk, f"exited early: {err!r}")
                    err += chunk
            self.assertNotEqual(our_processes(self.scratch), [], "no contestant running")
            process.send_signal(signal.SIGINT)
            out, rest = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        self.assertEqual(process.returncode, 130, (err + rest).decode())
        document = self.results()
        self.assertTrue(document["partial"])
        measured = [p for p in document["points"] if p["rounds"]]
        self.assertEqual(len(measured), 1, "the first point is kept, the interrupted one dropped")
        self.assertIn(b"PARTIAL", out)
        self.assert_nothing_left()


    def test_the_database_dying_mid_run_stops_the_run_and_marks_the_point(self):
        """database = "temp", the postmaster killed in the middle of the first point: that point
        is kept and marked failed (it measured the outage: 503s), no later point is run on a dead
        database, the run is partial and exits 1, and nothing is left running or on disk. (It
        used to go on to the end as if nothing happened, every later point measuring 503s.)"""
        os.chmod(self.scratch, 0o755)  # the cluster, under TMPDIR, belongs to the postgres user
        os.mkdir(os.path.join(self.contestants, "ringside-pg"))
        with open(os.path.join(self.contestants, "ringside-pg", "contestant.toml"), "w") as f:
            f.write(RINGSIDE_PG_MANIFEST.format(name="ringside-pg", scratch=self.scratch))
        scenario = self.scenario('rounds = 2\nwarmup = "0s"\nduration = "2s"\nsettle = "0s"\n'
                                 'database = "temp"\nequal_load = false\n[[workload]]\n'
                                 'name = "users"\npath = "/users/{1..100}"\nconnections = [2, 4]\n')
        process = subprocess.Popen(self.command(scenario), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, env=self.env)
        try:
            err = read_stderr_until(self, process, b"[1/")
            # The postmaster keeps its command line; its backends rename themselves "postgres: ...".
            (postmaster,) = [pid for pid, cmd in our_processes(self.scratch)
                             if cmd.startswith("/usr/lib/postgresql/") and " -D " in cmd]
            os.kill(postmaster, signal.SIGKILL)
            out, rest = process.communicate(timeout=RUN_TIMEOUT)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        err += rest
        self.assertEqual(process.returncode, 1, err.decode())
        self.assertIn(b"PostgreSQL (postmaster", err)
        document = self.results()
        self.assertTrue(document["partial"])
        (point,) = document["points"]  # the one it died in; none ran after it
        self.assertEqual(point["connections"], 2)
        self.assertIn("the throwaway PostgreSQL (postmaster", point["failure"])
        self.assertIn("measure the outage", point["failure"])
        self.assertEqual(len(point["rounds"]), 1)
        self.assertEqual(document["contestants"][0]["status"], "ran")
        self.assertIn(b"PARTIAL", out)
        self.assert_nothing_left()


def read_stderr_until(test, process, needle):
    """Reads the process's stderr (bounded by RUN_TIMEOUT) until `needle` shows; returns it."""
    err = b""
    deadline = time.monotonic() + RUN_TIMEOUT
    while needle not in err:
        remaining = deadline - time.monotonic()
        test.assertGreater(remaining, 0, f"never saw {needle!r}: {err!r}")
        ready, _, _ = select.select([process.stderr], [], [], remaining)
        if ready:
            chunk = os.read(process.stderr.fileno(), 4096)
            test.assertTrue(chunk, f"exited before {needle!r}: {err!r}")
            err += chunk
    return err


class FlagTest(CompareRunTest):
    def starve_the_loader(self, workload):
        """ringside serve answers in microseconds, so the loader always has responses to read.
        Once the point begins (its progress line), the test moves the harness -- the loader's
        process, not the contestant, which is already running in its own cgroup -- into a CPU
        cgroup with a quota of 5 ms per 100 ms. The loader then spends ~95% of the point
        throttled: the run must say that the loader, not the server, set the pace. (cgroup v1's
        cpu controller, or v2's, as root: the way a container's CPU limit starves a loader.)
        Returns the point's median figures and the run's stdout."""
        scenario = self.scenario('rounds = 1\nwarmup = "500ms"\nduration = "2s"\nsettle = "0s"\n'
                                 'server_cpus = "0"\nload_cpus = "1"\ndatabase = "none"\n'
                                 'equal_load = false\n[[workload]]\nname = "hello"\n'
                                 'connections = [10]\n' + workload)
        cgroup = make_quota_cgroup(f"ringside-test-{os.getpid()}", quota_us=5000, period_us=100000)
        process = subprocess.Popen(self.command(scenario), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, env=self.env)
        err = b""
        try:
            deadline = time.monotonic() + RUN_TIMEOUT
            while b"[1/1]" not in err:
                remaining = deadline - time.monotonic()
                self.assertGreater(remaining, 0, f"the point never began: {err!r}")
                ready, _, _ = select.select([process.stderr], [], [], remaining)
                if ready:
                    chunk = os.read(process.stderr.fileno(), 4096)
                    self.assertTrue(chunk, f"exited early: {err!r}")
                    err += chunk
            with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
                f.write(str(process.pid))
            out, rest = process.communicate(timeout=RUN_TIMEOUT)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            os.rmdir(cgroup)
        self.assertEqual(process.returncode, 0, (out + err + rest).decode())
        (point,) = self.results()["points"]
        return point["median"], out.decode()

    def assert_loader_bound(self, figures, out):
        self.assertIn("loader-bound", figures["flags"], figures)
        note = figures["notes"][figures["flags"].index("loader-bound")]
        self.assertIn("the loader waited for a CPU", note)
        self.assertLess(figures["loader_cpu_share"], 0.5)
        self.assertGreater(figures["loader_wait_s"], 1.0)  # of 2 s
        self.assertIn("loader-bound", out)

    def test_a_starved_loader_is_flagged_loader_bound(self):
        self.ringside_contestant("fast")
        self.assert_loader_bound(*self.starve_the_loader(""))

    def test_a_starved_loader_is_flagged_loader_bound_over_http2_streams(self):
        """The same over h2c with 10 streams a connection: the requests in flight are the
        streams, and the loader's CPU is still what is watched."""
        self.ringside_contestant("fast", protocols=["http", "h2c"])
        figures, out = self.starve_the_loader('protocol = "h2c"\nstreams = 10\n')
        (workload,) = self.results()["workloads"]
        self.assertEqual((workload["protocol"], workload["streams"]), ("h2c", 10))
        self.assert_loader_bound(figures, out)

    def test_a_listen_queue_overflow_is_flagged(self):
        """The tiny-backlog fixture listens with a backlog of 1 and accepts a connection every
        20 ms; 200 connections opened at once, in the warm-up, overflow its accept queue, and
        the kernel drops the handshakes it cannot queue: the point's figures include its
        warm-up's connections, and the loader saw its connects retried."""
        self.python_contestant("backlog", mode="tiny-backlog")
        scenario = self.scenario('rounds = 1\nwarmup = "1s"\nduration = "2s"\nsettle = "0s"\n'
                                 'database = "none"\nequal_load = false\n[[workload]]\n'
                                 'name = "hello"\nconnections = [200]\n')
        code, out, err = self.run_compare(scenario)
        self.assertEqual(code, 0, out + err)
        (point,) = self.results()["points"]
        figures = point["median"]
        self.assertIn("listen-overflow", figures["flags"], figures)
        # Counted at the server's own listening socket (sock_diag), not machine-wide.
        self.assertGreater(figures["kernel"]["listen_drops"], 0)
        # At most ~100 accepted in 2 s, plus the two the queue holds: far from 200.
        self.assertIn("connections-missing", figures["flags"], figures)
        self.assertLess(figures["kernel"]["established_peak"], 200)
        self.assertIn("connections at this server's full listen queue", out)
        # Dropped SYNs are sent again after a second: the loader's own connects say so.
        self.assertIn("syn-retransmits", figures["flags"], figures)
        self.assertIn("of the loader's connections took a second or more to open", out)
        self.assert_nothing_left()


HOG = """
import ctypes, sys, time
ctypes.CDLL(None).prctl(15, b"ringside-hog", 0, 0, 0)  # PR_SET_NAME: how /proc names it
deadline = time.monotonic() + float(sys.argv[1])
while time.monotonic() < deadline:
    pass
"""


class StarvedServerTest(CompareRunTest):
    @unittest.skipUnless(len(os.sched_getaffinity(0)) >= 2, "needs two CPUs")
    def test_a_cpu_hog_on_the_server_cpu_mid_run_is_flagged_by_name(self):
        """A busy loop of the test's own, pinned to the server's CPU when round 2 begins: every
        round-2 point says other processes took that CPU, naming it; round 1 does not name it."""
        self.ringside_contestant("fast")
        scenario = self.scenario('rounds = 2\nwarmup = "100ms"\nduration = "1s"\nsettle = "0s"\n'
                                 'server_cpus = "0"\nload_cpus = "1"\ndatabase = "none"\n'
                                 'equal_load = false\n[[workload]]\nname = "hello"\n'
                                 'connections = [10, 50]\n')
        # (The hog is pinned to CPU 0 alone: a CPU shield leaves such a task where it is.)
        process = subprocess.Popen(self.command(scenario), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, env=self.env)
        hog, err = None, b""
        try:
            deadline = time.monotonic() + RUN_TIMEOUT
            while b"round 2/2" not in err:
                remaining = deadline - time.monotonic()
                self.assertGreater(remaining, 0, f"round 2 never began: {err!r}")
                ready, _, _ = select.select([process.stderr], [], [], remaining)
                if ready:
                    chunk = os.read(process.stderr.fileno(), 4096)
                    self.assertTrue(chunk, f"exited early: {err!r}")
                    err += chunk
            hog = subprocess.Popen([sys.executable, "-c", HOG, str(RUN_TIMEOUT)],
                                   preexec_fn=lambda: os.sched_setaffinity(0, {0}))
            out, rest = process.communicate(timeout=RUN_TIMEOUT)
        finally:
            for child in (process, hog):
                if child is not None and child.poll() is None:
                    child.kill()
                    child.wait()
        self.assertEqual(process.returncode, 0, (out + err + rest).decode())
        points = self.results()["points"]
        self.assertEqual(len(points), 2)
        for point in points:
            first, second = point["rounds"]
            self.assertNotIn("ringside-hog", json.dumps(first), first)
            self.assertIn("server-starved", second["flags"], second)
            note = second["notes"][second["flags"].index("server-starved")]
            self.assertRegex(note, r"other processes used \d+% of CPU 0 during this round: .*"
                                   r"ringside-hog \d+%", note)
            self.assertGreater(second["server_cpus"]["others_share"], 0.2, second["server_cpus"])
            self.assertIn("ringside-hog", [o["name"] for o in second["server_cpus"]["others"]])


class ScenarioErrorTest(CompareRunTest):
    def assert_one_line_exit_2(self, args, expected):
        code, out, err = self.run_compare(*args)
        self.assertEqual(code, 2, out + err)
        self.assertEqual(out, "")
        self.assertEqual(err.splitlines(), [expected])

    def test_bad_scenario_files_are_one_line_naming_file_line_and_field(self):
        self.python_contestant("alpha")
        path = os.path.join(self.scratch, "scenario.toml")
        cases = [
            ('rounds = 2\nrondus = 3\n[[workload]]\nname = "a"\n', f"{path}:2: field 'rondus': unknown field"),
            ('[[workload]]\nname = "a"\nconnections = [10, -1]\n',
             f"{path}:3: field 'workload[0].connections': must be an array of connection counts"),
            ('duration = "fast"\n[[workload]]\nname = "a"\n', f"{path}:1: field 'duration': must be a duration"),
            ('load_cpus = "x"\n[[workload]]\nname = "a"\n', f"{path}:1: field 'load_cpus': must be a CPU list"),
            ('name = "x"\n', f"{path}:1: field 'workload': at least one [[workload]] is required"),
            ('contestants = ["zeta"]\n[[workload]]\nname = "a"\n',
             f"{path}: field 'contestants': unknown contestant 'zeta' (known: alpha); looked in "
             f"{self.contestants} (--contestants); to add one, "),
        ]
        for text, expected in cases:
            with self.subTest(text=text):
                self.scenario(text)
                code, out, err = self.run_compare(path)
                self.assertEqual(code, 2, out + err)
                self.assertEqual(out, "")
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertTrue(err.startswith("ringside compare: " + expected), err)
        self.assertFalse(os.path.exists(os.path.join(self.out, "results.json")))

    def test_bad_flags_and_missing_files(self):
        self.python_contestant("alpha")
        good = self.scenario('[[workload]]\nname = "a"\n')
        missing = os.path.join(self.scratch, "nope.toml")
        for args, expected in [
            ([missing], f"{missing}: cannot read the scenario file"),
            ([good, "--only", "zeta"], "--only: unknown contestant 'zeta' (known: alpha); looked in "
                                       f"{self.contestants} (--contestants); to add one, "),
            ([good, "--rounds", "0"], "--rounds"),
            ([good, "--duration", "forever"], "--duration"),
        ]:
            with self.subTest(args=args):
                code, out, err = self.run_compare(*args)
                self.assertEqual(code, 2, out + err)
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertIn(expected, err)


if __name__ == "__main__":
    unittest.main()
