"""deploy/k8s/run-job.sh from start to merge, with a stand-in kubectl (fake_kubectl.py) whose
Job pods are local `ringside load` processes: kubectl is not on CI machines and no cluster is.
Checks what run-job.sh itself does: the start instant ahead, waiting for the Job, taking each
pod's JSON out of a log where stderr is mixed in, merging into merged.json / merged.txt, deleting
the Job; and that a pod which failed stops the merge (a part of the load would look whole)."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import unittest

from ringside_testlib import Server  # tests/integration (PYTHONPATH)

BIN = os.environ.get("RINGSIDE_BIN", "")
HERE = os.path.dirname(os.path.abspath(__file__))
RUN_JOB = os.path.normpath(os.path.join(HERE, "..", "..", "deploy", "k8s", "run-job.sh"))
RATE = 200
DURATION_S = 2


class RunJob(unittest.TestCase):
    def setUp(self):
        if not BIN:
            raise RuntimeError("set RINGSIDE_BIN to the ringside binary (ctest does)")
        self.tmp = tempfile.mkdtemp(prefix="ringside-k8s-run-job-")
        self.addCleanup(subprocess.run, ["rm", "-rf", self.tmp])
        bin_dir = os.path.join(self.tmp, "bin")
        self.state = os.path.join(self.tmp, "kube")
        os.makedirs(bin_dir)
        os.makedirs(self.state)
        os.symlink(os.path.join(HERE, "fake_kubectl.py"), os.path.join(bin_dir, "kubectl"))
        self.env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}",
                        FAKE_KUBE_DIR=self.state, RINGSIDE_BIN=BIN)
        self.addCleanup(self.stop_pods)

    def stop_pods(self):
        pids = os.path.join(self.state, "pids")
        if os.path.exists(pids):
            with open(pids) as f:
                for pid in f.read().split():
                    try:
                        os.killpg(int(pid), signal.SIGKILL)
                    except ProcessLookupError:
                        pass

    def run_job(self, server, results, **env):
        # "localhost": ringside says on stderr what the name resolved to, so each log holds a
        # stderr line before the JSON, as a pod's log does.
        return subprocess.run(
            [RUN_JOB, "--image", "localhost/ringside:test", "--url",
             f"http://localhost:{server.port}/", "--rate", str(RATE), "--generators", "2",
             "--duration", f"{DURATION_S}s", "--connections", "4", "--lead", "2", "--slack", "30",
             "--name", "load", "--results", results, "--ringside", BIN],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120,
            env=dict(self.env, **env))

    def test_the_pods_logs_are_merged(self):
        results = os.path.join(self.tmp, "results")
        with Server("--db", "none", threads=1) as server:
            result = self.run_job(server, results)
        self.assertEqual(result.returncode, 0, result.stderr)
        docs = []
        for index in (0, 1):
            with open(os.path.join(results, f"share-{index}.log")) as f:
                self.assertFalse(f.read().startswith("{"), "the log should hold stderr too")
            with open(os.path.join(results, f"share-{index}.json")) as f:
                docs.append(json.load(f))
            self.assertEqual(docs[-1]["config"]["share"], {"index": index, "of": 2})
        self.assertEqual(docs[0]["intended_start_epoch_s"], docs[1]["intended_start_epoch_s"])
        with open(os.path.join(results, "merged.json")) as f:
            merged = json.load(f)
        self.assertEqual(merged["requests"]["completed"],
                         sum(d["requests"]["completed"] for d in docs))
        self.assertAlmostEqual(merged["config"]["rate"], RATE)
        self.assertGreater(merged["requests"]["completed"], 0.9 * RATE * DURATION_S)
        with open(os.path.join(results, "merged.txt")) as f:
            self.assertEqual(f.read(), result.stdout)
        with open(os.path.join(self.state, "calls")) as f:
            calls = f.read().splitlines()
        self.assertIn("delete job load --wait=false", calls)

    def test_a_failed_pod_stops_the_merge(self):
        results = os.path.join(self.tmp, "results")
        with Server("--db", "none", threads=1) as server:
            result = self.run_job(server, results, FAKE_KUBE_FAIL_INDEX="1")
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("not merging", result.stderr)
        self.assertIn("share 1/2", result.stderr)
        self.assertFalse(os.path.exists(os.path.join(results, "merged.json")))
        with open(os.path.join(results, "share-1.log")) as f:
            self.assertIn("--no-such-flag", f.read())


if __name__ == "__main__":
    unittest.main(verbosity=2)
