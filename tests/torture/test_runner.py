"""The torture runner's own contract: one figures line per attack, a failed expectation, an
exception or an overrun bound fails that attack and not the others, a process an attack leaves
running fails it and is killed, and a bad flag exits 2 with one line."""
import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import types
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torture import framework, main  # noqa: E402


def attack(number, name, run, bounds=(10, 10)):
    return types.SimpleNamespace(NUMBER=number, NAME=name, TITLE=f"{name} (fixture)",
                                 BUDGET_S=bounds, run=run)


def passes(ctx, result):
    result.figure("answers", 42)
    result.figure("ratio", 0.93)
    result.expect(True, "never recorded")


def fails_expectation(ctx, result):
    result.figure("answers", 7)
    result.expect(7 == 8, "wanted 8 answers, got 7")


def raises(ctx, result):
    result.figure("before", 1)
    raise KeyError("no such field")


def overruns(ctx, result):
    child = ctx.spawn(["sleep", "60"], name="sleeper")
    child.wait(60)  # the runner's bound (1 s) ends this, not the sleep


def escapes(ctx, result):
    # A grandchild in a session of its own escapes the child's process group, like a daemon.
    child = ctx.spawn(["setsid", "-f", "sleep", "60"], name="daemon")
    child.wait(10)
    framework.wait_until(lambda: framework.tagged_processes(ctx.tag), 10)


def interrupted(signum):
    """An attack that starts a child, measures a little, and then gets `signum` (as from Ctrl-C at
    the terminal, or a kill) while it waits for the child."""
    def run(ctx, result):
        child = ctx.spawn(["sleep", "60"], name="sleeper")
        result.figure("measured", 5)
        result.figure("sleeper", child.pid)
        os.kill(os.getpid(), signum)
        child.wait(60)
        result.figure("after", "never")
    return run


def run_suite(argv, modules):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main.main(argv, modules=modules)
        except SystemExit as exit_:
            code = exit_.code
    return code, out.getvalue(), err.getvalue()


BIN = ["--bin", "/bin/true"]


class RunnerTest(unittest.TestCase):
    def test_a_passing_attack_prints_its_figures_and_exits_0(self):
        code, out, _ = run_suite(BIN, [attack(1, "good", passes)])
        self.assertEqual(code, 0, out)
        line = out.splitlines()[0]
        self.assertRegex(line, r"^ 1 good +PASS  answers=42 ratio=0\.93  \(")
        self.assertIn("1 passed, 0 failed", out)

    def test_each_failure_fails_its_attack_and_the_rest_still_run(self):
        modules = [attack(1, "short-of-answers", fails_expectation), attack(2, "raises", raises),
                   attack(3, "overruns", overruns, bounds=(1, 1)), attack(4, "good", passes)]
        code, out, _ = run_suite(BIN + ["--short"], modules)
        self.assertEqual(code, 1, out)
        self.assertRegex(out, r"short-of-answers +FAIL  answers=7")
        self.assertIn("FAIL: wanted 8 answers, got 7", out)
        self.assertRegex(out, r"raises +FAIL  before=1")
        self.assertIn("FAIL: KeyError: 'no such field' (test_runner.py:", out)
        self.assertIn("FAIL: did not finish within its bound of 1 s", out)
        self.assertRegex(out, r"good +PASS")
        self.assertIn("1 passed, 3 failed", out)

    def test_a_process_left_running_fails_the_attack_and_is_killed(self):
        code, out, _ = run_suite(BIN, [attack(1, "escapes", escapes)])
        self.assertEqual(code, 1, out)
        self.assertIn("FAIL: left running after the attack:", out)
        self.assertIn("sleep 60", out)
        left = subprocess.run(["pgrep", "-f", "^sleep 60$"], stdout=subprocess.PIPE).stdout
        tagged = [pid for pid in left.split() if
                  framework.TAG_VARIABLE.encode() in open(f"/proc/{int(pid)}/environ", "rb").read()]
        self.assertEqual(tagged, [], "the runner left the escaped process running")

    def test_ctrl_c_or_sigterm_stops_the_children_keeps_the_figures_and_exits_130(self):
        for signum, name in ((signal.SIGINT, "SIGINT"), (signal.SIGTERM, "SIGTERM")):
            with tempfile.TemporaryDirectory() as directory:
                report = os.path.join(directory, "torture.json")
                modules = [attack(1, "good", passes), attack(2, "stopped", interrupted(signum)),
                           attack(3, "never-run", passes)]
                code, out, _ = run_suite(BIN + ["--json", report], modules)
                self.assertEqual(code, 130, out)
                self.assertRegex(out, r"stopped +FAIL  measured=5 sleeper=\d+  \(")
                self.assertIn(f"FAIL: interrupted by {name}", out)
                self.assertNotIn("never-run", out)
                self.assertIn(f"1 passed, 1 failed, ", out)
                self.assertIn(f"interrupted by {name}, 1 attacks not run", out)
                with open(report) as f:
                    doc = json.load(f)
                self.assertEqual(doc["interrupted"], name)
                self.assertEqual([a["name"] for a in doc["attacks"]], ["good", "stopped"])
                sleeper = doc["attacks"][1]["figures"]["sleeper"]
                self.assertFalse(os.path.exists(f"/proc/{sleeper}") and
                                 open(f"/proc/{sleeper}/stat").read().split()[2] != "Z",
                                 f"{name}: the attack's child {sleeper} is still running")
            # The runner gave the signal back: the test process's own handlers are as before.
            self.assertIs(signal.getsignal(signal.SIGINT), signal.default_int_handler)

    def test_only_and_skip_choose_attacks(self):
        modules = [attack(1, "good", passes), attack(2, "short-of-answers", fails_expectation)]
        code, out, _ = run_suite(BIN + ["--only", "good"], modules)
        self.assertEqual(code, 0, out)
        self.assertNotIn("short-of-answers", out)
        code, out, _ = run_suite(BIN + ["--skip", "short-of-answers"], modules)
        self.assertEqual(code, 0, out)

    def test_a_bad_flag_gets_one_line_and_exit_2(self):
        for argv, names in ((BIN + ["--only", "nosuch"], "nosuch"), (["--frobnicate"], "frobnicate"),
                            (["--bin", "/nonexistent/ringside"], "/nonexistent/ringside")):
            code, out, err = run_suite(argv, [attack(1, "good", passes)])
            self.assertEqual(code, 2, argv)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            self.assertIn(names, err)

    def test_every_attack_module_declares_what_the_runner_needs(self):
        modules = main.discover()
        self.assertGreaterEqual(len(modules), 1)
        self.assertEqual(len({m.NAME for m in modules}), len(modules), "attack names must differ")
        for module in modules:
            short, full = module.BUDGET_S
            self.assertLessEqual(short, full, module.NAME)


if __name__ == "__main__":
    unittest.main()
