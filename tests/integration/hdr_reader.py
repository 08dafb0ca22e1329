"""Reads HdrHistogram V2 compressed histograms and interval logs (the format `ringside load --hlog`
writes, documented at the top of src/load/hdr_log.hpp), independently of ringside's C++ reader,
so the tests (test_merge, tests/distributed) can check a merge against histograms they decoded
themselves.

A histogram here is (layout, counts): layout = (significant digits, lowest, highest) and counts a
dict bucket index -> count, without empty buckets; two histograms are equal bucket for bucket
when both are equal.
"""
import base64
import struct
import zlib

COMPRESSED_COOKIE = 0x1C849304
ENCODING_COOKIE = 0x1C849303
# Writers or 0x10 into the cookies (V2 "word size" nibble); readers mask it off.
COOKIE_MASK = ~0xF0 & 0xFFFFFFFF


class Histogram:
    def __init__(self, layout, counts=None):
        self.layout = layout
        self.counts = dict(counts or {})

    def total(self):
        return sum(self.counts.values())

    def add(self, other):
        if other.layout != self.layout:
            raise ValueError(f"histogram layouts differ: {self.layout} and {other.layout}")
        for index, count in other.counts.items():
            self.counts[index] = self.counts.get(index, 0) + count
        return self

    def __eq__(self, other):
        return self.layout == other.layout and self.counts == other.counts

    def __repr__(self):
        return f"Histogram(layout={self.layout}, total={self.total()}, buckets={len(self.counts)})"

    def difference(self, other):
        """Buckets whose counts differ, index -> (ours, theirs), for failure messages."""
        keys = set(self.counts) | set(other.counts)
        return {k: (self.counts.get(k, 0), other.counts.get(k, 0)) for k in sorted(keys)
                if self.counts.get(k, 0) != other.counts.get(k, 0)}


def _zigzag_leb128(payload):
    """Yields the payload's numbers: LEB128 of at most 9 bytes (the ninth carries 8 bits), ZigZag."""
    pos = 0
    while pos < len(payload):
        value = 0
        shift = 0
        for byte_number in range(9):
            byte = payload[pos]
            pos += 1
            if byte_number == 8:
                value |= byte << shift
                break
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        yield (value >> 1) ^ -(value & 1)


def decode_compressed(text):
    """One base64 V2 compressed histogram (a log line's last field, or a JSON `hdr`)."""
    raw = base64.b64decode(text, validate=True)
    cookie, length = struct.unpack_from(">iI", raw, 0)
    if cookie & COOKIE_MASK != COMPRESSED_COOKIE:
        raise ValueError(f"not a V2 compressed histogram (cookie {cookie:#x})")
    inflated = zlib.decompress(raw[8:8 + length])
    cookie, payload_bytes, offset, digits, lowest, highest, ratio = struct.unpack_from(
        ">iiiiqqd", inflated, 0)
    if cookie & COOKIE_MASK != ENCODING_COOKIE:
        raise ValueError(f"not a V2 encoding (cookie {cookie:#x})")
    if offset != 0 or ratio != 1.0:
        raise ValueError(f"unexpected normalizing offset {offset} or ratio {ratio}")
    payload = inflated[40:40 + payload_bytes]
    counts = {}
    index = 0
    for number in _zigzag_leb128(payload):
        if number < 0:
            index += -number
        else:
            if number:
                counts[index] = number
            index += 1
    return Histogram((digits, lowest, highest), counts)


def read_log(path):
    """Every interval of an interval log: a list of (tag or None, start, length, Histogram)."""
    intervals = []
    with open(path, encoding="ascii") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or line.startswith('"'):
                continue
            fields = line.split(",")
            tag = None
            if fields[0].startswith("Tag="):
                tag = fields.pop(0)[len("Tag="):]
            start, length, _max = (float(x) for x in fields[:3])
            intervals.append((tag, start, length, decode_compressed(fields[3])))
    return intervals


def log_total(path):
    """The sum of a log's intervals, and the set of tags on them."""
    intervals = read_log(path)
    if not intervals:
        raise ValueError(f"{path} holds no interval")
    total = Histogram(intervals[0][3].layout)
    for _tag, _start, _length, histogram in intervals:
        total.add(histogram)
    return total, {tag for tag, *_ in intervals}
