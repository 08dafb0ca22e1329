#!/usr/bin/env python3
"""The table bench/repeatability/phases prints, from its work folder: per second of the load's
histogram log (requests counted from each interval's HdrHistogram), the CPU readings and each
core's probe (medians of that second's samples)."""
import base64
import statistics
import struct
import sys
import zlib


def interval_count(encoded):
    """Requests in one interval: the sum of the counts of a V2 compressed HdrHistogram."""
    raw = base64.b64decode(encoded)
    length = struct.unpack(">i", raw[4:8])[0]
    body = zlib.decompress(raw[8:8 + length])
    payload_length = struct.unpack(">i", body[4:8])[0]
    payload = body[40:40 + payload_length]
    total, at = 0, 0
    while at < len(payload):
        value, shift = 0, 0
        while True:
            byte = payload[at]
            at += 1
            if shift == 56:
                value |= byte << 56
                break
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        value = (value >> 1) ^ -(value & 1)  # zigzag; negative = a run of empty buckets
        total += max(value, 0)
    return total


def seconds(work):
    start, rows = None, []
    with open(f"{work}/hlog.txt") as f:
        for line in f:
            if line.startswith("#[StartTime:"):
                start = float(line.split()[1])
            if line[0] in '#"':
                continue
            fields = line.strip().split(",")
            rows.append((start + float(fields[0]), interval_count(fields[3])))
    return rows


def samples(path):
    with open(path) as f:
        return [tuple(float(x) for x in line.split()) for line in f if line.strip()]


def median_in(series, begin, end, column):
    values = [row[column] for row in series if begin <= row[0] < end]
    return statistics.median(values) if values else float("nan")


def rate_in(series, begin, end, column, ticks_per_s=100):
    before = [row for row in series if row[0] <= begin]
    after = [row for row in series if row[0] >= end]
    if not before or not after:
        return float("nan")
    a, b = before[-1], after[0]
    return (b[column] - a[column]) / (b[0] - a[0]) / ticks_per_s * 100


def main(work):
    probe = [samples(f"{work}/probe0.txt"), samples(f"{work}/probe1.txt")]
    cpu = samples(f"{work}/cpu.txt")
    print("  s  k req  server%  loader%   cpu0 issue  copy   cpu1 issue  copy")
    for second, (begin, count) in enumerate(seconds(work)):
        end = begin + 1
        print(f"{second:3d} {count / 1000:6.1f} {rate_in(cpu, begin, end, 1):8.0f} {rate_in(cpu, begin, end, 2):8.0f}"
              f"   {median_in(probe[0], begin, end, 2):10.3f} {median_in(probe[0], begin, end, 3):5.0f}"
              f"   {median_in(probe[1], begin, end, 2):10.3f} {median_in(probe[1], begin, end, 3):5.0f}")


if __name__ == "__main__":
    main(sys.argv[1])
