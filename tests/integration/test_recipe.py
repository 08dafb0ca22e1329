"""docs/contestants.md's "Your own server in five minutes", followed literally: the `ringside`
lines of the block after its `<!-- recipe: ... -->` marker are run in order, in an empty folder,
as a user would type them (`ringside` being this build's binary). Each must exit 0; the last is a
comparison whose results.json measured both the user's contestant and ringside. Nothing is left
running: the harness stops what it starts, and the test checks the folder's server is gone."""
import glob
import json
import os
import shlex
import shutil
import subprocess
import tempfile
import unittest

from ringside_testlib import BIN

DOCS = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "contestants.md"))
MARKER = "<!-- recipe:"
# The comparison starts a throwaway PostgreSQL for ringside's /users route, under the sanitizers
# on a shared 2-core machine.
STEP_TIMEOUT = 400


def recipe_commands(text):
    """The argv of each `ringside` line of the first fenced block after the marker."""
    after = text[text.index(MARKER):]
    block = after[after.index("```"):]
    block = block[block.index("\n") + 1:block.index("\n```")]
    commands = []
    for line in block.splitlines():
        line = line.split(" #", 1)[0].strip()
        if line.startswith("ringside "):
            commands.append(shlex.split(line))
    return commands


class Recipe(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="ringside-recipe-")
        self.addCleanup(shutil.rmtree, self.folder, True)

    def test_the_docs_recipe_ends_in_a_comparison(self):
        with open(DOCS) as f:
            commands = recipe_commands(f.read())
        self.assertGreaterEqual(len(commands), 3, commands)
        self.assertEqual(commands[0][1:3], ["contestants", "new"], commands[0])
        for argv in commands:
            with self.subTest(command=" ".join(argv)):
                done = subprocess.run([BIN, *argv[1:]], cwd=self.folder, capture_output=True,
                                      text=True, timeout=STEP_TIMEOUT)
                self.assertEqual(done.returncode, 0,
                                 f"{' '.join(argv)}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
                if "--validate" in argv:
                    # The scaffold's server is fair as written: no fairness warning.
                    self.assertIn("PASS", done.stdout)
                    self.assertNotIn("WARN fairness", done.stdout)
        name = commands[0][3]
        self.assertTrue(os.path.isfile(os.path.join(self.folder, "contestants", name, "contestant.toml")))
        runs = glob.glob(os.path.join(self.folder, "results", "*", "results.json"))
        self.assertEqual(len(runs), 1, runs)
        with open(runs[0]) as f:
            results = json.load(f)
        ran = {c["name"]: c["status"] for c in results["contestants"]}
        self.assertEqual(ran.get(name), "ran", ran)
        self.assertEqual(ran.get("ringside"), "ran", ran)
        measured = [p for p in results["points"] if p["contestant"] == name and p["rounds"]]
        self.assertTrue(measured, "no point of the user's contestant was measured")
        self.assertTrue(all(p["median"]["completed"] > 0 for p in measured), measured)


class NewContestantTest(unittest.TestCase):
    """`ringside contestants new` and `compare --new`: a bad kind or a folder already there is one
    line naming the flag, exit 2, and nothing written."""

    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="ringside-new-")
        self.addCleanup(shutil.rmtree, self.folder, True)

    def run_here(self, *argv):
        return subprocess.run([BIN, *argv], cwd=self.folder, capture_output=True, text=True,
                              timeout=60)

    def test_from_node_http_then_the_same_name_again(self):
        made = self.run_here("contestants", "new", "mine", "--from", "node-http")
        self.assertEqual(made.returncode, 0, made.stderr)
        self.assertEqual(sorted(os.listdir(os.path.join(self.folder, "contestants", "mine"))),
                         ["contestant.toml", "server.js"])
        again = self.run_here("contestants", "new", "mine")
        self.assertEqual(again.returncode, 2)
        self.assertEqual(len(again.stderr.strip().splitlines()), 1, again.stderr)
        self.assertTrue(again.stderr.startswith("ringside contestants new: "), again.stderr)

    def test_an_unknown_kind_names_the_flag_it_came_with(self):
        for argv, flag in ((("contestants", "new", "x", "--from", "cobol"), "--from"),
                           (("compare", "--new", "x", "--like", "cobol"), "--like")):
            with self.subTest(flag=flag):
                done = self.run_here(*argv)
                self.assertEqual(done.returncode, 2)
                self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
                self.assertIn(f"{flag} 'cobol' is not a kind of server it can write (known: python, "
                              "node-http)", done.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.folder, "contestants")))


if __name__ == "__main__":
    unittest.main()
