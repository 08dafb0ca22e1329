"""`ringside load --http2`: h2c with prior knowledge and h2 by ALPN against nghttpd (Debian's
nghttp2-server, the reference implementation), a server's SETTINGS_MAX_CONCURRENT_STREAMS kept to,
and servers that do not speak HTTP/2 (ringside serve, HTTP/1.1 only). Counts are exact: every
request completes or fails by a named class, and the document validates against the schema."""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import unittest

from ringside_testlib import BIN, Server, accepts, needs_tools, run_load, wait_until

SCHEMA = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "load-json.schema.json")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def assert_conserved(test, doc):
    r = doc["requests"]
    test.assertEqual(r["started"], r["completed"] + r["failed"] + r["in_flight"], r)
    test.assertEqual(sum(doc["errors"].values()), r["failed"], doc["errors"])


class Nghttpd:
    """nghttpd serving a one-file docroot on a free port: h2c (--no-tls) or h2 over TLS with a
    certificate the test made. `max_streams`: its SETTINGS_MAX_CONCURRENT_STREAMS."""

    def __init__(self, directory, tls=None, max_streams=100):
        self.dir = directory
        self.tls = tls
        self.max_streams = max_streams
        self.process = None
        self.port = None

    def __enter__(self):
        for _ in range(5):  # a free port may be taken between the probe and nghttpd's bind
            self.port = free_port()
            args = ["nghttpd", "-d", self.dir, "-m", str(self.max_streams), str(self.port)]
            args = args + list(self.tls) if self.tls else args[:1] + ["--no-tls"] + args[1:]
            self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.PIPE)
            if wait_until(lambda: accepts(self.port) or self.process.poll() is not None, 10) \
                    and self.process.poll() is None:
                return self
            self.stop()
        raise AssertionError("nghttpd did not start on five free ports")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.kill()
        if self.process:
            self.process.wait(timeout=10)
            self.process.stderr.close()

    def __exit__(self, *exc):
        self.stop()

    def url(self, path="/hello.txt"):
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}{path}"


@needs_tools("nghttpd", "openssl")
class LoadHttp2Test(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="ringside-h2-")
        cls.docroot = os.path.join(cls.tmp, "docroot")
        os.mkdir(cls.docroot)
        with open(os.path.join(cls.docroot, "hello.txt"), "w") as f:
            f.write("Hello, World!")
        cls.key = os.path.join(cls.tmp, "key.pem")
        cls.cert = os.path.join(cls.tmp, "cert.pem")
        if shutil.which("openssl"):
            subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                            "ec_paramgen_curve:P-256", "-nodes", "-keyout", cls.key, "-out",
                            cls.cert, "-days", "2", "-subj", "/CN=localhost", "-addext",
                            "subjectAltName=IP:127.0.0.1"],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=60)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def check_valid(self, doc):
        try:
            import jsonschema
        except ImportError:
            self.fail("python3-jsonschema is missing: run scripts/setup")
        with open(SCHEMA) as f:
            jsonschema.validate(doc, json.load(f))

    def test_h2c_counts_every_stream(self):
        with Nghttpd(self.docroot) as server:
            result = run_load("--http2", "--streams", "10", "-c", "3", "-t", "2", "-n", "3000",
                              server.url())
        doc = result.doc
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(doc["config"]["protocol"], "h2c")
        self.assertEqual(doc["config"]["streams"], 10)
        self.assertEqual(doc["requests"]["completed"], 3000, doc["errors"])
        self.assertEqual(doc["status"]["codes"], {"200": 3000})
        self.assertEqual(doc["connections_opened"], 3)  # one connection each, every stream on it
        # every response's DATA frame carried the file: 13 bytes a response at least
        self.assertGreaterEqual(doc["throughput"]["bytes_read"], 3000 * 13)
        assert_conserved(self, doc)
        self.check_valid(doc)

    def test_streams_are_concurrent(self):
        # Little's law per connection: with the requests in flight at once, the mean outstanding
        # per connection exceeds one, which one stream at a time could never reach.
        with Nghttpd(self.docroot) as server:
            result = run_load("--http2", "--streams", "50", "-c", "1", "-t", "1", "-n", "20000",
                              server.url())
        self.assertEqual(result.doc["requests"]["completed"], 20000, result.doc["errors"])
        self.assertGreater(result.doc["in_flight_mean"]["per_connection"], 1.0,
                           result.doc["in_flight_mean"])

    def test_keeps_to_the_servers_stream_limit(self):
        # nghttpd refuses streams beyond its SETTINGS_MAX_CONCURRENT_STREAMS with RST_STREAM:
        # none may be refused when the client keeps to the limit the server announced.
        with Nghttpd(self.docroot, max_streams=4) as server:
            result = run_load("--http2", "--streams", "64", "-c", "2", "-t", "1", "-n", "4000",
                              server.url())
        doc = result.doc
        self.assertEqual(doc["errors"]["stream_reset"], 0, doc["errors"])
        self.assertEqual(doc["requests"]["completed"], 4000, doc["errors"])
        self.assertLessEqual(doc["in_flight_mean"]["per_connection"], 4.0)

    def test_h2_by_alpn_over_tls(self):
        with Nghttpd(self.docroot, tls=(self.key, self.cert)) as server:
            result = run_load("--http2", "--streams", "8", "-c", "2", "-t", "1", "-n", "1000",
                              "--cacert", self.cert, server.url())
        doc = result.doc
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(doc["config"]["protocol"], "h2")
        self.assertEqual(doc["tls"]["alpn"], "h2")
        self.assertEqual(doc["requests"]["completed"], 1000, doc["errors"])
        self.assertEqual(doc["status"]["codes"], {"200": 1000})
        self.check_valid(doc)

    def test_rate_mode_is_corrected(self):
        with Nghttpd(self.docroot) as server:
            result = run_load("--http2", "--streams", "4", "-c", "2", "-t", "1", "-R", "500",
                              "-n", "300", server.url())
        doc = result.doc
        self.assertTrue(doc["latency_corrected"])
        self.assertEqual(doc["requests"]["completed"], 300, doc["errors"])
        self.assertEqual(doc["latency_us"]["count"], 300)

    def test_request_bodies_follow_the_servers_windows(self):
        # 100 KB bodies on 5 streams a connection: more than a stream's and the connection's first
        # window (65,535 bytes each), so every body waits for the server's WINDOW_UPDATEs.
        body = os.path.join(self.tmp, "body")
        with open(body, "wb") as f:
            f.write(b"b" * 100_000)
        with Nghttpd(self.docroot) as server:
            result = run_load("--http2", "--streams", "5", "-c", "2", "-n", "60", "-m", "POST",
                              "--body-file", body, server.url())
        doc = result.doc
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(doc["requests"]["completed"], 60, doc["errors"])
        self.assertEqual(doc["status"]["codes"], {"200": 60})
        self.assertGreaterEqual(doc["throughput"]["bytes_written"], 60 * 100_000)
        self.assertLess(doc["throughput"]["bytes_written"], 60 * 100_000 + 60 * 1000)
        assert_conserved(self, doc)

    def test_a_body_answered_early_is_not_sent_on(self):
        # ringside serve answers 413 once a body passes --max-body, and resets the stream: the
        # rest of the body stays unsent, and the request counts as answered.
        body = os.path.join(self.tmp, "body-early")
        with open(body, "wb") as f:
            f.write(b"b" * 500_000)
        with Server("--db", "none", "--max-body", "1000") as server:
            result = run_load("--http2", "--streams", "4", "-c", "1", "-n", "20", "-m", "POST",
                              "--body-file", body, f"http://127.0.0.1:{server.port}/")
        doc = result.doc
        self.assertEqual(doc["requests"]["completed"], 20, doc["errors"])
        self.assertEqual(doc["status"]["codes"], {"413": 20})
        self.assertLess(doc["throughput"]["bytes_written"], 20 * 500_000 / 2)
        assert_conserved(self, doc)

    def test_a_server_without_http2_fails_as_protocol(self):
        with Server("--no-http2", "--tls-port", "0", "--tls-self-signed") as server:
            plain = run_load("--http2", "-c", "2", "-n", "20", f"http://127.0.0.1:{server.port}/")
            tls = run_load("--http2", "-c", "2", "-n", "20",
                           f"https://127.0.0.1:{server.https_port}/")
        for result in (plain, tls):
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertEqual(result.doc["requests"]["completed"], 0)
            self.assertEqual(result.doc["errors"]["protocol"], 20, result.doc["errors"])
            assert_conserved(self, result.doc)
        self.assertIsNone(tls.doc["tls"]["alpn"])  # with --no-http2 serve offers http/1.1 alone

    def test_flags_that_do_not_go_with_http2(self):
        cases = [
            (["--streams", "4"], "--streams"),
            (["--http2", "--streams", "0"], "--streams"),
            (["--http2", "--pipeline", "2"], "--pipeline"),
            (["--http2", "--no-keepalive"], "--no-keepalive"),
            (["--http2", "-H", "X-Big: " + "a" * 17000], "-H/--header"),
        ]
        for flags, named in cases:
            with self.subTest(flags=flags[:3]):
                result = subprocess.run([BIN, "load", *flags, "http://127.0.0.1:9/"],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
                self.assertEqual(result.returncode, 2, result.stderr)
                lines = result.stderr.decode().strip().splitlines()
                self.assertEqual(len(lines), 1, lines)
                self.assertIn(named, lines[0])


if __name__ == "__main__":
    unittest.main()
