// Latency histogram for `ringside load`: an HDR-style log-linear histogram (our own implementation
// of the algorithm Gil Tene described for HdrHistogram). Values are microseconds; the default
// range is 1 us .. 60 s with 3 significant decimal digits, so every reported value is within 0.1%
// of the true one. The counts array is allocated once in the constructor; recording allocates
// nothing and costs a few instructions, so each worker owns one and they are merged after join.
//
//   Histogram latency;                        // 1 us .. 60 s, 3 digits
//   latency.record(elapsed_us);               // or record_corrected(elapsed_us, interval_us)
//   total.merge(latency);                     // after the workers have joined
//   total.value_at_percentile(99.9);          // smallest value with >= 99.9% of samples <= it
//
// Layout (identical to HdrHistogram's, so src/load/hdr_log.hpp can write logs its tools read):
// sub_bucket_count = 2^ceil(log2(2 * 10^digits)) linear sub-buckets per bucket; with
// unit = 2^floor(log2(lowest)), bucket 0 covers [0, sub_bucket_count * unit) in steps of unit, and
// bucket b > 0 covers [sub_bucket_count * unit * 2^(b-1), sub_bucket_count * unit * 2^b) in steps
// of unit * 2^b.
//
// Values above the highest trackable value are clamped to it and counted in saturated(). min and
// max are the exact extremes recorded; mean and stdev come from exact integer sums, not bucket
// midpoints, and cannot overflow before count() * max()^2 reaches 2^128 (about 10^23 samples at
// the default maximum).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <vector>

namespace ringside::load {

class Histogram {
 public:
  static constexpr std::uint64_t kDefaultLowest = 1;
  static constexpr std::uint64_t kDefaultHighest = 60'000'000;  // 60 s in microseconds
  static constexpr int kDefaultDigits = 3;
  // Keeps every intermediate of the exact sums (and of record_corrected's run sums) in 128 bits.
  static constexpr std::uint64_t kMaxHighest = std::uint64_t{1} << 42;

  // One non-empty bucket: every value in [lowest, highest] was counted here.
  struct Bucket {
    std::uint64_t lowest;
    std::uint64_t highest;
    std::uint64_t count;
  };
  class BucketIterator;
  class BucketRange;

  // Throws std::invalid_argument unless 1 <= lowest, 2 * lowest <= highest <= kMaxHighest and
  // 0 <= significant_digits <= 5.
  explicit Histogram(std::uint64_t lowest = kDefaultLowest, std::uint64_t highest = kDefaultHighest,
                     int significant_digits = kDefaultDigits);

  void record(std::uint64_t value) { record_n(value, 1); }
  void record_n(std::uint64_t value, std::uint64_t count) {
    if (count == 0) return;  // must not move min or max
    if (value > highest_) {
      value = highest_;
      saturated_ += count;
    }
    add(index_of(value), value, count);
  }
  // Coordinated-omission correction (as wrk2 and HdrHistogram do it): a request that took `value`
  // when one was due every `expected_interval` hid the requests that would have been sent while it
  // was outstanding, so also record value - k * expected_interval for k = 1, 2, ... while that is
  // >= expected_interval. A saturated value is back-filled as if it were highest_trackable(). The
  // back-fill adds whole runs per bucket, so its cost is bounded by the bucket count, not by
  // value / expected_interval. An interval of 0 records just the value.
  void record_corrected(std::uint64_t value, std::uint64_t expected_interval);

  // Adds other's samples; both must have the same layout (else std::invalid_argument).
  void merge(const Histogram& other);
  void reset();

  [[nodiscard]] std::uint64_t count() const { return total_; }
  [[nodiscard]] std::uint64_t saturated() const { return saturated_; }
  // All four are 0 for an empty histogram; stdev is the population standard deviation.
  [[nodiscard]] std::uint64_t min() const { return total_ == 0 ? 0 : min_; }
  [[nodiscard]] std::uint64_t max() const { return max_; }
  [[nodiscard]] double mean() const;
  [[nodiscard]] double stdev() const;

  // HdrHistogram semantics: the highest equivalent value of the first bucket at which at least
  // p% (clamped to 0..100) of the samples have been counted, clipped to max(); p <= 0 gives min().
  [[nodiscard]] std::uint64_t value_at_percentile(double percentile) const;
  // One pass over the counts when `percentiles` is ascending; any order gives the same answers.
  // `out` must be at least as long as `percentiles`.
  void value_at_percentiles(std::span<const double> percentiles,
                            std::span<std::uint64_t> out) const;

  [[nodiscard]] BucketRange buckets() const;

  // Layout, for encoders, decoders and tests.
  [[nodiscard]] std::uint64_t lowest_trackable() const { return lowest_; }
  [[nodiscard]] std::uint64_t highest_trackable() const { return highest_; }
  [[nodiscard]] int significant_digits() const { return digits_; }
  [[nodiscard]] bool same_layout(const Histogram& other) const;
  [[nodiscard]] std::size_t counts_length() const { return counts_.size(); }
  [[nodiscard]] std::uint64_t count_at_index(std::size_t index) const { return counts_[index]; }
  [[nodiscard]] std::size_t index_of(std::uint64_t value) const {
    const int bucket = leading_zero_count_base_ - std::countl_zero(value | sub_bucket_mask_);
    const auto sub_bucket = static_cast<std::size_t>(value >> (bucket + unit_magnitude_));
    return (static_cast<std::size_t>(bucket + 1) << sub_bucket_half_count_magnitude_) + sub_bucket -
           sub_bucket_half_count_;
  }
  [[nodiscard]] std::uint64_t lowest_equivalent_at(std::size_t index) const;
  [[nodiscard]] std::uint64_t highest_equivalent_at(std::size_t index) const;

  // For decoders: adds `count` samples to counts[index] as if they all had the bucket's median
  // value (the exact values are gone), so min/max/mean of a decoded histogram are bucket-precise.
  // Throws std::out_of_range for an index past counts_length().
  void add_at_index(std::size_t index, std::uint64_t count);
  // For decoders whose source also kept the exact summary the encoding drops (a JSON result's
  // min, max, mean and stdev): replaces the bucket-precise ones, so percentiles clip to the
  // exact max and a merge's mean and stdev come from the exact ones (to double precision).
  // Ignored on an empty histogram or when min > max.
  void restore_summary(std::uint64_t min, std::uint64_t max, double mean, double stdev);

 private:
  __extension__ using Wide = unsigned __int128;  // GCC/Clang; both targets we build with

  void add(std::size_t index, std::uint64_t value, std::uint64_t count) {
    counts_[index] += count;
    total_ += count;
    sum_ += Wide{value} * count;
    sum_squares_ += Wide{value} * value * count;
    if (value < min_) min_ = value;
    if (value > max_) max_ = value;
  }
  void add_run(std::size_t index, std::uint64_t top, std::uint64_t step, std::uint64_t n);
  [[nodiscard]] int bucket_of_index(std::size_t index) const;
  [[nodiscard]] std::uint64_t rank_for(double percentile) const;

  std::uint64_t lowest_;
  std::uint64_t highest_;
  int digits_;
  int unit_magnitude_;
  int sub_bucket_half_count_magnitude_;
  std::size_t sub_bucket_half_count_;
  std::uint64_t sub_bucket_mask_;
  int leading_zero_count_base_;

  std::vector<std::uint64_t> counts_;
  std::uint64_t total_ = 0;
  std::uint64_t saturated_ = 0;
  std::uint64_t min_ = ~std::uint64_t{0};
  std::uint64_t max_ = 0;
  Wide sum_ = 0;
  Wide sum_squares_ = 0;
};

class Histogram::BucketIterator {
 public:
  using iterator_category = std::input_iterator_tag;  // yields Buckets by value
  using value_type = Bucket;
  using difference_type = std::ptrdiff_t;
  using reference = Bucket;
  using pointer = void;

  BucketIterator() = default;
  BucketIterator(const Histogram* histogram, std::size_t index)
      : histogram_(histogram), index_(index) {
    skip_empty();
  }
  Bucket operator*() const {
    return {histogram_->lowest_equivalent_at(index_), histogram_->highest_equivalent_at(index_),
            histogram_->count_at_index(index_)};
  }
  BucketIterator& operator++() {
    ++index_;
    skip_empty();
    return *this;
  }
  BucketIterator operator++(int) {
    BucketIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const BucketIterator& other) const { return index_ == other.index_; }

 private:
  void skip_empty() {
    while (index_ < histogram_->counts_length() && histogram_->count_at_index(index_) == 0) {
      ++index_;
    }
  }

  const Histogram* histogram_ = nullptr;
  std::size_t index_ = 0;
};

class Histogram::BucketRange {
 public:
  explicit BucketRange(const Histogram* histogram) : histogram_(histogram) {}
  [[nodiscard]] BucketIterator begin() const { return {histogram_, 0}; }
  [[nodiscard]] BucketIterator end() const { return {histogram_, histogram_->counts_length()}; }

 private:
  const Histogram* histogram_;
};

inline Histogram::BucketRange Histogram::buckets() const {
  return BucketRange(this);
}

}  // namespace ringside::load
