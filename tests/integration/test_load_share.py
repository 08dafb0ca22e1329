"""`ringside load --share K/N`: N generators given one command line and their index run parts
of the load that add up exactly (what a Kubernetes Indexed Job's pods do: deploy/k8s), the JSON
names the part, `ringside merge` puts the whole back, and values that are no part of a split are
refused naming --share."""
import json
import os
import subprocess
import tempfile
import unittest

from ringside_testlib import BIN, Server

SCHEMA = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "load-json.schema.json")


def run(*args, timeout=60):
    result = subprocess.run([BIN, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            timeout=timeout)
    return result.returncode, result.stdout.decode(), result.stderr.decode(errors="replace")


class ShareTest(unittest.TestCase):
    def validator(self):
        try:
            import jsonschema
        except ImportError:
            self.fail("python3-jsonschema is not installed: run scripts/setup")
        with open(SCHEMA) as f:
            return jsonschema.Draft202012Validator(json.load(f))

    def test_two_parts_of_a_count_add_up_to_it_and_merge_to_the_whole(self):
        validator = self.validator()
        with Server() as server, tempfile.TemporaryDirectory() as tmp:
            # Both at once, as the pods of one Job: 101 requests and 3 connections split two ways.
            processes, paths = [], []
            for index in (0, 1):
                path = os.path.join(tmp, f"share{index}.json")
                paths.append(path)
                with open(path, "w") as out:
                    processes.append(subprocess.Popen(
                        [BIN, "load", "--json", "--share", f"{index}/2", "-n", "101", "-c", "3",
                         "-t", "1", server.url()], stdout=out, stderr=subprocess.PIPE))
            for process in processes:
                _, stderr = process.communicate(timeout=60)
                self.assertEqual(process.returncode, 0, stderr)
            docs = []
            for path in paths:
                with open(path) as f:
                    docs.append(json.load(f))
            for index, doc in enumerate(docs):
                validator.validate(doc)
                self.assertEqual(doc["config"]["share"], {"index": index, "of": 2})
                self.assertEqual(doc["tag"], f"share-{index}-of-2")
                self.assertEqual(doc["requests"]["failed"], 0, doc["errors"])
            # The remainder goes to the lowest index: 51 + 50 requests, 2 + 1 connections.
            self.assertEqual([d["requests"]["completed"] for d in docs], [51, 50])
            self.assertEqual([d["config"]["requests"] for d in docs], [51, 50])
            self.assertEqual([d["config"]["connections"] for d in docs], [2, 1])

            code, out, err = run("merge", "--json", *paths)
            self.assertEqual(code, 0, err)
            merged = json.loads(out)
            self.assertEqual(merged["requests"]["completed"], 101)
            self.assertEqual(merged["config"]["requests"], 101)
            self.assertEqual(merged["config"]["connections"], 3)
            self.assertNotIn("share", merged["config"])  # the merge is the whole load
            validator.validate(merged)

    def test_the_rate_is_split_and_a_tag_given_is_kept(self):
        with Server() as server:
            code, out, err = run("load", "--json", "--share", "2/3", "-R", "90", "-d", "1s",
                                 "-c", "3", "-t", "1", "--tag", "pod-c", server.url())
            self.assertEqual(code, 0, err)
            doc = json.loads(out)
            self.assertAlmostEqual(doc["config"]["rate"], 30)
            self.assertEqual(doc["config"]["connections"], 1)
            self.assertEqual(doc["tag"], "pod-c")
            self.assertEqual(doc["config"]["share"], {"index": 2, "of": 3})

    def assert_refused(self, args, *needles):
        code, out, err = run("load", *args, "http://127.0.0.1:9/", timeout=10)
        self.assertEqual(code, 2, f"{args}: {err}")
        lines = err.strip().splitlines()
        self.assertEqual(len(lines), 1, f"{args}: {err}")
        for needle in ("--share", *needles):
            self.assertIn(needle, lines[0], args)
        self.assertEqual(out, "")

    def test_values_that_are_no_part_of_a_split_exit_2_naming_share(self):
        for value in ("3/2", "2/2", "0/0", "a/b", "1", "1/2/3", ""):
            with self.subTest(value=value):
                self.assert_refused(["--share", value])
        for args in (["--share=-1/2"], ["--share", "-1/2"]):
            with self.subTest(args=args):
                self.assert_refused(args)

    def test_a_part_left_with_no_connection_or_request_says_what_to_give(self):
        self.assert_refused(["--share", "1/2", "-c", "1"], "-c at least 2")
        self.assert_refused(["--share", "2/3", "-c", "3", "-n", "2"], "-n at least 3")


if __name__ == "__main__":
    unittest.main()
