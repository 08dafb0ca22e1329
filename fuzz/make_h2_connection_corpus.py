#!/usr/bin/env python3
"""Writes the seed corpus of fuzz/h2_connection_fuzz.cpp: one file per client script.

Each seed is a sequence of ops in the target's input format (see the top of h2_connection_fuzz.cpp);
the target sends the client connection preface itself (the magic and an empty SETTINGS), so seeds
start at the frames after it. Header blocks use HPACK's
static table and literals without indexing only, so any seed's blocks decode in any order.

    fuzz/make_h2_connection_corpus.py   # rewrites corpus/h2_connection next to this script

It keeps the files named fuzz_* there: units libFuzzer found that reach further than the seeds.
"""

import pathlib

WRITE, READ, SHUT, CLOSE, RUN, TIMERS, DRAIN, BUFFERS, ANSWER, FRAME, REQUEST = range(11)
HEADER_TIMER, IDLE_TIMER, LINGER_TIMER = 1, 2, 4
DATA, HEADERS, PRIORITY, RST, SETTINGS, PUSH, PING, GOAWAY, WINDOW, CONTINUATION = range(10)
END_STREAM, ACK, END_HEADERS, PADDED, PRIO = 0x1, 0x1, 0x4, 0x8, 0x20
NO_ERROR, PROTOCOL_ERROR, CANCEL = 0x0, 0x1, 0x8
# The request op's picks (bits 0-2), and its flags: bit 3 a body follows, bit 4 CONTINUATION.
GET, GET_PARKED, HEAD_PARKED, POST_PARKED, GET_JSON, HEAD, POST, GET_MISSING = range(8)
BODY_FOLLOWS, BLOCK_CONTINUES = 0x08, 0x10

AUTHORITY = b"\x01\x01t"  # literal without indexing, name :authority (1), value "t"


def block(method=b"\x82", path=b"\x84"):
    """A request head: :method (0x82 GET, 0x83 POST), :scheme http, :path (0x84 is "/")."""
    return method + b"\x86" + path + AUTHORITY


def path(value):
    return b"\x04" + bytes([len(value)]) + value.encode()  # literal :path (4)


HEAD_METHOD = b"\x02\x04HEAD"  # literal :method (2)


def integer(value, prefix_bits, first=0):
    """HPACK's integer (RFC 7541 section 5.1) with its prefix's high bits set from `first`."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first | value])
    out, value = [first | limit], value - limit
    while value >= 128:
        out.append(value % 128 | 128)
        value //= 128
    return bytes(out + [value])


def literal(name, value):
    """A field with a new name, literal without indexing."""
    return b"\x00" + integer(len(name), 7) + name + integer(len(value), 7) + value


def write(data):
    out = b""
    for i in range(0, len(data), 0xFFFF):
        piece = data[i:i + 0xFFFF]
        out += bytes([WRITE]) + len(piece).to_bytes(2, "big") + piece
    return out


def read(limit=0):
    return bytes([READ]) + limit.to_bytes(2, "big")


def run(times=1):
    return bytes([RUN]) * times


def timers(mask=0):
    return bytes([TIMERS, mask])


def buffers(server=0, client=0):
    return bytes([BUFFERS, server, client])


def answer(which=0):
    """Answers the parked request number `which` (modulo how many wait; 0: the oldest)."""
    return bytes([ANSWER, which])


def frame(kind, flags, stream, payload=b""):
    """The frame op: a frame header the target writes (stream ids up to 255), then the payload."""
    return bytes([FRAME, kind, flags, stream]) + len(payload).to_bytes(2, "big") + payload


def request(stream, pick, flags=0):
    return bytes([REQUEST, stream, pick | flags])


def raw_frame(kind, flags, stream, payload=b""):
    """A frame as bytes, for write ops (any stream id and length)."""
    header = len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big")
    return header + payload


def settings(*pairs, flags=0):
    return frame(SETTINGS, flags, 0, b"".join(i.to_bytes(2, "big") + v.to_bytes(4, "big")
                                              for i, v in pairs))


def rst(stream, code=CANCEL):
    return frame(RST, 0, stream, code.to_bytes(4, "big"))


def window(stream, increment):
    return frame(WINDOW, 0, stream, increment.to_bytes(4, "big"))


def goaway(last, code=NO_ERROR):
    return frame(GOAWAY, 0, 0, last.to_bytes(4, "big") + code.to_bytes(4, "big"))


START = run() + read() + settings(flags=ACK)  # the server's SETTINGS read, and acknowledged

SEEDS = {
    "get": START + frame(HEADERS, END_HEADERS | END_STREAM, 1, block()) + run() + read(),
    "get_request_op": request(1, GET) + run() + read(),
    "each_route": b"".join(request(2 * i + 1, pick) for i, pick in enumerate(range(8)))
                  + run(2) + read() + answer() + answer() + answer() + run() + read(),
    "several_streams": START + b"".join(request(s, GET_JSON) for s in (1, 3, 5, 7, 9)) + run()
                       + read(),
    "parked": request(1, GET_PARKED) + run() + read() + answer() + run() + read(),
    "parked_out_of_order": request(1, GET_PARKED) + request(3, GET) + request(5, HEAD_PARKED)
                           + request(7, GET_PARKED) + run() + read() + answer(2) + run()
                           + answer(0) + run() + read() + answer() + run() + read(),
    "parked_client_reset": request(1, GET_PARKED) + request(3, GET_PARKED) + run() + rst(1)
                           + run() + answer(0) + run() + read() + answer() + run() + read(),
    "parked_reset_then_close": request(1, GET_PARKED) + run() + rst(1) + run() + bytes([CLOSE])
                               + run(),
    "parked_left_at_close": request(1, GET_PARKED) + request(3, POST_PARKED) + run()
                            + bytes([CLOSE]) + run() + answer(),
    "post_with_data": request(1, POST_PARKED, BODY_FOLLOWS) + frame(DATA, 0, 1, b"hello ")
                      + run() + frame(DATA, END_STREAM, 1, b"world") + run() + read()
                      + answer() + run() + read(),
    "post_content_length": frame(HEADERS, END_HEADERS, 1,
                                 block(b"\x83", path("/p")) + b"\x0f\x0d\x015")  # length 5
                           + frame(DATA, END_STREAM, 1, b"12345") + run() + answer() + run()
                           + read(),
    "post_body_too_large": request(1, POST_PARKED, BODY_FOLLOWS)
                           + b"".join(frame(DATA, 0, 1, bytes(1500)) for _ in range(4)) + run()
                           + read() + frame(DATA, END_STREAM, 1, b"x") + run() + read(),
    "post_405": request(1, POST, BODY_FOLLOWS) + frame(DATA, END_STREAM, 1, b"abc") + run()
                + read(),
    "ping": frame(PING, 0, 0, b"12345678") + frame(PING, 0, 0, b"abcdefgh") + run() + read(),
    "ping_ack_from_client": frame(PING, ACK, 0, b"12345678") + run() + read(),
    "settings": settings((1, 0), (3, 10), (4, 0), (5, 1 << 20), (6, 2048)) + run() + read()
                + request(1, GET) + run() + read() + window(1, 100) + run() + read(),
    "settings_small_window": settings((4, 5)) + request(1, GET_JSON) + request(3, GET) + run()
                             + read() + window(1, 10) + window(0, 10) + run() + read(),
    "window_update": window(0, 1 << 20) + request(1, GET) + window(1, 1000) + run() + read(),
    "window_overflow": request(1, GET_PARKED) + window(1, 0x7FFFFFFF) + run() + read(),
    "window_zero": request(1, GET_PARKED) + window(1, 0) + run() + read() + answer() + run()
                   + read(),
    "client_goaway": request(1, GET_PARKED) + goaway(0) + run() + read() + answer() + run()
                     + read(),
    "client_goaway_idle": goaway(0) + run() + read() + request(1, GET) + run() + read(),
    "bad_frame_on_stream_0": frame(DATA, 0, 0, b"data") + run() + read(),
    "bad_settings_length": frame(SETTINGS, 0, 0, b"\x00\x04\x00") + run() + read(),
    "rst_idle_stream": rst(5) + run() + read(),
    "headers_even_stream": request(2, GET) + run() + read(),
    "continuation": frame(HEADERS, END_STREAM, 1, b"\x82\x86") + frame(CONTINUATION, 0, 1, b"\x84")
                    + frame(CONTINUATION, END_HEADERS, 1, AUTHORITY) + run() + read(),
    "continuation_request_op": request(1, GET_PARKED, BLOCK_CONTINUES)
                               + frame(CONTINUATION, END_HEADERS, 1, b"") + run() + answer()
                               + run() + read(),
    "continuation_interrupted": frame(HEADERS, END_STREAM, 1, b"\x82\x86")
                                + frame(PING, 0, 0, b"12345678") + run() + read(),
    "more_streams_than_limit": b"".join(request(s, GET_PARKED) for s in range(1, 24, 2)) + run()
                               + read() + b"".join(answer() for _ in range(12)) + run() + read(),
    "more_streams_than_limit_acked": START + b"".join(request(s, GET_PARKED)
                                                      for s in range(1, 24, 2))
                                     + run() + read() + answer() + run() + read(),
    "rapid_reset": b"".join(request(s, GET_PARKED) + rst(s) for s in range(1, 60, 2)) + run()
                   + read(),
    "padded_priority_headers": frame(HEADERS, END_HEADERS | END_STREAM | PADDED | PRIO, 1,
                                     b"\x02" + b"\x00\x00\x00\x00\x10" + block() + b"\x00\x00")
                               + run() + read(),
    "priority_frame": frame(PRIORITY, 0, 3, b"\x00\x00\x00\x01\x10") + request(1, GET) + run()
                      + read(),
    "trailers": request(1, POST_PARKED, BODY_FOLLOWS) + frame(DATA, 0, 1, b"body")
                + frame(HEADERS, END_HEADERS | END_STREAM, 1, b"\x00\x01x\x01y") + run()
                + answer() + run() + read(),
    "headers_too_large": frame(HEADERS, END_HEADERS | END_STREAM, 1,
                               block() + literal(b"x", b"v" * 4200)) + run() + read(),
    "bad_hpack": frame(HEADERS, END_HEADERS | END_STREAM, 1, b"\xff\xff\xff\xff\x0f") + run()
                 + read(),
    "missing_path": frame(HEADERS, END_HEADERS | END_STREAM, 1, b"\x82\x86" + AUTHORITY) + run()
                    + read(),
    "big_stream_id": write(raw_frame(HEADERS, END_HEADERS | END_STREAM, 0x7FFFFFFF, block()))
                     + run() + read() + request(1, GET) + run() + read(),
    "oversized_frame": write((20000).to_bytes(3, "big") + bytes([DATA, 0]) + (1).to_bytes(4, "big"))
                       + run() + read(),
    "drain": request(1, GET_PARKED) + run() + bytes([DRAIN]) + request(3, GET) + run() + read()
             + answer() + run() + read(),
    "drain_idle": bytes([DRAIN]) + frame(PING, 0, 0, b"12345678") + run() + read(),
    "idle_timer": request(1, GET_PARKED) + run() + timers(IDLE_TIMER) + run() + read() + answer(),
    "all_timers": request(1, GET) + run() + read() + timers() + run() + timers() + run(),
    "shut_after_request": request(1, GET) + bytes([SHUT]) + run() + read(),
    "shut_with_parked": request(1, GET_PARKED) + run() + bytes([SHUT]) + run() + answer(),
    "close_at_once": bytes([CLOSE]) + run(),
    "small_buffers": buffers(0, 0) + b"".join(request(s, GET_JSON) for s in range(1, 16, 2))
                     + run() + read(100) + run() + read(),
    "small_buffers_many_pings": buffers(0, 0) + b"".join(frame(PING, 0, 0, b"%08d" % i)
                                                         for i in range(200))
                                + run() + read(500) + run() + read(),
    "unknown_frame_type": frame(0x42, 0xFF, 0, b"whatever") + request(1, GET) + run() + read(),
    "push_promise_from_client": frame(PUSH, END_HEADERS, 1, (2).to_bytes(4, "big") + block())
                                + run() + read(),
}

# The inputs by which this target found its first bugs, kept as seeds. An answer the connection
# wrote itself (431 for fields that do not fit, 413 for a body too large) carried its body even to
# HEAD, which an HTTP/2 client takes for a malformed response. And a drain queued its GOAWAY (last
# stream: the last one processed) before the read was processed: a stream opened by that read and
# a connection error after it gave a second GOAWAY naming a higher stream (RFC 9113 section 6.8
# forbids raising it). Found by libFuzzer, reduced by hand.
KNOWN = {
    "drain_goaway_raised": bytes([DRAIN]) + request(1, GET)
                           + frame(HEADERS, END_HEADERS | END_STREAM, 3, b"\xff\xff\xff\xff\x0f")
                           + run() + read(),
    "head_fields_too_large": frame(HEADERS, END_HEADERS | END_STREAM, 1,
                                   HEAD_METHOD + b"\x86\x84" + AUTHORITY
                                   + literal(b"x", b"v" * 4200)) + run() + read(),
    "head_body_too_large": frame(HEADERS, END_HEADERS, 1, HEAD_METHOD + b"\x86\x84" + AUTHORITY)
                           + b"".join(frame(DATA, 0, 1, bytes(1500)) for _ in range(4)) + run()
                           + read(),
}


def main():
    here = pathlib.Path(__file__).resolve().parent
    for folder, seeds in (("h2_connection", {**SEEDS, **KNOWN}),):
        target = here / "corpus" / folder
        target.mkdir(parents=True, exist_ok=True)
        # Files named fuzz_* are libFuzzer's finds (a merge of a long run's new units), kept byte
        # for byte; every other file is this script's and is written afresh.
        for old in target.iterdir():
            if not old.name.startswith("fuzz_"):
                old.unlink()
        for name, data in seeds.items():
            (target / name).write_bytes(data)


if __name__ == "__main__":
    main()
