"""`ringside compare` with https workloads (issue 22, part 3), against the bundled contestants.

Checked: `--validate scenarios/tls.toml` makes a real, verified handshake with every contestant
that serves https and says what it agreed on (TLS 1.3, its cipher, ALPN http/1.1), and reports
one that does not serve https as skipped, not failed; a server whose manifest lists https but that
answers in plain text fails with the reason; a run with wrk over https measures nginx and
node-http (completed requests > 0 in results.json, valid against the schema) and records the
contestants without https as skipped for that workload, with the reason, in results.json and
the reports; a bad `protocol` or `protocols` is one line naming the field, exit 2. Nothing is
left in the temporary folder: not the contestants' work directories, not the run's certificates.

The run's https points are measured twice: by wrk, and by ringside load (the in-process loader,
a new connection per request there: the handshake path)."""
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
TLS_SCENARIO = os.path.join(SOURCE, "scenarios", "tls.toml")
SERVER = os.path.join(SOURCE, "tests", "fixtures", "contestants", "fixture_server.py")
# A dozen starts (deno compiles afresh at each, rust-hyper may need its first cargo build), the
# checks and stops, under the sanitizers on a loaded 2-core machine.
VALIDATE_TIMEOUT = 540
RUN_TIMEOUT = 240

# Every bundled contestant that serves https and starts in a few seconds, and one that does not.
HTTPS = ["nginx", "node-http", "h2o", "node-cluster", "express", "koa", "fastify", "restify",
         "deno", "bun", "rust-hyper", "ringside"]
PLAIN_ONLY = "floor"

RUN_SCENARIO = """name = "https-wrk"
description = "plain /json and hello over https, by wrk"
contestants = ["nginx", "node-http", "ringside", "floor"]
baseline = "nginx"
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
name = "json-plain"
path = "/json"
loader = "wrk"
connections = [4]

[[workload]]
name = "hello-tls"
path = "/"
protocol = "https"
loader = "wrk"
connections = [4]

[[workload]]
name = "handshakes"
path = "/"
protocol = "https"
keep_alive = false
connections = [4]
"""

# A server that says it serves https and takes the certificate, yet listens in plain text.
PLAIN_LIAR = """name = "plain-liar"
description = "fixture: lists https, listens in plain text"
runtime = "python3"
requires = ["python3"]
version = ["python3", "--version"]
start = ["python3", "{server}", "--port", "{{port}}", "--mode", "good"]
ready_path = "/"
routes = ["/", "/json"]
protocols = ["https"]
threads = 1
[env]
PYTHONDONTWRITEBYTECODE = "1"
TLS_CERT = "{{tls_cert}}"
TLS_KEY = "{{tls_key}}"
"""


class HttpsTest(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix="compare-https-")
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

    def assert_nothing_left(self):
        self.assertEqual(os.listdir(self.tmp), [], "work directories or certificates left behind")

    def write(self, name, text):
        path = os.path.join(self.scratch, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    @needs_tools("nginx", "node", "h2o", "cargo", "cc")
    def test_validate_makes_a_real_handshake_with_each_and_skips_those_without_https(self):
        code, out, err = self.compare("--validate", TLS_SCENARIO, "--only",
                                      ",".join(HTTPS + [PLAIN_ONLY]), timeout=VALIDATE_TIMEOUT)
        self.assertEqual(code, 0, out + err)
        lines = {line.split()[1]: line for line in out.splitlines()
                 if line.split()[:1] in (["PASS"], ["FAIL"], ["SKIP"])}
        for name in HTTPS:
            with self.subTest(contestant=name):
                line = lines.get(name, "")
                self.assertTrue(line.startswith(f"PASS {name} "), line or out + err)
                self.assertIn(" over https (TLSv1.3, TLS_", line)
                self.assertIn("TLS handshake, GET /, GET /json", line)
                # The client offers http/1.1 only; every one but bun answers the offer.
                if name != "bun":
                    self.assertIn("ALPN http/1.1)", line)
        self.assertEqual(lines[PLAIN_ONLY], f"SKIP {PLAIN_ONLY} over https: does not serve https "
                                            "(its manifest's protocols: http)")
        self.assertIn(f"validated {len(HTTPS) + 1} contestants over https: {len(HTTPS)} passed, "
                      "0 failed, 1 skipped", out)
        self.assert_nothing_left()

    def test_a_server_that_lists_https_but_answers_in_plain_text_fails_the_handshake(self):
        folder = os.path.join(self.scratch, "mine")
        self.write("mine/plain-liar/contestant.toml", PLAIN_LIAR.format(server=SERVER))
        scenario = self.write("tls.toml", '[[workload]]\nname = "hello"\nprotocol = "https"\n')
        code, out, err = self.compare("--validate", scenario, "--contestants", folder, "--no-bundled",
                                      "--ready-timeout", "5")
        self.assertEqual(code, 1, out + err)
        line = next((l for l in out.splitlines() if l.startswith("FAIL plain-liar")), out + err)
        self.assertIn("FAIL plain-liar (Python ", line)
        self.assertIn(" over https: not ready within 5 s: something listens on 127.0.0.1 port ", line)
        self.assertIn("but the server did not answer with TLS (", line)
        self.assertIn("does it listen with TLS on {port} when given {tls_cert} and {tls_key}?", line)
        self.assert_nothing_left()

    @needs_tools("nginx", "node", "wrk", "cc")
    def test_a_run_over_https_measures_those_that_serve_it_and_says_who_did_not(self):
        scenario = self.write("https-wrk.toml", RUN_SCENARIO)
        out_dir = os.path.join(self.scratch, "results")
        code, out, err = self.compare(scenario, "--out", out_dir)
        self.assertEqual(code, 0, out + err)
        with open(os.path.join(out_dir, "results.json")) as f:
            document = json.load(f)
        with open(SCHEMA) as f:
            jsonschema.validate(document, json.load(f))
        self.assertEqual([(w["name"], w["protocol"]) for w in document["workloads"]],
                         [("json-plain", "http"), ("hello-tls", "https"), ("handshakes", "https")])
        points = {(p["workload"], p["contestant"]): p for p in document["points"]}
        for name in ("nginx", "node-http", "ringside"):
            with self.subTest(contestant=name):
                point = points[("hello-tls", name)]
                self.assertEqual(point["failure"], "", out + err)
                self.assertGreater(point["median"]["completed"], 0, point)
                self.assertEqual(point["median"]["failed"], 0, point)
                self.assertGreater(points[("json-plain", name)]["median"]["completed"], 0)
                handshakes = points[("handshakes", name)]
                self.assertEqual(handshakes["failure"], "", out + err)
                self.assertGreater(handshakes["median"]["completed"], 0, handshakes)
                self.assertEqual(handshakes["median"]["failed"], 0, handshakes)
        contestants = {c["name"]: c for c in document["contestants"]}
        reason = "does not serve https (its manifest's protocols: http)"
        skip = [{"workload": "hello-tls", "reason": reason}, {"workload": "handshakes", "reason": reason}]
        # ringside serves both (start.sh puts TLS on {port} for an https start); floor answers
        # only /, which is https here, so it has no workload left.
        self.assertEqual((contestants["ringside"]["status"], contestants["ringside"]["skipped_workloads"]),
                         ("ran", []))
        self.assertEqual(contestants["floor"]["status"], "skipped")
        self.assertEqual(contestants["floor"]["skipped_workloads"], skip)
        self.assertIn("does not serve https", contestants["floor"]["reason"])
        self.assertNotIn(("hello-tls", "floor"), points)
        self.assertNotIn(("handshakes", "floor"), points)
        self.assertIn("hello-tls (GET / over https)", out)
        self.assertIn("  floor: skipped: does not serve https (its manifest's protocols: http): every "
                      "workload of the scenario it answers is over a protocol it does not serve\n", out)
        with open(os.path.join(out_dir, "report.md")) as f:
            report = f.read()
        self.assertIn("## hello-tls: GET / over https", report)
        self.assertIn("floor skipped", report)
        self.assert_nothing_left()

    def test_a_bad_protocol_is_one_line_naming_the_field(self):
        scenario = self.write("bad.toml", '[[workload]]\nname = "a"\nprotocol = "h3"\n')
        for args in ([scenario], ["--validate", scenario]):
            with self.subTest(args=args[0]):
                code, out, err = self.compare(*args)
                self.assertEqual(code, 2, out + err)
                self.assertEqual(err, f"ringside compare: {scenario}:3: field 'workload[0].protocol': "
                                      "must be \"http\" (plain HTTP/1.1), \"https\" (HTTP/1.1 over "
                                      "TLS, with the run's throwaway certificate), \"h2c\" (HTTP/2 on "
                                      "the plain port, prior knowledge) or \"h2\" (HTTP/2 over TLS by "
                                      "ALPN), not \"h3\"\n")
        key = self.write("key.toml", 'tls_key = "ed25519"\n[[workload]]\nname = "a"\n')
        code, out, err = self.compare(key)
        self.assertEqual(code, 2, out + err)
        self.assertIn(f"{key}:1: field 'tls_key': must be", err)
        manifest = PLAIN_LIAR.format(server=SERVER).replace('TLS_KEY = "{tls_key}"\n', "")
        folder = os.path.join(self.scratch, "mine")
        self.write("mine/plain-liar/contestant.toml", manifest)
        code, out, err = self.compare("--list", "--contestants", folder, "--no-bundled")
        self.assertEqual(code, 2, out + err)
        self.assertEqual(err.count("\n"), 1, err)
        self.assertIn("plain-liar/contestant.toml:9: field 'protocols': lists \"https\", but start and "
                      "[env] pass no {tls_key}", err)


if __name__ == "__main__":
    unittest.main()
