"""Helpers for integration tests: start `ringside serve` on a free port, talk raw HTTP to it.

Every wait is bounded; nothing sleeps to synchronise. The binary comes from $RINGSIDE_BIN (set by
ctest), so the same tests run against the release and the sanitizer builds.
"""
import functools
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import time

BIN = os.environ.get("RINGSIDE_BIN", "")
START_TIMEOUT = 15.0
LISTENING = re.compile(rb"listening on http://\S+:(\d+) ")
LISTENING_TLS = re.compile(rb"listening on https://\S+:(\d+) ")


def wait_until(predicate, timeout, interval=0.02):
    """Polls predicate until it is true or timeout seconds pass; returns its last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


class Server:
    """`with Server('--header-timeout', '1') as s:` starts ringside serve and stops it after. With
    --tls-port among the arguments it also waits for the TLS listener: s.https_port."""

    def __init__(self, *args, threads=2, preexec_fn=None):
        if not BIN:
            raise RuntimeError("set RINGSIDE_BIN to the ringside binary (ctest does)")
        self.args = [BIN, "serve", "--port", "0", "--threads", str(threads), *args]
        self.preexec_fn = preexec_fn
        self.process = None
        self.port = None
        self.https_port = None
        self.stderr = b""

    def __enter__(self):
        self.process = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        preexec_fn=self.preexec_fn)
        output = b""
        deadline = time.monotonic() + START_TIMEOUT
        wants_tls = "--tls-port" in self.args
        while self.port is None or (wants_tls and self.https_port is None):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                raise AssertionError(f"server did not start in {START_TIMEOUT}s: {output!r}")
            ready, _, _ = select.select([self.process.stdout], [], [], remaining)
            if ready:
                chunk = os.read(self.process.stdout.fileno(), 4096)
                if not chunk:
                    self.process.wait(timeout=5)
                    raise AssertionError(
                        f"server exited with {self.process.returncode}: {self.process.stderr.read()!r}")
                output += chunk
                match = LISTENING.search(output)
                if match:
                    self.port = int(match.group(1))
                match = LISTENING_TLS.search(output)
                if match:
                    self.https_port = int(match.group(1))
        self.startup_output = output  # what it printed so far (more lines may be in it)
        return self

    def __exit__(self, *exc):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        self.stderr = self.process.stderr.read()
        self.process.stdout.close()
        self.process.stderr.close()
        # A sanitizer report makes the process exit non-zero: surface it.
        if self.process.returncode not in (0, -signal.SIGKILL):
            raise AssertionError(
                f"server exited with {self.process.returncode}: {self.stderr.decode(errors='replace')}")
        return False

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=5)

    def url(self, path="/"):
        return f"http://127.0.0.1:{self.port}{path}"

    def https_url(self, path="/", host="127.0.0.1"):
        return f"https://{host}:{self.https_port}{path}"

    def connect(self, timeout=5.0):
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock


class Response:
    def __init__(self, status, reason, headers, body, raw):
        self.status, self.reason, self.headers, self.body, self.raw = status, reason, headers, body, raw

    def header(self, name):
        return self.headers.get(name.lower())


class ResponseReader:
    """Reads responses one at a time from a socket, keeping what follows for the next one."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("connection closed before a whole response arrived")
        self.buffer += chunk

    def next(self, head_request=False):
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        version, status, reason = lines[0].split(b" ", 2)
        assert version == b"HTTP/1.1", lines[0]
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            headers[name.decode().lower()] = value.strip().decode()
        status = int(status)
        length = 0 if head_request or status < 200 else int(headers.get("content-length", "0"))
        while len(self.buffer) < length:
            self._fill()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return Response(status, reason.decode(), headers, body, head + b"\r\n\r\n" + body)

    def closed_within(self, timeout):
        """True when the peer closes (EOF or reset) within timeout, with no further bytes."""
        self.sock.settimeout(timeout)
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return True
                self.buffer += chunk
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False


def accepts(port):
    """True when something accepts TCP connections on 127.0.0.1:port (a draining server does not)."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def get(path="/", host="localhost", extra=""):
    return f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{extra}\r\n".encode()


def run_tool(args, timeout=60, **kwargs):
    """Runs a client tool (curl, ab, wrk) with a bound; returns (returncode, stdout text)."""
    result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout,
                            **kwargs)
    return result.returncode, result.stdout.decode(errors="replace")


def needs_tools(*tools):
    """Marks a test, or every test of a TestCase class, as running these programs. A missing one
    fails the test, naming it: a skipped test would pass while checking nothing."""
    def check():
        missing = [tool for tool in tools if shutil.which(tool) is None]
        if missing:
            raise AssertionError(f"{', '.join(missing)} not found on PATH: run scripts/setup")

    def wrap(test):
        @functools.wraps(test)
        def checked(*args, **kwargs):
            check()
            return test(*args, **kwargs)
        return checked

    def decorate(target):
        if not isinstance(target, type):
            return wrap(target)
        for name, member in list(vars(target).items()):
            if name.startswith("test") and callable(member):
                setattr(target, name, wrap(member))
        return target
    return decorate


def send_then_fin(sock, data):
    """Sends data and a FIN in one TCP segment: corked, the data waits in the kernel, and shutdown
    flushes it with the FIN flag on its last segment. The peer learns of both from one readiness
    event, which is what a peer that takes a short read to mean "drained" gets wrong."""
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)
    sock.sendall(data)
    sock.shutdown(socket.SHUT_WR)


def socket_fds(pid):
    """How many sockets process pid holds open (listeners included)."""
    fd_dir = f"/proc/{pid}/fd"
    count = 0
    for name in os.listdir(fd_dir):
        try:
            count += os.readlink(os.path.join(fd_dir, name)).startswith("socket:")
        except FileNotFoundError:
            pass  # closed while we looked
    return count


def tcp_sockets(port, state="all"):
    """Lines of `ss` for the TCP sockets on local port `port` in `state` (an ss state filter, e.g.
    close-wait): "Recv-Q Send-Q local peer" each."""
    output = subprocess.run(["ss", "-Htn", "state", state, f"( sport = :{port} )"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True,
                            timeout=10).stdout.decode()
    return [line for line in output.splitlines() if line.strip()]


class LoadResult:
    def __init__(self, returncode, doc, stderr, elapsed):
        self.returncode, self.doc, self.stderr, self.elapsed = returncode, doc, stderr, elapsed


def run_load(*args, timeout=60):
    """Runs `ringside load --json ARGS` with a bound; returns its exit code, parsed document, stderr
    and wall time. Does not judge the exit code: a run where every request failed may exit
    non-zero."""
    start = time.monotonic()
    try:
        result = subprocess.run([BIN, "load", "--json", *args], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AssertionError(
            f"ringside load {' '.join(args)} did not end within {timeout}s") from None
    elapsed = time.monotonic() - start
    try:
        doc = json.loads(result.stdout)
    except ValueError:
        raise AssertionError(f"ringside load {' '.join(args)} exited {result.returncode} without a "
                             f"JSON report: {result.stdout!r} {result.stderr!r}") from None
    return LoadResult(result.returncode, doc, result.stderr.decode(errors="replace"), elapsed)


def read_responses(sock, count, timeout, after_chunk=None):
    """Reads pipelined responses (each framed by its Content-Length) until `count` have arrived, the
    peer closes or `timeout` seconds pass; returns the status codes seen, in order. after_chunk, if
    given, is called with the size of each chunk read (a slow reader uses it to pace itself)."""
    deadline = time.monotonic() + timeout
    buffer = bytearray()
    statuses = []
    while len(statuses) < count:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        sock.settimeout(remaining)
        try:
            chunk = sock.recv(65536)
        except (socket.timeout, ConnectionResetError):
            break
        if not chunk:
            break
        buffer += chunk
        consumed = _parse_responses(buffer, statuses)
        del buffer[:consumed]
        if after_chunk is not None:
            after_chunk(len(chunk))
    return statuses


_CONTENT_LENGTH = re.compile(rb"\r\ncontent-length:[ \t]*(\d+)", re.IGNORECASE)


def _parse_responses(buffer, statuses):
    """Appends the status of each whole response in buffer; returns the bytes they take."""
    pos = 0
    while True:
        end = buffer.find(b"\r\n\r\n", pos)
        if end < 0:
            return pos
        head = bytes(buffer[pos:end])
        match = _CONTENT_LENGTH.search(head)
        if match is None:
            raise AssertionError(f"response without Content-Length: {head!r}")
        total = end + 4 + int(match.group(1))
        if len(buffer) < total:
            return pos
        statuses.append(int(head.split(b" ", 2)[1]))
        pos = total
