#!/usr/bin/env python3
"""Writes the seed corpus of fuzz/hpack_decoder_fuzz.cpp: two bytes of table limit, then header
blocks, each after a one-byte length. The blocks come from the RFC 7541 examples (C.3 to C.6) and
from Debian's python3-hpack encoder (Huffman, indexing, evictions).

    /usr/bin/python3 fuzz/make_hpack_decoder_corpus.py   # rewrites corpus/hpack_decoder here
"""

import pathlib
import shutil

import hpack


def seed(limit, blocks):
    out = limit.to_bytes(2, "big")
    for block in blocks:
        assert len(block) < 256
        out += bytes([len(block)]) + block
    return out


RFC_C3 = [bytes.fromhex(h) for h in (
    "828684410f7777772e6578616d706c652e636f6d",
    "828684be58086e6f2d6361636865",
    "828785bf400a637573746f6d2d6b65790c637573746f6d2d76616c7565")]
RFC_C4 = [bytes.fromhex(h) for h in (
    "828684418cf1e3c2e5f23a6ba0ab90f4ff",
    "828684be5886a8eb10649cbf",
    "828785bf408825a849e95ba97d7f8925a849e95bb8e8b4bf")]


def encoded(table_size, header_lists, huffman=True):
    encoder = hpack.Encoder()
    encoder.header_table_size = table_size
    return [encoder.encode(headers, huffman=huffman) for headers in header_lists]


RESPONSES = [
    [(":status", "302"), ("cache-control", "private"), ("date", "Mon, 21 Oct 2013 20:13:21 GMT"),
     ("location", "https://www.example.com")],
    [(":status", "307"), ("cache-control", "private"), ("date", "Mon, 21 Oct 2013 20:13:21 GMT"),
     ("location", "https://www.example.com")],
    [(":status", "200"), ("cache-control", "private"), ("date", "Mon, 21 Oct 2013 20:13:22 GMT"),
     ("location", "https://www.example.com"), ("content-encoding", "gzip"),
     ("set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1")],
]
REQUESTS = [
    [(":method", "GET"), (":scheme", "http"), (":path", "/users/7"), (":authority", "127.0.0.1:8080"),
     ("user-agent", "ringside"), hpack.NeverIndexedHeaderTuple("x-never", "secret")],
    [(":method", "POST"), (":scheme", "https"), (":path", "/updates?queries=20"),
     (":authority", "127.0.0.1:8080"), ("content-type", "application/json"), ("content-length", "2")],
]

SEEDS = {
    "rfc_c3_plain": seed(4096, RFC_C3),
    "rfc_c4_huffman": seed(4096, RFC_C4),
    "responses_table_256": seed(256, encoded(256, RESPONSES)),
    "responses_plain": seed(4096, encoded(4096, RESPONSES, huffman=False)),
    "requests": seed(4096, encoded(4096, REQUESTS * 3)),
    "table_size_update_to_0": seed(4096, [b"\x20\x82"] + RFC_C3[:1]),
    "limit_0": seed(0, [b"\x20\x82\x86\x84"]),
    # Found by the fuzzer: a limit under 4096 and an empty first block (no size update in it).
    "empty_block_limit_0": bytes.fromhex("00000080000084"),
}


def main():
    corpus = pathlib.Path(__file__).resolve().parent / "corpus" / "hpack_decoder"
    shutil.rmtree(corpus, ignore_errors=True)
    corpus.mkdir(parents=True)
    for name, data in SEEDS.items():
        (corpus / name).write_bytes(data)


if __name__ == "__main__":
    main()
