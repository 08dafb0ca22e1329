"""A user's own contestants beside the bundled ones (issue 21): `--contestants DIR` adds a folder
searched after the bundled set (contestants/ of the source tree), as do ./contestants of the
current folder and $XDG_CONFIG_HOME/ringside/contestants when they exist.

- A folder with one contestant (the `good` fixture, copied with its server under a new name) is
  listed beside the bundled ones, and compared against the bundled ringside and nginx with
  `--contestants DIR --only ringside,nginx,NAME`, copying nothing of theirs.
- A name in two folders, and a name in none, are one line and exit 2 saying which folders.
- The bundled Node-based contestants, copied elsewhere under a new name, still start: their
  manifests reach node_modules and lib/ through {bundled}, not through `..`.

Each test runs in a scratch folder of its own (its current folder, TMPDIR, caches and
XDG_CONFIG_HOME), so a user's folders on this machine are not searched."""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import unittest

from ringside_testlib import BIN

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))
BUNDLED = os.path.join(SOURCE, "contestants")
FIXTURES = os.path.join(SOURCE, "tests", "fixtures", "contestants")
NAME = "my-python-app"
# The bundled contestants run their node, deno and bun from the bundled node_modules (scripts/setup).
NODE_BASED = ["bun", "deno", "express", "fastify", "koa", "node-cluster", "node-http", "restify"]
# --list runs every bundled contestant's version command; a run validates, starts and measures
# three contestants; all under the sanitizers on a loaded 2-core machine.
RUN_TIMEOUT = 240

SCENARIO = """name = "user-contestants"
rounds = 1
warmup = "100ms"
duration = "300ms"
settle = "0s"
server_cpus = "0"
load_cpus = "1"
database = "none"
equal_load = false

[[workload]]
name = "hello"
path = "/"
connections = [4]
"""


def our_processes(scratch):
    """Live processes this test started: the contestants inherit RINGSIDE_TEST_SCRATCH=scratch."""
    found = []
    tag = b"RINGSIDE_TEST_SCRATCH=" + scratch.encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                tagged = tag in f.read().split(b"\0")
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if tagged and state != "Z":
            found.append(int(entry))
    return found


class UserContestantsTest(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix="user-contestants-test-")
        self.tmp = os.path.join(self.scratch, "tmp")
        self.config = os.path.join(self.scratch, "config")
        os.mkdir(self.tmp)
        self.env = dict(os.environ, XDG_CACHE_HOME=os.path.join(self.scratch, "cache"),
                        XDG_CONFIG_HOME=self.config, TMPDIR=self.tmp,
                        RINGSIDE_TEST_SCRATCH=self.scratch)

    def tearDown(self):
        for pid in our_processes(self.scratch):  # after a failed test only: a passing one left none
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        shutil.rmtree(self.scratch, ignore_errors=True)

    def compare(self, *args):
        try:
            result = subprocess.run([BIN, "compare", *args], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                    timeout=RUN_TIMEOUT, env=self.env, cwd=self.scratch)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"ringside compare {' '.join(args)} ran over {RUN_TIMEOUT}s") \
                from None
        return result.returncode, result.stdout.decode(), result.stderr.decode()

    def assert_one_line_exit_2(self, args, *parts):
        code, out, err = self.compare(*args)
        self.assertEqual(code, 2, out + err)
        self.assertEqual(out, "")
        self.assertEqual(len(err.splitlines()), 1, err)
        for part in parts:
            self.assertIn(part, err)
        return err

    def user_folder(self, name, *contestants):
        """A folder of the good fixture under each name, its server beside them as it is beside
        the fixtures: a user's copy, not a reference into the source tree."""
        folder = os.path.join(self.scratch, name)
        os.makedirs(folder, exist_ok=True)
        shutil.copy(os.path.join(FIXTURES, "fixture_server.py"), folder)
        for contestant in contestants:
            self.copy_contestant(os.path.join(FIXTURES, "good"), folder, contestant)
        return folder

    @staticmethod
    def copy_contestant(source, folder, name, replace=()):
        shutil.copytree(source, os.path.join(folder, name))
        manifest = os.path.join(folder, name, "contestant.toml")
        with open(manifest) as f:
            text = f.read()
        text = re.sub(r'(?m)^name = ".*"$', f'name = "{name}"', text)
        for pattern, value in replace:
            text = re.sub(pattern, value, text)
        with open(manifest, "w") as f:
            f.write(text)

    def list_rows(self, *args):
        code, out, err = self.compare("--list", *args)
        self.assertEqual(code, 0, out + err)
        return {line.split()[0]: line for line in out.splitlines()}


class BesideTheBundledTest(UserContestantsTest):
    def test_listed_beside_the_bundled_ones_saying_where_from(self):
        mine = self.user_folder("mine", NAME)
        rows = self.list_rows("--contestants", mine)
        bundled = {entry for entry in os.listdir(BUNDLED)
                   if os.path.isfile(os.path.join(BUNDLED, entry, "contestant.toml"))}
        self.assertEqual(set(rows), bundled | {NAME})
        self.assertRegex(rows[NAME], rf"^{NAME} +Python [0-9.]+ +needs build +runnable  "
                                     rf"\(from {re.escape(mine)}\)$")
        for name in bundled:
            self.assertNotIn("(from ", rows[name])  # the bundled ones need no origin
        # --no-bundled: only the user's.
        self.assertEqual(set(self.list_rows("--no-bundled", "--contestants", mine)), {NAME})

    def test_compared_against_the_bundled_ringside_and_nginx(self):
        """The issue's Done-when: one contestant of a user's folder, compared against the bundled
        ringside and nginx, with nothing of theirs copied."""
        mine = self.user_folder("mine", NAME)
        scenario = os.path.join(self.scratch, "scenario.toml")
        with open(scenario, "w") as f:
            f.write(SCENARIO)
        nginx = shutil.which("nginx") is not None
        names = ["ringside", NAME] + (["nginx"] if nginx else [])
        out_dir = os.path.join(self.scratch, "out")
        code, out, err = self.compare(scenario, "--quick", "--contestants", mine,
                                      "--only", ",".join(names), "--out", out_dir)
        self.assertEqual(code, 0, out + err)
        with open(os.path.join(out_dir, "results.json")) as f:
            document = json.load(f)
        self.assertEqual(sorted(c["name"] for c in document["contestants"]), sorted(names))
        for contestant in document["contestants"]:
            self.assertEqual(contestant["status"], "ran", contestant)
        for name in names:
            points = [p for p in document["points"] if p["contestant"] == name]
            self.assertEqual(len(points), 1, name)
            self.assertEqual(points[0]["failure"], "", name)
            self.assertGreater(points[0]["median"]["completed"], 0, name)
        self.assertEqual(our_processes(self.scratch), [], "contestants left running")
        self.assertEqual(os.listdir(self.tmp), [], "work directories left behind")
        if not nginx:
            self.skipTest("nginx is not installed (scripts/setup installs it): compared the "
                          f"bundled ringside and {NAME} only")

    def test_the_current_folder_and_the_user_folder_are_searched_too(self):
        mine = self.user_folder("mine", NAME)
        self.user_folder("contestants", "here-app")  # ./contestants of the current folder
        user = self.user_folder(os.path.join("config", "ringside", "contestants"), "config-app")
        rows = self.list_rows("--no-bundled", "--contestants", mine)
        self.assertEqual(set(rows), {NAME, "here-app", "config-app"})
        self.assertTrue(rows["here-app"].endswith(
            f"(from {os.path.join(self.scratch, 'contestants')})"), rows)
        self.assertTrue(rows["config-app"].endswith(f"(from {user})"), rows)


class WhichFolderTest(UserContestantsTest):
    def test_a_name_in_two_folders_names_both(self):
        first = self.user_folder("first", "twin")
        second = self.user_folder("second", "twin")
        self.assert_one_line_exit_2(
            ["--list", "--contestants", first, "--contestants", second],
            f"contestant 'twin' is in two folders: {first}/twin and {second}/twin; rename one")
        # A bundled name: leaving the bundled set out is the other way.
        clash = self.user_folder("clash", "nginx")
        self.assert_one_line_exit_2(
            ["--validate", "--contestants", clash, "nginx"],
            f"contestant 'nginx' is in two folders: {BUNDLED}/nginx (bundled) and {clash}/nginx",
            "--no-bundled")
        self.assertEqual(set(self.list_rows("--no-bundled", "--contestants", clash)), {"nginx"})

    def test_an_unknown_name_says_where_it_looked_and_how_to_add_one(self):
        mine = self.user_folder("mine", NAME)
        self.user_folder("contestants", "here-app")
        hint = (f"; looked in {BUNDLED} (bundled), {mine} (--contestants), "
                f"{os.path.join(self.scratch, 'contestants')} (current folder); to add one, write "
                "NAME/contestant.toml in ./contestants or in a folder given with --contestants DIR, "
                "or begin one with `ringside contestants new NAME` (docs/contestants.md)")
        err = self.assert_one_line_exit_2(["--validate", "--contestants", mine, "my-pyhton-app"],
                                          "unknown contestant 'my-pyhton-app' (known: ", hint)
        self.assertIn(f"{NAME}, nginx", err)  # the user's and the bundled names alike
        # A run's --only says the same.
        scenario = os.path.join(self.scratch, "scenario.toml")
        with open(scenario, "w") as f:
            f.write(SCENARIO)
        self.assert_one_line_exit_2([scenario, "--contestants", mine, "--only", "my-pyhton-app"],
                                    "--only: unknown contestant 'my-pyhton-app' (known: ", hint)

    def test_a_given_folder_must_be_a_folder_of_contestants(self):
        mine = self.user_folder("mine", NAME)
        missing = os.path.join(self.scratch, "nope")
        self.assert_one_line_exit_2(["--list", "--contestants", missing],
                                    f"contestants folder '{missing}' does not exist")
        self.assert_one_line_exit_2(["--list", "--contestants", os.path.join(mine, NAME)],
                                    "one contestant's folder", f"pass the folder that holds it: {mine}")


class CopiedBundledContestantTest(UserContestantsTest):
    def test_node_based_contestants_start_from_a_copy(self):
        """express (and the other Node-based ones, deno's and bun's module resolution included)
        copied to a user's folder under a new name: their packages, lib/ and runtimes come from
        the bundled folder through {bundled}. Checked on / and /json only (db_pool 0), so no
        PostgreSQL is needed."""
        if not os.path.isfile(os.path.join(BUNDLED, "node_modules", "express", "package.json")):
            self.skipTest("the bundled contestants' node_modules are not installed (scripts/setup)")
        mine = os.path.join(self.scratch, "mine")
        os.mkdir(mine)
        database_free = ((r'(?m)^routes = .*$', 'routes = ["/", "/json"]'),
                         (r'(?m)^db_pool = .*$', 'db_pool = 0'))
        for name in NODE_BASED:
            self.copy_contestant(os.path.join(BUNDLED, name), mine, "my-" + name, database_free)
        code, out, err = self.compare("--validate", "--contestants", mine,
                                      *["my-" + name for name in NODE_BASED])
        self.assertEqual(code, 0, out + err)
        self.assertNotIn("PostgreSQL", err)  # none started
        for name in NODE_BASED:
            with self.subTest(contestant=name):
                self.assertRegex(out, rf"(?m)^PASS my-{name} \(.+\): GET /, GET /json, ")
        # The version command reads the bundled node_modules too.
        self.assertRegex(out, r"(?m)^PASS my-express \(node v[0-9.]+, express [0-9.]+, pg [0-9.]+\)")
        self.assertEqual(our_processes(self.scratch), [], "contestants left running")


if __name__ == "__main__":
    unittest.main()
