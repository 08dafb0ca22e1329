// HdrHistogram interval logs ("Histogram log format version 1.2") and the V2 compressed histogram
// encoding inside them, so HdrHistogram's own tools (HistogramLogProcessor, the plotters, the
// Java/C/Go/Python readers) can read the latency logs `ringside load` writes. Our own code; the
// format is HdrHistogram's.
//
//   HdrLogWriter log(file);                    // or a std::ostream
//   log.write_header(start_epoch_seconds);     // version, StartTime and legend lines
//   log.write_interval(t, 1.0, interval_hist); // "t,1.000,max_ms,HISTF..." per interval
//
// One compressed histogram (integers big-endian):
//   int32 0x1c849314 | int32 n | n bytes: zlib deflate of the uncompressed form below
// The uncompressed form:
//   int32 0x1c849313 | int32 payload bytes | int32 normalizing index offset, 0
//   | int32 significant digits | int64 lowest trackable value | int64 highest trackable value
//   | float64 integer-to-double conversion ratio, 1.0 | payload
// The payload is counts[0 .. last non-empty index] as ZigZag LEB128 numbers of at most 9 bytes
// (the ninth byte carries 8 bits); a run of k > 1 empty buckets is written as the single number -k.
// The cookies are the V2 bases 0x1c849303 / 0x1c849304 with 0x10 or'ed in, exactly as every
// HdrHistogram implementation writes them (readers mask that nibble off), which is why each
// encoded histogram starts with "HISTF". Counts are positioned by Histogram's bucket layout,
// which is HdrHistogram's (sub_bucket_count = 2^ceil(log2(2 * 10^digits)), unit magnitude
// floor(log2(lowest))), so an index means the same bucket on both sides.
//
// The format carries neither saturated() nor exact sums: a decoded histogram has the same counts,
// and bucket-precise min, max and mean.
#pragma once

#include <cstdio>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "load/histogram.hpp"
#include "load/second_histograms.hpp"

namespace ringside::load {

inline constexpr std::uint32_t kHdrV2EncodingCookie = 0x1c849303 | 0x10;
inline constexpr std::uint32_t kHdrV2CompressedCookie = 0x1c849304 | 0x10;

// The uncompressed V2 bytes (binary, not base64).
[[nodiscard]] std::string encode_uncompressed(const Histogram& histogram);
// Base64 of the compressed V2 form, as it appears in a log line.
[[nodiscard]] std::string encode_compressed(const Histogram& histogram);
// Inverse of encode_compressed, for any V2 compressed histogram whose layout Histogram supports.
// Throws std::runtime_error naming what is wrong with the input.
[[nodiscard]] Histogram decode_compressed(std::string_view base64);

class HdrLogWriter {
 public:
  // Interval_Max is max() divided by this; HdrHistogram's tools expect milliseconds, and our
  // values are microseconds.
  static constexpr double kMicrosecondsPerMillisecond = 1000.0;

  explicit HdrLogWriter(std::FILE* out, double max_value_unit_ratio = kMicrosecondsPerMillisecond)
      : file_(out), max_value_unit_ratio_(max_value_unit_ratio) {}
  explicit HdrLogWriter(std::ostream& out,
                        double max_value_unit_ratio = kMicrosecondsPerMillisecond)
      : stream_(&out), max_value_unit_ratio_(max_value_unit_ratio) {}

  // "#" + text; call before write_header for a comment readers skip.
  void write_comment(std::string_view text);
  // Format version, StartTime (seconds since the epoch, plus a UTC date for people) and the
  // column legend. Interval start times are then relative to start_epoch_seconds.
  void write_header(double start_epoch_seconds);
  // "[Tag=tag,]start,length,max,HISTF...". A tag must not contain ',' or whitespace
  // (std::invalid_argument otherwise).
  void write_interval(double start_seconds, double length_seconds, const Histogram& interval,
                      std::string_view tag = {});
  // False once any write has failed.
  [[nodiscard]] bool ok() const { return ok_; }

 private:
  void emit(std::string_view text);

  std::FILE* file_ = nullptr;
  std::ostream* stream_ = nullptr;
  double max_value_unit_ratio_;
  bool ok_ = true;
};

// Writes `seconds` as one interval per second of a measured phase `elapsed_s` long: interval i
// starts at i and lasts one second, the last one what is left of elapsed_s (completions noted
// after elapsed_s, in the loop turn that ended the run, go into the last interval).
void write_intervals_per_second(HdrLogWriter& log, const SecondHistograms& seconds,
                                double elapsed_s, std::string_view tag = {});

struct HdrLogInterval {
  std::string tag;  // "" when the line has no Tag=
  double start_s = 0;
  double length_s = 0;
  Histogram histogram;
};

struct HdrLog {
  std::optional<double> start_epoch_s;  // the StartTime header, if any
  std::vector<HdrLogInterval> intervals;
};

// Reads a log as HdrLogWriter writes it (and as HdrHistogram's writers do: comments, StartTime,
// BaseTime, the legend, "[Tag=t,]start,length,max,HISTF..." lines). Throws std::runtime_error
// naming the line that is wrong.
[[nodiscard]] HdrLog read_hdr_log(std::istream& in);

}  // namespace ringside::load
