"""The contestants of `ringside compare` (contestants/, docs/contestants.md): every one that
scripts/setup installs passes `ringside compare --validate` here — each route's status, body,
Content-Type, framing and Date, keep-alive, pipelining, split requests, and a clean stop — against
one throwaway PostgreSQL, listening on the {host} it is given (127.0.0.2) and not on 127.0.0.1,
and none gets a fairness warning (Nagle, slow requests, a small listen backlog, a missing
production switch, more or fewer threads than it is given).
(How --validate judges a broken contestant is tested against fixtures in
test_compare_validate.py.)"""
import subprocess
import unittest
from pathlib import Path

from ringside_testlib import BIN
from test_db import START_TIMEOUT, read_line

REPO = Path(__file__).resolve().parents[2]
CONTESTANTS = REPO / "contestants"

# What scripts/setup installs (npm ci, apt, the rust-hyper build), and ringside itself. `rocket`
# is listed but not available. A contestant missing here fails the test, not skips.
RUNNABLE = ["bun", "deno", "express", "fastify", "floor", "h2o", "koa", "nginx", "node-cluster",
            "node-http", "restify", "ringside", "rust-hyper"]
UNAVAILABLE = {"rocket"}

# Known failures, asserted so that a fix (or a new failure) shows up. None today: Bun 1.4.5, which
# cannot answer pipelined requests behind an async handler, says so in its manifest
# (pipelining = false) and is checked without pipelining.
KNOWN_FAILURES = {}
NO_PIPELINING = {"bun"}

# Builds are done by scripts/setup, so a check is start-up, some 150 requests and a stop; the
# bound is for a loaded 2-core machine under the sanitizers.
VALIDATE_TIMEOUT = 600

# {host} for the run of every contestant: another loopback address (all of 127/8 is local on Linux),
# so one that ignores {host} (listens on 127.0.0.1, or on every address) fails: it is not ready
# there, or --validate's "listens on 127.0.0.2 only" check finds 127.0.0.1 answering too.
ELSEWHERE = "127.0.0.2"


def validate(*args):
    result = subprocess.run([BIN, "compare", "--validate", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            timeout=VALIDATE_TIMEOUT)
    return result.returncode, result.stdout.decode(errors="replace")


class ContestantsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.database = subprocess.Popen([BIN, "db", "temp"], stdout=subprocess.PIPE,
                                        stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            cls.db_url = read_line(cls.database.stdout, START_TIMEOUT)
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        if cls.database.poll() is None:
            cls.database.terminate()
            cls.database.wait(timeout=60)
        cls.database.stdout.close()

    def test_the_list_is_every_contestant(self):
        folders = {p.parent.name for p in CONTESTANTS.glob("*/contestant.toml")}
        self.assertEqual(folders, set(RUNNABLE) | UNAVAILABLE)

    def test_every_runnable_contestant_passes_on_the_host_it_is_given(self):
        code, output = validate("--postgres", self.db_url, "--threads", "2", "--host", ELSEWHERE,
                                *RUNNABLE)
        for name in RUNNABLE:
            with self.subTest(contestant=name):
                if name in KNOWN_FAILURES:
                    self.assertRegex(output, rf"(?m)^FAIL {name} \(.+\): .*"
                                             rf"{KNOWN_FAILURES[name].replace('(', '[(]').replace(')', '[)]')}")
                elif name in NO_PIPELINING:
                    self.assertRegex(output, rf"(?m)^PASS {name} \(.+\): GET /.*, keep-alive "
                                             rf"x100, split request, listens on {ELSEWHERE} only "
                                             rf"\(no pipelining: its manifest says it cannot\)$")
                else:
                    # The line lists the checks that ran.
                    self.assertRegex(output, rf"(?m)^PASS {name} \(.+\): GET /.*, keep-alive "
                                             rf"x100, pipelined x16, split request, listens on "
                                             rf"{ELSEWHERE} only$")
        self.assertEqual(code, 1 if KNOWN_FAILURES else 0, output)
        self.assert_no_fairness_warning(output)
        for name in set(RUNNABLE) - set(KNOWN_FAILURES):
            with self.subTest(contestant=name, host=ELSEWHERE):
                self.assertRegex(output,
                                 rf"(?m)^ringside compare: {name}: ready on {ELSEWHERE} port \d+")

    def test_one_thread_each_and_its_own_database(self):
        # {threads}=1, and --validate starting a throwaway PostgreSQL itself.
        code, output = validate("--threads", "1", "node-cluster", "rust-hyper", "ringside")
        self.assertEqual(code, 0, output)
        self.assertEqual(output.count("\nPASS ") + output.startswith("PASS "), 3, output)
        self.assert_no_fairness_warning(output)

    def assert_no_fairness_warning(self, output):
        warned = [line for line in output.splitlines() if line.startswith("WARN fairness")]
        self.assertEqual(warned, [], output)
        self.assertRegex(output, r"(?m)^validated \d+ contestants: .*; 0 fairness warnings$")

    def test_unavailable_contestant_is_skipped_with_its_reason(self):
        code, output = validate("--postgres", self.db_url, "rocket")
        self.assertEqual(code, 0, output)
        self.assertIn("SKIP rocket: not available: not packaged for Debian", output)


if __name__ == "__main__":
    unittest.main()
