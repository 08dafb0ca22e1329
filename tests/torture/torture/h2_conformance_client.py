"""Runs attack 15's cases (torture/h2_conformance_cases.py) against one h2c server: each case on a
fresh connection, what came back classified as one outcome, one JSON document on stdout. Run
under Debian's python3 (hpack, hyperframe), from tests/torture:

    /usr/bin/python3 -m torture.h2_conformance_client --port 8080 [--repeat 3] [--only get]

Each connection: the preface and our SETTINGS; the server's first frame, which must be its
SETTINGS (RFC 9113 3.4), and our ACK of it; the case's frames, built from the server's SETTINGS;
then a PING, whose ACK says the connection still takes frames. Every wait is bounded by the
connection's deadline (a socket timeout), never a sleep. Traffic only to 127.0.0.1.
"""
import argparse
import json
import socket
import sys
import time

import hpack
from hyperframe.exceptions import HyperframeError
from hyperframe.frame import (ContinuationFrame, Frame, GoAwayFrame, HeadersFrame, PingFrame,
                              RstStreamFrame, SettingsFrame)

from .h2_attacker import ERROR_NAMES, HOST, PREFACE
from .h2_conformance_cases import CASES, ENABLE_PUSH, Peer, settings

PROBE = b"conform!"
FRAME_NAMES = {0x0: "DATA", 0x1: "HEADERS", 0x2: "PRIORITY", 0x3: "RST_STREAM", 0x4: "SETTINGS",
               0x5: "PUSH_PROMISE", 0x6: "PING", 0x7: "GOAWAY", 0x8: "WINDOW_UPDATE",
               0x9: "CONTINUATION"}
FLAG_NAMES = ((0x1, "END_STREAM"), (0x4, "END_HEADERS"), (0x8, "PADDED"), (0x20, "PRIORITY"))
LOG_FRAMES = 12  # frames of the server's kept in a case's detail


class Connection:
    """One case's connection: what the server sent, as frames and as the state a case is decided
    on (its first frame, its SETTINGS, our SETTINGS acked, the first GOAWAY, each stream's reset
    and final status, the probe's PING ACK)."""

    def __init__(self, port, timeout):
        self.deadline = time.monotonic() + timeout
        self.sock = socket.create_connection((HOST, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""
        self.decoder = hpack.Decoder()
        self.open_block = None  # (stream, bytes) of a header block awaiting its CONTINUATION
        self.first = self.goaway = self.http1 = None
        self.server_settings, self.resets, self.statuses = {}, {}, {}
        self.acked = self.probe_acked = self.closed = False
        self.log = []

    def close(self):
        self.sock.close()

    def send(self, data):
        try:
            self.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server ended it: what it wrote before is still to be read

    def next_frame(self):
        """The server's next frame, observed; None once it closed or the deadline passed."""
        while True:
            if len(self.buffer) >= 9:
                length = int.from_bytes(self.buffer[:3], "big")
                if len(self.buffer) >= 9 + length:
                    return self.observe(self.take(length))
            if self.first is None and self.buffer.startswith(b"HTTP/1."):
                self.http1 = int(self.buffer[9:12]) if len(self.buffer) >= 12 else 0
                return None
            left = self.deadline - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                return None
            except ConnectionResetError:
                data = b""
            if not data:
                self.closed = True
                return None
            self.buffer += data

    def take(self, length):
        header, body = self.buffer[:9], self.buffer[9:9 + length]
        self.buffer = self.buffer[9 + length:]
        try:
            parsed, _ = Frame.parse_frame_header(memoryview(header))
            parsed.parse_body(memoryview(body))
        except HyperframeError as error:
            raise ValueError(f"the server sent a frame hyperframe cannot parse: {error}")
        return parsed

    def observe(self, f):
        """Updates the state from one frame; returns the frame."""
        if self.first is None:
            self.first = type(f).__name__.replace("Frame", "").upper()
        self.log.append(describe_received(f))
        if isinstance(f, SettingsFrame):
            if "ACK" in f.flags:
                self.acked = True
            else:
                self.server_settings.update(f.settings)
        elif isinstance(f, GoAwayFrame) and self.goaway is None:
            self.goaway = ERROR_NAMES.get(f.error_code, f"0x{f.error_code:x}")
        elif isinstance(f, RstStreamFrame):
            self.resets.setdefault(f.stream_id, ERROR_NAMES.get(f.error_code, str(f.error_code)))
        elif isinstance(f, PingFrame) and "ACK" in f.flags and f.opaque_data == PROBE:
            self.probe_acked = True
        elif isinstance(f, (HeadersFrame, ContinuationFrame)):
            self.header_block(f)
        return f

    def header_block(self, f):
        stream, block = (f.stream_id, b"") if isinstance(f, HeadersFrame) else self.open_block
        block += f.data
        if "END_HEADERS" not in f.flags:
            self.open_block = (stream, block)
            return
        self.open_block = None
        fields = dict(self.decoder.decode(block, raw=True))
        status = int(fields.get(b":status", b"0"))
        if status >= 200:
            self.statuses.setdefault(stream, status)
            self.log[-1] += f" :status {status}"


def decided(conn, case):
    """The case's outcome if what came so far decides it, else None."""
    if conn.goaway is not None:
        return f"goaway:{conn.goaway}"
    if case.watch in conn.resets:
        return f"rst:{conn.resets[case.watch]}"
    if case.watch in conn.statuses:
        return f"status:{conn.statuses[case.watch]}"
    if case.watch == "ack" and conn.acked:
        return "acked"
    if case.watch is None and conn.probe_acked:
        return "ignored"
    return None


def outcome(conn, case):
    """Reads until the case is decided, the server closes, or the deadline."""
    while decided(conn, case) is None and conn.next_frame() is not None:
        pass
    found = decided(conn, case)
    if found:
        return found
    if conn.http1 is not None:
        return f"http1:{conn.http1}"
    return "close" if conn.closed else "timeout"


def run_case(port, case, timeout):
    """One case on a fresh connection; returns (outcome, what was sent, what came back, the
    server's first frame)."""
    try:
        conn = Connection(port, timeout)
    except OSError as error:
        return f"connect:{error.strerror or error}", "nothing (no connection)", "-", None
    try:
        opening = case.opening
        if opening is None:
            conn.send(PREFACE + settings((ENABLE_PUSH, 0)))
            while not conn.server_settings and conn.first != "GOAWAY" and conn.next_frame():
                pass
            opening = settings(flags=0x1)  # our ACK of the server's SETTINGS
        peer = Peer(conn.server_settings)
        frames = case.frames(peer)
        probe = PingFrame(0, opaque_data=PROBE).serialize()
        conn.send(opening + b"".join(frames) + probe)
        found = outcome(conn, case)
        sent = describe_sent(frames, peer)
        if case.opening is not None:
            sent = (f"{case.opening[:24]!r}{' + SETTINGS' if len(case.opening) > 24 else ''}, "
                    f"{sent}, PING")
        return found, sent, ", ".join(conn.log[:LOG_FRAMES]) or "-", conn.first
    finally:
        conn.close()


# -- descriptions -------------------------------------------------------------------------------
def flag_text(kind, flags):
    if kind in (0x4, 0x6):  # SETTINGS, PING: 0x1 is ACK
        return "ACK" if flags & 0x1 else ""
    return "|".join(name for bit, name in FLAG_NAMES if flags & bit)


def shown(value):
    """A field value as a message shows it: escaped, long ones cut."""
    value = repr(value)[1:-1]
    return value if len(value) <= 24 else value[:20] + "..."


def describe_sent(frames, peer):
    """Our frames, one `TYPE(stream, flags, length)` each, then the fields we encoded."""
    parts = []
    for data in frames:
        length, kind, flags = int.from_bytes(data[:3], "big"), data[3], data[4]
        stream = int.from_bytes(data[5:9], "big") & 0x7fffffff
        flags_shown = flag_text(kind, flags)
        parts.append(f"{FRAME_NAMES.get(kind, f'type 0x{kind:x}')}(s{stream}"
                     f"{' ' + flags_shown if flags_shown else ''}, {length} B)")
    text = " ".join(parts) or "nothing"
    if peer.encoded:
        text += " fields " + " / ".join(
            ", ".join(f"{n}: {shown(v)}" for n, v in block)
            for block in peer.encoded)
    return text


def describe_received(f):
    name = type(f).__name__.replace("Frame", "").upper()
    if isinstance(f, GoAwayFrame):
        debug = f.additional_data.decode(errors="replace")[:80]
        return (f"GOAWAY({ERROR_NAMES.get(f.error_code, f.error_code)}, last {f.last_stream_id}"
                f"{', ' + repr(debug) if debug else ''})")
    if isinstance(f, RstStreamFrame):
        return f"RST_STREAM(s{f.stream_id}, {ERROR_NAMES.get(f.error_code, f.error_code)})"
    if isinstance(f, SettingsFrame) and "ACK" in f.flags:
        return "SETTINGS(ACK)"
    if isinstance(f, PingFrame):
        return "PING(ACK)" if "ACK" in f.flags else "PING"
    return f"{name}(s{f.stream_id})"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--timeout", type=float, default=2.0, help="seconds a case may take")
    parser.add_argument("--repeat", type=int, default=1, help="runs of every case")
    parser.add_argument("--only", default="", help="comma-separated case names")
    parser.add_argument("--extra", action="store_true",
                        help="also the cases beyond the issue's list (the full mode's)")
    options = parser.parse_args(argv)
    only = set(filter(None, options.only.split(",")))
    records, first_frames = [], {}
    chosen = [c for c in CASES if (options.extra or not c.extra) and (not only or c.name in only)]
    for case in chosen:
        record = {"name": case.name, "group": case.group, "section": case.section,
                  "extra": case.extra, "expect": sorted(case.expect), "outcomes": [],
                  "received": []}
        for _ in range(options.repeat):
            found, sent, received, first = run_case(options.port, case, options.timeout)
            record["outcomes"].append(found)
            record["received"].append(received)
            record["sent"] = sent
            if case.opening is None:
                first_frames[str(first)] = first_frames.get(str(first), 0) + 1
        records.append(record)
    json.dump({"cases": records, "first_frames": first_frames}, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
