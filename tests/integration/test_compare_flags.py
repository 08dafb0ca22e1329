"""Flags are quiet on a clean run: `ringside compare` against the bundled nginx (and ringside
serve) with each loader that is installed, hello at 10 and 100 connections, closed, two rounds of
short points, plus an open point at a rate nginx easily carries. A flag says a number is not the
server's; one raised on every point of a clean run is noise (wrk's own closes counted as resets,
its queueing read as an idle loader, ab's whole milliseconds read as nothing in flight).

Exceptions, checked rather than assumed, because the test must pass beside other work on the
machine: a loader that used 90% or more of its one core, or waited for it 10% of the time, did set
the pace (hey, a Go program, answers nginx's hello at half nginx's speed on this 2-core machine),
so a `loader-bound` whose round's own figures show that is the truth, not noise; so is
`server-starved` when others used the server's CPU. And a neighbour can spoil one round of a
point: a flag that misfires by its rule fires in every round, so each point must have at least
one round with no unexplained flag. Otherwise the test fails with every note."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import unittest

from ringside_testlib import BIN

LOADERS = ("ringside", "wrk", "ab", "hey", "h2load")
RUN_TIMEOUT = 120
# The loader's CPU share at which judge_loader calls it the limit (point_summary.hpp).
LOADER_BUSY_SHARE = 0.9
# A loader that waited this share of the point for its CPU was held back by a neighbour.
LOADER_WAIT_SHARE = 0.1

HEADER = """name = "quiet-flags"
description = "hello against nginx: every flag quiet"
contestants = {contestants}
rounds = 2
warmup = "100ms"
duration = "{duration}"
settle = "0s"
server_cpus = "0"
load_cpus = "1"
threads = 1
database = "none"
equal_load = false
"""

WORKLOAD = """
[[workload]]
name = "{name}"
path = "/"
connections = {connections}
mode = "{mode}"
rate = {rate}
loader = "{loader}"
loader_threads = 1
"""


def loader_cpu_share(round_):
    share = round_.get("loader_cpu_share")
    if share is None and round_.get("loader_cpu_s") is not None and round_["duration_s"]:
        share = round_["loader_cpu_s"] / round_["duration_s"]
    return share


class QuietFlagsTest(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix="ringside-flags-")

    def tearDown(self):
        shutil.rmtree(self.scratch, ignore_errors=True)

    def compare(self, name, contestants, duration, workloads):
        scenario = os.path.join(self.scratch, name + ".toml")
        with open(scenario, "w") as f:
            f.write(HEADER.format(contestants=json.dumps(contestants), duration=duration))
            for workload in workloads:
                f.write(WORKLOAD.format(**workload))
        out = os.path.join(self.scratch, name)
        # Its own process group: a run over its bound is stopped with everything it started.
        process = subprocess.Popen([BIN, "compare", scenario, "--out", out],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        try:
            output, _ = process.communicate(timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise AssertionError(f"ringside compare ran over {RUN_TIMEOUT}s") from None
        self.assertEqual(process.returncode, 0, output.decode(errors="replace"))
        with open(os.path.join(out, "results.json")) as f:
            return json.load(f)

    @staticmethod
    def explained(flag, note, round_):
        """The round's own figures show the flag is true: a busy loader or server CPU."""
        share = loader_cpu_share(round_)
        wait = round_.get("loader_wait_s")
        duration = round_.get("duration_s") or 0
        others = (round_.get("server_cpus") or {}).get("others_share")
        if flag == "loader-bound" and share is not None and share >= LOADER_BUSY_SHARE:
            return True  # it really was at its core's limit
        if (flag == "loader-bound" and wait is not None and duration > 0 and
                wait >= LOADER_WAIT_SHARE * duration):
            return True  # another process took its core
        return flag == "server-starved" and others is not None and others >= 0.05

    def assert_quiet(self, document, loader):
        noise, spoilt_points = [], []
        for point in document["points"]:
            where = (f"{loader}: {point['contestant']} {point['workload']} {point['mode']} "
                     f"c={point['connections']}")
            self.assertEqual(point.get("failure") or "", "", where)
            self.assertTrue(point["rounds"], where)
            clean_rounds = 0
            for round_ in point["rounds"]:
                unexplained = [f"{where} round {round_['round']}: {flag}: {note} (loader CPU "
                               f"{loader_cpu_share(round_)}, waited {round_.get('loader_wait_s')}, "
                               f"server CPU {round_.get('server_cpu_s')}, others on its CPUs "
                               f"{(round_.get('server_cpus') or {}).get('others_share')})"
                               for flag, note in zip(round_["flags"], round_["notes"])
                               if not self.explained(flag, note, round_)]
                noise += unexplained
                clean_rounds += not unexplained
            if clean_rounds == 0:
                spoilt_points.append(where)
        self.assertEqual(spoilt_points, [], "flags in every round of a clean run:\n" + "\n".join(noise))

    def test_ringside_load_closed_and_open(self):
        document = self.compare("ringside", ["nginx", "ringside"], "500ms", [
            dict(name="hello", connections="[10, 100]", mode="closed", rate=0, loader="ringside"),
            dict(name="hello-open", connections="[10]", mode="open", rate=1000,
                 loader="ringside"),
        ])
        self.assertEqual({p["contestant"] for p in document["points"]}, {"nginx", "ringside"})
        self.assertEqual(len(document["points"]), 6)
        self.assert_quiet(document, "ringside")

    def test_external_loaders(self):
        for loader in LOADERS[1:]:
            with self.subTest(loader=loader):
                if shutil.which(loader) is None:
                    self.skipTest(f"{loader} is not installed (scripts/setup installs it)")
                # wrk and ab take whole seconds.
                document = self.compare(loader, ["nginx"], "1s", [
                    dict(name=loader, connections="[10, 100]", mode="closed", rate=0,
                         loader=loader),
                ])
                self.assertEqual(len(document["points"]), 2)
                self.assert_quiet(document, loader)


if __name__ == "__main__":
    unittest.main()
