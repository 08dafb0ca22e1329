#include "load/hdr_log.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ringside::load {
namespace {

// The test's own base64 and zlib plumbing, so the golden checks do not lean on the code under test.
std::string base64_decode(std::string_view text) {
  static const std::string alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned bits = 0, value = 0;
  for (char c : text) {
    if (c == '=') break;
    value = value << 6 | static_cast<unsigned>(alphabet.find(c));
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((value >> bits) & 0xff));
    }
  }
  return out;
}

std::string base64_encode(const std::string& bytes) {
  static const std::string alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    unsigned group = 0;
    for (std::size_t j = 0; j < 3; ++j) {
      group = group << 8 | (j < n ? static_cast<unsigned char>(bytes[i + j]) : 0u);
    }
    for (std::size_t j = 0; j < 4; ++j) {
      out.push_back(j <= n ? alphabet[(group >> (18 - 6 * j)) & 63] : '=');
    }
  }
  return out;
}

// "1c 84 93" -> bytes; spaces are only for the reader.
std::string from_hex(std::string_view hex) {
  std::string digits;
  for (char c : hex) {
    if (c != ' ') digits.push_back(c);
  }
  std::string out;
  for (std::size_t i = 0; i + 1 < digits.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(digits.substr(i, 2), nullptr, 16)));
  }
  return out;
}

// An uncompressed V2 header as hex: cookie, payload length, normalizing offset, digits, lowest,
// highest (both 64-bit), and the conversion ratio 1.0.
std::string v2_header(std::string_view length, std::string_view offset, std::string_view digits,
                      std::string_view lowest, std::string_view highest) {
  return "1c849313 " + std::string(length) + " " + std::string(offset) + " " + std::string(digits) +
         " " + std::string(lowest) + " " + std::string(highest) + " 3ff0000000000000 ";
}

std::uint32_t be32(std::string_view bytes, std::size_t at) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    value = value << 8 | static_cast<unsigned char>(bytes[at + i]);
  }
  return value;
}

std::string zlib_inflate(std::string_view compressed, std::size_t expected_size) {
  std::string out(expected_size, '\0');
  uLongf size = expected_size;
  EXPECT_EQ(uncompress(reinterpret_cast<Bytef*>(out.data()), &size,
                       reinterpret_cast<const Bytef*>(compressed.data()), compressed.size()),
            Z_OK);
  out.resize(size);
  return out;
}

// Frames raw V2 bytes the way encode_compressed does, for hand-made malformed inputs.
std::string frame(const std::string& raw) {
  uLongf size = compressBound(raw.size());
  std::string deflated(size, '\0');
  compress(reinterpret_cast<Bytef*>(deflated.data()), &size,
           reinterpret_cast<const Bytef*>(raw.data()), raw.size());
  deflated.resize(size);
  const std::string header =
      from_hex("1c849314") + std::string(3, '\0') + static_cast<char>(deflated.size());
  return base64_encode(header + deflated);
}

// Replaces the low byte of the outer cookie.
std::string with_cookie_byte(const std::string& encoded, char byte) {
  std::string framed = base64_decode(encoded);
  framed[3] = byte;
  return base64_encode(framed);
}

void expect_same_counts(const Histogram& a, const Histogram& b) {
  ASSERT_TRUE(a.same_layout(b));
  for (std::size_t i = 0; i < a.counts_length(); ++i) {
    ASSERT_EQ(a.count_at_index(i), b.count_at_index(i)) << "index " << i;
  }
  EXPECT_EQ(a.count(), b.count());
}

TEST(HdrLog, GoldenTinyHistogramDecodedByHand) {
  Histogram h(1, 2048, 3);
  h.record(2048);
  const std::string encoded = encode_compressed(h);
  EXPECT_EQ(encoded, "HISTFAAAACB4nJNpmSzMwMDAzAABMJoRQnEw2H+AsP7LMwEARZgDpQ==");

  const std::string framed = base64_decode(encoded);
  ASSERT_GE(framed.size(), 8u);
  EXPECT_EQ(be32(framed, 0), 0x1c849314u);  // V2 compressed cookie base 0x1c849304 | 0x10
  ASSERT_EQ(be32(framed, 4), framed.size() - 8);
  const std::string raw = zlib_inflate(std::string_view(framed).substr(8), 4096);
  // Header: cookie (V2 base 0x1c849303 | 0x10), payload length 3, normalizing offset 0,
  // 3 digits, lowest 1, highest 2048 (0x800), ratio 1.0 (IEEE 0x3ff0...). Payload: 2048 is the
  // first value of bucket 1, index (1 + 1) * 1024 + 1024 - 1024 = 2048, so 2048 empty buckets
  // come first: zigzag(-2048) = 4095 = LEB128 ff 1f; then the count 1: zigzag(1) = 02.
  const std::string expected = from_hex(
      "1c849313 00000003 00000000 00000003 0000000000000001 0000000000000800 3ff0000000000000 "
      "ff 1f 02");
  EXPECT_EQ(raw, expected);
  EXPECT_EQ(encode_uncompressed(h), expected);
}

struct Fixture {
  std::uint64_t lowest, highest;
  int digits;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> values;  // value, count
  const char* base64;
};

// Histograms written by HdrHistogram implementations (Java and C outputs quoted by other ports'
// test suites). Matching them byte for byte also relies on zlib's deflate at the default level,
// which is deterministic for a given zlib; if a different zlib (zlib-ng, say) is ever linked, the
// encode half may need new strings, the decode half not.
const Fixture kFixtures[] = {
    {1, 2048, 3, {{2048, 1}}, "HISTFAAAACB4nJNpmSzMwMDAzAABMJoRQnEw2H+AsP7LMwEARZgDpQ=="},
    {1,
     300,
     3,
     {{100, 1}, {200, 1}, {250, 1}},
     "HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk"},
    {1, 1000, 0, {{100, 1}}, "HISTFAAAAB14nJNpmSzMwMDAxIAKGCEU8wv7DxAWLxMASToDcw=="},
};

// HdrHistogram_c's "standard test histogram" (10000 x 1000 and 1 x 1e8, 1 .. 3.6e9, 3 digits) as
// an older release wrote it: its payload length field (49) counted the 40-byte header too.
constexpr const char* kOldCStandardHistogram =
    "HISTFAAAACl4nJNpmSzMwMBgyAABzFCaEURcm7yEwf4DROA8/4I5jNM7mJgAlWkH9g==";

TEST(HdrLog, MatchesHistogramsWrittenByHdrHistogram) {
  for (const Fixture& fixture : kFixtures) {
    Histogram h(fixture.lowest, fixture.highest, fixture.digits);
    for (auto [value, count] : fixture.values) h.record_n(value, count);
    EXPECT_EQ(encode_compressed(h), fixture.base64);
    const Histogram decoded = decode_compressed(fixture.base64);
    EXPECT_EQ(decoded.lowest_trackable(), fixture.lowest);
    EXPECT_EQ(decoded.highest_trackable(), fixture.highest);
    EXPECT_EQ(decoded.significant_digits(), fixture.digits);
    expect_same_counts(decoded, h);
  }
}

TEST(HdrLog, ReadsTheOldCStandardHistogram) {
  Histogram expected(1, 3'600'000'000, 3);
  expected.record_n(1000, 10'000);
  expected.record(100'000'000);
  const Histogram h = decode_compressed(kOldCStandardHistogram);
  expect_same_counts(h, expected);
  EXPECT_EQ(h.value_at_percentile(50), 1000u);
  EXPECT_EQ(h.value_at_percentile(99.99), 1000u);
  // 1e8 lies in [1525 << 16, (1526 << 16) - 1]; decoded maxima are bucket tops.
  EXPECT_EQ(h.max(), 100'007'935u);
  EXPECT_EQ(h.value_at_percentile(100), 100'007'935u);

  // Our bytes differ from that release's only in the corrected length field (9).
  const std::string framed = base64_decode(kOldCStandardHistogram);
  std::string theirs = zlib_inflate(std::string_view(framed).substr(8), 4096);
  ASSERT_EQ(theirs.size(), 49u);
  EXPECT_EQ(be32(theirs, 4), 49u);
  theirs[7] = 9;
  EXPECT_EQ(encode_uncompressed(expected), theirs);
}

Histogram sample_histogram(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> latency(7.0, 1.5);
  Histogram h;
  for (int i = 0; i < 50'000; ++i) h.record(static_cast<std::uint64_t>(latency(rng)));
  return h;
}

TEST(HdrLog, RoundTripKeepsEveryCount) {
  std::vector<Histogram> cases = {Histogram(), sample_histogram(1), sample_histogram(2)};
  cases.emplace_back(1000, 3'600'000'000, 2);
  cases.back().record(999);
  cases.back().record(3'000'000'000);
  cases.emplace_back();
  cases.back().record_n(5, std::uint64_t{1} << 40);                 // multi-byte LEB128
  cases.back().record_n(60'000'000, (std::uint64_t{1} << 62) + 3);  // uses the 9th byte
  cases.emplace_back();
  cases.back().record(0);
  for (const Histogram& original : cases) {
    const Histogram decoded = decode_compressed(encode_compressed(original));
    expect_same_counts(decoded, original);
    if (original.count() == 0) continue;
    EXPECT_EQ(decoded.min(), decoded.lowest_equivalent_at(original.index_of(original.min())));
    EXPECT_EQ(decoded.max(), decoded.highest_equivalent_at(original.index_of(original.max())));
  }
}

TEST(HdrLog, EmptyHistogramEncodesOneZeroCount) {
  const std::string raw = encode_uncompressed(Histogram());
  ASSERT_EQ(raw.size(), 41u);
  EXPECT_EQ(be32(raw, 4), 1u);
  EXPECT_EQ(raw[40], '\0');
}

TEST(HdrLog, DecoderRejectsMalformedInput) {
  const std::string good = kFixtures[0].base64;
  const std::string lowest = "0000000000000001", highest = "0000000000000800";
  const auto with = [&](std::string_view header, std::string_view payload) {
    return frame(from_hex(header) + from_hex(payload));
  };
  const std::vector<std::string> bad = {
      "",
      "not base64!",
      good.substr(0, 20),            // truncated
      with_cookie_byte(good, 0x02),  // a V1 compressed cookie
      good.substr(0, 30) + (good[30] == 'A' ? "B" : "A") + good.substr(31),  // corrupt deflate
      with(v2_header("00000003", "00000000", "00000007", lowest, highest), "ff1f02"),  // digits
      with(v2_header("00000003", "00000000", "00000003", lowest, lowest), "ff1f02"),   // range
      with(v2_header("00000003", "00000000", "00000003", lowest, highest), "8f4e02"),  // index 5000
      with(v2_header("00000009", "00000000", "00000003", lowest, highest), "ff1f02"),  // length
      with(v2_header("00000003", "00000001", "00000003", lowest, highest), "ff1f02"),  // offset
  };
  for (const std::string& input : bad) {
    EXPECT_THROW((void)decode_compressed(input), std::runtime_error) << input;
  }
  // The hand framing itself is sound: the same bytes with a good header decode.
  const Histogram decoded = decode_compressed(
      with(v2_header("00000003", "00000000", "00000003", lowest, highest), "ff1f02"));
  EXPECT_EQ(decoded.count(), 1u);
  EXPECT_EQ(decoded.min(), 2048u);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(HdrLog, WriterProducesTheV12LogFormat) {
  Histogram first, second;
  first.record(2500);
  first.record(700);
  second.record(123'456);
  std::ostringstream out;
  HdrLogWriter log(out);
  log.write_comment("ringside load http://127.0.0.1:8080/");
  log.write_header(1441812279.474);
  log.write_interval(0.0, 1.0, first);
  log.write_interval(1.0, 1.0005, second, "GET");
  ASSERT_TRUE(log.ok());

  const std::vector<std::string> lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[0], "#ringside load http://127.0.0.1:8080/");
  EXPECT_EQ(lines[1], "#[Histogram log format version 1.2]");
  EXPECT_EQ(lines[2],
            "#[StartTime: 1441812279.474 (seconds since epoch), Wed Sep 09 15:24:39 UTC 2015]");
  EXPECT_EQ(lines[3],
            "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
            "\"Interval_Compressed_Histogram\"");
  EXPECT_EQ(lines[4], "0.000,1.000,2.500," + encode_compressed(first));
  EXPECT_EQ(lines[5], "Tag=GET,1.000,1.000,123.456," + encode_compressed(second));
  expect_same_counts(decode_compressed(lines[4].substr(lines[4].rfind(',') + 1)), first);
}

TEST(HdrLog, WriterToFileMatchesWriterToStream) {
  const Histogram h = sample_histogram(3);
  std::ostringstream expected;
  HdrLogWriter(expected).write_interval(2.0, 1.0, h);

  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  HdrLogWriter log(file);
  log.write_interval(2.0, 1.0, h);
  EXPECT_TRUE(log.ok());
  std::rewind(file);
  std::string written(expected.str().size() + 16, '\0');
  written.resize(std::fread(written.data(), 1, written.size(), file));
  std::fclose(file);
  EXPECT_EQ(written, expected.str());
}

TEST(HdrLog, WriterReportsFailuresAndBadTags) {
  std::ostringstream out;
  out.setstate(std::ios::badbit);
  HdrLogWriter log(out);
  log.write_header(0);
  EXPECT_FALSE(log.ok());
  EXPECT_THROW(HdrLogWriter(out).write_interval(0, 1, Histogram(), "a,b"), std::invalid_argument);
  EXPECT_THROW(HdrLogWriter(out).write_interval(0, 1, Histogram(), "a b"), std::invalid_argument);
}

}  // namespace
}  // namespace ringside::load

namespace ringside::load {
namespace {

TEST(HdrLogPerSecond, OneTaggedIntervalPerSecondTheLastOneShorter) {
  SecondHistograms seconds;
  seconds.enable(Histogram{});
  for (std::size_t s = 0; s < 3; ++s) {
    for (std::uint64_t v = 1; v <= 10 * (s + 1); ++v) seconds.record(s, v * 100);
  }
  seconds.record(3, 77);  // noted in the turn that ended a 2.5 s run: goes into the last second
  seconds.finish();
  std::ostringstream out;
  HdrLogWriter writer(out);
  writer.write_header(1'700'000'000.5);
  write_intervals_per_second(writer, seconds, 2.5, "g1");
  std::istringstream in(out.str());
  const HdrLog log = read_hdr_log(in);
  ASSERT_TRUE(log.start_epoch_s);
  EXPECT_DOUBLE_EQ(*log.start_epoch_s, 1'700'000'000.5);
  ASSERT_EQ(log.intervals.size(), 3u) << out.str();
  const double starts[] = {0, 1, 2}, lengths[] = {1, 1, 0.5};
  const std::uint64_t counts[] = {10, 20, 31};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(log.intervals[i].tag, "g1");
    EXPECT_DOUBLE_EQ(log.intervals[i].start_s, starts[i]);
    EXPECT_DOUBLE_EQ(log.intervals[i].length_s, lengths[i]);
    EXPECT_EQ(log.intervals[i].histogram.count(), counts[i]);
  }
  EXPECT_NE(out.str().find("\nTag=g1,0.000,1.000,"), std::string::npos) << out.str();
}

TEST(HdrLogRead, NamesTheLineThatIsWrong) {
  for (const char* text : {"#[StartTime: 1.0 (seconds since epoch)]\n0.000,1.000,2.0\n",
                           "1.0,x,2.0,HISTFAAAA\n", "0.000,1.000,2.000,HISTF!!!!\n"}) {
    std::istringstream in(text);
    try {
      (void)read_hdr_log(in);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("line "), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace ringside::load
