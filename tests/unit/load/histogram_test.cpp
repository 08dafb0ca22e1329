#include "load/histogram.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ringside::load {
namespace {

using Samples = std::vector<std::uint64_t>;

constexpr double kPercentiles[] = {0,  1,  5,    10,   25,    50,    75,     90,
                                   95, 99, 99.5, 99.9, 99.95, 99.99, 99.999, 100};

Histogram histogram_of(const Samples& samples) {
  Histogram histogram;
  for (std::uint64_t v : samples) histogram.record(v);
  return histogram;
}

// The reference: the smallest sample such that at least p% of the samples are <= it.
std::uint64_t exact_percentile(const Samples& sorted, double p) {
  if (p <= 0) return sorted.front();
  const double wanted = p * static_cast<double>(sorted.size()) / 100.0;
  const auto rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(wanted)));
  return sorted[std::min<std::size_t>(rank, sorted.size()) - 1];
}

void expect_percentiles_within_precision(const Samples& samples) {
  Samples sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const Histogram histogram = histogram_of(samples);
  for (double p : kPercentiles) {
    const std::uint64_t exact = exact_percentile(sorted, p);
    const std::uint64_t reported = histogram.value_at_percentile(p);
    // Highest-equivalent reporting never understates, and a bucket is < 0.1% of its values wide.
    EXPECT_GE(reported, exact) << "p" << p;
    EXPECT_LE(static_cast<double>(reported - exact), 1e-3 * static_cast<double>(exact))
        << "p" << p << " exact " << exact << " reported " << reported;
  }
  EXPECT_EQ(histogram.value_at_percentile(100), sorted.back());
  EXPECT_EQ(histogram.value_at_percentile(0), sorted.front());
}

Samples uniform(std::size_t n, std::uint64_t lo, std::uint64_t hi, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint64_t> dist(lo, hi);
  Samples out(n);
  for (auto& v : out) v = dist(rng);
  return out;
}

Samples exponential(std::size_t n, double mean, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> dist(1.0 / mean);
  Samples out(n);
  for (auto& v : out) {
    v = std::min<std::uint64_t>(static_cast<std::uint64_t>(dist(rng)) + 1,
                                Histogram::kDefaultHighest);
  }
  return out;
}

TEST(Histogram, DefaultLayoutMatchesHdrHistogram) {
  const Histogram h;
  // 3 digits: 2048 sub-buckets; 2048 << 15 is the first power past 60e6, so 16 buckets and
  // (16 + 1) * 1024 counts.
  EXPECT_EQ(h.counts_length(), 17 * 1024u);
  EXPECT_EQ(h.index_of(0), 0u);
  EXPECT_EQ(h.index_of(2047), 2047u);
  EXPECT_EQ(h.index_of(2048), 2048u);  // bucket 1 starts at sub-bucket 1024
  EXPECT_EQ(h.index_of(2049), 2048u);  // ... with a step of 2
  EXPECT_EQ(h.index_of(4096), 3072u);
  EXPECT_EQ(h.lowest_equivalent_at(2048), 2048u);
  EXPECT_EQ(h.highest_equivalent_at(2048), 2049u);
  EXPECT_EQ(h.lowest_equivalent_at(h.index_of(60'000'000)), 60'000'000u / 32768 * 32768);
  EXPECT_LT(h.index_of(60'000'000), h.counts_length());
}

TEST(Histogram, EveryIndexRoundTripsThroughItsEquivalentRange) {
  const Histogram h;
  for (std::size_t i = 0; i < h.counts_length(); ++i) {
    ASSERT_EQ(h.index_of(h.lowest_equivalent_at(i)), i);
    ASSERT_EQ(h.index_of(h.highest_equivalent_at(i)), i);
    if (i > 0) {
      ASSERT_EQ(h.lowest_equivalent_at(i), h.highest_equivalent_at(i - 1) + 1);
    }
  }
}

TEST(Histogram, LargerLowestValueCoarsensTheUnit) {
  const Histogram h(1000, 3'600'000'000, 3);  // unit magnitude 9: steps of 512
  EXPECT_EQ(h.index_of(0), 0u);
  EXPECT_EQ(h.index_of(511), 0u);
  EXPECT_EQ(h.index_of(512), 1u);
  EXPECT_EQ(h.highest_equivalent_at(0), 511u);
}

TEST(Histogram, RejectsImpossibleLayouts) {
  EXPECT_THROW(Histogram(0, 1000, 3), std::invalid_argument);
  EXPECT_THROW(Histogram(10, 19, 3), std::invalid_argument);
  EXPECT_THROW(Histogram(1, Histogram::kMaxHighest + 1, 3), std::invalid_argument);
  EXPECT_THROW(Histogram(1, 1000, 6), std::invalid_argument);
  EXPECT_THROW(Histogram(1, 1000, -1), std::invalid_argument);
  EXPECT_NO_THROW(Histogram(1, 1000, 0));
}

TEST(Histogram, EmptyReportsZeros) {
  const Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.stdev(), 0.0);
  EXPECT_EQ(h.value_at_percentile(50), 0u);
  EXPECT_EQ(h.buckets().begin(), h.buckets().end());
}

TEST(Histogram, SmallValuesAreExact) {
  Samples samples;
  for (std::uint64_t v = 0; v < 2048; ++v) samples.push_back(v);
  const Histogram h = histogram_of(samples);
  for (double p : kPercentiles) {
    EXPECT_EQ(h.value_at_percentile(p), exact_percentile(samples, p)) << "p" << p;
  }
}

TEST(Histogram, PercentilesUniform) {
  expect_percentiles_within_precision(uniform(200'000, 1, Histogram::kDefaultHighest, 1));
  expect_percentiles_within_precision(uniform(50'000, 100, 5'000, 2));
}

TEST(Histogram, PercentilesExponentialLongTail) {
  expect_percentiles_within_precision(exponential(200'000, 1'500, 3));
  expect_percentiles_within_precision(exponential(100'000, 2'000'000, 4));
}

TEST(Histogram, PercentilesConstant) {
  for (std::uint64_t v : {1u, 777u, 12'345u, 59'999'999u}) {
    expect_percentiles_within_precision(Samples(1000, v));
    const Histogram h = histogram_of(Samples(1000, v));
    EXPECT_EQ(h.value_at_percentile(50), v) << "clipped to max, not the bucket's top";
  }
}

TEST(Histogram, PercentilesBimodal) {
  Samples fast = uniform(90'000, 150, 250, 5);
  Samples slow = uniform(10'000, 40'000, 60'000, 6);
  fast.insert(fast.end(), slow.begin(), slow.end());
  std::shuffle(fast.begin(), fast.end(), std::mt19937_64(7));
  expect_percentiles_within_precision(fast);
}

TEST(Histogram, PercentilesNearBucketBoundaries) {
  Samples samples;
  for (int shift = 0; shift <= 15; ++shift) {
    const std::uint64_t start = std::uint64_t{2048} << shift;  // first value of bucket shift+1
    for (std::uint64_t base : {start, start + start / 2, start * 2 - 1}) {
      for (std::uint64_t delta : {0u, 1u, 2u, 3u}) {
        samples.push_back(std::min(base + delta, Histogram::kDefaultHighest));
        samples.push_back(std::min(base - delta, Histogram::kDefaultHighest));
      }
    }
  }
  expect_percentiles_within_precision(samples);
}

TEST(Histogram, ManyPercentilesAgreeWithSingleQueriesInAnyOrder) {
  const Histogram h = histogram_of(exponential(10'000, 800, 8));
  const std::vector<double> ps = {99.9, 1, 50, 50, 100, 0, 75, 99.999, 10};
  std::vector<std::uint64_t> out(ps.size());
  h.value_at_percentiles(ps, out);
  for (std::size_t i = 0; i < ps.size(); ++i) EXPECT_EQ(out[i], h.value_at_percentile(ps[i]));
}

TEST(Histogram, OutOfRangePercentilesClamp) {
  const Histogram h = histogram_of({5, 10, 15});
  EXPECT_EQ(h.value_at_percentile(-3), 5u);
  EXPECT_EQ(h.value_at_percentile(std::numeric_limits<double>::quiet_NaN()), 5u);
  EXPECT_EQ(h.value_at_percentile(250), 15u);
  EXPECT_EQ(h.value_at_percentile(33.3), 5u);
  EXPECT_EQ(h.value_at_percentile(33.34), 10u);
}

TEST(Histogram, StatisticsMatchDirectComputation) {
  for (const Samples& samples :
       {uniform(100'000, 1, Histogram::kDefaultHighest, 9), exponential(100'000, 700, 10),
        Samples(5000, 43'210), Samples{1, 2, 3, 4}}) {
    long double sum = 0;
    for (std::uint64_t v : samples) sum += v;
    const long double mean = sum / samples.size();
    long double squares = 0;
    for (std::uint64_t v : samples) squares += (v - mean) * (v - mean);
    const double stdev = static_cast<double>(std::sqrt(squares / samples.size()));

    const Histogram h = histogram_of(samples);
    EXPECT_EQ(h.count(), samples.size());
    EXPECT_EQ(h.min(), *std::min_element(samples.begin(), samples.end()));
    EXPECT_EQ(h.max(), *std::max_element(samples.begin(), samples.end()));
    EXPECT_NEAR(h.mean(), static_cast<double>(mean), 1e-9 * static_cast<double>(mean));
    EXPECT_NEAR(h.stdev(), stdev, 1e-9 * static_cast<double>(mean));
  }
  EXPECT_EQ(histogram_of(Samples(5000, 43'210)).stdev(), 0.0);
  EXPECT_DOUBLE_EQ(histogram_of({1, 2, 3, 4}).stdev(), std::sqrt(1.25));
}

TEST(Histogram, SaturatesIntoTheTopBucket) {
  Histogram h;
  h.record(Histogram::kDefaultHighest);  // in range
  h.record(Histogram::kDefaultHighest + 1);
  h.record_n(1'000'000'000'000, 5);
  h.record(std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(h.count(), 8u);
  EXPECT_EQ(h.saturated(), 7u);
  EXPECT_EQ(h.max(), Histogram::kDefaultHighest);
  EXPECT_EQ(h.count_at_index(h.index_of(Histogram::kDefaultHighest)), 8u);
  EXPECT_EQ(h.value_at_percentile(100), Histogram::kDefaultHighest);
  EXPECT_DOUBLE_EQ(h.mean(), static_cast<double>(Histogram::kDefaultHighest));
}

TEST(Histogram, RecordNEqualsRepeatedRecord) {
  Histogram once, repeated;
  once.record_n(12'345, 1000);
  once.record_n(3, 0);
  for (int i = 0; i < 1000; ++i) repeated.record(12'345);
  EXPECT_EQ(once.count(), repeated.count());
  EXPECT_EQ(once.count_at_index(once.index_of(12'345)), 1000u);
  EXPECT_EQ(once.min(), repeated.min());
  EXPECT_EQ(once.mean(), repeated.mean());
  EXPECT_EQ(once.stdev(), repeated.stdev());
}

// The definition, one sample at a time.
void record_corrected_naively(Histogram& h, std::uint64_t value, std::uint64_t interval) {
  h.record(value);
  value = std::min(value, h.highest_trackable());
  if (interval == 0) return;
  for (std::uint64_t missing = value - std::min(value, interval);
       missing >= interval && value > interval; missing -= interval) {
    h.record(missing);
  }
}

void expect_same(const Histogram& a, const Histogram& b) {
  ASSERT_TRUE(a.same_layout(b));
  for (std::size_t i = 0; i < a.counts_length(); ++i) {
    ASSERT_EQ(a.count_at_index(i), b.count_at_index(i)) << "index " << i;
  }
  EXPECT_EQ(a.count(), b.count());
  EXPECT_EQ(a.saturated(), b.saturated());
  EXPECT_EQ(a.min(), b.min());
  EXPECT_EQ(a.max(), b.max());
  EXPECT_DOUBLE_EQ(a.mean(), b.mean());
  EXPECT_DOUBLE_EQ(a.stdev(), b.stdev());
  for (double p : kPercentiles) EXPECT_EQ(a.value_at_percentile(p), b.value_at_percentile(p));
}

TEST(Histogram, CorrectedRecordingBackFillsTheHiddenRequests) {
  Histogram h;
  h.record_corrected(1000, 100);  // 1000, 900, ..., 100
  EXPECT_EQ(h.count(), 10u);
  EXPECT_EQ(h.min(), 100u);
  EXPECT_EQ(h.max(), 1000u);
  EXPECT_DOUBLE_EQ(h.mean(), 550.0);
  h.reset();
  h.record_corrected(1050, 100);  // 1050, 950, ..., 150
  EXPECT_EQ(h.count(), 10u);
  EXPECT_EQ(h.min(), 150u);
  h.reset();
  h.record_corrected(100, 100);
  h.record_corrected(199, 100);
  h.record_corrected(5000, 0);
  EXPECT_EQ(h.count(), 3u);
}

TEST(Histogram, CorrectedRecordingMatchesTheOneByOneDefinition) {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<std::uint64_t> value(1, 5'000'000);
  std::uniform_int_distribution<std::uint64_t> interval(100, 20'000);
  Histogram fast, naive;
  for (int i = 0; i < 300; ++i) {
    const std::uint64_t v = value(rng), step = interval(rng);
    fast.record_corrected(v, step);
    record_corrected_naively(naive, v, step);
  }
  using Case = std::pair<std::uint64_t, std::uint64_t>;
  for (auto [v, step] :
       {Case{100'000, 1}, Case{5'000'000, 7}, Case{4096, 2048}, Case{4095, 2048}, Case{3, 1}}) {
    fast.record_corrected(v, step);
    record_corrected_naively(naive, v, step);
  }
  expect_same(fast, naive);
}

TEST(Histogram, CorrectedRecordingOfASaturatedValueIsBounded) {
  Histogram h;
  h.record_corrected(1'000'000'000'000, 1000);  // clamped to 60e6, then back-filled
  EXPECT_EQ(h.saturated(), 1u);
  EXPECT_EQ(h.count(), 60'000u);  // 60e6 itself plus 59'999 hidden ones
  EXPECT_EQ(h.min(), 1000u);
  Histogram naive;
  record_corrected_naively(naive, 1'000'000'000'000, 1000);
  expect_same(h, naive);
}

TEST(Histogram, MergeEqualsRecordingEverythingInOne) {
  const Samples samples = exponential(100'000, 3'000, 12);
  Histogram whole;
  std::vector<Histogram> parts(4);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    whole.record(samples[i]);
    parts[i % parts.size()].record(samples[i]);
  }
  whole.record(Histogram::kDefaultHighest * 2);
  parts[3].record(Histogram::kDefaultHighest * 2);
  Histogram merged;
  for (const Histogram& part : parts) merged.merge(part);
  merged.merge(Histogram());  // an idle worker changes nothing
  expect_same(merged, whole);
}

TEST(Histogram, MergeRefusesADifferentLayout) {
  Histogram h;
  EXPECT_THROW(h.merge(Histogram(1, 1000, 3)), std::invalid_argument);
  EXPECT_THROW(h.merge(Histogram(1, Histogram::kDefaultHighest, 2)), std::invalid_argument);
}

TEST(Histogram, ResetForgetsEverything) {
  Histogram h = histogram_of(uniform(1000, 1, 100'000'000, 13));
  h.reset();
  expect_same(h, Histogram());
  h.record(42);
  EXPECT_EQ(h.min(), 42u);
  EXPECT_EQ(h.value_at_percentile(50), 42u);
}

TEST(Histogram, BucketsVisitEveryNonEmptyBucketInOrder) {
  const Samples samples = {3, 3, 2050, 2051, 999'999, 59'000'000};
  const Histogram h = histogram_of(samples);
  std::vector<Histogram::Bucket> seen(h.buckets().begin(), h.buckets().end());
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].lowest, 3u);
  EXPECT_EQ(seen[0].highest, 3u);
  EXPECT_EQ(seen[0].count, 2u);
  EXPECT_EQ(seen[1].lowest, 2050u);
  EXPECT_EQ(seen[1].highest, 2051u);
  EXPECT_EQ(seen[1].count, 2u);
  EXPECT_LE(seen[2].lowest, 999'999u);
  EXPECT_GE(seen[2].highest, 999'999u);
  EXPECT_LT(seen[2].highest, seen[3].lowest);
  std::uint64_t total = 0;
  for (const Histogram::Bucket& bucket : h.buckets()) total += bucket.count;
  EXPECT_EQ(total, h.count());
}

TEST(Histogram, AddAtIndexRecordsBucketPreciseValues) {
  Histogram h;
  h.add_at_index(h.index_of(4097), 2);  // bucket [4096, 4099]
  EXPECT_EQ(h.count(), 2u);
  EXPECT_EQ(h.min(), 4096u);
  EXPECT_EQ(h.max(), 4099u);
  EXPECT_DOUBLE_EQ(h.mean(), 4098.0);
  EXPECT_THROW(h.add_at_index(h.counts_length(), 1), std::out_of_range);
}

}  // namespace
}  // namespace ringside::load
