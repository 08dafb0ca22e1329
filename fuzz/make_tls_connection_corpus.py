#!/usr/bin/env python3
"""Writes the seed corpus of fuzz/tls_connection_fuzz.cpp: one file per client script.

Each seed is a version byte (0: TLS 1.3, 1: TLS 1.2) and a sequence of ops in the target's input
format (see the top of tls_connection_fuzz.cpp). The handshake takes round trips: `handshake()`
below sends what the client has, lets the server answer, and has the client read, three times.
Regressions for defects once found stay in the corpus with the rest.

    fuzz/make_tls_connection_corpus.py   # rewrites corpus/tls_connection next to this script
"""

import base64
import pathlib
import shutil

(REQUEST, RECORDS, SEND, READ, FLIP, INJECT, NOTIFY, KEYUPDATE, RENEGOTIATE, SHUT, CLOSE, RUN,
 TIMERS, DRAIN, BUFFERS) = range(15)
TLS13, TLS12 = b"\x00", b"\x01"
HEADER, IDLE, LINGER = 1, 2, 4


def request(data):
    if isinstance(data, str):
        data = data.encode()
    return bytes([REQUEST]) + len(data).to_bytes(2, "big") + data


def records(size):
    """Later requests go out size+1 bytes a record (0: whole records)."""
    return bytes([RECORDS, size])


def send(limit=0):
    return bytes([SEND]) + limit.to_bytes(2, "big")


def read(limit=0):
    return bytes([READ]) + limit.to_bytes(2, "big")


def flip(position, mask=1):
    return bytes([FLIP]) + position.to_bytes(2, "big") + bytes([mask])


def inject(data):
    return bytes([INJECT, len(data)]) + data


def run(times=1):
    return bytes([RUN]) * times


def timers(mask=0):
    return bytes([TIMERS, mask])


def buffers(server=0, client=0):
    return bytes([BUFFERS, server, client])


def handshake():
    return (send() + run() + read()) * 3


def exchange():
    """Sends what the client has, lets the server answer, reads it."""
    return send() + run(2) + read()


def get(path="/", extra=""):
    return f"GET {path} HTTP/1.1\r\nHost: a\r\n{extra}\r\n"


def post(body):
    return f"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: {len(body)}\r\n\r\n{body}"


# A GET's record: header, the request, then TLS 1.3's content type byte and a 16-byte tag, or
# TLS 1.2 AES-GCM's 8-byte explicit nonce and its tag (the server's choice for this client).
GET_RECORD = {"tls13": 5 + len(get()) + 1 + 16, "tls12": 5 + 8 + len(get()) + 16}

SEEDS = {}
for name, version in (("tls13", TLS13), ("tls12", TLS12)):
    SEEDS.update({
        f"{name}_get": version + handshake() + request(get()) + exchange(),
        f"{name}_get_before_handshake": version + request(get()) + handshake() + exchange(),
        f"{name}_pipelined": version + handshake() + request(get() * 8) + exchange(),
        f"{name}_each_route": version + handshake()
                              + request(get() + get("/plaintext") + get("/json") + get("/health")
                                        + get("/missing")) + exchange(),
        f"{name}_post": version + handshake() + request(post("hello")) + exchange(),
        # A record's bytes across socket writes, with loop turns between the pieces.
        f"{name}_record_across_writes": version + handshake() + request(get())
                                        + b"".join(send(7) + run() for _ in range(12)) + read(),
        f"{name}_record_a_byte_a_write": version + handshake() + request(get())
                                         + b"".join(send(1) + run() for _ in range(80)) + read(),
        # A request across many records, and many records in one write.
        f"{name}_tiny_records": version + handshake() + records(0) + request(get() * 3)
                                + exchange(),
        f"{name}_records_of_7_bytes": version + handshake() + records(6) + request(get() * 4)
                                      + send(50) + run() + send() + run() + read(),
        f"{name}_head_across_records": version + handshake() + request("GET / HT")
                                       + request("TP/1.1\r\nHost: a\r\n\r\n") + exchange(),
        f"{name}_connection_close": version + handshake()
                                    + request(get(extra="Connection: close\r\n") + get())
                                    + exchange() + run(),
        f"{name}_malformed_http": version + handshake() + request("GET /\r\n\r\n") + exchange(),
        f"{name}_body_too_large": version + handshake() + request(post("x" * 5000)) + exchange(),
        f"{name}_close_notify": version + handshake() + request(get()) + bytes([NOTIFY])
                                + exchange() + run(),
        f"{name}_fin_after_request": version + handshake() + request(get()) + send()
                                     + bytes([SHUT]) + run(2) + read(),
        f"{name}_close_after_request": version + handshake() + request(get()) + send()
                                       + bytes([CLOSE]) + run(2),
        # Cut: part of a record, then FIN or close.
        f"{name}_record_cut_then_fin": version + handshake() + request(get()) + send(20)
                                       + bytes([SHUT]) + run(2) + read(),
        f"{name}_record_header_cut_then_close": version + handshake() + request(get()) + send(3)
                                                + bytes([CLOSE]) + run(2),
        f"{name}_hello_cut_then_fin": version + send(40) + bytes([SHUT]) + run(2) + read(),
        # Corruption: a flipped byte in a request's record (its body, its tag, its header), in
        # the ClientHello, and records of our own between the client's.
        f"{name}_flip_request_body": version + handshake() + request(get()) + flip(10)
                                     + exchange() + run(),
        f"{name}_flip_request_tag": version + handshake() + request(get())
                                    + flip(GET_RECORD[name] - 1, 0x80) + exchange() + run(),
        f"{name}_flip_record_type": version + handshake() + request(get()) + flip(0, 0x40)
                                    + exchange() + run(),
        f"{name}_flip_record_length_up": version + handshake() + request(get()) + flip(4, 0x10)
                                         + exchange() + run(),
        f"{name}_flip_after_good_request": version + handshake() + request(get()) + exchange()
                                           + request(get()) + flip(20) + exchange() + run(),
        f"{name}_flip_client_hello": version + flip(100) + handshake() + request(get())
                                     + exchange(),
        f"{name}_inject_garbage_record": version + handshake() + inject(b"\x17\x03\x03\x00\x10"
                                                                        + b"\x00" * 16)
                                         + request(get()) + exchange(),
        f"{name}_inject_oversized_header": version + handshake() + inject(b"\x17\x03\x03\xff\xff")
                                           + exchange() + run(),
        f"{name}_inject_half_header_then_fin": version + handshake() + inject(b"\x17\x03")
                                               + send() + bytes([SHUT]) + run(2) + read(),
        f"{name}_inject_warning_alert": version + inject(b"\x15\x03\x03\x00\x02\x01\x00")
                                        + handshake() + request(get()) + exchange(),
        # Timers and back-pressure.
        f"{name}_header_timer_mid_handshake": version + send() + run() + timers(HEADER) + run()
                                              + read(),
        f"{name}_idle_timer_after_request": version + handshake() + request(get()) + exchange()
                                            + timers(IDLE) + run() + read(),
        f"{name}_drain": version + handshake() + bytes([DRAIN]) + request(get() * 2) + exchange()
                         + run(),
        f"{name}_small_buffers_pipeline": version + buffers() + handshake()
                                          + request(get("/json") * 150) + send() + run(3)
                                          + read(2000) + run(3) + read(2000) + run() + read(),
        f"{name}_small_buffers_close_while_stalled": version + buffers() + handshake()
                                                     + request(get() * 100) + send() + run(3)
                                                     + read(500) + bytes([CLOSE]) + run(2),
    })

SEEDS.update({
    "tls13_key_update": TLS13 + handshake() + request(get()) + exchange()
                        + bytes([KEYUPDATE]) + request(get()) + exchange(),
    "tls13_key_update_flipped": TLS13 + handshake() + bytes([KEYUPDATE]) + flip(8) + exchange()
                                + run(),
    "tls12_renegotiation_refused": TLS12 + handshake() + request(get()) + exchange()
                                   + bytes([RENEGOTIATE]) + exchange() + exchange() + run(),
    "tls13_ccs_injected": TLS13 + send() + run() + read() + inject(b"\x14\x03\x03\x00\x01\x01")
                          + handshake() + request(get()) + exchange(),
})

# Found by libFuzzer (its first 5-minute run): a close_notify right after a KeyUpdate that asks
# for one. Reading both, OpenSSL wrote the server's KeyUpdate into the BIO pair; the connection
# heard of the close_notify before that output left, saw write_pending(), and waited for an
# on_drained() that never came (nothing of its own had been kept), so it stayed open until its
# idle timer. Kept byte for byte, and as a script.
SEEDS.update({
    "fuzz_close_notify_after_key_update": base64.b64decode("AAJBAAsDAAAWFtgvAABQv/8="),
    "tls13_close_notify_after_key_update": TLS13 + send() + run() + read()
                                           + bytes([KEYUPDATE]) * 2 + bytes([NOTIFY]) + send()
                                           + inject(b"\xff"),
})

# Found by libFuzzer (the second run): the same byte flipped an even number of times is no
# corruption; the target had counted each flip (a false "bad MAC ignored"), now it compares
# the stream with what the client wrote.
SEEDS["tls13_flipped_back"] = (TLS13 + handshake() + request(get()) + flip(10, 0x22) * 2
                               + exchange())


def main():
    here = pathlib.Path(__file__).resolve().parent
    target = here / "corpus" / "tls_connection"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for name, data in SEEDS.items():
        (target / name).write_bytes(data)


if __name__ == "__main__":
    main()
