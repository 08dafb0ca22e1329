"""Issue 22: `ringside serve --tls-port` — HTTPS beside the plain port, from real clients (Python's
ssl module over OpenSSL, the openssl and curl tools): handshakes, ALPN, both versions, resumption,
pipelining and a slow reader over TLS, and the limits (a silent or half-sent handshake is closed by
the header timeout, garbage and renegotiation are refused, the server stays up)."""
import os
import re
import select
import socket
import ssl
import subprocess
import tempfile
import time
import unittest

from ringside_testlib import (BIN, START_TIMEOUT, ResponseReader, Server, get, needs_tools,
                              wait_until)

HTTPS_LINE = re.compile(rb"listening on https://\S+:(\d+) \(.*SHA-256 fingerprint ([0-9A-F:]+)\)")
KTLS_LINE = re.compile(rb"--ktls: (on|off)[:,]? ?([^\n]*)\n")


def read_until(server, pattern, timeout=START_TIMEOUT):
    """The match of `pattern` in the server's start-up output, reading more of it (bounded)."""
    output = server.startup_output
    deadline = time.monotonic() + timeout
    while not pattern.search(output):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"{pattern.pattern!r} not printed in {timeout}s: {output!r}")
        ready, _, _ = select.select([server.process.stdout], [], [], remaining)
        if ready:
            chunk = os.read(server.process.stdout.fileno(), 4096)
            if not chunk:
                raise AssertionError(f"server closed its output: {output!r}")
            output += chunk
    server.startup_output = output
    return pattern.search(output)


class TlsServer(Server):
    """ringside serve with a TLS listener: .tls_port and .fingerprint once both lines are out."""

    def __init__(self, *args, tls_args=("--tls-self-signed",), **kwargs):
        super().__init__("--tls-port", "0", *tls_args, *args, **kwargs)
        self.tls_port = None
        self.fingerprint = None

    def __enter__(self):
        super().__enter__()
        try:
            match = read_until(self, HTTPS_LINE)
        except AssertionError:
            self.kill()
            raise
        self.tls_port, self.fingerprint = int(match.group(1)), match.group(2).decode()
        return self

    def tls_connect(self, context=None, session=None, timeout=5.0):
        raw = socket.create_connection(("127.0.0.1", self.tls_port), timeout=timeout)
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return (context or client_context()).wrap_socket(raw, server_hostname="localhost",
                                                         session=session)


def client_context(cafile=None, maximum=None):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    if cafile:
        context.load_verify_locations(cafile)
    else:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if maximum:
        context.maximum_version = maximum
    # An HTTP/1.1 client: offered h2 as well, the server would pick it (test_serve_http2.py).
    context.set_alpn_protocols(["http/1.1"])
    return context


def closed_within(sock, timeout):
    """True when the peer ends the connection (EOF, reset or a TLS alert) within timeout."""
    sock.settimeout(timeout)
    try:
        while sock.recv(65536):
            pass
        return True
    except (ConnectionResetError, ssl.SSLError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def make_certificate(folder, name):
    key, cert = os.path.join(folder, f"{name}.key"), os.path.join(folder, f"{name}.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                    "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=30)
    return cert, key


class HandshakeTest(unittest.TestCase):
    def test_tls13_with_alpn_http11_answers_like_the_plain_port(self):
        with TlsServer(threads=1) as server, server.tls_connect() as tls:
            self.assertEqual(tls.version(), "TLSv1.3")
            self.assertEqual(tls.selected_alpn_protocol(), "http/1.1",
                             "offered http/1.1: the server speaks http/1.1")
            tls.sendall(get("/"))
            response = ResponseReader(tls).next()
            self.assertEqual(response.status, 200)
            self.assertEqual(response.body, b"Hello World!")
            with server.connect() as plain:  # the plain port is still plain HTTP
                plain.sendall(get("/json"))
                self.assertEqual(ResponseReader(plain).next().body, b'{"message":"Hello, World!"}')

    def test_tls12_is_served_too(self):
        with TlsServer(threads=1) as server, \
                server.tls_connect(client_context(maximum=ssl.TLSVersion.TLSv1_2)) as tls:
            self.assertEqual(tls.version(), "TLSv1.2")
            tls.sendall(get("/"))
            self.assertEqual(ResponseReader(tls).next().status, 200)

    def test_a_session_ticket_resumes_on_another_connection(self):
        context = client_context()
        with TlsServer(threads=2) as server:
            with server.tls_connect(context) as first:
                first.sendall(get("/"))
                ResponseReader(first).next()  # TLS 1.3 tickets come after the handshake
                session = first.session
                self.assertFalse(first.session_reused)
            self.assertIsNotNone(session)
            resumed = 0
            for _ in range(4):  # on either worker: the ticket keys are shared
                with server.tls_connect(context, session=session) as again:
                    again.sendall(get("/"))
                    self.assertEqual(ResponseReader(again).next().status, 200)
                    resumed += again.session_reused
            self.assertEqual(resumed, 4)

    def test_close_notify_ends_the_connection(self):
        with TlsServer(threads=1) as server, server.tls_connect() as tls:
            tls.sendall(get("/"))
            ResponseReader(tls).next()
            raw = tls.unwrap()  # sends our close_notify and waits for the server's
            self.assertTrue(closed_within(raw, 5.0))

    @needs_tools("openssl")
    def test_certificate_and_key_files_verify_and_print_their_fingerprint(self):
        with tempfile.TemporaryDirectory() as folder:
            cert, key = make_certificate(folder, "server")
            with TlsServer(threads=1, tls_args=("--tls-cert", cert, "--tls-key", key)) as server, \
                    server.tls_connect(client_context(cafile=cert)) as tls:
                tls.sendall(get("/"))
                self.assertEqual(ResponseReader(tls).next().status, 200)
                expected = subprocess.run(["openssl", "x509", "-in", cert, "-noout", "-fingerprint",
                                           "-sha256"], capture_output=True, text=True, check=True)
                self.assertEqual(server.fingerprint, expected.stdout.strip().split("=", 1)[1])

    @needs_tools("curl")
    def test_curl_gets_hello_over_https(self):
        with TlsServer(threads=1) as server:
            result = subprocess.run(["curl", "-sk", "--http1.1", "-w", "\n%{http_version}",
                                     f"https://127.0.0.1:{server.tls_port}/"],
                                    capture_output=True, text=True, timeout=30)
            self.assertEqual(result.stdout, "Hello World!\n1.1", result.stderr)


class KernelTlsTest(unittest.TestCase):
    """--ktls on this machine: its kernel has no TLS ULP, so serve must say so and serve TLS from
    userspace; on a kernel with it, it must say it is on and still answer (the handing over itself
    is tested against an emulated kernel in tests/unit/core/ktls_test.cpp)."""

    def test_ktls_is_reported_as_the_kernel_allows_and_https_answers_either_way(self):
        with TlsServer(threads=1, tls_args=("--tls-self-signed", "--ktls")) as server:
            match = read_until(server, KTLS_LINE)
            with open("/proc/sys/net/ipv4/tcp_available_ulp") as ulps:
                kernel_has_tls = "tls" in ulps.read().split()
            self.assertEqual(match.group(1), b"on" if kernel_has_tls else b"off", match.group(0))
            if not kernel_has_tls:
                self.assertIn(b"no TLS ULP", match.group(2))
                self.assertIn(b"modprobe tls", match.group(2))
            for maximum in (None, ssl.TLSVersion.TLSv1_2):
                with server.tls_connect(client_context(maximum=maximum)) as tls:
                    tls.sendall(get("/") * 3)
                    reader = ResponseReader(tls)
                    self.assertEqual([reader.next().status for _ in range(3)], [200, 200, 200])


def pipeline(tls, count, pause_every=0, timeout=60.0):
    """Sends `count` pipelined GETs and reads their answers on one thread (OpenSSL allows no
    concurrent read and write on one connection), without blocking: writing while the socket
    takes bytes, reading what arrives, pausing 50 ms every `pause_every` answers (a slow reader).
    Returns the number of "HTTP/1.1 200 " answers, and whether the server closed."""
    payload = memoryview(get("/") * count)
    tls.setblocking(False)
    marker = b"HTTP/1.1 200 "
    answered, carry, closed = 0, b"", False
    deadline = time.monotonic() + timeout
    next_pause = pause_every
    while answered < count and not closed and time.monotonic() < deadline:
        want_write = len(payload) > 0
        readable, writable, _ = select.select([tls], [tls] if want_write else [], [], 1.0)
        if writable or (want_write and tls.pending() == 0):
            try:
                sent = tls.send(payload[:16384])
                payload = payload[sent:]
            except (ssl.SSLWantWriteError, ssl.SSLWantReadError, BlockingIOError):
                pass
        while True:
            try:
                chunk = tls.recv(65536)
            except (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError):
                break
            if not chunk:
                closed = True
                break
            data = carry + chunk
            answered += data.count(marker)
            carry = data[-(len(marker) - 1):]
        if pause_every and answered >= next_pause:
            next_pause += pause_every
            time.sleep(0.05)  # a slow reader: the server's output backs up meanwhile
    return answered, closed


class ThroughputShapesTest(unittest.TestCase):
    def test_3000_pipelined_requests_get_3000_answers(self):
        # The answers leave in 64 KiB batches: several TLS records per write, more than the BIO
        # pair holds at once.
        with TlsServer(threads=1) as server, server.tls_connect(timeout=20) as tls:
            answered, closed = pipeline(tls, 3000)
            self.assertEqual((answered, closed), (3000, False))

    def test_a_slow_reader_loses_nothing(self):
        # The server's output stalls (the kernel's buffers fill while the client does not read):
        # it must stop reading, keep what it has, and finish when the client reads again.
        with TlsServer(threads=1) as server, server.tls_connect(timeout=30) as tls:
            answered, closed = pipeline(tls, 20000, pause_every=2000)
            self.assertEqual((answered, closed), (20000, False))


class LimitsTest(unittest.TestCase):
    def test_a_client_silent_after_connect_is_closed_by_the_header_timeout(self):
        with TlsServer("--header-timeout", "0.5", threads=1) as server:
            raw = socket.create_connection(("127.0.0.1", server.tls_port), timeout=5)
            self.assertTrue(closed_within(raw, 5.0), "the handshake is bounded by --header-timeout")
            raw.close()

    def test_a_client_that_stops_inside_its_client_hello_is_closed(self):
        with TlsServer("--header-timeout", "0.5", threads=1) as server:
            raw = socket.create_connection(("127.0.0.1", server.tls_port), timeout=5)
            # A record header announcing 512 bytes of handshake, and 10 of them.
            raw.sendall(bytes([0x16, 0x03, 0x01, 0x02, 0x00]) + b"\x01" * 10)
            self.assertTrue(closed_within(raw, 5.0))
            raw.close()

    def test_plain_http_on_the_tls_port_is_refused_and_the_server_stays_up(self):
        with TlsServer(threads=1) as server:
            raw = socket.create_connection(("127.0.0.1", server.tls_port), timeout=5)
            raw.sendall(get("/"))
            self.assertTrue(closed_within(raw, 5.0))
            raw.close()
            with server.tls_connect() as tls:
                tls.sendall(get("/"))
                self.assertEqual(ResponseReader(tls).next().status, 200)

    @needs_tools("openssl")
    def test_renegotiation_is_refused(self):
        with TlsServer(threads=1) as server:
            # s_client reads "R" at a line's start as "renegotiate now" (TLS 1.2 only).
            client = subprocess.Popen(["openssl", "s_client", "-tls1_2", "-connect",
                                       f"127.0.0.1:{server.tls_port}"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT)
            output, _ = client.communicate(b"R\n", timeout=20)
            self.assertIn(b"RENEGOTIATING", output)
            self.assertIn(b"no renegotiation", output)
            with server.tls_connect() as tls:
                tls.sendall(get("/"))
                self.assertEqual(ResponseReader(tls).next().status, 200)


class FlagsTest(unittest.TestCase):
    def run_serve(self, *args):
        return subprocess.run([BIN, "serve", "--port", "0", *args], capture_output=True, text=True,
                              timeout=30)

    def test_tls_flags_without_tls_port_exit_2_naming_it(self):
        result = self.run_serve("--tls-self-signed")
        self.assertEqual(result.returncode, 2)
        self.assertIn("--tls-self-signed needs --tls-port", result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1)

    def test_ktls_without_tls_port_exits_2_naming_it(self):
        result = self.run_serve("--ktls")
        self.assertEqual(result.returncode, 2)
        self.assertIn("--ktls needs --tls-port", result.stderr)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1)

    def test_tls_port_without_a_certificate_exits_2(self):
        result = self.run_serve("--tls-port", "0")
        self.assertEqual(result.returncode, 2)
        self.assertIn("--tls-port needs --tls-cert", result.stderr)

    @needs_tools("openssl")
    def test_a_key_that_does_not_match_the_certificate_exits_2(self):
        with tempfile.TemporaryDirectory() as folder:
            cert, _ = make_certificate(folder, "one")
            _, other_key = make_certificate(folder, "two")
            result = self.run_serve("--tls-port", "0", "--tls-cert", cert, "--tls-key", other_key)
            self.assertEqual(result.returncode, 2)
            self.assertIn("does not match the certificate", result.stderr)
            self.assertEqual(len(result.stderr.strip().splitlines()), 1)

    def test_a_file_that_is_no_certificate_exits_2(self):
        with tempfile.NamedTemporaryFile("w", suffix=".pem") as bogus:
            bogus.write("not a certificate\n")
            bogus.flush()
            result = self.run_serve("--tls-port", "0", "--tls-cert", bogus.name, "--tls-key",
                                    bogus.name)
            self.assertEqual(result.returncode, 2)
            self.assertIn("--tls-cert", result.stderr)


if __name__ == "__main__":
    unittest.main()
