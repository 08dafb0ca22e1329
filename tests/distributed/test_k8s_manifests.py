"""deploy/k8s's manifests, offline: run-job.sh --dry-run fills the Indexed Job (load-job.yaml)
and render.sh the Pod variant (load-pod.yaml); validate_manifest.py checks both against the
Kubernetes API's models (Debian's python3-kubernetes), and must refuse a misspelt field, a wrong
type and a missing required field. Also what makes the Job a split load: Indexed completions,
parallelism = completions = N, no retry, each pod's --share from its completion index, one
--start-at ahead of now, --json for the logs."""
import copy
import os
import subprocess
import sys
import tempfile
import time
import unittest

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
K8S = os.path.normpath(os.path.join(HERE, "..", "..", "deploy", "k8s"))
VALIDATE = os.path.join(K8S, "validate_manifest.py")


def run(args):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=60)


class Manifests(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ringside-k8s-manifests-")
        self.addCleanup(subprocess.run, ["rm", "-rf", self.tmp])

    def validate(self, documents, name):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            yaml.safe_dump_all(documents, f)
        return run([sys.executable, VALIDATE, path])

    def job(self, generators=3, lead=30):
        before = int(time.time())
        result = run([os.path.join(K8S, "run-job.sh"), "--dry-run", "--image",
                      "localhost/ringside:0123456789ab", "--url", "http://server.bench.svc:8080/",
                      "--rate", "30000", "--generators", str(generators), "--duration", "20s",
                      "--connections", "100", "--lead", str(lead), "--name", "load-test"])
        self.assertEqual(result.returncode, 0, result.stderr)
        documents = list(yaml.safe_load_all(result.stdout))
        self.assertEqual(len(documents), 1)
        return documents[0], before

    def test_the_job_is_a_valid_indexed_job_splitting_the_load(self):
        job, before = self.job(generators=3, lead=30)
        result = self.validate([job], "job.yaml")
        self.assertEqual(result.returncode, 0, result.stderr)
        spec = job["spec"]
        self.assertEqual(spec["completionMode"], "Indexed")
        self.assertEqual((spec["completions"], spec["parallelism"]), (3, 3))
        self.assertEqual(spec["backoffLimit"], 0)
        pod = spec["template"]["spec"]
        self.assertEqual(pod["restartPolicy"], "Never")
        [container] = pod["containers"]
        args = container["args"]
        self.assertEqual(args[0], "load")
        self.assertEqual(args[args.index("--share") + 1], "$(JOB_COMPLETION_INDEX)/3")
        self.assertIn("JOB_COMPLETION_INDEX", [e["name"] for e in container["env"]])
        start_at = int(args[args.index("--start-at") + 1])
        self.assertTrue(before + 30 <= start_at <= int(time.time()) + 30, start_at)
        self.assertIn("--json", args)
        self.assertEqual(args[args.index("-R") + 1], "30000")  # the total: --share divides it
        self.assertEqual(args[args.index("-c") + 1], "100")
        self.assertEqual(args[-1], "http://server.bench.svc:8080/")
        # The deadline covers the lead, the run and run-job.sh's default slack.
        self.assertEqual(spec["activeDeadlineSeconds"], 30 + 20 + 120)

    def test_the_pod_variant_is_one_valid_pod_per_share(self):
        result = run([os.path.join(K8S, "render.sh"), os.path.join(K8S, "load-pod.yaml"),
                      "NAME=rl", "IMAGE=localhost/ringside:x", "GENERATORS=3", "START_AT=1800000000",
                      "URL=http://127.0.0.1:8080/?a=1&b=2", "RATE=300", "DURATION=5s",
                      "CONNECTIONS=6", "THREADS=1"])
        self.assertEqual(result.returncode, 0, result.stderr)
        pods = list(yaml.safe_load_all(result.stdout))
        self.assertEqual([p["metadata"]["name"] for p in pods], ["rl-0", "rl-1", "rl-2"])
        for index, pod in enumerate(pods):
            args = pod["spec"]["containers"][0]["args"]
            self.assertEqual(args[args.index("--share") + 1], f"{index}/3")
            self.assertEqual(args[-1], "http://127.0.0.1:8080/?a=1&b=2")
            self.assertTrue(pod["spec"]["hostNetwork"])
        checked = self.validate(pods, "pods.yaml")
        self.assertEqual(checked.returncode, 0, checked.stderr)

    def assert_refused(self, job, *needles):
        result = self.validate([job], "bad.yaml")
        self.assertEqual(result.returncode, 1, result.stdout)
        for needle in needles:
            self.assertIn(needle, result.stderr)

    def test_the_validator_refuses_misspelt_mistyped_and_missing_fields(self):
        job, _ = self.job()
        misspelt = copy.deepcopy(job)
        misspelt["spec"]["completionMod"] = misspelt["spec"].pop("completionMode")
        self.assert_refused(misspelt, "spec.completionMod: no such field in V1JobSpec")

        mistyped = copy.deepcopy(job)
        mistyped["spec"]["completions"] = "3"
        self.assert_refused(mistyped, "spec.completions: must be int")
        unquoted = copy.deepcopy(job)
        unquoted["spec"]["template"]["spec"]["containers"][0]["args"][1] = 5
        self.assert_refused(unquoted, "containers[0].args[1]: must be str")
        not_a_list = copy.deepcopy(job)
        not_a_list["spec"]["template"]["spec"]["containers"] = {"name": "ringside"}
        self.assert_refused(not_a_list, "spec.containers: must be a list")

        missing = copy.deepcopy(job)
        del missing["spec"]["template"]["spec"]["containers"]
        self.assert_refused(missing, "spec.containers: required by V1PodSpec")
        nameless = copy.deepcopy(job)
        del nameless["spec"]["template"]["spec"]["containers"][0]["name"]
        self.assert_refused(nameless, "containers[0].name: required by V1Container")

        unknown_kind = copy.deepcopy(job)
        unknown_kind["kind"] = "Jobb"
        self.assert_refused(unknown_kind, "no model for kind Jobb")

    def test_render_refuses_unknown_keys_and_unfilled_placeholders(self):
        template = os.path.join(K8S, "load-job.yaml")
        misspelt = run([os.path.join(K8S, "render.sh"), template, "NAMEE=x"])
        self.assertEqual(misspelt.returncode, 2)
        self.assertIn("no @NAMEE@", misspelt.stderr)
        unfilled = run([os.path.join(K8S, "render.sh"), template, "NAME=x"])
        self.assertEqual(unfilled.returncode, 2)
        self.assertIn("@START_AT@", unfilled.stderr)
        few = run([os.path.join(K8S, "run-job.sh"), "--dry-run", "--image", "i", "--url", "u",
                   "--rate", "10", "--generators", "4", "--connections", "3"])
        self.assertEqual(few.returncode, 2)
        self.assertIn("--connections 3 is fewer than --generators 4", few.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
