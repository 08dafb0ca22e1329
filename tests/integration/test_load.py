"""`ringside load` against real servers and a misbehaving one: exact counts, error classes,
conservation, coordinated-omission correction, JSON schema and CLI errors."""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import unittest

from misbehaving_server import MisbehavingServer
from ringside_testlib import BIN, Server, needs_tools, wait_until

SCHEMA = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "load-json.schema.json")


def load(*args, timeout=60):
    """Runs ringside load --json; returns the parsed document."""
    result = subprocess.run([BIN, "load", "--json", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, timeout=timeout)
    if result.returncode != 0:
        raise AssertionError(f"ringside load {args} exited {result.returncode}: {result.stderr!r}")
    return json.loads(result.stdout)


def assert_conserved(test, doc):
    r = doc["requests"]
    test.assertEqual(r["started"], r["completed"] + r["failed"] + r["in_flight"], r)
    test.assertEqual(sum(doc["errors"].values()), r["failed"], doc["errors"])
    test.assertEqual(sum(doc["status"]["classes"].values()), r["completed"])


class NginxServer:
    """nginx with one worker answering `return 200`, on a free port in a temp prefix."""

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="ringside-nginx-")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        conf = os.path.join(self.dir, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"""daemon off; worker_processes 1; pid {self.dir}/nginx.pid;
error_log {self.dir}/error.log;
events {{ worker_connections 4096; }}
http {{ access_log off; keepalive_requests 1000000;
  client_body_temp_path {self.dir}; proxy_temp_path {self.dir}; fastcgi_temp_path {self.dir};
  uwsgi_temp_path {self.dir}; scgi_temp_path {self.dir};
  server {{ listen 127.0.0.1:{self.port}; location / {{ default_type text/plain; return 200 "Hello World!"; }} }} }}
""")
        self.process = subprocess.Popen(["nginx", "-p", self.dir, "-c", conf],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not wait_until(self._accepts, 10):
            self.process.kill()
            raise AssertionError("nginx did not start")
        return self

    def _accepts(self):
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
            return True
        except OSError:
            return False

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)

    def url(self, path="/"):
        return f"http://127.0.0.1:{self.port}{path}"


class LoadCountsTest(unittest.TestCase):
    def test_fixed_count_is_exact_against_ringside_serve(self):
        with Server() as server:
            for args in (["-n", "5000", "-c", "7", "-t", "2"],
                         ["-n", "3001", "-c", "10", "--pipeline", "16", "-t", "1"],
                         ["-n", "500", "-c", "5", "--no-keepalive"],
                         ["-n", "999", "-c", "3", "-m", "HEAD"]):
                with self.subTest(args=args):
                    doc = load(*args, server.url("/"))
                    expected = int(args[1])
                    self.assertEqual(doc["requests"]["completed"], expected)
                    self.assertEqual(doc["requests"]["failed"], 0)
                    self.assertEqual(doc["status"]["codes"], {"200": expected})
                    self.assertEqual(doc["latency_us"]["count"], expected)
                    assert_conserved(self, doc)

    @needs_tools("nginx")
    def test_fixed_count_is_exact_against_nginx(self):
        with NginxServer() as nginx:
            doc = load("-n", "4000", "-c", "16", "-t", "2", nginx.url("/"))
            self.assertEqual(doc["requests"]["completed"], 4000)
            self.assertEqual(doc["status"]["codes"], {"200": 4000})
            assert_conserved(self, doc)

    def test_statuses_are_counted_per_code(self):
        with Server() as server:
            # One thread: its round-robin cursor splits the 300 requests exactly.
            doc = load("-n", "300", "-c", "3", "-t", "1", "--urls-file", self.urls_file(server))
            self.assertEqual(doc["status"]["codes"], {"200": 200, "404": 100})
            self.assertEqual(doc["status"]["classes"]["4xx"], 100)

    def urls_file(self, server):
        path = os.path.join(tempfile.mkdtemp(prefix="ringside-urls-"), "urls.txt")
        with open(path, "w") as f:
            f.write(f"# comment\n{server.url('/')}\n{server.url('/json')}\n{server.url('/missing')}\n")
        return path

    def test_duration_mode_stops_on_time_and_conserves(self):
        with Server() as server:
            start = time.monotonic()
            doc = load("-d", "2s", "-c", "20", "--pipeline", "4", server.url("/"))
            self.assertLess(time.monotonic() - start, 5)
            self.assertGreater(doc["requests"]["completed"], 1000)
            self.assertAlmostEqual(doc["elapsed_s"], 2.0, delta=0.3)
            assert_conserved(self, doc)

    def test_warmup_is_excluded(self):
        with Server() as server:
            doc = load("-n", "1000", "-c", "4", "--warmup", "500ms", server.url("/"))
            self.assertEqual(doc["requests"]["completed"], 1000)
            self.assertGreater(doc["requests"]["warmup"], 0)
            assert_conserved(self, doc)


class LoadErrorsTest(unittest.TestCase):
    def run_against(self, mode, *args):
        with MisbehavingServer(mode) as server:
            return load(*args, server.url("/"))

    def test_server_down_counts_connect_refused_and_stops(self):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]  # bound but not listening: connects are refused
            doc = load("-n", "50", "-c", "5", f"http://127.0.0.1:{port}/")
            self.assertEqual(doc["errors"]["connect_refused"], 50)
            assert_conserved(self, doc)
            doc = load("-d", "1s", "-c", "5", f"http://127.0.0.1:{port}/")
            self.assertGreater(doc["errors"]["connect_refused"], 5)
            assert_conserved(self, doc)

    def test_each_fault_is_counted_in_its_class(self):
        cases = [("reset", "reset"), ("garbage", "malformed"), ("close", "closed")]
        for mode, key in cases:
            with self.subTest(mode=mode):
                doc = self.run_against(mode, "-n", "40", "-c", "4", "--timeout", "2s")
                self.assertEqual(doc["errors"][key], 40, doc["errors"])
                self.assertEqual(doc["requests"]["completed"], 0)
                assert_conserved(self, doc)

    def test_silent_server_times_out_and_the_run_ends(self):
        start = time.monotonic()
        doc = self.run_against("silent", "-n", "8", "-c", "4", "--timeout", "500ms")
        self.assertEqual(doc["errors"]["timeout"], 8)
        self.assertLess(time.monotonic() - start, 10)
        assert_conserved(self, doc)
        doc = self.run_against("silent", "-d", "1s", "-c", "4", "--timeout", "10s")
        self.assertEqual(doc["requests"]["in_flight"], 4)
        assert_conserved(self, doc)

    def test_close_after_each_response_is_not_an_error(self):
        doc = self.run_against("close_each", "-n", "200", "-c", "4")
        self.assertEqual(doc["requests"]["completed"], 200)
        self.assertEqual(doc["requests"]["failed"], 0)
        self.assertGreaterEqual(doc["connections_opened"], 200)


class CoordinatedOmissionTest(unittest.TestCase):
    def test_a_stall_shows_in_corrected_percentiles_and_not_in_uncorrected_ones(self):
        # 1000 req/s for 4 s over 2 connections; one 1-second stall after 1000 requests.
        with MisbehavingServer("stall_once", stall_after=1000, stall_seconds=1.0) as server:
            doc = load("-R", "1000", "-d", "4s", "-c", "2", "-t", "1", server.url("/"))
        corrected = doc["latency_us"]["percentiles"]
        uncorrected = doc["latency_uncorrected_us"]["percentiles"]
        self.assertTrue(doc["latency_corrected"])
        # About a quarter of the requests were due during the stall: p90 waits for it.
        self.assertGreater(corrected["90"], 200_000)
        self.assertGreater(corrected["99"], 700_000)
        # Only the 2 requests caught in flight saw the stall without correction.
        self.assertLess(uncorrected["99"], 100_000)
        self.assertGreater(uncorrected["100"], 700_000)


class LoadOutputTest(unittest.TestCase):
    def test_json_matches_its_schema(self):
        try:
            import jsonschema
        except ImportError:
            self.fail("python3-jsonschema is not installed: run scripts/setup")
        with open(SCHEMA) as f:
            schema = json.load(f)
        with Server() as server:
            for args in (["-n", "200", "-c", "2"], ["-d", "1s", "-R", "200", "-c", "2"]):
                jsonschema.validate(load(*args, server.url("/")), schema)

    def test_text_report_has_the_tables(self):
        with Server() as server:
            result = subprocess.run([BIN, "load", "-n", "300", "-c", "3", server.url("/")],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        out = result.stdout.decode()
        self.assertEqual(result.returncode, 0)
        for needle in ("300 completed", "Conservation", "holds", "99.99%", "200: 300", "Connect:",
                       "Waiting:", "Errors        none"):
            self.assertIn(needle, out)
        self.assertEqual(result.stderr, b"", "no progress line on a pipe")

    def test_hlog_is_written(self):
        with Server() as server, tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "latency.hlog")
            load("-n", "100", "-c", "2", "--hlog", path, server.url("/"))
            with open(path) as f:
                text = f.read()
            self.assertIn("#[Histogram log format version 1.2]", text)
            self.assertRegex(text, r"\n0\.000,\d+\.\d+,\d+\.\d+,HISTF")

    def test_interrupt_prints_what_was_measured(self):
        with Server() as server:
            process = subprocess.Popen([BIN, "load", "--json", "-d", "30s", "-c", "4", server.url("/")],
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            time.sleep(1.0)  # let it measure something; the bound below is what is tested
            process.send_signal(2)
            out, _ = process.communicate(timeout=10)
        doc = json.loads(out)
        self.assertTrue(doc["interrupted"])
        self.assertGreater(doc["requests"]["completed"], 0)
        assert_conserved(self, doc)


class LoadCliTest(unittest.TestCase):
    def test_bad_flags_exit_2_with_one_line_naming_them(self):
        url = "http://127.0.0.1:9/"
        cases = [(["-c", "0", url], "--connections"), (["--pipeline", "100", url], "--pipeline"),
                 (["-d", "soon", url], "--duration"), (["-n", "5", "-c", "10", url], "--requests"),
                 (["https://127.0.0.1/"], "https"), (["ftp://x/"], "http://"),
                 (["http://example.org/"], "IP address"), ([], "URL"),
                 (["-H", "nocolon", url], "--header"), (["--timeout", "0", url], "--timeout"),
                 (["--bogus", url], "--bogus"), (["-R", "-5", url], "--rate")]
        for args, needle in cases:
            with self.subTest(args=args):
                result = subprocess.run([BIN, "load", *args], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, timeout=10)
                err = result.stderr.decode()
                self.assertEqual(result.returncode, 2, err)
                self.assertEqual(len(err.strip().splitlines()), 1, err)
                self.assertIn(needle, err)


if __name__ == "__main__":
    unittest.main()
