"""`ringside compare` with HTTP/2 workloads (issue 23, part 3): protocol = "h2c" (prior knowledge
on the plain port) and "h2" (TLS, ALPN), `streams` per connection, loaded by ringside load.

Checked: a run over h2c and h2 measures ringside and h2o (every request answered, none failed,
in results.json, valid against the schema, with the protocol and the streams), records nginx as
skipped for h2c (its manifest lists h2 alone) and measures it over h2; the reports say what each
workload went over; `--validate` proves the protocol (the preface answered with SETTINGS, ALPN h2
agreed), and fails a server whose manifest lists h2c but that speaks HTTP/1.1 only, with the
reason; a bad `streams` is one line naming the field, exit 2."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import jsonschema

from ringside_testlib import BIN, needs_tools

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))
SCHEMA = os.path.join(SOURCE, "docs", "compare-json.schema.json")
SERVER = os.path.join(SOURCE, "tests", "fixtures", "contestants", "fixture_server.py")
RUN_TIMEOUT = 300

RUN_SCENARIO = """name = "h2-small"
contestants = ["ringside", "h2o", "nginx"]
baseline = "h2o"
rounds = 1
warmup = "200ms"
duration = "1s"
settle = "0s"
server_cpus = "0"
load_cpus = "1"
threads = 1
database = "none"
equal_load = false

[[workload]]
name = "hello-h2c"
path = "/"
protocol = "h2c"
streams = 8
connections = [4]

[[workload]]
name = "hello-h2"
path = "/"
protocol = "h2"
streams = 8
connections = [4]
"""

# A server that lists h2c but speaks HTTP/1.1 alone.
H2C_LIAR = """name = "h2c-liar"
description = "fixture: lists h2c, speaks HTTP/1.1 only"
runtime = "python3"
requires = ["python3"]
version = ["python3", "--version"]
start = ["python3", "{server}", "--port", "{{port}}", "--mode", "good"]
ready_path = "/"
routes = ["/", "/json"]
protocols = ["http", "h2c"]
threads = 1
[env]
PYTHONDONTWRITEBYTECODE = "1"
"""


class Http2CompareTest(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix="compare-h2-")
        self.tmp = os.path.join(self.scratch, "tmp")
        os.mkdir(self.tmp)
        self.addCleanup(shutil.rmtree, self.scratch, True)

    def compare(self, *args, timeout=RUN_TIMEOUT):
        try:
            result = subprocess.run([BIN, "compare", *args], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                    timeout=timeout, cwd=self.scratch,
                                    env=dict(os.environ, TMPDIR=self.tmp))
        except subprocess.TimeoutExpired:
            raise AssertionError(f"ringside compare {' '.join(args)} ran over {timeout}s") from None
        return result.returncode, result.stdout.decode(errors="replace"), result.stderr.decode(errors="replace")

    def write(self, name, text):
        path = os.path.join(self.scratch, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    @needs_tools("h2o", "nginx")
    def test_a_run_over_h2c_and_h2(self):
        scenario = self.write("h2.toml", RUN_SCENARIO)
        out_dir = os.path.join(self.scratch, "out")
        code, out, err = self.compare(scenario, "--out", out_dir)
        self.assertEqual(code, 0, out + err)
        with open(os.path.join(out_dir, "results.json")) as f:
            results = json.load(f)
        with open(SCHEMA) as f:
            jsonschema.validate(results, json.load(f))
        workloads = {w["name"]: w for w in results["workloads"]}
        self.assertEqual((workloads["hello-h2c"]["protocol"], workloads["hello-h2c"]["streams"]),
                         ("h2c", 8))
        self.assertEqual((workloads["hello-h2"]["protocol"], workloads["hello-h2"]["streams"]),
                         ("h2", 8))
        measured = {}
        for point in results["points"]:
            if point["mode"] != "closed":
                continue
            completed = sum(r["completed"] for r in point["rounds"])
            failed = sum(r["failed"] for r in point["rounds"])
            measured[(point["workload"], point["contestant"])] = (completed > 0, failed)
        for workload, contestant in [("hello-h2c", "ringside"), ("hello-h2c", "h2o"),
                                     ("hello-h2", "ringside"), ("hello-h2", "h2o"),
                                     ("hello-h2", "nginx")]:
            with self.subTest(workload=workload, contestant=contestant):
                self.assertEqual(measured.get((workload, contestant)), (True, 0), measured)
        self.assertNotIn(("hello-h2c", "nginx"), measured)
        nginx = next(c for c in results["contestants"] if c["name"] == "nginx")
        self.assertEqual(nginx["skipped_workloads"],
                         [{"workload": "hello-h2c",
                           "reason": "does not serve h2c (its manifest's protocols: http, https, h2)"}])
        self.assertIn("hello-h2c (GET / over h2c, 8 streams a connection)", out)
        with open(os.path.join(out_dir, "report.md")) as f:
            self.assertIn("## hello-h2: GET / over h2, 8 streams a connection", f.read())
        self.assertEqual(os.listdir(self.tmp), [], "work directories or certificates left behind")

    @needs_tools("h2o", "nginx")
    def test_validate_proves_the_protocol(self):
        scenario = self.write("h2.toml", RUN_SCENARIO)
        code, out, err = self.compare("--validate", scenario)
        self.assertEqual(code, 0, out + err)
        lines = [line for line in out.splitlines() if line.startswith(("PASS", "FAIL", "SKIP"))]
        def line_of(name, tls):
            return next((l for l in lines if l.split()[1] == name and (" over https" in l) == tls),
                        "\n".join(lines))
        for name in ("ringside", "h2o"):
            self.assertTrue(line_of(name, False).endswith("HTTP/2 with prior knowledge (h2c)"),
                            line_of(name, False))
        for name in ("ringside", "h2o", "nginx"):
            self.assertTrue(line_of(name, True).endswith("HTTP/2 by ALPN (h2)"), line_of(name, True))
        self.assertNotIn("HTTP/2", line_of("nginx", False))  # its plain start speaks HTTP/1.1

    def test_a_server_that_lists_h2c_but_speaks_http11_fails(self):
        folder = os.path.join(self.scratch, "mine")
        self.write("mine/h2c-liar/contestant.toml", H2C_LIAR.format(server=SERVER))
        scenario = self.write("h2c.toml", '[[workload]]\nname = "hello"\nprotocol = "h2c"\n'
                                          'streams = 4\nconnections = [2]\n')
        code, out, err = self.compare("--validate", scenario, "--contestants", folder,
                                      "--no-bundled", "--ready-timeout", "5")
        self.assertEqual(code, 1, out + err)
        line = next((l for l in out.splitlines() if l.startswith("FAIL h2c-liar")), out + err)
        self.assertIn("HTTP/2 with prior knowledge (h2c): h2c: ", line)
        self.assertIn("not the server's SETTINGS", line)

    def test_bad_streams_is_one_line_naming_the_field(self):
        scenario = self.write("bad.toml", '[[workload]]\nname = "a"\nstreams = 10\n')
        code, out, err = self.compare(scenario)
        self.assertEqual(code, 2, out + err)
        self.assertEqual(err, f"ringside compare: {scenario}:3: field 'workload[0].streams': streams "
                              "are HTTP/2's: set protocol = \"h2c\" or \"h2\" (HTTP/1.1 has pipeline)\n")


if __name__ == "__main__":
    unittest.main()
