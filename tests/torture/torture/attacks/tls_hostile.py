"""Attack 13: hostile bytes on the TLS port, each on its own connection, while an established
TLS connection (the bystander) sits beside them and must still be answered after every case.

- Garbage instead of a ClientHello: random bytes (seeded; the first byte is no TLS content type,
  or the bytes would be a record header announcing random bytes still to come), a handshake
  record full of random bytes, a plain HTTP request, the HTTP/2 preface, SSLv2-style ClientHellos
  (offering TLS 1.2, TLS 1.0 and SSL 2.0), a ClientHello cut short then FIN, or close.
- In an established session, TLS 1.3 and TLS 1.2 each: a record cut short then FIN or close (its
  header announcing more than is sent, or the header itself cut), oversized records (a length
  past 2^14 + 256 in TLS 1.3, past 2^14 + 2048 in TLS 1.2, and 65,535: the header alone and with
  the whole body), and a corrupted record mid-stream after an answered request (a flipped byte
  in the ciphertext, in the tag, and a record sent twice).
- Renegotiation: `openssl s_client -tls1_2` typing "R" (RENEGOTIATE_RUNS times), beside as many
  runs that only connect and close.

Expectations: every case's connection is closed by the server at once (within AT_ONCE_S, with
a 10 s header timeout, so no case is left to the timer), its descriptor freed; what the server
sent is nothing or a TLS alert (before the handshake), and in a session the alert the record
earns (record_overflow, bad_record_mac), read by decrypting the server's answer; the bystander
and a new connection get 200 afterwards and the server is up. Renegotiation: every attempt
refused (s_client reports the server's no_renegotiation), and the server's CPU for a run that
attempts one at most RENEGOTIATE_CPU_RATIO times that of a run that does not (a renegotiation
it accepted would cost a second full handshake: 2x)."""
import random
import socket
import ssl
import time

from ..framework import cpu_ns, fd_count, wait_until
from ..tls_clients import (TlsSession, client_context, client_hello, records, wait_closed)

NUMBER = 13
NAME = "tls-hostile-records"
TITLE = "garbage for a ClientHello, cut, oversized and corrupted records, renegotiation"
BUDGET_S = (60, 180)

HEADER_TIMEOUT_S = 10
AT_ONCE_S = 3.0
RENEGOTIATE_CPU_RATIO = 1.5
SEED = 22
TLS_CONTENT_TYPES = range(20, 25)  # change_cipher_spec, alert, handshake, application, heartbeat
ALERT = 21
REQUEST = b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"
VERSIONS = {"tls13": ssl.TLSVersion.TLSv1_3, "tls12": ssl.TLSVersion.TLSv1_2}
# The longest record each version allows (RFC 8446 5.2, RFC 5246 6.2.3): one byte more is fatal.
LONGEST = {"tls13": 2**14 + 256, "tls12": 2**14 + 2048}


def sslv2_hello(version):
    """An SSLv2-format ClientHello (RFC 5246 appendix E.2) offering `version` (major, minor)."""
    ciphers = bytes.fromhex("00c02f" "00009c" "00002f")
    body = (bytes([1, *version]) + len(ciphers).to_bytes(2, "big") + (0).to_bytes(2, "big")
            + (16).to_bytes(2, "big") + ciphers + bytes(range(16)))
    return bytes([0x80 | len(body) >> 8, len(body) & 0xFF]) + body


def random_garbage(rng, length=300):
    data = bytearray(rng.getrandbits(8) for _ in range(length))
    while data[0] in TLS_CONTENT_TYPES:
        data[0] = rng.getrandbits(8)
    return bytes(data)


class Case:
    """One connection's outcome: how and when it ended, what the server sent, what it means."""

    def __init__(self, name, closed_s, how, answer, plain=False, alert=None, alert_wanted=None):
        self.name, self.closed_s, self.how, self.answer = name, closed_s, how, answer
        self.plain = plain  # before any handshake: an alert, if any, is in plaintext
        self.alert, self.alert_wanted = alert, alert_wanted
        self.freed_s = None  # when the server's descriptor was back, after the client's part


def plain_alerts_only(data):
    """True when data is nothing, or whole alert records only (a plaintext alert, pre-session)."""
    found, left = records(data)
    return left == 0 and all(kind == ALERT for kind, _ in found)


class Attack:
    def __init__(self, ctx, result, server):
        self.ctx, self.result, self.server = ctx, result, server
        self.port = server.tls_port
        self.cases = []
        self.bystander = TlsSession(self.port, client_context()).handshake()
        self.fds = fd_count(server.pid)  # with the bystander's connection
        self.bystander_answers = 0

    # -- the cases ----------------------------------------------------------------------------
    def raw(self, name, data, then="fin"):
        """data on a new connection, then FIN ("fin"), a close ("close") or nothing more."""
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
        try:
            sock.sendall(data)
            if then == "fin":
                sock.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before all of it went out
        if then == "close":
            sock.close()
            self.record(Case(name, None, "client closed", b""))
            return
        closed_s, answer, how = wait_closed(sock, AT_ONCE_S)
        sock.close()
        self.record(Case(name, closed_s, how, answer, plain=True))

    def in_session(self, version, name, make, then="", alert_wanted=None, answered_first=False):
        """A session of `version`; after an answered request if asked, make(session) gives the
        bytes to send; then FIN, close or nothing; the server's answer decrypted for its alert."""
        session = TlsSession(self.port, client_context(maximum=VERSIONS[version],
                                                       minimum=VERSIONS[version])).handshake()
        label = f"{version} {name}"
        if answered_first:
            status = session.request()
            self.result.expect(status == 200, f"{label}: the request before it answered 200, "
                               f"got {status}")
        try:
            session.sock.sendall(make(session))
            if then == "fin":
                session.sock.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass
        if then == "close":
            session.close()
            self.record(Case(label, None, "client closed", b""))
            return
        closed_s, answer, how = wait_closed(session.sock, AT_ONCE_S)
        alert = session.open_alert(answer)
        session.close()
        self.record(Case(label, closed_s, how, answer, alert=alert, alert_wanted=alert_wanted))

    def record(self, case):
        """Waits (bounded) for the server to free the connection, and asks the bystander."""
        started = time.monotonic()
        if wait_until(lambda: fd_count(self.server.pid) <= self.fds, AT_ONCE_S, interval=0.005):
            case.freed_s = time.monotonic() - started
        self.cases.append(case)
        status = self.bystander.request()
        self.bystander_answers += status == 200
        self.result.expect(status == 200, f"after '{case.name}': the bystander's request answered "
                           f"200, got {status}")

    # -- judging ------------------------------------------------------------------------------
    def judge(self):
        for case in self.cases:
            if case.how != "client closed":
                self.result.expect(
                    case.closed_s is not None,
                    f"{case.name}: the server closing the connection at once (within "
                    f"{AT_ONCE_S:g} s; its header timeout is {HEADER_TIMEOUT_S} s), it stayed open")
            self.result.expect(case.freed_s is not None,
                               f"{case.name}: the server's descriptor freed within {AT_ONCE_S:g} s")
            if case.plain:
                self.result.expect(plain_alerts_only(case.answer),
                                   f"{case.name}: nothing or TLS alerts in answer, got "
                                   f"{case.answer[:40].hex()}")
            if case.alert_wanted is not None:
                self.result.expect(case.alert == case.alert_wanted,
                                   f"{case.name}: the alert {case.alert_wanted}, got {case.alert}")


def garbage(attack, rng):
    for i in range(4):
        attack.raw(f"random bytes {i + 1}", random_garbage(rng))
    attack.raw("a handshake record of random bytes",
               b"\x16\x03\x01\x00\xc8" + bytes(rng.getrandbits(8) for _ in range(200)))
    attack.raw("plain HTTP", REQUEST)
    attack.raw("the HTTP/2 preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
    for label, version in (("TLS 1.2", (3, 3)), ("TLS 1.0", (3, 1)), ("SSL 2.0", (0, 2))):
        attack.raw(f"an SSLv2-style ClientHello offering {label}", sslv2_hello(version))
    hello = client_hello(client_context())
    attack.raw("a ClientHello cut short, then FIN", hello[:60], then="fin")
    attack.raw("a ClientHello cut short, then close", hello[:60], then="close")


def flip(data, index):
    changed = bytearray(data)
    changed[index] ^= 0x01
    return bytes(changed)


def records_attacks(attack, version):
    def cut(keep):
        return lambda session: session.seal(REQUEST)[:keep]

    attack.in_session(version, "a record cut inside its body, then FIN", cut(20), then="fin")
    attack.in_session(version, "a record cut inside its body, then close", cut(20), then="close")
    attack.in_session(version, "a record cut inside its header, then FIN", cut(3), then="fin")
    longest = LONGEST[version]
    for length in (longest + 1, 0xFFFF):
        header = bytes([23, 3, 3, length >> 8, length & 0xFF])
        attack.in_session(version, f"a record header announcing {length} bytes",
                          lambda session, h=header: h, alert_wanted="TLSV1_ALERT_RECORD_OVERFLOW")
    header = bytes([23, 3, 3, (longest + 1) >> 8, (longest + 1) & 0xFF])
    attack.in_session(version, f"a whole record of {longest + 1} bytes",
                      lambda session: header + bytes(longest + 1),
                      alert_wanted="TLSV1_ALERT_RECORD_OVERFLOW")
    attack.in_session(version, "a flipped byte mid-stream",
                      lambda session: flip(session.seal(REQUEST), 12), answered_first=True,
                      alert_wanted="SSLV3_ALERT_BAD_RECORD_MAC")
    attack.in_session(version, "a flipped tag mid-stream",
                      lambda session: flip(session.seal(REQUEST), -1), answered_first=True,
                      alert_wanted="SSLV3_ALERT_BAD_RECORD_MAC")

    def replay(session):
        record = session.seal(REQUEST)
        return record + record  # the second copy's sequence number is wrong: its MAC fails

    attack.in_session(version, "a record sent twice mid-stream", replay, answered_first=True,
                      alert_wanted="SSLV3_ALERT_BAD_RECORD_MAC")


def renegotiation(ctx, result, server, runs):
    """s_client -tls1_2 typing "R", and as many runs that do not; the server's CPU for each."""
    ctx.need_tools("openssl")
    inputs = {}
    for label, text in (("plain", b""), ("renegotiate", b"R\n")):
        path = f"{ctx.scratch}/s_client-{label}.in"
        with open(path, "wb") as f:
            f.write(text)
        inputs[label] = path
    cpu, refused, outputs = {}, 0, []
    for label in ("plain", "renegotiate", "plain", "renegotiate"):  # interleaved halves
        started = cpu_ns(server.pid)
        for i in range(runs // 2):
            with open(inputs[label], "rb") as stdin:
                client = ctx.spawn(["openssl", "s_client", "-tls1_2", "-connect",
                                    f"127.0.0.1:{server.tls_port}"], name=f"s_client-{label}-{i}",
                                   stdin=stdin)
            code = client.wait(20)
            output = client.output() + client.errors().encode()
            if label == "renegotiate":
                outputs.append(output)
                refused += b"RENEGOTIATING" in output and b"no renegotiation" in output
            elif b"Verify return code" not in output:
                result.failures.append(f"s_client without renegotiation: no handshake (exit "
                                       f"{code}): {output[-300:]!r}")
        cpu[label] = cpu.get(label, 0) + cpu_ns(server.pid) - started
    ratio = cpu["renegotiate"] / max(cpu["plain"], 1)
    result.figure("renegotiations_refused", f"{refused}/{len(outputs)}")
    result.figure("renegotiate_cpu_us", round(cpu["renegotiate"] / 1000 / len(outputs)))
    result.figure("plain_cpu_us", round(cpu["plain"] / 1000 / len(outputs)))
    result.expect(refused == len(outputs),
                  f"every renegotiation refused (s_client: RENEGOTIATING, then the server's no "
                  f"renegotiation), {refused} of {len(outputs)}; last: {outputs[-1][-300:]!r}")
    result.expect(ratio <= RENEGOTIATE_CPU_RATIO,
                  f"a refused renegotiation costs the server little: its CPU for a connection "
                  f"that tries one at most {RENEGOTIATE_CPU_RATIO:g}x that of one that does not, "
                  f"it was {ratio:.2f}x")


def run(ctx, result):
    server = ctx.serve("--tls-port", 0, "--tls-self-signed", "--header-timeout",
                       HEADER_TIMEOUT_S)
    attack = Attack(ctx, result, server)
    rng = random.Random(SEED)
    ctx.progress("garbage instead of a ClientHello")
    garbage(attack, rng)
    for version in VERSIONS:
        ctx.progress(f"cut, oversized and corrupted records ({version})")
        records_attacks(attack, version)
    attack.judge()
    waited = [c for c in attack.cases if c.how != "client closed"]
    closed = [c.closed_s for c in waited if c.closed_s is not None]
    freed = [c.freed_s for c in attack.cases if c.freed_s is not None]
    wanted = [c for c in attack.cases if c.alert_wanted]
    result.figure("cases", len(attack.cases))
    result.figure("closed_by_server", f"{len(closed)}/{len(waited)}")
    result.figure("freed", f"{len(freed)}/{len(attack.cases)}")
    result.figure("max_close_ms", round(max(closed, default=0) * 1000, 1))
    result.figure("max_freed_ms", round(max(freed, default=0) * 1000, 1))
    result.figure("alerts_right", f"{sum(c.alert == c.alert_wanted for c in wanted)}/{len(wanted)}")
    result.figure("bystander_ok", f"{attack.bystander_answers}/{len(attack.cases)}")
    ctx.progress("renegotiation attempts (s_client -tls1_2, R)")
    renegotiation(ctx, result, server, 10 if ctx.short else 40)
    fresh = TlsSession(server.tls_port, client_context()).handshake()
    status = fresh.request()
    fresh.close()
    final = attack.bystander.request()
    attack.bystander.close()
    result.expect(status == 200, f"a new TLS connection afterwards answered 200, got {status}")
    result.expect(final == 200, f"the bystander answered 200 at the end, got {final}")
    result.expect(server.alive(), "the server died under the hostile records")
    server.stop()
    result.expect(server.process.returncode == 0,
                  f"the server exited {server.process.returncode} on SIGTERM")
