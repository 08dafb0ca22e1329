"""`ringside load` over https: against `ringside serve --tls-port`, Debian's nginx, a Python TLS
server that records SNI, and servers that fail the handshake. Counts are exact: handshakes,
resumed ones (the --tls-resume accumulator is deterministic), errors by class."""
import json
import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import unittest

from ringside_testlib import BIN, Server, needs_tools, run_load, wait_until

SCHEMA = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "load-json.schema.json")
RESUME_WHOLE = 1_000_000  # the accumulator counts whole millionths (load/worker_context.hpp)


def offers(attempts, ratio):
    """How many of a worker's first `attempts` connection attempts offer its last session."""
    return attempts * round(ratio * RESUME_WHOLE) // RESUME_WHOLE


def expected_resumed(requests, connections, threads, ratio):
    """--no-keepalive -n requests -c connections -t threads: every request is a connection
    attempt, split over the workers as load/load_run.hpp's share_work does. A worker's first `c`
    attempts start together, before any ticket came back, so an offer among them has no session
    to offer; every later one resumes (against a server with stateless tickets)."""
    total, connections_before = 0, 0
    for worker in range(threads):
        c = connections // threads + (1 if worker < connections % threads else 0)
        n = (requests * (connections_before + c) // connections
             - requests * connections_before // connections)
        connections_before += c
        total += offers(n, ratio) - offers(c, ratio)
    return total


def assert_conserved(test, doc):
    r = doc["requests"]
    test.assertEqual(r["started"], r["completed"] + r["failed"] + r["in_flight"], r)
    test.assertEqual(sum(doc["errors"].values()), r["failed"], doc["errors"])


def run_openssl(*args, cwd):
    result = subprocess.run(["openssl", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, timeout=60)
    if result.returncode != 0:
        raise AssertionError(f"openssl {' '.join(args)}: {result.stderr.decode(errors='replace')}")


class Pki:
    """Two CAs made with the openssl CLI in a temp dir, and server certificates signed by the
    first: `good` names localhost and 127.0.0.1, `wrong_name` only example.test."""

    def __init__(self, directory):
        self.dir = directory
        for ca in ("ca", "other_ca"):
            run_openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                        "-nodes", "-keyout", f"{ca}.key", "-out", f"{ca}.pem", "-days", "2",
                        "-subj", f"/CN=ringside test {ca}",
                        "-addext", "basicConstraints=critical,CA:TRUE",
                        "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=directory)
        self.good = self._server("good", "DNS:localhost,IP:127.0.0.1")
        self.wrong_name = self._server("wrong_name", "DNS:example.test")

    def _server(self, name, alt_names):
        with open(os.path.join(self.dir, f"{name}.ext"), "w") as f:
            f.write(f"subjectAltName={alt_names}\nbasicConstraints=CA:FALSE\n"
                    "extendedKeyUsage=serverAuth\n")
        run_openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}",
                    cwd=self.dir)
        run_openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                    "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", "-extfile",
                    f"{name}.ext", cwd=self.dir)
        return os.path.join(self.dir, f"{name}.pem"), os.path.join(self.dir, f"{name}.key")

    def path(self, name):
        return os.path.join(self.dir, name)


class NginxTls:
    """Debian's nginx with one worker answering `return 200` over TLS, rootless, on a free port in
    a temp prefix (as contestants/nginx starts it)."""

    def __init__(self, cert, key):
        self.cert, self.key = cert, key

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="ringside-nginx-tls-")
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
  server {{ listen 127.0.0.1:{self.port} ssl; ssl_certificate {self.cert};
    ssl_certificate_key {self.key}; ssl_protocols TLSv1.2 TLSv1.3;
    location / {{ default_type text/plain; return 200 "Hello World!"; }} }} }}
""")
        self.process = subprocess.Popen(["nginx", "-p", self.dir, "-c", conf],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not wait_until(self._accepts, 10):
            self.process.kill()
            self.process.wait(timeout=10)
            raise AssertionError("nginx did not start: " + self._error_log())
        return self

    def _accepts(self):
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
            return True
        except OSError:
            return self.process.poll() is not None  # exited: stop waiting, fail above

    def _error_log(self):
        try:
            with open(os.path.join(self.dir, "error.log")) as f:
                return f.read()[-2000:]
        except OSError:
            return ""

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)

    def url(self, path="/"):
        return f"https://127.0.0.1:{self.port}{path}"


class PythonTlsServer:
    """A threaded HTTPS server from Python's ssl module: answers every request with 200 on
    keep-alive, and records the SNI name of every handshake (None when none was sent)."""

    def __init__(self, cert, key):
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(cert, key)
        self.server_names = []
        self.context.sni_callback = lambda sock, name, ctx: self.server_names.append(name)
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.threads = []

    def __enter__(self):
        thread = threading.Thread(target=self._accept, daemon=True)
        thread.start()
        self.threads.append(thread)
        return self

    def _accept(self):
        while True:
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(sock,), daemon=True)
            thread.start()

    def _serve(self, sock):
        try:
            with self.context.wrap_socket(sock, server_side=True) as tls:
                buffer = b""
                while True:
                    chunk = tls.recv(65536)
                    if not chunk:
                        return
                    buffer += chunk
                    while b"\r\n\r\n" in buffer:
                        _, _, buffer = buffer.partition(b"\r\n\r\n")
                        tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        except (OSError, ssl.SSLError):
            return

    def __exit__(self, *exc):
        self.listener.close()

    def url(self, host="127.0.0.1"):
        return f"https://{host}:{self.port}/"


class ClosingServer:
    """Accepts every connection and closes it at once, or (`silent`) keeps it open and says
    nothing: a handshake that never finishes."""

    def __init__(self, silent=False):
        self.silent = silent
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.held = []

    def __enter__(self):
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def _accept(self):
        while True:
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            if self.silent:
                self.held.append(sock)
            else:
                sock.close()

    def __exit__(self, *exc):
        self.listener.close()
        for sock in self.held:
            sock.close()

    def url(self):
        return f"https://127.0.0.1:{self.port}/"


def load_ok(test, *args, timeout=120):
    result = run_load(*args, timeout=timeout)
    test.assertEqual(result.returncode, 0, result.stderr)
    assert_conserved(test, result.doc)
    return result.doc


def load_failing(test, *args, timeout=60):
    """A run where no request completed: exit code 1, the report still printed."""
    result = run_load(*args, timeout=timeout)
    test.assertEqual(result.returncode, 1, result.stderr)
    test.assertIn("no request completed", result.stderr)
    test.assertNotIn("Sanitizer", result.stderr)  # a leak report at exit also exits 1
    assert_conserved(test, result.doc)
    test.assertEqual(result.doc["requests"]["completed"], 0)
    return result.doc


class LoadOverTlsAgainstServeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server("--tls-port", "0", "--tls-self-signed", threads=1).__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)

    def test_keep_alive_run_completes_every_request_over_tls_1_3(self):
        doc = load_ok(self, "-n", "2000", "-c", "10", "-t", "2", self.server.https_url())
        self.assertEqual(doc["requests"]["completed"], 2000)
        self.assertEqual(doc["requests"]["failed"], 0)
        self.assertEqual(doc["status"]["codes"], {"200": 2000})
        tls = doc["tls"]
        self.assertEqual(tls["version"], "TLSv1.3")
        self.assertEqual(tls["alpn"], "http/1.1")
        self.assertTrue(tls["cipher"].startswith("TLS_"), tls)
        self.assertTrue(tls["group"], tls)
        # Keep-alive: one handshake per connection, none offered a session (--tls-resume 0).
        self.assertEqual(tls["handshakes"], 10)
        self.assertEqual(tls["resumed"], 0)
        self.assertEqual(doc["tls_handshake_us"]["count"], 10)
        self.assertEqual(doc["connect_us"]["count"], 10)
        self.assertEqual(doc["connections_opened"], 10)
        self.assertEqual(doc["waiting_us"]["count"], 2000)
        self.assertEqual(doc["config"]["urls"], [f"https://127.0.0.1:{self.server.https_port}/"])
        self.assertEqual(doc["config"]["tls_resume"], 0)
        self.assertIsNone(doc["config"]["cacert"])

    def test_pipelined_requests_and_large_bodies_complete(self):
        doc = load_ok(self, "-n", "3001", "-c", "10", "-t", "1", "--pipeline", "16",
                      self.server.https_url())
        self.assertEqual(doc["status"]["codes"], {"200": 3001})
        self.assertEqual(doc["tls"]["handshakes"], 10)
        with tempfile.NamedTemporaryFile(suffix=".body") as body:
            body.write(b"b" * 10_000)  # two of them exceed one write's 16 KiB: sent in parts
            body.flush()
            doc = load_ok(self, "-n", "400", "-c", "4", "--pipeline", "4", "-m", "POST",
                          "--body-file", body.name, self.server.https_url("/nothing-here"))
            self.assertEqual(doc["status"]["codes"], {"404": 400})
            self.assertGreaterEqual(doc["throughput"]["bytes_written"], 400 * 10_000)

    def test_json_matches_its_schema(self):
        try:
            import jsonschema
        except ImportError:
            self.fail("python3-jsonschema is not installed: run scripts/setup")
        with open(SCHEMA) as f:
            schema = json.load(f)
        jsonschema.validate(load_ok(self, "-n", "100", "-c", "2", self.server.https_url()), schema)
        jsonschema.validate(load_ok(self, "-n", "100", "-c", "2", self.server.url()), schema)

    def test_plain_http_has_no_tls(self):
        doc = load_ok(self, "-n", "100", "-c", "2", self.server.url())
        self.assertIsNone(doc["tls"])
        self.assertEqual(doc["tls_handshake_us"]["count"], 0)
        self.assertEqual(doc["errors"]["tls"], 0)

    def test_text_report_shows_the_negotiation_and_the_handshake_row(self):
        result = subprocess.run([BIN, "load", "-n", "200", "-c", "4", "--no-keepalive",
                                 "--tls-resume", "0.5", self.server.https_url()],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        out = result.stdout.decode()
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(out, r"\nTLS +TLSv1\.3, TLS_\w+, \w+, ALPN http/1\.1; 200 handshakes, "
                              r"\d+ resumed \(\d+\.\d%\)\n")
        self.assertRegex(out, r"\n  Connect: [^\n]*\n  TLS: [^\n]*\n  Waiting: ")

    def test_without_resumption_every_new_connection_is_a_full_handshake(self):
        doc = load_ok(self, "--no-keepalive", "-n", "300", "-c", "10", "--tls-resume", "0",
                      self.server.https_url())
        self.assertEqual(doc["requests"]["completed"], 300)
        self.assertEqual(doc["tls"]["handshakes"], 300)
        self.assertEqual(doc["tls"]["resumed"], 0)
        self.assertEqual(doc["tls_handshake_us"]["count"], 300)

    def test_full_resumption_resumes_all_but_each_connections_first_handshake(self):
        # One connection per worker: all but the first handshake of each worker resume.
        for connections, threads in ((2, 2), (10, 2), (10, 1)):
            with self.subTest(connections=connections, threads=threads):
                doc = load_ok(self, "--no-keepalive", "-n", "300", "-c", str(connections),
                              "-t", str(threads), "--tls-resume", "1", self.server.https_url())
                self.assertEqual(doc["requests"]["completed"], 300)
                self.assertEqual(doc["tls"]["handshakes"], 300)
                self.assertEqual(doc["tls"]["resumed"], 300 - connections)
                self.assertEqual(expected_resumed(300, connections, threads, 1), 300 - connections)

    def test_partial_resumption_is_the_accumulators_exact_count(self):
        cases = [(0.5, 10, 1, 145), (0.5, 10, 2, 146), (0.3, 10, 1, 87), (0.25, 4, 2, 74)]
        for ratio, connections, threads, resumed in cases:
            with self.subTest(ratio=ratio, connections=connections, threads=threads):
                self.assertEqual(expected_resumed(300, connections, threads, ratio), resumed)
                doc = load_ok(self, "--no-keepalive", "-n", "300", "-c", str(connections),
                              "-t", str(threads), "--tls-resume", str(ratio),
                              self.server.https_url())
                self.assertEqual(doc["tls"]["handshakes"], 300)
                self.assertEqual(doc["tls"]["resumed"], resumed)

    def test_https_to_the_plain_port_is_a_tls_error_for_every_request(self):
        doc = load_failing(self, "-n", "20", "-c", "2",
                           f"https://127.0.0.1:{self.server.port}/")
        self.assertEqual(doc["errors"]["tls"], 20, doc["errors"])
        self.assertEqual(doc["tls"]["handshakes"], 0)
        self.assertIsNone(doc["tls"]["version"])


@needs_tools("openssl")
class LoadOverTlsVerificationTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="ringside-tls-pki-")
        cls.pki = Pki(cls.tmp)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def serve(self, cert):
        return Server("--tls-port", "0", "--tls-cert", cert[0], "--tls-key", cert[1], threads=1)

    def test_the_right_ca_verifies_the_server_by_address_and_by_name(self):
        with self.serve(self.pki.good) as server:
            for host in ("127.0.0.1", "localhost"):
                with self.subTest(host=host):
                    doc = load_ok(self, "-n", "500", "-c", "5", "--cacert", self.pki.path("ca.pem"),
                                  server.https_url(host=host))
                    self.assertEqual(doc["requests"]["completed"], 500)
                    self.assertEqual(doc["requests"]["failed"], 0)
                    self.assertEqual(doc["config"]["cacert"], self.pki.path("ca.pem"))

    def test_another_ca_fails_every_request_as_a_tls_error(self):
        with self.serve(self.pki.good) as server:
            doc = load_failing(self, "-n", "50", "-c", "5", "--cacert",
                               self.pki.path("other_ca.pem"), server.https_url())
            self.assertEqual(doc["errors"]["tls"], 50, doc["errors"])
            self.assertEqual(doc["requests"]["failed"], 50)

    def test_a_certificate_for_another_name_or_address_fails_verification(self):
        with self.serve(self.pki.wrong_name) as server:
            for host in ("127.0.0.1", "localhost"):
                with self.subTest(host=host):
                    doc = load_failing(self, "-n", "10", "-c", "2", "--cacert",
                                       self.pki.path("ca.pem"), server.https_url(host=host))
                    self.assertEqual(doc["errors"]["tls"], 10, doc["errors"])
            # Without --cacert nothing is verified, as wrk and h2load.
            doc = load_ok(self, "-n", "10", "-c", "2", server.https_url())
            self.assertEqual(doc["requests"]["completed"], 10)

    def test_sni_carries_a_host_name_and_never_an_address(self):
        with PythonTlsServer(*self.pki.good) as server:
            load_ok(self, "-n", "4", "-c", "2", server.url("localhost"))
            self.assertEqual(server.server_names, ["localhost", "localhost"])
            server.server_names.clear()
            load_ok(self, "-n", "4", "-c", "2", server.url("127.0.0.1"))
            self.assertEqual(server.server_names, [None, None])

    @needs_tools("nginx")
    def test_debians_nginx_over_tls(self):
        with NginxTls(*self.pki.good) as nginx:
            doc = load_ok(self, "-n", "2000", "-c", "10", "-t", "2", "--cacert",
                          self.pki.path("ca.pem"), nginx.url())
            self.assertEqual(doc["requests"]["completed"], 2000)
            self.assertEqual(doc["status"]["codes"], {"200": 2000})
            self.assertEqual(doc["tls"]["version"], "TLSv1.3")
            self.assertEqual(doc["tls"]["alpn"], "http/1.1")
            doc = load_ok(self, "--no-keepalive", "-n", "300", "-c", "10", "-t", "1",
                          "--tls-resume", "1", nginx.url())
            self.assertEqual(doc["requests"]["completed"], 300)
            self.assertEqual(doc["tls"]["handshakes"], 300)
            self.assertEqual(doc["tls"]["resumed"], 290)


class LoadOverTlsFailingHandshakesTest(unittest.TestCase):
    def test_a_server_that_closes_during_the_handshake(self):
        with ClosingServer() as server:
            doc = load_failing(self, "-n", "40", "-c", "4", server.url())
            # Each request's connection was accepted, then closed (or reset) before the
            # handshake ended: a handshake failure, whatever the socket said.
            self.assertEqual(doc["errors"]["tls"], 40, doc["errors"])
            self.assertEqual(doc["tls"]["handshakes"], 0)

    def test_a_handshake_that_never_finishes_ends_at_the_timeout(self):
        with ClosingServer(silent=True) as server:
            result = run_load("-n", "3", "-c", "1", "--timeout", "200ms", server.url(), timeout=30)
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertNotIn("Sanitizer", result.stderr)
            self.assertEqual(result.doc["errors"]["tls"], 3, result.doc["errors"])
            self.assertLess(result.elapsed, 10)


if __name__ == "__main__":
    unittest.main()
