"""The cases of attack 15 (attacks/h2_conformance.py): HTTP/2 frames a correct client would never
send, each with the outcomes RFC 9113 (or RFC 7541, HPACK) allows a server, and a few valid
requests that must be answered. Run by torture/h2_conformance_client.py under Debian's python3
(hpack and hyperframe: python3-hpack, python3-hyperframe).

A case is a list of frames sent after the preface, our SETTINGS, the server's SETTINGS and our ACK
of it, built from what the server advertised (a Peer: its window, its frame size, this
connection's HPACK encoder). What comes back is classified as one outcome: `goaway:CODE` (the
first GOAWAY), `rst:CODE` (a RST_STREAM on the case's stream), `status:N` (the final :status on
the case's stream), `acked` (a SETTINGS ACK, for the case about ours), `ignored` (a PING sent
after the case's frames is answered and nothing else decided it: the frames were let pass),
`close` (the connection ended without a GOAWAY), `http1:N` (an HTTP/1.1 answer), or `timeout`.

The acceptable sets follow two general rules of RFC 9113: any stream error may be treated as a
connection error of the same code (section 5.4.1), and a server MAY answer a malformed request
(section 8.1.1) before it resets the stream, so a 400 is as good as the reset there.
"""
import dataclasses

import hpack
from hyperframe.frame import (ContinuationFrame, DataFrame, HeadersFrame, PingFrame,
                              PriorityFrame, RstStreamFrame)

from .h2_attacker import PREFACE, frame

DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PING, WINDOW_UPDATE, CONTINUATION = \
    0x0, 0x1, 0x2, 0x3, 0x4, 0x6, 0x8, 0x9
UNKNOWN_TYPE = 0x20
END_STREAM, ACK, END_HEADERS, PADDED = 0x1, 0x1, 0x4, 0x8
HEADER_TABLE_SIZE, ENABLE_PUSH, INITIAL_WINDOW_SIZE, MAX_FRAME_SIZE = 0x1, 0x2, 0x4, 0x5
MAX_WINDOW = 2 ** 31 - 1
# What every HTTP/2 server must take: the smallest SETTINGS_MAX_FRAME_SIZE (RFC 9113 4.2).
DEFAULT_FRAME_SIZE = 16384


class Peer:
    """What a case's frames are built from: the server's SETTINGS (RFC 9113 6.5.2 defaults when it
    did not say) and this connection's HPACK encoder (its dynamic table lives as long as the
    connection, so a case's blocks are encoded in the order they are sent)."""

    def __init__(self, settings):
        self.max_frame_size = settings.get(MAX_FRAME_SIZE, DEFAULT_FRAME_SIZE)
        self.initial_window = settings.get(INITIAL_WINDOW_SIZE, 65535)
        self.header_table_size = settings.get(HEADER_TABLE_SIZE, 4096)
        self.encoder = hpack.Encoder()
        self.encoded = []  # the field lists encoded, in order (for the case's description)

    def block(self, fields, huffman=True):
        self.encoded.append(fields)
        return self.encoder.encode(fields, huffman=huffman)


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    group: str
    section: str       # the clause that decides the expectation
    expect: frozenset  # the outcomes the RFC allows
    frames: object     # Peer -> [bytes]: what is sent after the handshake
    watch: object = 1  # the stream classified on; None: the connection; "ack": our SETTINGS' ACK
    opening: bytes = None  # instead of the preface and our SETTINGS: sent with the frames, no
    #                        handshake (the server's SETTINGS is not waited for)
    extra: bool = False    # not in the list: run in the full mode only


def connection_error(code):
    return frozenset({f"goaway:{code}"})


def stream_error(code):
    return frozenset({f"rst:{code}", f"goaway:{code}"})


MALFORMED = stream_error("PROTOCOL_ERROR") | {"status:400"}  # RFC 9113 8.1.1
IGNORED = frozenset({"ignored"})
OK = frozenset({"status:200"})


# -- frames -------------------------------------------------------------------------------------
def fields(method="GET", path="/", drop=(), extra=()):
    """A request's fields: pseudo-header fields first (less any in `drop`), then `extra`."""
    pseudo = [(":method", method), (":scheme", "http"), (":authority", "localhost"),
              (":path", path)]
    return [(name, value) for name, value in pseudo if name not in drop] + list(extra)


def headers(peer, field_list, stream=1, end_stream=True, huffman=True, **kwargs):
    """HEADERS with END_HEADERS; kwargs: hyperframe's pad_length, depends_on, stream_weight."""
    flags = ["END_HEADERS"] + (["END_STREAM"] if end_stream else [])
    flags += (["PADDED"] if kwargs.get("pad_length") else []) + \
        (["PRIORITY"] if "depends_on" in kwargs else [])
    return HeadersFrame(stream, data=peer.block(field_list, huffman), flags=flags,
                        **kwargs).serialize()


def raw_headers(block, stream=1, flags=END_STREAM | END_HEADERS):
    """A HEADERS frame whose block is given as bytes (HPACK a correct encoder never writes)."""
    return frame(HEADERS, flags, stream, block)


def body(stream, payload, end_stream=True, pad_length=0):
    flags = (["END_STREAM"] if end_stream else []) + (["PADDED"] if pad_length else [])
    return DataFrame(stream, data=payload, flags=flags, pad_length=pad_length).serialize()


def settings(*pairs, flags=0, stream=0):
    return frame(SETTINGS, flags, stream, b"".join(
        key.to_bytes(2, "big") + value.to_bytes(4, "big") for key, value in pairs))


def get(peer, **kwargs):
    """GET / on stream 1 (END_STREAM unless end_stream=False)."""
    return headers(peer, fields(), **kwargs)


def increment(stream, value):
    return frame(WINDOW_UPDATE, 0, stream, value.to_bytes(4, "big"))


def request_over_continuations(peer):
    """GET / whose block is split over HEADERS and two CONTINUATION frames."""
    block = peer.block(fields(extra=[("user-agent", "ringside-torture"), ("accept", "*/*")]))
    third = len(block) // 3
    return [HeadersFrame(1, data=block[:third], flags=["END_STREAM"]).serialize(),
            ContinuationFrame(1, data=block[third:2 * third]).serialize(),
            ContinuationFrame(1, data=block[2 * third:], flags=["END_HEADERS"]).serialize()]


def hpack_size_update(size):
    """A dynamic table size update (RFC 7541 6.3): 001 and a 5-bit-prefix integer."""
    if size < 31:
        return bytes((0x20 | size,))
    out, size = bytearray((0x3f,)), size - 31
    while size >= 128:
        out.append(0x80 | (size & 0x7f))
        size >>= 7
    return bytes(out + bytes((size,)))


# HPACK by hand: the static table's :method GET (2), :scheme http (6), :path / (4), and a
# literal without indexing of :authority (1) "t".
STATIC_GET = b"\x82\x86\x84\x01\x01t"
# A literal of user-agent (static 58) whose Huffman-coded value is 30 one bits, the EOS symbol:
# RFC 7541 5.2, a decoding error.
HUFFMAN_EOS = b"\x0f\x2b\x84\xff\xff\xff\xff"


# -- the cases ----------------------------------------------------------------------------------
def preface_and_settings():
    return [
        Case("settings-acked", "preface", "RFC 9113 6.5.3", frozenset({"acked"}),
             lambda p: [], watch="ack"),
        # The preface's last line wrong: on a port that also serves HTTP/1.1 these bytes are an
        # HTTP/1.1 request of version 2.0 (RFC 9110 15.6.6: 505) rather than HTTP/2 at all.
        Case("bad-preface", "preface", "RFC 9113 3.4; RFC 9110 15.6.6",
             frozenset({"goaway:PROTOCOL_ERROR", "close", "http1:505"}),
             lambda p: [], watch=None, opening=PREFACE[:-6] + b"XY\r\n\r\n" + settings()),
        # The preface right, then a PING where the client's SETTINGS must be (3.4: part of the
        # client's preface).
        Case("preface-without-settings", "preface", "RFC 9113 3.4",
             frozenset({"goaway:PROTOCOL_ERROR", "close"}), lambda p: [], watch=None,
             opening=PREFACE),
        Case("settings-ack-with-payload", "preface", "RFC 9113 6.5",
             connection_error("FRAME_SIZE_ERROR"),
             lambda p: [settings((ENABLE_PUSH, 0), flags=ACK)], watch=None),
        Case("settings-length-not-multiple-of-6", "preface", "RFC 9113 6.5",
             connection_error("FRAME_SIZE_ERROR"),
             lambda p: [frame(SETTINGS, 0, 0, b"\x00\x02\x00\x00\x00\x00\x00")], watch=None),
        Case("settings-on-a-stream", "preface", "RFC 9113 6.5", connection_error("PROTOCOL_ERROR"),
             lambda p: [settings((ENABLE_PUSH, 0), stream=1)], watch=None, extra=True),
        Case("settings-enable-push-2", "preface", "RFC 9113 6.5.2",
             connection_error("PROTOCOL_ERROR"),
             lambda p: [settings((ENABLE_PUSH, 2))], watch=None),
        Case("settings-initial-window-2^31", "preface", "RFC 9113 6.5.2",
             connection_error("FLOW_CONTROL_ERROR"),
             lambda p: [settings((INITIAL_WINDOW_SIZE, 2 ** 31))], watch=None),
        Case("settings-max-frame-size-16383", "preface", "RFC 9113 6.5.2",
             connection_error("PROTOCOL_ERROR"),
             lambda p: [settings((MAX_FRAME_SIZE, 16383))], watch=None),
        Case("settings-max-frame-size-2^24", "preface", "RFC 9113 6.5.2",
             connection_error("PROTOCOL_ERROR"),
             lambda p: [settings((MAX_FRAME_SIZE, 2 ** 24))], watch=None),
        Case("settings-unknown-id-ignored", "preface", "RFC 9113 6.5.2", IGNORED,
             lambda p: [settings((0x99, 7))], watch=None),
    ]


def frame_size_and_stream_ids():
    return [
        Case("data-over-max-frame-size", "frames", "RFC 9113 4.2",
             stream_error("FRAME_SIZE_ERROR"),
             lambda p: [get(p, end_stream=False), body(1, b"x" * (p.max_frame_size + 1))]),
        Case("headers-over-max-frame-size", "frames", "RFC 9113 4.2",
             connection_error("FRAME_SIZE_ERROR"),
             lambda p: [headers(p, fields(extra=[("x-pad", "x" * p.max_frame_size)]),
                                huffman=False)], extra=True),
        Case("even-stream-id", "frames", "RFC 9113 5.1.1", connection_error("PROTOCOL_ERROR"),
             lambda p: [get(p, stream=2)], watch=None),
        # A MUST of 5.1.1 that nghttp2 1.52 relaxes on purpose: it ignores a HEADERS whose id is
        # not new unless it knows the stream half-closed (nghttp2_session.c,
        # nghttp2_session_on_request_headers_received: it may have closed the stream early).
        Case("stream-id-going-down", "frames", "RFC 9113 5.1.1",
             connection_error("PROTOCOL_ERROR") | {"goaway:STREAM_CLOSED"},  # 5.1: closed
             lambda p: [get(p, stream=5), get(p, stream=3)], watch=None),
        Case("headers-on-stream-0", "frames", "RFC 9113 6.2", connection_error("PROTOCOL_ERROR"),
             lambda p: [raw_headers(STATIC_GET, stream=0)], watch=None),
        Case("data-on-stream-0", "frames", "RFC 9113 6.1", connection_error("PROTOCOL_ERROR"),
             lambda p: [frame(DATA, END_STREAM, 0, b"hello")], watch=None),
        Case("data-on-idle-stream", "frames", "RFC 9113 5.1", connection_error("PROTOCOL_ERROR"),
             lambda p: [body(1, b"hello")], watch=None),
        Case("ping-length-7", "frames", "RFC 9113 6.7", connection_error("FRAME_SIZE_ERROR"),
             lambda p: [frame(PING, 0, 0, b"1234567")], watch=None),
        Case("ping-on-a-stream", "frames", "RFC 9113 6.7", connection_error("PROTOCOL_ERROR"),
             lambda p: [frame(PING, 0, 1, b"12345678")], watch=None),
        Case("window-update-length-3", "frames", "RFC 9113 6.9",
             connection_error("FRAME_SIZE_ERROR"),
             lambda p: [frame(WINDOW_UPDATE, 0, 0, b"\x00\x00\x01")], watch=None),
        Case("rst-stream-on-stream-0", "frames", "RFC 9113 6.4",
             connection_error("PROTOCOL_ERROR"),
             lambda p: [frame(RST_STREAM, 0, 0, b"\x00\x00\x00\x08")], watch=None),
        Case("rst-stream-on-idle-stream", "frames", "RFC 9113 6.4",
             connection_error("PROTOCOL_ERROR"),
             lambda p: [RstStreamFrame(1, error_code=8).serialize()], watch=None),
        Case("headers-depending-on-itself", "frames", "RFC 9113 5.3.1",
             stream_error("PROTOCOL_ERROR"),
             lambda p: [headers(p, fields(), depends_on=1, stream_weight=15)], extra=True),
        Case("priority-depending-on-itself", "frames", "RFC 9113 5.3.1",
             stream_error("PROTOCOL_ERROR"),
             lambda p: [get(p, end_stream=False),
                        PriorityFrame(1, depends_on=1, stream_weight=15).serialize()]),
        Case("continuation-without-headers", "frames", "RFC 9113 6.10",
             connection_error("PROTOCOL_ERROR"),
             lambda p: [frame(CONTINUATION, END_HEADERS, 1, STATIC_GET)], watch=None),
        Case("frame-between-headers-and-continuation", "frames", "RFC 9113 4.3",
             connection_error("PROTOCOL_ERROR"),
             lambda p: [raw_headers(STATIC_GET[:2], flags=END_STREAM),
                        PingFrame(0, opaque_data=b"between!").serialize(),
                        frame(CONTINUATION, END_HEADERS, 1, STATIC_GET[2:])], watch=None,
             extra=True),
        Case("data-padding-too-long", "frames", "RFC 9113 6.1",
             connection_error("PROTOCOL_ERROR"),
             lambda p: [get(p, end_stream=False), frame(DATA, END_STREAM | PADDED, 1,
                                                       b"\x05abc")], watch=None, extra=True),
        Case("unknown-frame-type-ignored", "frames", "RFC 9113 4.1, 5.5", IGNORED,
             lambda p: [frame(UNKNOWN_TYPE, 0xff, 0, b"ignore me")], watch=None),
    ]


def flow_control():
    return [
        Case("window-update-0-on-stream", "flow", "RFC 9113 6.9", stream_error("PROTOCOL_ERROR"),
             lambda p: [get(p, end_stream=False), increment(1, 0)]),
        Case("window-update-0-on-connection", "flow", "RFC 9113 6.9",
             connection_error("PROTOCOL_ERROR"), lambda p: [increment(0, 0)], watch=None),
        Case("window-overflow-on-stream", "flow", "RFC 9113 6.9.1",
             stream_error("FLOW_CONTROL_ERROR"),
             lambda p: [get(p, end_stream=False), increment(1, MAX_WINDOW)]),
        Case("window-overflow-on-connection", "flow", "RFC 9113 6.9.1",
             connection_error("FLOW_CONTROL_ERROR"),
             lambda p: [increment(0, MAX_WINDOW)], watch=None),
        # One DATA frame one byte longer than the stream's window the server advertised. The
        # attack keeps that window small (1,023 bytes) so the frame reaches the server in one
        # read: nghttp2 counts a frame's bytes as they are read and reopens the window (queues a
        # WINDOW_UPDATE) once half is consumed, so a frame over a larger window, read in parts,
        # fits the window as reopened and passes.
        Case("data-beyond-stream-window", "flow", "RFC 9113 6.9.1, 7",
             stream_error("FLOW_CONTROL_ERROR"),
             lambda p: [headers(p, fields("POST"), end_stream=False),
                        body(1, b"x" * (p.initial_window + 1))]),
    ]


def hpack_errors():
    return [
        Case("hpack-index-beyond-tables", "hpack", "RFC 9113 4.3, RFC 7541 2.3.3",
             connection_error("COMPRESSION_ERROR"),
             lambda p: [raw_headers(STATIC_GET + b"\xc6")]),  # index 70, the dynamic table empty
        Case("hpack-huffman-eos", "hpack", "RFC 9113 4.3, RFC 7541 5.2",
             connection_error("COMPRESSION_ERROR"),
             lambda p: [raw_headers(STATIC_GET + HUFFMAN_EOS)]),
        Case("hpack-table-size-above-setting", "hpack", "RFC 9113 4.3, RFC 7541 6.3",
             connection_error("COMPRESSION_ERROR"),
             lambda p: [raw_headers(hpack_size_update(p.header_table_size + 1) + STATIC_GET)]),
        Case("hpack-table-size-after-field", "hpack", "RFC 9113 4.3, RFC 7541 4.2",
             connection_error("COMPRESSION_ERROR"),
             lambda p: [raw_headers(STATIC_GET + hpack_size_update(0))]),
    ]


def malformed(name, section, field_list, extra=False):
    """A request RFC 9113 8.1.1 calls malformed: a stream error PROTOCOL_ERROR, or a 400 first."""
    return Case(name, "fields", section, MALFORMED, lambda p: [headers(p, field_list)],
                extra=extra)


def pseudo_headers_and_fields():
    return [
        malformed("missing-method", "RFC 9113 8.3.1", fields(drop=(":method",))),
        malformed("missing-path", "RFC 9113 8.3.1", fields(drop=(":path",))),
        malformed("missing-scheme", "RFC 9113 8.3.1", fields(drop=(":scheme",))),
        malformed("duplicate-path", "RFC 9113 8.3.1", fields() + [(":path", "/json")]),
        malformed("pseudo-after-regular", "RFC 9113 8.3",
                  [(":method", "GET"), (":scheme", "http"), ("accept", "*/*"), (":path", "/")]),
        malformed("unknown-pseudo", "RFC 9113 8.3", fields() + [(":foo", "bar")]),
        malformed("status-in-request", "RFC 9113 8.3", fields() + [(":status", "200")]),
        malformed("empty-path", "RFC 9113 8.3.1", fields(path="")),
        malformed("uppercase-field-name", "RFC 9113 8.2.1", fields(extra=[("X-Upper", "1")])),
        malformed("newline-in-field-value", "RFC 9113 8.2.1",
                  fields(extra=[("x-split", "a\r\nx-injected: 1")]), extra=True),
        malformed("connection-field", "RFC 9113 8.2.2",
                  fields(extra=[("connection", "keep-alive")])),
        malformed("keep-alive-field", "RFC 9113 8.2.2", fields(extra=[("keep-alive", "5")])),
        malformed("transfer-encoding-field", "RFC 9113 8.2.2",
                  fields(extra=[("transfer-encoding", "chunked")])),
        malformed("te-gzip", "RFC 9113 8.2.2", fields(extra=[("te", "gzip")])),
    ]


def content_length():
    def request(length, payload):
        return lambda p: [headers(p, fields(extra=[("content-length", str(length))]),
                                  end_stream=False), body(1, payload)]
    return [
        Case("data-shorter-than-content-length", "content-length", "RFC 9113 8.1.1", MALFORMED,
             request(10, b"hello")),
        Case("data-longer-than-content-length", "content-length", "RFC 9113 8.1.1", MALFORMED,
             request(3, b"hello")),
    ]


def valid_requests():
    return [
        Case("get", "valid", "RFC 9113 8.1", OK, lambda p: [get(p)]),
        Case("head", "valid", "RFC 9113 8.1", OK, lambda p: [headers(p, fields("HEAD"))]),
        Case("te-trailers", "valid", "RFC 9113 8.2.2", OK,
             lambda p: [headers(p, fields(extra=[("te", "trailers")]))], extra=True),
        # ringside's / takes GET and HEAD only: its 405 (with Allow) is the route's answer to a
        # request whose body was read whole; nghttpd serves the file to a POST.
        Case("post-with-body", "valid", "RFC 9113 8.1", frozenset({"status:200", "status:405"}),
             lambda p: [headers(p, fields("POST", extra=[("content-length", "5")]),
                                end_stream=False), body(1, b"hello")]),
        Case("headers-over-two-continuations", "valid", "RFC 9113 4.3, 6.10", OK,
             request_over_continuations),
        Case("padded-headers-and-data", "valid", "RFC 9113 6.1, 6.2", OK,
             lambda p: [headers(p, fields(extra=[("content-length", "5")]), end_stream=False,
                                pad_length=7), body(1, b"hello", pad_length=9)], extra=True),
        Case("trailers", "valid", "RFC 9113 8.1", OK,
             lambda p: [get(p, end_stream=False), body(1, b"hello", end_stream=False),
                        headers(p, [("x-checksum", "5")])]),
    ]


CASES = (preface_and_settings() + frame_size_and_stream_ids() + flow_control() + hpack_errors()
         + pseudo_headers_and_fields() + content_length() + valid_requests())
