"""`ringside compare --validate` and `--list` against the fixture contestants in
tests/fixtures/contestants (tiny servers in Python's standard library): the correct one passes,
listing the checks it passed; each broken one fails with its reason (an HTTP/1.0 server told why
it cannot keep connections alive, a server never ready told where the harness looked), its last
output shown once and without the checker's own disconnects in it; a server that ignores SIGTERM
is killed, a child that left its process group is found, killed and reported, nothing is left
running or on disk afterwards, and bad manifests (one that passes no {port} among them), unknown
names and Ctrl-C end as documented. The fairness check (issue 21): Python's stock server written
the naive way passes with exactly two warnings, Nagle's (TCP_NODELAY) and its listen backlog of 5,
and the same server fixed gets none.

No fixture uses a database (db_pool = 0), so no PostgreSQL is started: the harness provisions one
only for contestants with db_pool > 0. The {db_url} placeholder is checked with --postgres and a
URL nobody connects to."""
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from ringside_testlib import BIN

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "fixtures", "contestants"))
SERVER = os.path.join(FIXTURES, "fixture_server.py")
# Eleven contestants one after the other, two of them waiting out a grace or a ready timeout, one
# slowed to 44 ms a request by Nagle's algorithm, under the sanitizers on a loaded 2-core machine.
RUN_TIMEOUT = 240
READY_TIMEOUT = "5"


FIXTURE_DIR_BYTES = os.fsencode(FIXTURES + "/")


def fixture_processes(tag):
    """Pids of live processes running this checkout's fixture server for the test whose
    environment carries RINGSIDE_TEST_SCRATCH=tag (escaped children included: they inherit it).
    Other tests, here or in another checkout, may run fixture servers meanwhile."""
    pids = []
    marker = b"RINGSIDE_TEST_SCRATCH=" + os.fsencode(tag)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            if FIXTURE_DIR_BYTES not in cmdline or b"fixture_server.py" not in cmdline or state == "Z":
                continue
            with open(f"/proc/{entry}/environ", "rb") as f:
                tagged = marker in f.read().split(b"\0")
        except OSError:
            continue
        if tagged:
            pids.append(int(entry))
    return pids


def kill_fixtures(tag):
    for pid in fixture_processes(tag):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def lines_by_name(stdout):
    """The per-contestant lines of --validate, keyed by contestant name."""
    found = {}
    for line in stdout.splitlines():
        verdict, _, rest = line.partition(" ")
        if verdict in ("PASS", "FAIL", "SKIP", "STOPPED"):
            found[rest.split(" ", 1)[0].rstrip(":")] = line
    return found


class CompareTest(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix="compare-test-")
        self.tmp = os.path.join(self.scratch, "tmp")
        os.mkdir(self.tmp)
        # The contestants inherit the harness's environment: the tag finds this test's own.
        self.env = dict(os.environ, XDG_CACHE_HOME=os.path.join(self.scratch, "cache"),
                        XDG_CONFIG_HOME=os.path.join(self.scratch, "config"),
                        TMPDIR=self.tmp, RINGSIDE_TEST_SCRATCH=self.scratch)

    def tearDown(self):
        kill_fixtures(self.scratch)  # after a failed test only: a passing one left none
        shutil.rmtree(self.scratch, ignore_errors=True)

    def compare(self, *args, timeout=RUN_TIMEOUT):
        try:
            result = subprocess.run([BIN, "compare", *args], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, timeout=timeout, env=self.env)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"ringside compare {' '.join(args)} ran over {timeout}s") from None
        return result.returncode, result.stdout.decode(), result.stderr.decode()

    def assert_nothing_left(self):
        self.assertEqual(fixture_processes(self.scratch), [], "fixture processes left running")
        self.assertEqual(os.listdir(self.tmp), [], "work directories left behind")

    def make_contestant(self, root, name, manifest):
        os.makedirs(os.path.join(root, name))
        with open(os.path.join(root, name, "contestant.toml"), "w") as f:
            f.write(manifest)


class ValidateFixturesTest(CompareTest):
    def test_each_fixture_gets_its_verdict_and_nothing_is_left(self):
        code, out, err = self.compare("--validate", "--no-bundled", "--contestants", FIXTURES,
                                      "--ready-timeout", READY_TIMEOUT)
        lines = lines_by_name(out)
        self.assertEqual(code, 1, out + err)
        self.assertEqual(sorted(lines), ["escaping-child", "exits-early", "good", "http10",
                                         "ignores-sigterm", "missing-runtime", "never-ready",
                                         "stock", "stock-fixed", "unavailable", "wrong-body"], out)
        # A PASS says which checks ran.
        self.assertRegex(lines["good"], r"^PASS good \(Python [0-9.]+\): GET /, GET /json, "
                                        r"GET /users/:id x11, keep-alive x100, pipelined x16, "
                                        r"split request$")
        # Only the naive server is warned (FairnessTest says what about).
        self.assertEqual([w.split(":")[1].strip() for w in fairness_warnings(out)], ["stock", "stock"],
                         out)
        self.assertTrue(lines["wrong-body"].startswith("FAIL wrong-body"), out)
        self.assertIn("GET /: body 'Hello World' (expected 'Hello World!')", lines["wrong-body"])
        # Where the harness looked, and that nothing listened there.
        self.assertRegex(lines["never-ready"],
                         rf"not ready within {READY_TIMEOUT} s: nothing accepted a connection on "
                         r"127\.0\.0\.1 port \d+ \(connect: Connection refused\); it must "
                         r"listen on the \{host\} and \{port\} its manifest passes it, or needs a "
                         r"longer --ready-timeout$")
        # The reason, then its output once: on stderr, not again in the line.
        self.assertRegex(lines["exits-early"],
                         r"^FAIL exits-early \([^)]*\): exited \(exit 3\) before it was ready$")
        self.assertEqual(err.count("giving up before listening"), 1, err)
        self.assertIn("ringside compare: exits-early: last output: fixture exits-early starting "
                      "on port", err)
        # HTTP/1.0 answers right, then closes: the reason says so, and what to do.
        closes = ("the server answered HTTP/1.0 with no Connection: keep-alive, and closed the "
                  "connection: HTTP/1.0 servers close after each response; answer HTTP/1.1 "
                  "(Python: protocol_version = 'HTTP/1.1')")
        self.assertRegex(lines["http10"], r"^FAIL http10 \([^)]*\): keep-alive x100: request 1 "
                                          r"of 100 \(GET /\): ")
        self.assertIn("keep-alive x100: request 1 of 100 (GET /): " + closes, lines["http10"])
        self.assertIn("pipelined x16: request 1 of 16 (GET /): " + closes, lines["http10"])
        self.assertNotIn("GET /json:", lines["http10"])  # each answer alone was right
        # The checker's own closes after a failed check (wrong-body's 15 unread pipelined
        # answers) reset nothing: no BrokenPipeError or ConnectionResetError traceback.
        self.assertNotIn("Traceback", err)
        self.assertNotIn("BrokenPipeError", err)
        self.assertNotIn("ConnectionResetError", err)
        # It answered everything right; only its stop failed.
        self.assertRegex(lines["ignores-sigterm"],
                         r"^FAIL ignores-sigterm \([^)]*\): stop: did not exit within 5 s of "
                         r"SIGTERM: killed with SIGKILL$")
        self.assertRegex(lines["escaping-child"],
                         r"^FAIL escaping-child \([^)]*\): stop: left 1 process running after the "
                         r"stop: \d+ python3 \(escaped its process group\); killed$")
        self.assertEqual(lines["unavailable"], "SKIP unavailable: not available: fixture: not "
                         "packaged for Debian and cannot be built offline")
        self.assertEqual(lines["missing-runtime"],
                         "SKIP missing-runtime: needs ringside-fixture-no-such-runtime (not on "
                         "PATH); install: apt-get install ringside-fixture-no-such-runtime")
        self.assertEqual(out.splitlines()[-1], "validated 11 contestants: 3 passed, 6 failed, "
                         "2 skipped; 2 fairness warnings")
        self.assert_nothing_left()

    def test_passing_contestants_exit_0_and_build_once(self):
        code, out, err = self.compare("--validate", "--no-bundled", "--contestants", FIXTURES,
                                      "good")
        self.assertEqual(code, 0, out + err)
        self.assertEqual(out.splitlines()[-1],
                         "validated 1 contestants: 1 passed, 0 failed, 0 skipped; 0 fairness warnings")
        self.assertEqual(len(out.splitlines()), 2, out)
        self.assertIn("ringside compare: good: building", err)
        code, out, err = self.compare("--validate", "--no-bundled", "--contestants", FIXTURES,
                                      "good", "unavailable")
        self.assertEqual(code, 0, out + err)  # a skipped one does not fail the run
        self.assertNotIn("building", err)  # the build is cached
        self.assert_nothing_left()

    def test_db_url_reaches_the_contestant_with_postgres_flag(self):
        root = os.path.join(self.scratch, "contestants")
        manifest = (f'name = "db"\nruntime = "python3"\nrequires = ["python3"]\n'
                    f'start = ["python3", "{SERVER}", "--port", "{{port}}", "--db-url", "{{db_url}}"]\n'
                    f'ready_path = "/"\nroutes = ["/", "/json"]\nthreads = "param"\ndb_pool = 2\n')
        self.make_contestant(root, "db", manifest)
        code, out, err = self.compare("--validate", "--no-bundled", "--contestants", root,
                                      "--postgres", "postgres://unused@127.0.0.1:1/none")
        self.assertEqual(code, 0, out + err)
        self.assertNotIn("PostgreSQL", err)  # none started
        self.assertTrue(out.startswith("PASS db"), out)
        self.assert_nothing_left()


def fairness_warnings(stdout):
    return [line for line in stdout.splitlines() if line.startswith("WARN fairness: ")]


class FairnessTest(CompareTest):
    def test_the_stock_server_is_warned_twice_and_the_fixed_one_not_at_all(self):
        code, out, err = self.compare("--validate", "--contestants", FIXTURES, "stock", "stock-fixed")
        self.assertEqual(code, 0, out + err)  # warnings never fail a contestant
        lines = lines_by_name(out)
        self.assertRegex(lines["stock"], r"^PASS stock \(Python [0-9.]+\): GET /, GET /json, GET /users/:id x11, "
                                         r"keep-alive x100, pipelined x16, split request$")
        self.assertRegex(lines["stock-fixed"], r"^PASS stock-fixed \(Python [0-9.]+\): GET /, GET /json, "
                                               r"GET /users/:id x11, keep-alive x100, pipelined x16, "
                                               r"split request$")
        warnings = fairness_warnings(out)
        self.assertEqual(len(warnings), 2, out + err)
        nagle, backlog = warnings
        # Each response in two pieces, a delayed ACK apart: Nagle's algorithm, and its fix.
        self.assertRegex(nagle, r"^WARN fairness: stock: tcp-nodelay: GET / took [0-9.]+ ms a request "
                                r"\(median of 24 sequential keep-alive requests; a canned responder on "
                                r"loopback: [0-9.]+ ms\), each response in 2 pieces [0-9.]+ ms apart: ")
        self.assertIn("set TCP_NODELAY on accepted sockets", nagle)
        # listen(5): what the kernel keeps for its socket, against the default scenario's 1,000.
        self.assertRegex(backlog, r"^WARN fairness: stock: listen-backlog: the listen backlog of port "
                                  r"\d+ is 5 \(the kernel's Send-Q of its listening socket\), below the "
                                  r"1,000 connections of the default scenario's largest level")
        self.assertIn("request_queue_size = 4096", backlog)
        # The warnings stand right under their contestant's line; the fixed server has none.
        self.assertEqual(out.splitlines()[1:3], warnings, out)
        self.assertEqual(out.splitlines()[-1], "validated 2 contestants: 2 passed, 0 failed, "
                         "0 skipped; 2 fairness warnings")
        self.assertRegex(err, r"stock-fixed: fairness: GET / [0-9.]+ ms a request \(floor [0-9.]+ ms\); "
                              r"listen backlog 4,096; ")
        self.assert_nothing_left()


class ListTest(CompareTest):
    def test_list_shows_version_build_state_and_runnability(self):
        code, out, err = self.compare("--list", "--no-bundled", "--contestants", FIXTURES)
        self.assertEqual(code, 0, err)
        rows = {line.split()[0]: line for line in out.splitlines()}
        self.assertEqual(len(rows), 11, out)
        # Not bundled: each says where it came from.
        origin = re.escape(f"  (from {FIXTURES})")
        for row in rows.values():
            self.assertRegex(row, origin + "$")
        self.assertRegex(rows["good"], r"^good +Python [0-9.]+ +needs build +runnable" + origin)
        self.assertRegex(rows["wrong-body"], r"^wrong-body +Python [0-9.]+ +none +runnable" + origin)
        self.assertRegex(rows["unavailable"], r"^unavailable +- +none +not runnable: not available: ")
        self.assertRegex(rows["missing-runtime"],
                         r"^missing-runtime +- +none +not runnable: needs "
                         r"ringside-fixture-no-such-runtime \(not on PATH\); install: apt-get ")
        code, _, err = self.compare("--validate", "--no-bundled", "--contestants", FIXTURES,
                                    "good")
        self.assertEqual(code, 0, err)
        code, out, err = self.compare("--list", "--no-bundled", "--contestants", FIXTURES,
                                      "good")
        self.assertEqual(code, 0, err)
        self.assertRegex(out, r"^good +Python [0-9.]+ +built +runnable  \(from .*\)\n$")
        self.assert_nothing_left()


class BadInputTest(CompareTest):
    def assert_one_line_exit_2(self, args, *parts):
        code, out, err = self.compare(*args)
        self.assertEqual(code, 2, out + err)
        self.assertEqual(len(err.splitlines()), 1, err)
        for part in parts:
            self.assertIn(part, err)
        self.assertEqual(out, "")

    def test_bad_manifests_are_one_line_naming_file_and_field(self):
        with open(os.path.join(FIXTURES, "good", "contestant.toml")) as f:
            good = f.read()
        cases = [
            ('threads = 1', 'threads = "many"', "field 'threads'"),
            ('routes = ["/", "/json", "/users/:id"]', 'routes = ["/", "/fortunes"]',
             "field 'routes': unknown route '/fortunes'"),
            ('"--port", "{port}"', '"--port", "{prot}"', "field 'start': unknown placeholder {prot}"),
            ('name = "good"', 'name = "other"', "field 'name'"),
            ('ready_path = "/"', 'ready_path = "/"\nready_pth = "/"', "field 'ready_pth': unknown field"),
        ]
        for index, (old, new, expected) in enumerate(cases):
            self.assertIn(old, good)
            root = os.path.join(self.scratch, f"bad{index}")
            self.make_contestant(root, "good", good.replace(old, new))
            path = os.path.join(root, "good", "contestant.toml")
            for mode in ("--list", "--validate"):
                self.assert_one_line_exit_2([mode, "--no-bundled", "--contestants", root],
                                            path + ":", expected)

    def test_a_manifest_that_passes_no_port_is_refused(self):
        """A server not given {port} would listen where it likes while the harness waits on
        the port it picked, until the ready timeout: refused when read, saying where {port}
        goes (a script rendering a config template takes it as an argument, as nginx's)."""
        root = os.path.join(FIXTURES, "refused")
        path = os.path.join(root, "no-port", "contestant.toml")
        for mode in ("--list", "--validate"):
            self.assert_one_line_exit_2(
                [mode, "--no-bundled", "--contestants", root],
                path + ":12: field 'start': passes no {port} to the server",
                'add it to start ("--port", "{port}") or to [env] (PORT = "{port}")')

    def test_unknown_contestant_is_named(self):
        self.assert_one_line_exit_2(["--validate", "--no-bundled", "--contestants", FIXTURES,
                                     "good", "nginx"],
                                    "unknown contestant 'nginx'", "known: escaping-child",
                                    f"looked in {FIXTURES} (--contestants); to add one")

    def test_flags(self):
        self.assert_one_line_exit_2(["--rounds", "0"], "--rounds")  # the run: test_compare_run
        self.assert_one_line_exit_2(["--validate", "--list"], "--validate and --list")
        self.assert_one_line_exit_2(["--validate", "--threads", "0"], "--threads")
        self.assert_one_line_exit_2(["--list", "--contestants", "/nonexistent/x"],
                                    "contestants folder '/nonexistent/x' does not exist")


class InterruptTest(CompareTest):
    def test_ctrl_c_stops_the_contestant_and_exits_130(self):
        process = subprocess.Popen([BIN, "compare", "--validate", "--no-bundled",
                                    "--contestants", FIXTURES,
                                    "--ready-timeout", "120", "never-ready", "good"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env)
        try:
            # Interrupt once the server runs (its work directory exists) and is being waited on.
            deadline = time.monotonic() + 60
            err = b""
            while b"never-ready: starting" not in err:
                remaining = deadline - time.monotonic()
                self.assertGreater(remaining, 0, f"never started: {err!r}")
                ready, _, _ = select.select([process.stderr], [], [], remaining)
                if ready:
                    chunk = os.read(process.stderr.fileno(), 4096)
                    self.assertTrue(chunk, f"exited early: {err!r}")
                    err += chunk
            deadline = time.monotonic() + 30
            while not fixture_processes(self.scratch):
                self.assertLess(time.monotonic(), deadline, "the fixture never ran")
                time.sleep(0.02)
            process.send_signal(signal.SIGINT)
            out, rest = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        self.assertEqual(process.returncode, 130, (out + err + rest).decode())
        self.assertIn("STOPPED never-ready", out.decode())
        self.assertNotIn("good", out.decode())  # the next one never started
        self.assertIn("(interrupted)", out.decode().splitlines()[-1])
        self.assert_nothing_left()


if __name__ == "__main__":
    unittest.main()
