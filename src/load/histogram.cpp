#include "load/histogram.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ringside::load {
namespace {

int floor_log2(std::uint64_t v) {
  return 63 - std::countl_zero(v);
}
int ceil_log2(std::uint64_t v) {
  return v <= 1 ? 0 : 64 - std::countl_zero(v - 1);
}

std::uint64_t power_of_ten(int exponent) {
  std::uint64_t result = 1;
  for (int i = 0; i < exponent; ++i) result *= 10;
  return result;
}

void validate(std::uint64_t lowest, std::uint64_t highest, int digits) {
  if (lowest < 1) {
    throw std::invalid_argument("Histogram: the lowest trackable value must be at least 1");
  }
  if (highest < 2 * lowest || highest > Histogram::kMaxHighest) {
    throw std::invalid_argument("Histogram: the highest trackable value (" +
                                std::to_string(highest) + ") must be at least twice the lowest (" +
                                std::to_string(lowest) + ") and at most " +
                                std::to_string(Histogram::kMaxHighest));
  }
  if (digits < 0 || digits > 5) {
    throw std::invalid_argument("Histogram: significant digits must be 0..5, got " +
                                std::to_string(digits));
  }
}

}  // namespace

Histogram::Histogram(std::uint64_t lowest, std::uint64_t highest, int significant_digits)
    : lowest_(lowest), highest_(highest), digits_(significant_digits) {
  validate(lowest, highest, significant_digits);
  // Single-unit resolution up to 2 * 10^digits guarantees the relative error bound 10^-digits
  // once the step doubles; HdrHistogram forces at least two sub-buckets, and so do we.
  const int count_magnitude = std::max(ceil_log2(2 * power_of_ten(significant_digits)), 1);
  const std::uint64_t sub_bucket_count = std::uint64_t{1} << count_magnitude;
  sub_bucket_half_count_magnitude_ = count_magnitude - 1;
  sub_bucket_half_count_ = std::size_t{1} << sub_bucket_half_count_magnitude_;
  unit_magnitude_ = floor_log2(lowest);
  sub_bucket_mask_ = (sub_bucket_count - 1) << unit_magnitude_;
  leading_zero_count_base_ = 64 - unit_magnitude_ - count_magnitude;

  std::size_t bucket_count = 1;
  for (std::uint64_t untrackable = sub_bucket_count << unit_magnitude_; untrackable <= highest;
       untrackable <<= 1) {
    ++bucket_count;
  }
  counts_.assign((bucket_count + 1) * sub_bucket_half_count_, 0);
}

int Histogram::bucket_of_index(std::size_t index) const {
  return std::max(static_cast<int>(index >> sub_bucket_half_count_magnitude_) - 1, 0);
}

std::uint64_t Histogram::lowest_equivalent_at(std::size_t index) const {
  const int bucket = bucket_of_index(index);
  // Bucket 0 also owns the lower half of the sub-buckets; later buckets only the upper half.
  const std::uint64_t sub_bucket =
      index < 2 * sub_bucket_half_count_
          ? index
          : (index & (sub_bucket_half_count_ - 1)) + sub_bucket_half_count_;
  return sub_bucket << (bucket + unit_magnitude_);
}

std::uint64_t Histogram::highest_equivalent_at(std::size_t index) const {
  const std::uint64_t width = std::uint64_t{1} << (bucket_of_index(index) + unit_magnitude_);
  return lowest_equivalent_at(index) + width - 1;
}

void Histogram::record_corrected(std::uint64_t value, std::uint64_t expected_interval) {
  record(value);
  value = std::min(value, highest_);
  if (expected_interval == 0 || value / 2 < expected_interval) return;  // nothing was hidden
  // The missing samples form the progression top, top - interval, ..., down to >= interval.
  std::uint64_t top = value - expected_interval;
  std::uint64_t remaining = top / expected_interval;
  while (remaining > 0) {
    const std::size_t index = index_of(top);
    const std::uint64_t in_bucket =
        std::min(remaining, (top - lowest_equivalent_at(index)) / expected_interval + 1);
    add_run(index, top, expected_interval, in_bucket);
    remaining -= in_bucket;
    if (remaining > 0) top -= in_bucket * expected_interval;
  }
}

// Adds the n samples top, top - step, ..., top - (n-1) * step, all in counts_[index]. The sums
// use the closed forms for sum(j) and sum(j^2); unsigned wrap-around in the intermediate terms
// cancels because the true results fit in 128 bits.
void Histogram::add_run(std::size_t index, std::uint64_t top, std::uint64_t step, std::uint64_t n) {
  counts_[index] += n;
  total_ += n;
  const Wide wn = n, wtop = top, wstep = step;
  const Wide sum_j = wn * (wn - 1) / 2;
  const Wide sum_j_squared = wn * (wn - 1) * (2 * wn - 1) / 6;
  sum_ += wn * wtop - wstep * sum_j;
  sum_squares_ += wn * wtop * wtop - 2 * wtop * wstep * sum_j + wstep * wstep * sum_j_squared;
  min_ = std::min(min_, top - (n - 1) * step);
  max_ = std::max(max_, top);
}

void Histogram::merge(const Histogram& other) {
  if (!same_layout(other)) {
    throw std::invalid_argument(
        "Histogram::merge: the histograms differ in lowest/highest trackable value or "
        "significant digits; build every histogram that will be merged with the same arguments");
  }
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  total_ += other.total_;
  saturated_ += other.saturated_;
  sum_ += other.sum_;
  sum_squares_ += other.sum_squares_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

void Histogram::reset() {
  std::fill(counts_.begin(), counts_.end(), 0);
  total_ = 0;
  saturated_ = 0;
  min_ = ~std::uint64_t{0};
  max_ = 0;
  sum_ = 0;
  sum_squares_ = 0;
}

bool Histogram::same_layout(const Histogram& other) const {
  return lowest_ == other.lowest_ && highest_ == other.highest_ && digits_ == other.digits_;
}

void Histogram::add_at_index(std::size_t index, std::uint64_t count) {
  if (index >= counts_.size()) {
    throw std::out_of_range("Histogram::add_at_index: index " + std::to_string(index) +
                            " is past the counts array (" + std::to_string(counts_.size()) + ")");
  }
  if (count == 0) return;
  const std::uint64_t lowest = lowest_equivalent_at(index);
  const std::uint64_t highest = highest_equivalent_at(index);
  add(index, lowest + (highest - lowest + 1) / 2, count);
  min_ = std::min(min_, lowest);
  max_ = std::max(max_, highest);
}

void Histogram::restore_summary(std::uint64_t min, std::uint64_t max, double mean, double stdev) {
  if (total_ == 0 || min > max || !(mean >= 0) || !(stdev >= 0)) return;
  min_ = min;
  max_ = max;
  const long double n = static_cast<long double>(total_);
  const long double m = mean;
  const long double sd = stdev;
  sum_ = static_cast<Wide>(n * m + 0.5L);
  sum_squares_ = static_cast<Wide>(n * (sd * sd + m * m) + 0.5L);
  // Rounding must not leave n * sum(x^2) below sum(x)^2: stdev() subtracts them unsigned.
  Wide scaled, square;
  if (!__builtin_mul_overflow(Wide{total_}, sum_squares_, &scaled) &&
      !__builtin_mul_overflow(sum_, sum_, &square) && scaled < square) {
    sum_squares_ = (square + total_ - 1) / total_;
  }
}

double Histogram::mean() const {
  if (total_ == 0) return 0.0;
  return static_cast<double>(static_cast<long double>(sum_) / total_);
}

double Histogram::stdev() const {
  if (total_ == 0) return 0.0;
  // n * sum(x^2) - sum(x)^2 is exact when it fits, which avoids the cancellation that turns the
  // stdev of a constant series into noise; the long double fallback only serves huge counts.
  Wide scaled_squares;
  long double variance;
  if (!__builtin_mul_overflow(Wide{total_}, sum_squares_, &scaled_squares)) {
    const long double numerator = static_cast<long double>(scaled_squares - sum_ * sum_);
    variance = numerator / total_ / total_;
  } else {
    const long double mean = static_cast<long double>(sum_) / total_;
    variance = std::max(static_cast<long double>(sum_squares_) / total_ - mean * mean, 0.0L);
  }
  return static_cast<double>(std::sqrt(variance));
}

std::uint64_t Histogram::rank_for(double percentile) const {
  // "At least p% of the samples" is a ceiling; multiplying before dividing keeps whole
  // percentages of round counts exact (99.9 * 1000 / 100 is 999, not 999.0000000000001).
  const double wanted = std::min(percentile, 100.0) * static_cast<double>(total_) / 100.0;
  const auto rank = static_cast<std::uint64_t>(std::ceil(wanted));
  return std::clamp<std::uint64_t>(rank, 1, total_);
}

std::uint64_t Histogram::value_at_percentile(double percentile) const {
  std::uint64_t value = 0;
  value_at_percentiles({&percentile, 1}, {&value, 1});
  return value;
}

void Histogram::value_at_percentiles(std::span<const double> percentiles,
                                     std::span<std::uint64_t> out) const {
  std::size_t index = 0;
  std::uint64_t counted = counts_[0];  // samples in counts_[0..index]
  std::uint64_t previous_rank = 0;
  for (std::size_t i = 0; i < percentiles.size(); ++i) {
    if (total_ == 0 || !(percentiles[i] > 0.0)) {  // also catches NaN
      out[i] = min();
      continue;
    }
    const std::uint64_t rank = rank_for(percentiles[i]);
    if (rank < previous_rank) {  // out of order: the cursor may be past the answer
      index = 0;
      counted = counts_[0];
    }
    while (counted < rank) counted += counts_[++index];
    out[i] = std::min(highest_equivalent_at(index), max_);
    previous_rank = rank;
  }
}

}  // namespace ringside::load
