"""The CPU shield of `ringside compare` (docs/compare.md, "The CPU shield"), scoped to a helper
process of the test's own with RINGSIDE_SHIELD_SCOPE=PID (a variable for tests), so that no other
task on the machine is ever moved, and with its state file in the test's scratch folder
(RINGSIDE_SHIELD_STATE_DIR), away from a real run's.

The helper is python3 with two threads, allowed on every CPU. The contestant's start waits on a
FIFO the test opens: the run is held inside, after the shield's first pass, for as long as the
test looks. Checked: during the run the helper's threads are off CPU 0 and the state file lists
them; after it (and after Ctrl-C) they are back on every CPU and the state file is gone; a run
killed with SIGKILL leaves the state file and the helper moved, and `ringside compare
--restore-cpus` puts it back; `--no-shield` moves nothing."""
import json
import os
import signal
import subprocess
import tempfile
import shutil
import unittest

from ringside_testlib import BIN, wait_until

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))
SERVER = os.path.join(SOURCE, "tests", "fixtures", "contestants", "fixture_server.py")
RUN_TIMEOUT = 240
STEP_TIMEOUT = 120  # to reach a point of the run: validation, starts, on a loaded 2-core machine

# Its start waits for the test: `read` opens the FIFO, which blocks until the test opens it to
# write; once the file "go" exists, later starts pass straight through.
MANIFEST = """name = "gated"
description = "fixture: good, started when the test says"
language = "Python"
runtime = "python3"
requires = ["python3", "sh"]
install = "scripts/setup"
version = ["python3", "--version"]
start = {start}
ready_path = "/"
routes = ["/", "/json", "/users/:id"]
threads = 1
db_pool = 0
stop_signal = "SIGTERM"
build = []
build_inputs = []
[env]
PYTHONDONTWRITEBYTECODE = "1"
RINGSIDE_TEST_SCRATCH = "{scratch}"
"""

# Two threads (the main one and one more), every CPU allowed; says "ready" once both exist.
HELPER = ("import os, sys, threading\n"
          "os.sched_setaffinity(0, range(os.cpu_count()))\n"
          "threading.Thread(target=sys.stdin.read, daemon=True).start()\n"
          "print('ready', flush=True)\n"
          "sys.stdin.buffer.read()\n")


def allowed_cpus(pid):
    """Each thread's Cpus_allowed_list, by tid."""
    found = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/status") as f:
            for line in f:
                if line.startswith("Cpus_allowed_list:"):
                    found[int(tid)] = line.split(":", 1)[1].strip()
    return found


def tagged_processes(scratch):
    """Live processes carrying RINGSIDE_TEST_SCRATCH=scratch (the contestant and its children)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                environ = f.read().split(b"\0")
        except OSError:
            continue
        if b"RINGSIDE_TEST_SCRATCH=" + scratch.encode() in environ:
            found.append(int(entry))
    return found


class ShieldTest(unittest.TestCase):
    def setUp(self):
        if os.cpu_count() < 2 or not {0, 1} <= os.sched_getaffinity(0):
            self.skipTest("the shield needs CPUs 0 and 1 (server_cpus 0, load_cpus 1)")
        self.scratch = tempfile.mkdtemp(prefix="compare-shield-test-")
        self.addCleanup(shutil.rmtree, self.scratch, True)
        self.state_dir = os.path.join(self.scratch, "shield")
        self.state_file = os.path.join(self.state_dir, "cpu-shield.json")
        self.out = os.path.join(self.scratch, "out")
        self.fifo = os.path.join(self.scratch, "gate")
        self.go = os.path.join(self.scratch, "go")
        os.mkfifo(self.fifo)
        contestants = os.path.join(self.scratch, "contestants")
        os.makedirs(os.path.join(contestants, "gated"))
        script = (f"[ -e '{self.go}' ] || read line < '{self.fifo}'; "
                  f"exec python3 '{SERVER}' --port \"$1\" --mode good")
        start = json.dumps(["sh", "-c", script, "gated", "{port}"])
        with open(os.path.join(contestants, "gated", "contestant.toml"), "w") as f:
            f.write(MANIFEST.format(start=start, scratch=self.scratch))
        self.scenario = os.path.join(self.scratch, "scenario.toml")
        with open(self.scenario, "w") as f:
            f.write('server_cpus = "0"\nload_cpus = "1"\ndatabase = "none"\nequal_load = false\n'
                    '[[workload]]\nname = "hello"\nconnections = [4]\n')
        self.command = [BIN, "compare", self.scenario, "--no-bundled", "--contestants",
                        contestants, "--out", self.out, "--quick", "--ready-timeout", "60"]
        self.helper = subprocess.Popen(["python3", "-c", HELPER], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE)
        self.addCleanup(self.stop_helper)
        self.assertEqual(self.helper.stdout.readline(), b"ready\n")
        self.all_cpus = allowed_cpus(self.helper.pid)
        self.assertEqual(len(self.all_cpus), 2, "the helper has two threads")
        try:
            os.sched_setaffinity(self.helper.pid, {1})
            os.sched_setaffinity(self.helper.pid, range(os.cpu_count()))
        except PermissionError:
            self.skipTest("no permission to set the helper's CPUs")
        self.all_cpus = allowed_cpus(self.helper.pid)
        self.assertTrue(all(cpus.startswith("0") for cpus in self.all_cpus.values()),
                        f"the helper is allowed on CPU 0: {self.all_cpus}")
        self.env = dict(os.environ, RINGSIDE_SHIELD_SCOPE=str(self.helper.pid),
                        RINGSIDE_SHIELD_STATE_DIR=self.state_dir,
                        XDG_CACHE_HOME=os.path.join(self.scratch, "cache"))
        self.stderr_path = os.path.join(self.scratch, "stderr")

    def stop_helper(self):
        # Whatever happened, the helper and the contestant go (and with them what was moved).
        for pid in tagged_processes(self.scratch):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        self.helper.kill()
        self.helper.wait()
        self.helper.stdin.close()
        self.helper.stdout.close()

    def start_run(self, *flags):
        self.stderr = open(self.stderr_path, "wb")
        self.addCleanup(self.stderr.close)
        process = subprocess.Popen([*self.command, *flags], stdout=subprocess.DEVNULL,
                                   stderr=self.stderr, env=self.env)
        self.addCleanup(lambda: process.poll() is None and (process.kill(), process.wait()))
        return process

    def stderr_text(self):
        with open(self.stderr_path, errors="replace") as f:
            return f.read()

    def state(self):
        try:
            with open(self.state_file) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def wait_shielded(self, process):
        def shielded():
            state = self.state()
            return (state is not None and state["phase"] == "shielded"
                    and {t["pid"] for t in state["tasks"]} == {self.helper.pid})
        reached = wait_until(lambda: shielded() or process.poll() is not None, STEP_TIMEOUT)
        self.assertTrue(reached and process.poll() is None,
                        f"the run never had the helper shielded: {self.state()}\n{self.stderr_text()}")
        return self.state()

    def wait_gate(self, process):
        """The contestant's start is waiting on the FIFO: the run is held there."""
        self.assertTrue(wait_until(lambda: bool(tagged_processes(self.scratch)) or
                                   process.poll() is not None, STEP_TIMEOUT),
                        f"the contestant never started:\n{self.stderr_text()}")
        self.assertIsNone(process.poll(), self.stderr_text())

    def open_gate(self):
        def writer():
            try:
                return os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                return None
        # The start is blocked in `read` once a writer can open the FIFO: only then is "go"
        # created (for later starts), so this start cannot slip past the check and leave the
        # FIFO unread.
        fd = wait_until(writer, STEP_TIMEOUT)
        self.assertIsNotNone(fd, "the contestant's start never opened the gate")
        open(self.go, "w").close()
        os.write(fd, b"go\n")
        os.close(fd)

    def assert_moved(self):
        now = allowed_cpus(self.helper.pid)
        self.assertEqual(set(now), set(self.all_cpus))
        for tid, cpus in now.items():
            self.assertEqual(cpus, "1", f"thread {tid} still allowed on CPU 0: {now}")

    def assert_back(self):
        self.assertEqual(allowed_cpus(self.helper.pid), self.all_cpus, "not put back exactly")

    def test_the_helper_is_off_cpu_0_during_the_run_and_back_after(self):
        process = self.start_run()
        state = self.wait_shielded(process)
        self.wait_gate(process)
        self.assert_moved()
        self.assertEqual(state["server_cpus"], "0")
        self.assertEqual({t["tid"] for t in state["tasks"]}, set(self.all_cpus))
        for task in state["tasks"]:
            self.assertEqual(task["cpus"], self.all_cpus[task["tid"]])
            with open(f"/proc/{task['pid']}/task/{task['tid']}/stat") as f:
                self.assertEqual(task["start_time"], int(f.read().rsplit(")", 1)[1].split()[19]))
        self.open_gate()
        self.assertEqual(process.wait(timeout=RUN_TIMEOUT), 0, self.stderr_text())
        self.assert_back()
        self.assertFalse(os.path.exists(self.state_file), "the state file is removed after")
        with open(os.path.join(self.out, "results.json")) as f:
            shield = json.load(f)["shield"]
        self.assertEqual(shield["requested"], True)
        self.assertEqual(shield["active"], True)
        self.assertEqual(shield["moved"], 2)
        self.assertIn("CPU shield: moved 2 tasks off CPU 0 for the run", self.stderr_text())
        self.assertIn("CPU shield: put 2 tasks back on their CPUs", self.stderr_text())

    def test_ctrl_c_puts_the_helper_back(self):
        process = self.start_run()
        self.wait_shielded(process)
        self.wait_gate(process)
        self.assert_moved()
        process.send_signal(signal.SIGINT)
        self.assertEqual(process.wait(timeout=RUN_TIMEOUT), 130, self.stderr_text())
        self.assert_back()
        self.assertFalse(os.path.exists(self.state_file))

    def test_a_killed_run_leaves_its_state_and_restore_cpus_puts_it_back(self):
        process = self.start_run()
        self.wait_shielded(process)
        self.wait_gate(process)
        process.kill()
        process.wait()
        self.assertTrue(os.path.exists(self.state_file), "SIGKILL leaves the state file")
        self.assert_moved()
        restore = subprocess.run([BIN, "compare", "--restore-cpus"], env=self.env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(restore.returncode, 0, restore.stderr.decode())
        self.assertIn(b"put 2 tasks back on their CPUs", restore.stdout)
        self.assert_back()
        self.assertFalse(os.path.exists(self.state_file))
        again = subprocess.run([BIN, "compare", "--restore-cpus"], env=self.env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(again.returncode, 0, again.stderr.decode())
        self.assertIn(b"nothing to put back", again.stdout)

    def test_a_recycled_tid_is_left_alone_on_restore(self):
        """A state file whose start time does not match the live task: that task is not
        touched (its tid was reused), and the file is cleared."""
        os.makedirs(self.state_dir)
        tid = min(self.all_cpus)
        os.sched_setaffinity(tid, {1})
        with open(self.state_file, "w") as f:
            json.dump({"owner": 1, "server_cpus": "0", "phase": "shielded",
                       "tasks": [{"tid": tid, "pid": self.helper.pid, "start_time": 1,
                                  "cpus": "0-1", "name": "python3"}]}, f)
        restore = subprocess.run([BIN, "compare", "--restore-cpus"], env=self.env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(restore.returncode, 0, restore.stderr.decode())
        self.assertEqual(allowed_cpus(self.helper.pid)[tid], "1", "a recycled tid is never touched")
        self.assertFalse(os.path.exists(self.state_file))

    def test_no_shield_moves_nothing(self):
        process = self.start_run("--no-shield")
        self.wait_gate(process)
        self.assert_back()
        self.assertFalse(os.path.exists(self.state_file))
        self.open_gate()
        self.assertEqual(process.wait(timeout=RUN_TIMEOUT), 0, self.stderr_text())
        self.assert_back()
        with open(os.path.join(self.out, "results.json")) as f:
            shield = json.load(f)["shield"]
        self.assertEqual((shield["requested"], shield["active"], shield["moved"]), (False, False, 0))
        self.assertIn("CPU shield: off (--no-shield)", self.stderr_text())


if __name__ == "__main__":
    unittest.main()
