"""Hello world without a database: every bundled contestant (contestants/) runs its database-free
routes in a scenario with database = "none" ({db_url} = none). The seed that compared Deno and
Rust hyper on hello world alone found both skipped ("it needs a database"); a server whose hello
route needs no database must run without one.

One `ringside compare --quick` over every runnable contestant, the hello workload only; each must
have run (status "ran" in results.json) and had its 200s counted. A contestant whose runtime is
not installed here (`--list`: not runnable) is skipped, with the reason printed; rocket is not
available anywhere and is left out."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from ringside_testlib import BIN

REPO = Path(__file__).resolve().parents[2]
CONTESTANTS = REPO / "contestants"
UNAVAILABLE = {"rocket"}

# Validation (a start, the checks and a stop each: deno compiles afresh at every start) and one
# 0.3 s point per contestant, a dozen of them, on a loaded 2-core machine under the sanitizers.
# ctest's TIMEOUT for the suite is above it (tests/integration/CMakeLists.txt).
RUN_TIMEOUT = 780

SCENARIO = """name = "no-database"
description = "every bundled contestant, hello world, no database"
contestants = [{names}]
baseline = "ringside"
rounds = 1
server_cpus = "0"
load_cpus = "1"
threads = 1
database = "none"
equal_load = false

[[workload]]
name = "hello"
path = "/"
connections = [4]
"""


def runnability():
    """{name: "" when runnable here, else why not}, from `ringside compare --list`."""
    result = subprocess.run([BIN, "compare", "--list"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=120)
    if result.returncode != 0:
        raise AssertionError(f"--list failed: {result.stderr.decode()}")
    found = {}
    for line in result.stdout.decode().splitlines():
        name = line.split()[0]
        _, not_runnable, why = line.partition(" not runnable: ")
        found[name] = why if not_runnable else ""
    return found


class NoDatabaseTest(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix="contestants-no-db-")
        self.tmp = os.path.join(self.scratch, "tmp")
        self.out = os.path.join(self.scratch, "out")
        os.mkdir(self.tmp)
        self.addCleanup(shutil.rmtree, self.scratch, True)

    def test_every_bundled_contestant_runs_hello_without_a_database(self):
        found = runnability()
        bundled = sorted(p.parent.name for p in CONTESTANTS.glob("*/contestant.toml"))
        self.assertEqual(sorted(found), bundled)
        runnable = [name for name in bundled if name not in UNAVAILABLE and not found[name]]
        self.assertIn("ringside", runnable)  # the baseline is always here
        scenario = os.path.join(self.scratch, "scenario.toml")
        with open(scenario, "w") as f:
            f.write(SCENARIO.format(names=", ".join(json.dumps(name) for name in runnable)))
        try:
            result = subprocess.run(
                [BIN, "compare", scenario, "--out", self.out, "--quick"],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                timeout=RUN_TIMEOUT, env=dict(os.environ, TMPDIR=self.tmp))
        except subprocess.TimeoutExpired:
            raise AssertionError(f"ringside compare ran over {RUN_TIMEOUT}s") from None
        output = result.stdout.decode(errors="replace")
        self.assertEqual(result.returncode, 0, output)
        with open(os.path.join(self.out, "results.json")) as f:
            document = json.load(f)
        contestants = {c["name"]: c for c in document["contestants"]}
        points = {p["contestant"]: p for p in document["points"] if p["workload"] == "hello"}
        for name in bundled:
            with self.subTest(contestant=name):
                if name in UNAVAILABLE:
                    continue
                if found[name]:
                    self.skipTest(f"{name} is not runnable here: {found[name]}")
                contestant = contestants[name]
                self.assertEqual((contestant["status"], contestant["reason"]), ("ran", ""),
                                 output)
                point = points[name]
                self.assertEqual(point["failure"], "", output)
                self.assertGreater(point["median"]["statuses"].get("200", 0), 0, point)
        self.assertEqual(os.listdir(self.tmp), [], "work directories left behind")


if __name__ == "__main__":
    unittest.main()
