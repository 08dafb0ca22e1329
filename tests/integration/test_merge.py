"""`ringside load --start-at --tag --hlog` on two generators started together, then `ringside
merge`: the counts add up, the merged histogram is the union of the two bucket for bucket, the
generators began within 5 ms of each other, and the logs hold one tagged interval per second."""
import json
import os
import subprocess
import tempfile
import time
import unittest

import hdr_reader
from ringside_testlib import BIN, Server

SCHEMA = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "load-json.schema.json")


def decode_hdr(text):
    """A base64 compressed V2 histogram -> ((lowest, highest, digits), {index: count})."""
    histogram = hdr_reader.decode_compressed(text)
    digits, lowest, highest = histogram.layout
    return (lowest, highest, digits), histogram.counts


def summed(*histograms):
    total = {}
    for counts in histograms:
        for index, count in counts.items():
            total[index] = total.get(index, 0) + count
    return total


def log_intervals(path):
    """[(tag, start, length, counts)] of an --hlog file."""
    return [(tag, start, length, histogram.counts)
            for tag, start, length, histogram in hdr_reader.read_log(path)]


def run(*args, timeout=60):
    result = subprocess.run([BIN, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            timeout=timeout)
    return result.returncode, result.stdout.decode(), result.stderr.decode(errors="replace")


class TwoGeneratorsTest(unittest.TestCase):
    def test_two_generators_start_together_and_merge_exactly(self):
        try:
            import jsonschema
        except ImportError:
            self.fail("python3-jsonschema is not installed: run scripts/setup")
        with open(SCHEMA) as f:
            schema = json.load(f)
        with Server() as server, tempfile.TemporaryDirectory() as tmp:
            # One instant for both, as an Ansible controller or a Job's parameter gives it: a "+2"
            # resolved by each process would add the gap between their two launches to the skew.
            start_at = f"{time.time() + 2:.6f}"
            processes, paths = [], []
            for n in (1, 2):
                json_path = os.path.join(tmp, f"gen{n}.json")
                hlog_path = os.path.join(tmp, f"gen{n}.hlog")
                paths.append((json_path, hlog_path))
                with open(json_path, "w") as out:
                    processes.append(subprocess.Popen(
                        [BIN, "load", "-R", "200", "-d", "2s", "-c", "2", "-t", "1",
                         "--start-at", start_at, "--tag", f"g{n}", "--json", "--hlog", hlog_path,
                         server.url("/")], stdout=out, stderr=subprocess.PIPE))
            for process in processes:
                try:
                    _, err = process.communicate(timeout=60)
                except subprocess.TimeoutExpired:
                    for p in processes:
                        p.kill()
                    raise
                self.assertEqual(process.returncode, 0, err)
                self.assertEqual(err, b"", "neither was late")
            docs = []
            for json_path, _ in paths:
                with open(json_path) as f:
                    docs.append(json.load(f))
            for n, doc in enumerate(docs, 1):
                jsonschema.validate(doc, schema)
                self.assertEqual(doc["tag"], f"g{n}")
                self.assertEqual(doc["intended_start_epoch_s"], float(start_at))
                self.assertGreaterEqual(doc["start_late_s"], 0)
                self.assertGreaterEqual(doc["requests"]["completed"], 398, doc["requests"])
                self.assertLessEqual(doc["requests"]["completed"], 401, doc["requests"])
                self.assertEqual(doc["requests"]["failed"], 0)
            skew = abs(docs[0]["start_epoch_s"] - docs[1]["start_epoch_s"])
            print(f"\nmeasured start skew of the two generators: {skew * 1e3:.3f} ms "
                  f"(late: {docs[0]['start_late_s'] * 1e3:.3f} ms, "
                  f"{docs[1]['start_late_s'] * 1e3:.3f} ms)")
            self.assertLess(skew, 0.005)

            # Each log: about one interval per second of the 2 s run, every one tagged, and
            # together the whole run's histogram bucket for bucket.
            for n, ((_, hlog_path), doc) in enumerate(zip(paths, docs), 1):
                intervals = log_intervals(hlog_path)
                self.assertIn(len(intervals), (2, 3), intervals)
                self.assertEqual({tag for tag, *_ in intervals}, {f"g{n}"})
                self.assertEqual([start for _, start, _, _ in intervals][:2], [0.0, 1.0])
                self.assertEqual(summed(*[counts for *_, counts in intervals]),
                                 decode_hdr(doc["latency_us"]["hdr"])[1])

            code, out, err = run("merge", "--json", paths[0][0], paths[1][0])
            self.assertEqual(code, 0, err)
            self.assertEqual(err, "", "no skew warning")
            merged = json.loads(out)
            jsonschema.validate(merged, schema)
            self.assertEqual(merged["requests"]["completed"],
                             sum(d["requests"]["completed"] for d in docs))
            for key in ("latency_us", "latency_uncorrected_us", "connect_us", "waiting_us"):
                layout, counts = decode_hdr(merged[key]["hdr"])
                self.assertEqual(layout, (1, 60_000_000, 3))
                self.assertEqual(counts, summed(*[decode_hdr(d[key]["hdr"])[1] for d in docs]), key)
            self.assertEqual([g["tag"] for g in merged["merged_from"]], ["g1", "g2"])
            self.assertAlmostEqual(merged["requests_per_s"]["overall"], 400, delta=20)

            # The logs alone merge to the same latency histogram.
            code, out, err = run("merge", "--json", paths[0][1], paths[1][1])
            self.assertEqual(code, 0, err)
            self.assertEqual(decode_hdr(json.loads(out)["latency_us"]["hdr"])[1],
                             decode_hdr(merged["latency_us"]["hdr"])[1])

            code, text, err = run("merge", paths[0][0], paths[1][0])
            self.assertEqual(code, 0, err)
            print(text)
            for needle in ("g1", "g2", "common window", "start spread", "Requests/s",
                           f"{merged['requests']['completed']} completed"):
                self.assertIn(needle, text)


class MergeRefusalTest(unittest.TestCase):
    def test_schema_1_and_missing_files_are_refused_in_one_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            old = os.path.join(tmp, "old.json")
            with open(old, "w") as f:
                json.dump({"schema": 1, "tool": "ringside load"}, f)
            for args, needle in (([old], "rerun"), ([os.path.join(tmp, "none.json")], "none.json"),
                                 ([], "files")):
                with self.subTest(args=args):
                    code, out, err = run("merge", *args)
                    self.assertEqual(code, 2, err)
                    self.assertEqual(len(err.strip().splitlines()), 1, err)
                    self.assertIn(needle, err)
                    self.assertEqual(out, "")


class StartAtCliTest(unittest.TestCase):
    def test_bad_start_at_and_tag_exit_2_naming_the_flag(self):
        url = "http://127.0.0.1:9/"
        for args, needle in ((["--start-at", "soon"], "--start-at"),
                             (["--start-at", "+25h"], "--start-at"),
                             (["--start-at", f"{time.time() + 90000:.0f}"], "--start-at"),
                             (["--start-at", "5"], "--start-at"),
                             (["--tag", ""], "--tag"), (["--tag", "a b"], "--tag"),
                             (["--tag", "x" * 65], "--tag"), (["--tag", "a,b"], "--tag")):
            with self.subTest(args=args):
                code, out, err = run("load", *args, url, timeout=10)
                self.assertEqual(code, 2, err)
                self.assertEqual(len(err.strip().splitlines()), 1, err)
                self.assertIn(needle, err)
                self.assertEqual(out, "")

    def test_a_passed_instant_starts_at_once_and_says_so(self):
        with Server() as server:
            code, out, err = run("load", "-n", "20", "-c", "1", "--json", "--start-at",
                                 f"{time.time() - 3:.3f}", server.url("/"))
        self.assertEqual(code, 0, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("pick a later start", err)
        doc = json.loads(out)
        self.assertGreaterEqual(doc["start_late_s"], 3)
        self.assertEqual(doc["requests"]["completed"], 20)

    def test_relative_start_waits_for_the_instant(self):
        with Server() as server:
            before = time.time()
            code, out, err = run("load", "-n", "20", "-c", "1", "--json", "--start-at", "+1.5s",
                                 server.url("/"))
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        self.assertGreaterEqual(doc["intended_start_epoch_s"], before + 1.5)
        self.assertGreaterEqual(doc["start_epoch_s"], doc["intended_start_epoch_s"])
        self.assertGreaterEqual(doc["start_late_s"], 0)


if __name__ == "__main__":
    unittest.main()
