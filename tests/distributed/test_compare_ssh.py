"""`ringside compare` with load hosts (a scenario's [load] engine = "ssh"), on one host: a network
of namespaces (netlab.Lab) where srv runs `ringside compare` and its contestant `ringside`
listening on srv's address, and gen1 and gen2 each run an sshd (sshlab) that the harness reaches
with the scenario's ssh_options (-F a config in a temp dir, never ~/.ssh).

Checks, on one open-model point (2,000 req/s for 2 s): exit 0; the point has two generators,
each of which completed its half by its own accounting; the merged count is their sum, and so is
the count of the point's histogram log, whose intervals carry both hosts' tags; both hosts'
clock offsets are recorded (one kernel clock here: near zero); every report names both hosts.
And a host that cannot be reached: one error naming it, a non-zero exit, nothing left running.
Correctness only: this machine cannot show more throughput from more hosts.
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

import hdr_reader as hdr  # tests/integration (PYTHONPATH)
import netlab
from sshlab import Keys, LabTestCase, check_tools, log, start_sshds

BIN = os.environ.get("RINGSIDE_BIN", "")
GENERATORS = ["gen1", "gen2"]
RATE = 2000           # req/s over both hosts
DURATION_S = 2
COUNT_TOLERANCE = 0.02
# One machine, one clock: what is left is the measurement's own error (half a round trip).
MAX_OFFSET_S = 0.05
COMPARE_TIMEOUT = 150.0
READY_TIMEOUT = 20.0
UNREACHABLE_HOST = 99  # in the lab's /24, given to no namespace


class CompareOverSsh(LabTestCase):
    @classmethod
    def setUpClass(cls):
        if not BIN:
            raise RuntimeError("set RINGSIDE_BIN to the ringside binary (ctest does)")
        cls.lab = netlab.Lab(["srv", *GENERATORS])
        try:
            cls.lab.__enter__()
        except netlab.NamespacesUnavailable as why:
            message = f"SKIPPED: network namespaces cannot be created here ({why}); the " \
                      f"distributed tests need root and `ip netns`"
            log(message)
            raise unittest.SkipTest(message)
        cls.tmp = tempfile.mkdtemp(prefix="ringside-compare-ssh-")
        try:
            check_tools("ssh", "scp", "ssh-keygen")
            # No shared connection: a master would outlive the run, and the test checks that the
            # harness leaves nothing running.
            cls.keys = Keys(cls.lab, cls.tmp, GENERATORS, control_master=False)
            cls.sshds = start_sshds(cls.lab, cls.keys, GENERATORS, cls.tmp, READY_TIMEOUT)
        except BaseException:
            cls._stop()
            raise

    # ---- helpers

    def write_scenario(self, name, hosts, duration_s=DURATION_S):
        lab = self.lab
        path = os.path.join(self.tmp, f"{name}.toml")
        host_list = ", ".join(f'"root@{h}"' for h in hosts)
        with open(path, "w") as f:
            f.write(f"""name = "{name}"
contestants = ["ringside"]
rounds = 1
warmup = "300ms"
duration = "{duration_s}s"
settle = "0s"
database = "none"
equal_load = false

[load]
engine = "ssh"
hosts = [{host_list}]
ssh_options = ["-F", "{self.keys.ssh_config}"]
server_address = "{lab.address('srv')}"
remote_binary = "{self.tmp}/remote/ringside"
start_lead = "1s"

[[workload]]
name = "hello"
path = "/"
mode = "open"
rate = {RATE}
connections = [4]
""")
        return path

    def compare(self, name, hosts):
        out = os.path.join(self.tmp, f"{name}-out")
        os.makedirs(os.path.join(self.tmp, "remote"), exist_ok=True)
        started = time.monotonic()
        result = self.lab.run("srv", [BIN, "compare", self.write_scenario(name, hosts), "--out", out],
                              timeout=COMPARE_TIMEOUT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=self.tmp)
        log(f"compare '{name}': exit {result.returncode} in {time.monotonic() - started:.1f} s")
        return result, out

    def remote_loads(self):
        """PIDs of `ringside load` processes in the generators' namespaces."""
        found = []
        for gen in GENERATORS:
            for pid in self.lab.pids(self.lab.ns[gen]):
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        argv = f.read().split(b"\0")
                except (FileNotFoundError, ProcessLookupError):  # it exited meanwhile
                    continue
                if len(argv) > 1 and argv[1] == b"load":
                    found.append(pid)
        return found

    def assert_nothing_left(self):
        """Nothing of the run: no process in srv, and only its sshd in each generator's."""
        deadline = time.monotonic() + 10
        while True:
            left = [f"srv: {pid}" for pid in self.lab.pids(self.lab.ns["srv"])
                    if netlab.pid_alive(pid)]
            for gen in GENERATORS:
                left += [f"{gen}: {pid}" for pid in self.lab.pids(self.lab.ns[gen])
                         if pid != self.sshds[gen].pid and netlab.pid_alive(pid)]
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        commands = []
        for entry in left:
            pid = entry.split(": ")[1]
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    commands.append(entry + " " + f.read().replace(b"\0", b" ").decode(errors="replace"))
            except (FileNotFoundError, ProcessLookupError):
                pass
        self.assertEqual(commands, [], "processes left after ringside compare")

    # ---- the tests

    def test_two_load_hosts_add_up(self):
        lab = self.lab
        result, out = self.compare("good", [lab.address(g) for g in GENERATORS])
        self.assertEqual(result.returncode, 0, result.stderr[-4000:])
        with open(os.path.join(out, "results.json")) as f:
            results = json.load(f)
        self.assertEqual(results["load"]["engine"], "ssh")
        self.assertEqual(results["load"]["server_address"], lab.address("srv"))
        names = [lab.address(g) for g in GENERATORS]
        hosts = {h["name"]: h for h in results["load"]["hosts"]}
        self.assertEqual(sorted(hosts), sorted(names))
        for name, host in hosts.items():
            self.assertIsNotNone(host["clock_offset_s"], name)
            self.assertLess(abs(host["clock_offset_s"]), MAX_OFFSET_S, name)
            self.assertGreater(host["round_trip_s"], 0, name)
        self.assertEqual(len(results["points"]), 1)
        point = results["points"][0]
        self.assertEqual(point["failure"], "", point["failure"])
        (round_,) = point["rounds"]
        generators = round_["generators"]
        self.assertEqual(sorted(g["name"] for g in generators), sorted(names))
        expected_each = RATE / len(GENERATORS) * DURATION_S
        for g in generators:
            self.assertAlmostEqual(g["completed"], expected_each, delta=expected_each * COUNT_TOLERANCE,
                                   msg=f"{g['name']} completed {g['completed']}, not {expected_each:.0f}")
            self.assertEqual(g["failed"], 0, g["name"])
            self.assertIsNotNone(g["cpu_s"], g["name"])
            self.assertGreater(g["threads"], 0, g["name"])
            self.assertIsNotNone(g["start_late_s"], g["name"])
        completed_sum = sum(g["completed"] for g in generators)
        self.assertEqual(round_["completed"], completed_sum)
        self.assertEqual(round_["statuses"].get("200"), completed_sum)
        # The point's log: every generator's intervals, tagged; their union is the merge.
        log_path = os.path.join(out, round_["histogram_log"])
        total, tags = hdr.log_total(log_path)
        self.assertEqual(total.total(), completed_sum)
        self.assertEqual(tags, set(names))
        # Every report shows both hosts with their clocks.
        for report in ("report.md", "report.html"):
            with open(os.path.join(out, report)) as f:
                text = f.read()
            for name in names:
                self.assertIn(name, text, report)
            self.assertIn("clock offset", text, report)
        for name in names:
            self.assertIn(name, result.stdout)
        log(f"generators: " + ", ".join(f"{g['name']} {g['completed']} (late "
                                        f"{g['start_late_s'] * 1e3:.2f} ms)" for g in generators)
            + f"; merged {round_['completed']}; offsets "
            + ", ".join(f"{n} {h['clock_offset_s'] * 1e3:+.3f} ms" for n, h in hosts.items()))
        self.assert_nothing_left()

    def test_an_unreachable_host_fails_the_run_and_names_it(self):
        lab = self.lab
        missing = f"{lab.subnet}.{UNREACHABLE_HOST}"
        result, out = self.compare("unreachable", [lab.address("gen1"), missing])
        self.assertNotEqual(result.returncode, 0, result.stderr[-4000:])
        errors = [line for line in result.stderr.splitlines() if missing in line and "cannot" in line]
        self.assertTrue(errors, result.stderr[-4000:])
        self.assertIn(f"load host {missing}", errors[0])
        with open(os.path.join(out, "results.json")) as f:
            results = json.load(f)
        self.assertEqual(results["points"], [])
        self.assertTrue(results["partial"])
        self.assert_nothing_left()

    def test_sigterm_stops_the_remote_loads(self):
        lab = self.lab
        scenario = self.write_scenario("stopped", [lab.address(g) for g in GENERATORS], duration_s=60)
        os.makedirs(os.path.join(self.tmp, "remote"), exist_ok=True)
        compare = lab.popen("srv", [BIN, "compare", scenario, "--out",
                                    os.path.join(self.tmp, "stopped-out")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 60
            while len(self.remote_loads()) < len(GENERATORS) and time.monotonic() < deadline:
                self.assertIsNone(compare.poll(), "ringside compare ended before its loads began")
                time.sleep(0.1)
            self.assertEqual(len(self.remote_loads()), len(GENERATORS), "the remote loads never ran")
            compare.terminate()
            _, stderr = compare.communicate(timeout=30)
            self.assertEqual(compare.returncode, 130, stderr[-4000:])
        finally:
            if compare.poll() is None:  # a failed check above: the next test needs a clean lab
                compare.kill()
                compare.wait(timeout=30)
        self.assert_nothing_left()


if __name__ == "__main__":
    # ctest shows a skip as "Skipped" (SKIP_RETURN_CODE 77), not as a pass.
    outcome = unittest.main(verbosity=2, exit=False).result
    if not outcome.wasSuccessful():
        sys.exit(1)
    sys.exit(77 if outcome.skipped and len(outcome.skipped) >= outcome.testsRun else 0)
