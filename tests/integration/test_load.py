"""`ringside load` against real servers and a misbehaving one: exact counts, error classes,
conservation, coordinated-omission correction, JSON schema and CLI errors."""
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

from misbehaving_server import MisbehavingServer
from ringside_testlib import BIN, Server, needs_tools, wait_until

SCHEMA = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "load-json.schema.json")


def load(*args, timeout=60, expect=0):
    """Runs ringside load --json; checks the exit code (1: nothing completed); returns the
    parsed document."""
    result = subprocess.run([BIN, "load", "--json", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, timeout=timeout)
    if result.returncode != expect:
        raise AssertionError(f"ringside load {args} exited {result.returncode}, not {expect}: "
                             f"{result.stderr!r}")
    return json.loads(result.stdout)


def run_load(*args, timeout=10):
    """Runs ringside load as given; returns (exit code, stdout, stderr)."""
    result = subprocess.run([BIN, "load", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            timeout=timeout)
    return result.returncode, result.stdout.decode(), result.stderr.decode(errors="replace")


def unbound_port_url():
    """A URL on a port bound by nobody a moment ago: connects are refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}/"


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
    def run_against(self, mode, *args, expect=0):
        with MisbehavingServer(mode) as server:
            return load(*args, server.url("/"), expect=expect)

    def test_server_down_counts_connect_refused_and_stops(self):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]  # bound but not listening: connects are refused
            # Nothing completed: exit code 1, and the report is still printed.
            doc = load("-n", "50", "-c", "5", f"http://127.0.0.1:{port}/", expect=1)
            self.assertEqual(doc["errors"]["connect_refused"], 50)
            assert_conserved(self, doc)
            doc = load("-d", "1s", "-c", "5", f"http://127.0.0.1:{port}/", expect=1)
            self.assertGreater(doc["errors"]["connect_refused"], 5)
            assert_conserved(self, doc)

    def test_each_fault_is_counted_in_its_class(self):
        cases = [("reset", "reset"), ("garbage", "malformed"), ("close", "closed")]
        for mode, key in cases:
            with self.subTest(mode=mode):
                doc = self.run_against(mode, "-n", "40", "-c", "4", "--timeout", "2s", expect=1)
                self.assertEqual(doc["errors"][key], 40, doc["errors"])
                self.assertEqual(doc["requests"]["completed"], 0)
                assert_conserved(self, doc)

    def test_silent_server_times_out_and_the_run_ends(self):
        start = time.monotonic()
        doc = self.run_against("silent", "-n", "8", "-c", "4", "--timeout", "500ms", expect=1)
        self.assertEqual(doc["errors"]["timeout"], 8)
        self.assertLess(time.monotonic() - start, 10)
        assert_conserved(self, doc)
        doc = self.run_against("silent", "-d", "1s", "-c", "4", "--timeout", "10s", expect=1)
        self.assertEqual(doc["requests"]["in_flight"], 4)
        assert_conserved(self, doc)

    def test_no_completed_request_exits_1_with_the_report_and_a_line_saying_so(self):
        code, out, err = run_load("-n", "5", "-c", "1", unbound_port_url())
        self.assertEqual(code, 1, err)
        self.assertIn("0 completed", out)
        self.assertIn("Errors", out)
        self.assertIn("no request completed", err)

    def test_completed_requests_with_error_statuses_still_exit_0(self):
        with Server() as server:
            doc = load("-n", "20", "-c", "2", server.url("/missing"))
            self.assertEqual(doc["status"]["codes"], {"404": 20})

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
            for args in (["-n", "200", "-c", "2"], ["-d", "1s", "-R", "200", "-c", "2"],
                         ["-n", "50", "-c", "1", "--tag", "g1", "--start-at", "+0.2s"]):
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

    def test_hlog_to_an_unwritable_path_is_refused_before_the_run(self):
        with Server() as server, tempfile.TemporaryDirectory() as tmp:
            for path in (os.path.join(tmp, "missing-dir", "x.hlog"), tmp):
                with self.subTest(path=path):
                    # -d 30s: the bound of run_load (10 s) shows the refusal comes first.
                    code, out, err = run_load("-d", "30s", "-c", "1", "--hlog", path, server.url("/"))
                    self.assertEqual(code, 2, err)
                    self.assertEqual(len(err.strip().splitlines()), 1, err)
                    self.assertIn("--hlog", err)
                    self.assertEqual(out, "")

    def test_sighup_stops_and_prints_what_was_measured(self):
        with Server() as server:
            process = subprocess.Popen([BIN, "load", "--json", "-d", "30s", "-c", "4", server.url("/")],
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            # Ready once the load has taken the signals over (before that SIGHUP would kill it,
            # as it would any process) and its connections are up.
            self.assertTrue(wait_until(lambda: hup_blocked(process.pid), 10))
            self.assertTrue(wait_until(lambda: established_connections(server.port) >= 4, 10))
            process.send_signal(signal.SIGHUP)
            out, err = process.communicate(timeout=10)
        doc = json.loads(out)
        self.assertTrue(doc["interrupted"])
        self.assertEqual(process.returncode, 0 if doc["requests"]["completed"] > 0 else 1, err)
        assert_conserved(self, doc)

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


def hup_blocked(pid):
    """True once the process has SIGHUP in its blocked set (/proc/PID/status, SigBlk)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("SigBlk:"):
                    return int(line.split()[1], 16) & (1 << (signal.SIGHUP - 1)) != 0
    except FileNotFoundError:
        pass
    return False


def established_connections(port):
    output = subprocess.run(["ss", "-Htn", "state", "established", f"( sport = :{port} )"],
                            stdout=subprocess.PIPE, text=True, timeout=10).stdout
    return len([line for line in output.splitlines() if line.strip()])


class LoadCliTest(unittest.TestCase):
    def test_bad_flags_exit_2_with_one_line_naming_them(self):
        url = "http://127.0.0.1:9/"
        cases = [(["-c", "0", url], "--connections"), (["--pipeline", "100", url], "--pipeline"),
                 (["-d", "soon", url], "--duration"), (["-n", "5", "-c", "10", url], "--requests"),
                 (["http://127.0.0.1:9/", "https://127.0.0.1:9/"], "scheme"),
                 (["ftp://x/"], "http://"),
                 (["--tls-resume", "1.5", "https://127.0.0.1:9/"], "--tls-resume"),
                 (["--tls-resume", "0.5", url], "--tls-resume needs https://"),
                 (["--cacert", "/etc/hostname", url], "--cacert needs https://"),
                 (["--cacert", "/nonexistent.pem", "https://127.0.0.1:9/"], "--cacert"),
                 (["--cacert", "/etc/hostname", "https://127.0.0.1:9/"], "--cacert /etc/hostname"),
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

    def assert_refused(self, args, needle):
        code, out, err = run_load(*args)
        self.assertEqual(code, 2, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn(needle, err)
        self.assertLess(len(err), 300, "limits are written humanly, values quoted short")
        self.assertEqual(out, "")

    def test_values_that_used_to_pass_and_break_the_tool_are_refused(self):
        # -n -5 wrapped to 2^64 - 5, -n 0 ran for 10 s, -R nan ran unthrottled, -d 1000000h died
        # of std::bad_alloc.
        url = "http://127.0.0.1:9/"
        cases = [(["-n", "-5"], "--requests"), (["-n", "0"], "--requests"),
                 (["-n", "1.5"], "--requests"), (["-n", "99999999999999999999"], "--requests"),
                 (["-R", "nan"], "--rate"), (["-R", "inf"], "--rate"), (["-R", "-inf"], "--rate"),
                 (["-R", "0"], "--rate"), (["-R", "1e300"], "--rate"),
                 (["-d", "1000000h"], "--duration"), (["-d", "31d"], "--duration"),
                 (["-d", "nan"], "--duration"), (["-d", "0"], "--duration"),
                 (["--timeout", "2h"], "--timeout"), (["--timeout", "inf"], "--timeout"),
                 (["--warmup", "-1s"], "--warmup"), (["--warmup", "2h"], "--warmup"),
                 (["-c", "-1"], "--connections"), (["-c", "1000001"], "--connections"),
                 (["-t", "0"], "--threads"), (["-t", "-2"], "--threads"), (["-t", "1025"], "--threads"),
                 (["--pipeline", "0"], "--pipeline"), (["--pipeline", "-1"], "--pipeline")]
        for args, needle in cases:
            with self.subTest(args=args):
                self.assert_refused([*args, url], needle)

    def test_input_that_would_break_the_request_on_the_wire_is_refused(self):
        url = "http://127.0.0.1:9/"
        cases = [(["http://127.0.0.1:9/a b"], "url"), (["http://127.0.0.1:9/a\r\nX-Evil: 1"], "url"),
                 (["http://127.0.0.1:9/a\n"], "url"), (["http://127.0.0.1:9/\x01"], "url"),
                 (["http://127.0.0.1:9/\x7f"], "url"),
                 (["-H", "Bad Name: v", url], "--header"), (["-H", ": v", url], "--header"),
                 (["-H", "Name : v", url], "--header"),
                 (["-H", "X: a\r\nX-Evil: 1", url], "--header"), (["-H", "X: a\n", url], "--header"),
                 (["-H", "X\r: a", url], "--header"), (["-H", "X: \x01", url], "--header"),
                 (["-m", "G T", url], "--method"), (["-m", "GET\r\n", url], "--method"),
                 (["-m", "", url], "--method")]
        for args, needle in cases:
            with self.subTest(args=args):
                self.assert_refused(args, needle)
                _, _, err = run_load(*args)
                self.assertNotIn("\r", err)

    def test_a_bad_url_in_the_urls_file_names_the_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "urls.txt")
            with open(path, "w") as f:
                f.write("http://127.0.0.1:9/\nhttp://127.0.0.1:9/a b\n")
            self.assert_refused(["--urls-file", path], "--urls-file")

    def test_a_header_flag_takes_one_value_and_leaves_the_url_alone(self):
        # -H used to swallow every argument after it, the URL included (sent as a header).
        with Server() as server:
            doc = load("-n", "5", "-c", "1", "-H", "X-A: 1", server.url("/"), "-H", "X-B: 2")
            self.assertEqual(doc["status"]["codes"], {"200": 5})

    def test_fragment_is_dropped_like_curl_does(self):
        with Server() as server:
            doc = load("-n", "10", "-c", "1", server.url("/json#section"))
            self.assertEqual(doc["status"]["codes"], {"200": 10})

    def test_help_documents_the_exit_codes(self):
        code, out, _ = run_load("--help")
        self.assertEqual(code, 0)
        self.assertIn("Exit codes", out)
        self.assertIn("1 when none did", out)


if __name__ == "__main__":
    unittest.main()
