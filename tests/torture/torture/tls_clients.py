"""TLS clients for the TLS attacks (attacks/tls_*.py), on Python's ssl module (OpenSSL):

- `probe`: one keep-alive TLS connection sending GET / at a constant rate, its latency measured
  from each request's intended send time (a stalled server cannot hide its stall: coordinated
  omission corrected, as `ringside load -R` does); one JSON document at the end.
- `slowloris`: rounds of connections that stop after the TCP connect, inside the ClientHello
  record, or after a whole ClientHello; each connection's lifetime until the server closes it;
  one JSON document at the end.
- `TlsSession`: a handshake over a raw socket through memory BIOs, so that an attack can send the
  session's ciphertext cut, corrupted or with records of its own in it.

The two programs run as children of the attack (`python3 tls_clients.py probe ...`), pinned to
the load core; written before ringside load spoke TLS (it could be the probe now). Traffic goes only
to 127.0.0.1.
"""
import argparse
import json
import resource
import selectors
import socket
import ssl
import sys
import time

HOST = "127.0.0.1"
REQUEST = b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"


def client_context(maximum=None, minimum=None):
    """No verification (the server's certificate is made at its start), ALPN http/1.1."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    if maximum is not None:
        context.maximum_version = maximum
    if minimum is not None:
        context.minimum_version = minimum
    context.set_alpn_protocols(["http/1.1"])
    return context


def client_hello(context):
    """A real ClientHello (one record) from `context`: fresh random and key shares each call."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    session = context.wrap_bio(incoming, outgoing, server_hostname="localhost")
    try:
        session.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


def wait_closed(sock, timeout):
    """Reads until the peer ends the connection or `timeout` passes: (seconds until the end or
    None, bytes read, "eof" | "reset" | "open")."""
    started = time.monotonic()
    deadline = started + timeout
    data = b""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None, data, "open"
        sock.settimeout(remaining)
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            return None, data, "open"
        except ConnectionResetError:
            return time.monotonic() - started, data, "reset"
        if not chunk:
            return time.monotonic() - started, data, "eof"
        data += chunk


def records(data):
    """(content type, length) of each whole TLS record in data, and how many bytes follow them."""
    found, pos = [], 0
    while len(data) - pos >= 5:
        length = int.from_bytes(data[pos + 3:pos + 5], "big")
        if len(data) - pos - 5 < length:
            break
        found.append((data[pos], length))
        pos += 5 + length
    return found, len(data) - pos


class TlsSession:
    """A TLS client whose ciphertext goes through the caller's hands: `handshake()` completes it
    over the socket, `seal(plaintext)` returns the records the caller then sends (whole, cut or
    corrupted), `sock` is the raw socket, and `open_alert(bytes)` decrypts what the server sent
    back and names the alert in it."""

    def __init__(self, port, context, timeout=5.0):
        self.sock = socket.create_connection((HOST, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.incoming, self.outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.tls = context.wrap_bio(self.incoming, self.outgoing, server_hostname="localhost")
        self.carry = b""

    def handshake(self):
        while True:
            try:
                self.tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                self._flush()
                chunk = self.sock.recv(65536)
                if not chunk:
                    raise ConnectionError("the server closed during the handshake")
                self.incoming.write(chunk)
        self._flush()
        return self

    def _flush(self):
        data = self.outgoing.read()
        if data:
            self.sock.sendall(data)

    def seal(self, plaintext):
        self.tls.write(plaintext)
        return self.outgoing.read()

    def request(self, plaintext=REQUEST, timeout=5.0):
        """Sends plaintext, returns the response's status, or None when the server closed or sent
        an alert instead."""
        self.sock.sendall(self.seal(plaintext))
        self.sock.settimeout(timeout)
        try:
            status, self.carry = read_response(self._recv, self.carry)
            return status
        except (OSError, ssl.SSLError, ConnectionError, ValueError):
            return None

    def _recv(self):
        """The next plaintext bytes (b"" at the end), reading the socket as needed."""
        while True:
            try:
                return self.tls.read(65536)
            except ssl.SSLWantReadError:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return b""
                self.incoming.write(chunk)

    def open_alert(self, ciphertext):
        """Decrypts the server's bytes: the alert's name ("TLSV1_ALERT_RECORD_OVERFLOW"),
        "close_notify", "no alert" when the bytes end without one, or "undecryptable"."""
        self.incoming.write(ciphertext)
        try:
            while self.tls.read(65536):
                pass
            return "close_notify"
        except ssl.SSLZeroReturnError:
            return "close_notify"
        except ssl.SSLWantReadError:
            return "no alert"
        except ssl.SSLError as error:
            return error.reason or "undecryptable"

    def close(self):
        self.sock.close()


# -- probe ---------------------------------------------------------------------------------------
def percentile(sorted_values, fraction):
    if not sorted_values:
        return 0.0
    index = min(len(sorted_values) - 1, max(0, int(round(fraction * len(sorted_values))) - 1))
    return sorted_values[index]


def read_response(recv, carry):
    """Reads one response (head and Content-Length body) through recv() (b"" at the end);
    returns (status, the bytes after it)."""
    data = carry
    while b"\r\n\r\n" not in data:
        chunk = recv()
        if not chunk:
            raise ConnectionError("the server closed the connection")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(rest) < length:
        chunk = recv()
        if not chunk:
            raise ConnectionError("the server closed the connection inside a response")
        rest += chunk
    if not head.startswith(b"HTTP/1.1 "):
        raise ValueError(f"not an HTTP/1.1 response: {head[:40]!r}")
    return int(head[9:12]), rest[length:]


def probe(port, rate, seconds, timeout):
    """Constant-rate keep-alive GETs on one TLS connection (a new one after an error)."""
    context = client_context()
    interval = 1.0 / rate
    latencies_us, errors, statuses, connects = [], [], {}, 0
    worst = []  # (latency, intended send time) of the slowest requests, to place them in time
    tls, carry = None, b""
    started = time.monotonic()
    count = int(rate * seconds)
    for i in range(count):
        intended = started + i * interval
        delay = intended - time.monotonic()
        if delay > 0:
            time.sleep(delay)  # pacing at the constant rate, not a wait for anything
        try:
            if tls is None:
                raw = socket.create_connection((HOST, port), timeout=timeout)
                raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                tls = context.wrap_socket(raw, server_hostname="localhost")
                connects += 1
                carry = b""
            tls.settimeout(timeout)
            tls.sendall(REQUEST)
            status, carry = read_response(lambda: tls.recv(65536), carry)
            statuses[status] = statuses.get(status, 0) + 1
            latencies_us.append((time.monotonic() - intended) * 1e6)
            worst.append((latencies_us[-1], intended))
            if len(worst) > 64:
                worst = sorted(worst, reverse=True)[:5]
        except (OSError, ssl.SSLError, ConnectionError, ValueError) as error:
            errors.append(f"request {i}: {type(error).__name__}: {error}")
            if tls is not None:
                tls.close()
            tls = None
    elapsed = time.monotonic() - started
    if tls is not None:
        tls.close()
    latencies_us.sort()
    return {
        "requests": count,
        "completed": len(latencies_us),
        "errors": len(errors),
        "error_samples": errors[:5],
        "statuses": {str(k): v for k, v in statuses.items()},
        "connects": connects,
        "elapsed_s": elapsed,
        "latency_us": {"p50": percentile(latencies_us, 0.50), "p99": percentile(latencies_us, 0.99),
                       "max": latencies_us[-1] if latencies_us else 0.0},
        "started": started,
        "slowest": [[round(at - started, 3), round(us / 1000, 1)]
                    for us, at in sorted(worst, reverse=True)[:5]],
    }


# -- slowloris -----------------------------------------------------------------------------------
KINDS = ("connect", "partial", "hello")


class SlowConnection:
    def __init__(self, sock, opened, round_index):
        self.sock, self.opened, self.round = sock, opened, round_index
        self.closed = None  # seconds from the connect to the server's close
        self.how = "open"
        self.received = 0


def open_slow(port, kind, hellos, index):
    """One connection of `kind`: silent after the connect, the first 40 bytes of a ClientHello
    (its record announces more), or a whole ClientHello (the server answers; nothing follows)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(5.0)
    sock.connect((HOST, port))
    opened = time.monotonic()
    if kind == "partial":
        sock.sendall(hellos[index % len(hellos)][:40])
    elif kind == "hello":
        sock.sendall(hellos[index % len(hellos)])
    sock.setblocking(False)
    return sock, opened


def slowloris(port, kind, connections, rate, seconds, round_s, wait_s):
    """A round of `connections` slow connections (opened at `rate` a second, as slowhttptest's
    -r) every round_s for `seconds`; then waits up to wait_s for the server to close what is still
    open. Each lifetime is from the connect to the server's close."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    # A few real ClientHellos, reused: the server does a handshake's work for each all the same.
    hellos = [client_hello(client_context()) for _ in range(8)]
    selector = selectors.DefaultSelector()
    conns, rounds, connect_errors = [], [], []
    started = time.monotonic()
    open_count = 0

    def on_readable(conn):
        nonlocal open_count
        try:
            chunk = conn.sock.recv(65536)
        except BlockingIOError:
            return
        except ConnectionResetError:
            chunk, conn.how = b"", "reset"
        if chunk:
            conn.received += len(chunk)
            return
        if conn.how == "open":
            conn.how = "eof"
        conn.closed = time.monotonic() - conn.opened
        selector.unregister(conn.sock)
        conn.sock.close()
        open_count -= 1

    def poll(until, pacing=True):
        """Watches the open connections until `until`; when none is open, returns at once, after
        pacing to `until` if asked."""
        while time.monotonic() < until:
            if not open_count:
                if pacing:
                    time.sleep(max(0.0, until - time.monotonic()))  # nothing to watch meanwhile
                return
            for key, _ in selector.select(max(0.0, min(0.05, until - time.monotonic()))):
                on_readable(key.data)

    while time.monotonic() - started < seconds:
        round_start = time.monotonic()
        rounds.append(round_start)
        for i in range(connections):
            poll(round_start + i / rate)  # pacing the opening at `rate`, watching the open ones
            try:
                sock, opened = open_slow(port, kind, hellos, i)
            except OSError as error:
                connect_errors.append(f"{type(error).__name__}: {error}")
                continue
            conn = SlowConnection(sock, opened, len(rounds) - 1)
            conns.append(conn)
            selector.register(sock, selectors.EVENT_READ, conn)
            open_count += 1
        next_round = min(round_start + round_s, started + seconds)
        poll(next_round)
    poll(time.monotonic() + wait_s, pacing=False)
    lifetimes = sorted(c.closed for c in conns if c.closed is not None)
    still_open = [c for c in conns if c.closed is None]
    for conn in still_open:
        conn.sock.close()
    return {
        "kind": kind,
        "rounds": rounds,
        "opened": len(conns),
        "closed": len(lifetimes),
        "still_open": len(still_open),
        "resets": sum(1 for c in conns if c.how == "reset"),
        "answered": sum(1 for c in conns if c.received > 0),
        "connect_errors": len(connect_errors),
        "connect_error_samples": connect_errors[:3],
        "lifetime_s": {"min": lifetimes[0] if lifetimes else 0.0,
                       "p50": percentile(lifetimes, 0.5),
                       "max": lifetimes[-1] if lifetimes else 0.0},
    }


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("probe")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--rate", type=float, default=500)
    p.add_argument("--seconds", type=float, default=5)
    p.add_argument("--timeout", type=float, default=10)
    s = commands.add_parser("slowloris")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--kind", choices=KINDS, required=True)
    s.add_argument("--connections", type=int, default=500)
    s.add_argument("--rate", type=float, default=1000)
    s.add_argument("--seconds", type=float, default=5)
    s.add_argument("--round-s", type=float, default=3)
    s.add_argument("--wait-s", type=float, default=10)
    options = parser.parse_args(argv)
    if options.command == "probe":
        report = probe(options.port, options.rate, options.seconds, options.timeout)
    else:
        report = slowloris(options.port, options.kind, options.connections, options.rate,
                           options.seconds, options.round_s, options.wait_s)
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
