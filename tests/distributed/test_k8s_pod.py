"""The Pod variant of deploy/k8s, run for real with podman on this machine: build-image.sh makes
the scratch image from the release binary, render.sh fills load-pod.yaml (two generators, each
with its --share, one --start-at a few seconds ahead, host networking), `podman kube play` runs
them against a `ringside serve` on 127.0.0.1, and the pods' logs are the results.

Checks: each generator completed its share (rate / 2 x duration, within 2%), `ringside merge`
of the two gives the sum, the two measured phases began within 5 ms of each other, and `podman
kube down` plus removing the image leave no pod, container or image by that name.

Podman runs through a containers.conf of this test's own (CONTAINERS_CONF), for two things that
machines like this one need and that change nothing elsewhere:
- runc, not crun (Debian's default): crun 1.8 refuses hosts with cgroups in hybrid mode (v1
  controllers and a v2 hierarchy side by side: "cgroups in hybrid mode not supported"); runc
  runs on v1, hybrid and v2 alike.
- explicit ulimits: as root, podman asks for 1048576 open files and processes in every container,
  which fails ("setrlimit RLIMIT_NOFILE: Operation not permitted") where the process that runs
  the test lacks CAP_SYS_RESOURCE or has lower hard limits (a container, a CI sandbox).
Needs root (rootless podman needs subordinate ids and a user session): elsewhere it says SKIPPED
and why, and exits 77.
"""
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from ringside_testlib import Server  # tests/integration (PYTHONPATH)

BIN = os.environ.get("RINGSIDE_BIN", "")
HERE = os.path.dirname(os.path.abspath(__file__))
K8S = os.path.normpath(os.path.join(HERE, "..", "..", "deploy", "k8s"))

RATE = 200             # req/s over both generators
DURATION_S = 3
GENERATORS = 2
COUNT_TOLERANCE = 0.02
MAX_SKEW_S = 0.005
# From filling the manifest to the start: kube play of two pods takes under a second here, a few
# on a busy machine.
LEAD_S = 6
LATE_LAUNCH_S = 0.5
PODMAN_TIMEOUT = 60


def log(message):
    print(f"[k8s-pod] {message}", file=sys.stderr, flush=True)


class PodVariant(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not BIN:
            raise RuntimeError("set RINGSIDE_BIN to the ringside binary (ctest does)")
        if os.geteuid() != 0:
            message = "SKIPPED: podman runs the pods as root here (rootless podman needs " \
                      "subordinate uids/gids and a user session); run the test as root"
            log(message)
            raise unittest.SkipTest(message)
        for tool in ("podman", "buildah", "runc", "catatonit"):
            if shutil.which(tool) is None and not os.path.exists(f"/usr/libexec/podman/{tool}"):
                raise AssertionError(f"{tool} is missing: run scripts/setup")

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ringside-k8s-pod-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.name = f"rs-{os.getpid():x}"
        self.image = f"localhost/ringside-test:{self.name}"
        conf = os.path.join(self.tmp, "containers.conf")
        nofile = min(resource.getrlimit(resource.RLIMIT_NOFILE)[1], 4096)
        nproc = min(resource.getrlimit(resource.RLIMIT_NPROC)[1], 4096)
        with open(conf, "w") as f:
            f.write(f'[containers]\ndefault_ulimits = ["nofile={nofile}:{nofile}", '
                    f'"nproc={nproc}:{nproc}"]\n[engine]\nruntime = "runc"\n')
        self.env = dict(os.environ, CONTAINERS_CONF=conf)

    def run_tool(self, args, timeout=PODMAN_TIMEOUT, check=True):
        result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=self.env, timeout=timeout)
        if check and result.returncode != 0:
            raise AssertionError(f"{' '.join(args)} exited {result.returncode}: "
                                 f"{result.stderr.strip()[-2000:]}")
        return result

    def leftovers(self):
        """What podman still holds of this run: pods, containers, the image."""
        pods = self.run_tool(["podman", "pod", "ls", "-q", "--filter", f"name={self.name}-"]).stdout
        # A pod's infra container is named after the pod's id: match the pod's name too.
        containers = "\n".join(
            line for line in self.run_tool(["podman", "ps", "-a", "--pod", "--format",
                                            "{{.ID}} {{.Names}} {{.PodName}}"]).stdout.splitlines()
            if any(word.startswith(f"{self.name}-") for word in line.split()[1:]))
        images = self.run_tool(["podman", "images", "-q", self.image]).stdout
        return [f"{what}: {ids.split()}" for what, ids in
                (("pods", pods), ("containers", containers), ("image", images)) if ids.strip()]

    def tear_down(self, manifest):
        if os.path.exists(manifest):
            self.run_tool(["podman", "kube", "down", manifest], check=False)
        self.run_tool(["podman", "rmi", "--force", self.image], check=False)

    def test_two_pods_run_their_shares_together(self):
        started = time.monotonic()
        built = self.run_tool([os.path.join(K8S, "build-image.sh"), "--binary", BIN,
                               "--image", self.image])
        self.assertEqual(built.stdout.strip().splitlines()[-1], self.image)
        manifest = os.path.join(self.tmp, "pods.yaml")
        self.addCleanup(self.tear_down, manifest)
        with Server("--db", "none", threads=1) as server:
            start_at = int(time.time()) + LEAD_S
            rendered = self.run_tool([
                os.path.join(K8S, "render.sh"), os.path.join(K8S, "load-pod.yaml"),
                f"NAME={self.name}", f"IMAGE={self.image}", f"GENERATORS={GENERATORS}",
                f"START_AT={start_at}", f"URL={server.url()}", f"RATE={RATE}",
                f"DURATION={DURATION_S}s", "CONNECTIONS=4", "THREADS=1"])
            with open(manifest, "w") as f:
                f.write(rendered.stdout)
            self.run_tool(["podman", "kube", "play", manifest])
            containers = [f"{self.name}-{index}-ringside" for index in range(GENERATORS)]
            # Bounded: the lead, the run, and a generous margin for a busy machine.
            self.run_tool(["podman", "wait", *containers], timeout=LEAD_S + DURATION_S + 60)
            docs = []
            for container in containers:
                code = self.run_tool(["podman", "inspect", "--format", "{{.State.ExitCode}}",
                                      container]).stdout.strip()
                logs = self.run_tool(["podman", "logs", container])
                self.assertEqual(code, "0", f"{container}: {logs.stderr}")
                path = os.path.join(self.tmp, f"{container}.json")
                with open(path, "w") as f:
                    f.write(logs.stdout)  # --json's document, alone on stdout
                docs.append((path, json.loads(logs.stdout)))

        expected = RATE / GENERATORS * DURATION_S
        starts = []
        for index, (_, doc) in enumerate(docs):
            completed = doc["requests"]["completed"]
            log(f"share {index}/{GENERATORS}: {completed} completed, started "
                f"{doc['start_late_s'] * 1000:.2f} ms after the instant")
            self.assertEqual(doc["config"]["share"], {"index": index, "of": GENERATORS})
            self.assertEqual(doc["tag"], f"share-{index}-of-{GENERATORS}")
            self.assertAlmostEqual(doc["config"]["rate"], RATE / GENERATORS)
            self.assertEqual(doc["requests"]["failed"], 0, doc["errors"])
            self.assertLessEqual(abs(completed - expected), max(1, expected * COUNT_TOLERANCE),
                                 f"share {index}: {completed} requests, not about {expected:.0f}")
            self.assertEqual(doc["intended_start_epoch_s"], float(start_at))
            self.assertLess(doc["start_late_s"], LATE_LAUNCH_S,
                            "a pod started after the instant: raise LEAD_S")
            starts.append(doc["start_epoch_s"])
        skew = max(starts) - min(starts)
        log(f"start skew {skew * 1000:.3f} ms")
        self.assertLess(skew, MAX_SKEW_S)

        merged = self.run_tool([BIN, "merge", "--json", *(path for path, _ in docs)])
        total = json.loads(merged.stdout)
        self.assertEqual(total["requests"]["completed"],
                         sum(doc["requests"]["completed"] for _, doc in docs))
        self.assertAlmostEqual(total["config"]["rate"], RATE)

        self.tear_down(manifest)
        left = self.leftovers()
        self.assertEqual(left, [], "teardown left: " + "; ".join(left))
        log(f"teardown: no pod, container or image left; {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    # ctest shows a skip as "Skipped" (SKIP_RETURN_CODE 77), not as a pass.
    outcome = unittest.main(verbosity=2, exit=False).result
    if not outcome.wasSuccessful():
        sys.exit(1)
    sys.exit(77 if outcome.skipped and len(outcome.skipped) >= outcome.testsRun else 0)
