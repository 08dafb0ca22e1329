#include "load/hdr_log.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <ctime>
#include <string>
#include <stdexcept>

namespace ringside::load {
namespace {

constexpr std::uint32_t kCookieVersionMask = ~std::uint32_t{0xf0};
constexpr std::size_t kHeaderBytes = 40;
constexpr std::size_t kMaxInflatedBytes = 64 * 1024 * 1024;  // refuse zip bombs
constexpr std::string_view kLegendLine =
    R"("StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram")"
    "\n";
constexpr std::string_view kBase64Alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error("HDR histogram: " + what);
}

std::string hex(std::uint32_t value) {
  std::array<char, 16> buffer;
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, 16);
  return "0x" + std::string(buffer.data(), result.ptr);
}

void put_big_endian(std::string& out, std::uint64_t value, int bytes) {
  for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

std::uint64_t get_big_endian(std::string_view in, std::size_t at, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value = value << 8 | static_cast<std::uint8_t>(in[at + i]);
  return value;
}

// HdrHistogram's "LEB128-64b9B": 7 bits per byte for eight bytes, then a ninth byte of 8 bits,
// so any 64-bit ZigZag value fits in 9 bytes instead of LEB128's 10.
void put_zigzag(std::string& out, std::int64_t value) {
  auto bits = (static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63);
  for (int i = 0; i < 8; ++i) {
    if (bits < 0x80) {
      out.push_back(static_cast<char>(bits));
      return;
    }
    out.push_back(static_cast<char>((bits & 0x7f) | 0x80));
    bits >>= 7;
  }
  out.push_back(static_cast<char>(bits));
}

std::int64_t get_zigzag(std::string_view in, std::size_t& at) {
  std::uint64_t bits = 0;
  for (int i = 0; i < 9; ++i) {
    if (at >= in.size()) fail("payload ends inside a number");
    const auto byte = static_cast<std::uint8_t>(in[at++]);
    if (i == 8) {
      bits |= std::uint64_t{byte} << 56;
      break;
    }
    bits |= std::uint64_t{byte & 0x7fu} << (7 * i);
    if ((byte & 0x80) == 0) break;
  }
  return static_cast<std::int64_t>(bits >> 1) ^ -static_cast<std::int64_t>(bits & 1);
}

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t group = 0;
    for (std::size_t j = 0; j < 3; ++j) {
      group = group << 8 | (j < n ? static_cast<std::uint8_t>(bytes[i + j]) : 0u);
    }
    for (std::size_t j = 0; j < 4; ++j) {
      out.push_back(j <= n ? kBase64Alphabet[(group >> (18 - 6 * j)) & 0x3f] : '=');
    }
  }
  return out;
}

std::string base64_decode(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  if (text.size() % 4 == 1) fail("base64 text has an impossible length");
  std::string out;
  out.reserve(text.size() * 3 / 4);
  std::uint32_t group = 0;
  int bits = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto digit = kBase64Alphabet.find(text[i]);
    if (digit == std::string_view::npos) {
      fail("invalid base64 character at offset " + std::to_string(i));
    }
    group = group << 6 | static_cast<std::uint32_t>(digit);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((group >> bits) & 0xff));
    }
  }
  return out;
}

std::string deflate_bytes(std::string_view raw) {
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::string out(size, '\0');
  const int rc = compress2(reinterpret_cast<Bytef*>(out.data()), &size,
                           reinterpret_cast<const Bytef*>(raw.data()),
                           static_cast<uLong>(raw.size()), Z_DEFAULT_COMPRESSION);
  if (rc != Z_OK) fail("zlib compress2 failed with code " + std::to_string(rc));
  out.resize(size);
  return out;
}

std::string inflate_bytes(std::string_view compressed) {
  z_stream stream{};
  if (inflateInit(&stream) != Z_OK) fail("zlib inflateInit failed");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  std::string out;
  std::array<char, 16 * 1024> chunk;
  int rc = Z_OK;
  while (rc == Z_OK && out.size() <= kMaxInflatedBytes) {
    stream.next_out = reinterpret_cast<Bytef*>(chunk.data());
    stream.avail_out = static_cast<uInt>(chunk.size());
    rc = inflate(&stream, Z_NO_FLUSH);
    out.append(chunk.data(), chunk.size() - stream.avail_out);
  }
  inflateEnd(&stream);
  if (rc != Z_STREAM_END) fail("compressed data is corrupt, truncated or implausibly large (zlib)");
  return out;
}

std::size_t counts_limit(const Histogram& histogram) {
  std::size_t limit = histogram.counts_length();
  while (limit > 1 && histogram.count_at_index(limit - 1) == 0) --limit;
  return limit;
}

void decode_payload(std::string_view payload, Histogram& histogram) {
  std::size_t at = 0;
  std::size_t index = 0;
  while (at < payload.size()) {
    const std::int64_t value = get_zigzag(payload, at);
    if (value < 0) {
      index += static_cast<std::size_t>(-static_cast<std::uint64_t>(value));
      continue;
    }
    histogram.add_at_index(index++, static_cast<std::uint64_t>(value));
  }
}

Histogram histogram_from_header(std::string_view raw) {
  const auto digits = static_cast<std::int32_t>(get_big_endian(raw, 12, 4));
  const std::uint64_t lowest = get_big_endian(raw, 16, 8);
  const std::uint64_t highest = get_big_endian(raw, 24, 8);
  try {
    return Histogram(lowest, highest, digits);
  } catch (const std::invalid_argument& e) {
    fail(std::string("unsupported layout in the header: ") + e.what());
  }
}

std::string fixed3(double value) {
  std::array<char, 64> buffer;
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                    std::chars_format::fixed, 3);
  return std::string(buffer.data(), result.ptr);
}

}  // namespace

std::string encode_uncompressed(const Histogram& histogram) {
  std::string payload;
  const std::size_t limit = counts_limit(histogram);
  for (std::size_t i = 0; i < limit;) {
    const std::uint64_t count = histogram.count_at_index(i++);
    if (count != 0) {
      put_zigzag(payload, static_cast<std::int64_t>(count));
      continue;
    }
    std::int64_t zeros = 1;
    for (; i < limit && histogram.count_at_index(i) == 0; ++i) ++zeros;
    put_zigzag(payload, zeros > 1 ? -zeros : 0);
  }
  std::string out;
  out.reserve(kHeaderBytes + payload.size());
  put_big_endian(out, kHdrV2EncodingCookie, 4);
  put_big_endian(out, payload.size(), 4);
  put_big_endian(out, 0, 4);  // normalizing index offset: we never shift counts
  put_big_endian(out, static_cast<std::uint64_t>(histogram.significant_digits()), 4);
  put_big_endian(out, histogram.lowest_trackable(), 8);
  put_big_endian(out, histogram.highest_trackable(), 8);
  put_big_endian(out, std::bit_cast<std::uint64_t>(1.0), 8);  // integer histogram
  return out + payload;
}

std::string encode_compressed(const Histogram& histogram) {
  const std::string deflated = deflate_bytes(encode_uncompressed(histogram));
  std::string framed;
  put_big_endian(framed, kHdrV2CompressedCookie, 4);
  put_big_endian(framed, deflated.size(), 4);
  return base64_encode(framed + deflated);
}

Histogram decode_compressed(std::string_view base64) {
  const std::string framed = base64_decode(base64);
  if (framed.size() < 8) fail("too short to hold the compressed header");
  const auto cookie = static_cast<std::uint32_t>(get_big_endian(framed, 0, 4));
  if ((cookie & kCookieVersionMask) != (kHdrV2CompressedCookie & kCookieVersionMask)) {
    fail("cookie " + hex(cookie) + " is not a V2 compressed histogram's (0x1c849314)");
  }
  const std::uint64_t compressed_bytes = get_big_endian(framed, 4, 4);
  if (compressed_bytes > framed.size() - 8) fail("compressed length runs past the input");
  const std::string raw = inflate_bytes(std::string_view(framed).substr(8, compressed_bytes));

  if (raw.size() < kHeaderBytes) fail("inflated data is shorter than the V2 header");
  const auto inner_cookie = static_cast<std::uint32_t>(get_big_endian(raw, 0, 4));
  if ((inner_cookie & kCookieVersionMask) != (kHdrV2EncodingCookie & kCookieVersionMask)) {
    fail("inner cookie " + hex(inner_cookie) + " is not a V2 encoding's (0x1c849313)");
  }
  std::uint64_t payload_bytes = get_big_endian(raw, 4, 4);
  // Older HdrHistogram_c releases counted the 40-byte header in this field; accept their logs.
  if (payload_bytes == raw.size()) payload_bytes -= kHeaderBytes;
  if (payload_bytes > raw.size() - kHeaderBytes) fail("payload length runs past the data");
  if (get_big_endian(raw, 8, 4) != 0) fail("a normalizing index offset is not supported");
  Histogram histogram = histogram_from_header(raw);
  try {
    decode_payload(std::string_view(raw).substr(kHeaderBytes, payload_bytes), histogram);
  } catch (const std::out_of_range&) {
    fail("payload has more counts than the header's layout holds");
  }
  return histogram;
}

void HdrLogWriter::write_comment(std::string_view text) {
  emit("#");
  emit(text);
  emit("\n");
}

void HdrLogWriter::write_header(double start_epoch_seconds) {
  const auto whole_seconds = static_cast<std::time_t>(std::floor(start_epoch_seconds));
  std::tm utc{};
  gmtime_r(&whole_seconds, &utc);
  std::array<char, 64> date;
  const std::size_t date_length =
      std::strftime(date.data(), date.size(), "%a %b %d %H:%M:%S UTC %Y", &utc);
  emit("#[Histogram log format version 1.2]\n");
  emit("#[StartTime: " + fixed3(start_epoch_seconds) + " (seconds since epoch), " +
       std::string(date.data(), date_length) + "]\n");
  emit(kLegendLine);
}

void HdrLogWriter::write_interval(double start_seconds, double length_seconds,
                                  const Histogram& interval, std::string_view tag) {
  if (tag.find_first_of(", \t\r\n") != std::string_view::npos) {
    throw std::invalid_argument("HdrLogWriter: tag '" + std::string(tag) +
                                "' contains a comma or whitespace, which log readers split on");
  }
  std::string line;
  if (!tag.empty()) line.append("Tag=").append(tag).append(",");
  line += fixed3(start_seconds) + "," + fixed3(length_seconds) + "," +
          fixed3(static_cast<double>(interval.max()) / max_value_unit_ratio_) + "," +
          encode_compressed(interval) + "\n";
  emit(line);
}

void HdrLogWriter::emit(std::string_view text) {
  if (file_ != nullptr) {
    ok_ = std::fwrite(text.data(), 1, text.size(), file_) == text.size() && ok_;
  } else {
    stream_->write(text.data(), static_cast<std::streamsize>(text.size()));
    ok_ = stream_->good() && ok_;
  }
}

}  // namespace ringside::load

namespace ringside::load {
namespace {

// "StartTime: 1712345678.123 (seconds since epoch), ..." -> 1712345678.123
std::optional<double> header_seconds(std::string_view line, std::string_view key) {
  const std::size_t at = line.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + key.size());
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  double value = 0;
  const auto result = std::from_chars(rest.data(), rest.data() + rest.size(), value);
  if (result.ec != std::errc()) return std::nullopt;
  return value;
}

double field_number(std::string_view field, std::size_t line_number) {
  double value = 0;
  const auto result = std::from_chars(field.data(), field.data() + field.size(), value);
  if (result.ec != std::errc() || result.ptr != field.data() + field.size()) {
    fail("line " + std::to_string(line_number) + ": '" + std::string(field.substr(0, 40)) +
         "' is not a number");
  }
  return value;
}

}  // namespace

void write_intervals_per_second(HdrLogWriter& log, const SecondHistograms& seconds,
                                double elapsed_s, std::string_view tag) {
  const auto whole = static_cast<std::size_t>(std::ceil(elapsed_s - 1e-9));
  const std::size_t count = std::max<std::size_t>(whole, 1);
  for (std::size_t i = 0; i < count; ++i) {
    Histogram interval = seconds.histogram(i);
    if (i + 1 == count) {
      for (std::size_t late = count; late < seconds.size(); ++late) {
        interval.merge(seconds.histogram(late));
      }
    }
    const double length = std::clamp(elapsed_s - static_cast<double>(i), 0.0, 1.0);
    log.write_interval(static_cast<double>(i), length, interval, tag);
  }
}

HdrLog read_hdr_log(std::istream& in) {
  HdrLog log;
  std::string line;
  std::size_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string_view rest = line;
    if (rest.empty()) continue;
    if (rest.front() == '#') {
      if (auto start = header_seconds(rest, "StartTime:")) log.start_epoch_s = start;
      continue;
    }
    if (rest.front() == '"' || rest.starts_with("StartTimestamp")) continue;  // the legend
    HdrLogInterval interval;
    if (rest.starts_with("Tag=")) {
      const std::size_t comma = rest.find(',');
      if (comma == std::string_view::npos) fail("line " + std::to_string(line_number) + ": a tag alone");
      interval.tag = std::string(rest.substr(4, comma - 4));
      rest.remove_prefix(comma + 1);
    }
    std::string_view fields[4];
    for (int f = 0; f < 3; ++f) {
      const std::size_t comma = rest.find(',');
      if (comma == std::string_view::npos) {
        fail("line " + std::to_string(line_number) +
             ": expected start,length,max,histogram (is this an HdrHistogram log?)");
      }
      fields[f] = rest.substr(0, comma);
      rest.remove_prefix(comma + 1);
    }
    fields[3] = rest;
    interval.start_s = field_number(fields[0], line_number);
    interval.length_s = field_number(fields[1], line_number);
    try {
      interval.histogram = decode_compressed(fields[3]);
    } catch (const std::runtime_error& e) {
      fail("line " + std::to_string(line_number) + ": " + e.what());
    }
    log.intervals.push_back(std::move(interval));
  }
  return log;
}

}  // namespace ringside::load
