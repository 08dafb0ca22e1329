#!/usr/bin/env python3
"""Writes the seed corpus of fuzz/h2_response_reader_fuzz.cpp: what servers send an HTTP/2 client,
frame by frame. Each file is one byte (where the target cuts the rest in two) and the frames.

    fuzz/make_h2_response_reader_corpus.py   # rewrites corpus/h2_response_reader next to this script
"""

import pathlib
import shutil

DATA, HEADERS, PRIORITY, RST, SETTINGS, PUSH, PING, GOAWAY, WINDOW, CONTINUATION = range(10)
END_STREAM, ACK, END_HEADERS, PADDED, PRIO = 0x1, 0x1, 0x4, 0x8, 0x20


def frame(kind, flags, stream, payload=b""):
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


def settings(*pairs):
    return frame(SETTINGS, 0, 0, b"".join(i.to_bytes(2, "big") + v.to_bytes(4, "big") for i, v in pairs))


STATUS_200, STATUS_404 = b"\x88", b"\x8d"  # static table entries 8 and 13
SERVER_START = settings((3, 100), (4, 65535)) + frame(SETTINGS, ACK, 0)

SEEDS = {
    "hello": SERVER_START + frame(HEADERS, END_HEADERS, 1, STATUS_200) +
    frame(DATA, END_STREAM, 1, b"Hello World!"),
    "not_found_no_body": SERVER_START + frame(HEADERS, END_HEADERS | END_STREAM, 3, STATUS_404),
    "ping": SERVER_START + frame(PING, 0, 0, b"12345678") + frame(PING, ACK, 0, b"87654321"),
    "continuation": SERVER_START + frame(HEADERS, END_STREAM, 1, STATUS_200) +
    frame(CONTINUATION, 0, 1, b"\x00\x01x\x01y") + frame(CONTINUATION, END_HEADERS, 1, b"\x00\x01z\x00"),
    "padded_priority": frame(HEADERS, END_HEADERS | PADDED | PRIO, 1,
                             b"\x02" + b"\x00\x00\x00\x00\x10" + STATUS_200 + b"\x00\x00") +
    frame(DATA, END_STREAM | PADDED, 1, b"\x03abc\x00\x00\x00"),
    "informational_then_final": frame(HEADERS, END_HEADERS, 5, b"\x08\x03" + b"103") +
    frame(HEADERS, END_HEADERS | END_STREAM, 5, STATUS_200),
    "reset_and_goaway": frame(RST, 0, 7, (7).to_bytes(4, "big")) +
    frame(GOAWAY, 0, 0, (5).to_bytes(4, "big") + (11).to_bytes(4, "big") + b"calm down"),
    "big_body": SERVER_START + frame(HEADERS, END_HEADERS, 1, STATUS_200) +
    b"".join(frame(DATA, 0, 1, bytes(1000)) for _ in range(8)) + frame(DATA, END_STREAM, 1, b""),
    "dynamic_table": frame(HEADERS, END_HEADERS | END_STREAM, 1, STATUS_200 + b"\x40\x01a\x01b") +
    frame(HEADERS, END_HEADERS | END_STREAM, 3, STATUS_200 + b"\xbe"),
    "push_promise": frame(PUSH, END_HEADERS, 1, (2).to_bytes(4, "big") + STATUS_200),
    "interrupted_block": frame(HEADERS, 0, 1, STATUS_200) + frame(PING, 0, 0, b"12345678"),
    "oversized": (20000).to_bytes(3, "big") + bytes([DATA, 0]) + (1).to_bytes(4, "big"),
    "bad_hpack": frame(HEADERS, END_HEADERS, 1, b"\xff\xff\xff\xff\x0f"),
    "unknown_type": frame(0x42, 0xff, 9, b"whatever") + frame(WINDOW, 0, 0, (100).to_bytes(4, "big")),
}


def main():
    folder = pathlib.Path(__file__).resolve().parent / "corpus" / "h2_response_reader"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name, data in SEEDS.items():
        for cut in (0, 37):
            (folder / f"{name}_{cut}").write_bytes(bytes([cut]) + data)


if __name__ == "__main__":
    main()
