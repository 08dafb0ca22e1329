#include "load/second_histograms.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

namespace ringside::load {
namespace {

void expect_same_buckets(const Histogram& a, const Histogram& b) {
  ASSERT_TRUE(a.same_layout(b));
  for (std::size_t i = 0; i < a.counts_length(); ++i) {
    ASSERT_EQ(a.count_at_index(i), b.count_at_index(i)) << "bucket " << i;
  }
}

TEST(SecondHistograms, DisabledUntilEnabled) {
  SecondHistograms seconds;
  EXPECT_FALSE(seconds.enabled());
  seconds.enable(Histogram{});
  EXPECT_TRUE(seconds.enabled());
}

TEST(SecondHistograms, EachValueLandsInItsSecondAndEmptySecondsKeepTheirPlace) {
  SecondHistograms seconds;
  seconds.enable(Histogram{});
  seconds.record(0, 100);
  seconds.record(0, 200);
  seconds.record(2, 5000);  // nothing completed in second 1
  seconds.record(3, 7);
  seconds.finish();
  ASSERT_EQ(seconds.size(), 4u);
  EXPECT_EQ(seconds.histogram(0).count(), 2u);
  EXPECT_EQ(seconds.histogram(1).count(), 0u);
  EXPECT_EQ(seconds.histogram(2).count(), 1u);
  const Histogram layout;
  EXPECT_EQ(seconds.histogram(2).value_at_percentile(100),
            layout.highest_equivalent_at(layout.index_of(5000)))
      << "bucket-precise: the exact value is not kept per second";
  EXPECT_EQ(seconds.histogram(3).count(), 1u);
  EXPECT_EQ(seconds.histogram(9).count(), 0u) << "past the end: empty";
  seconds.finish();  // twice is harmless
  EXPECT_EQ(seconds.size(), 4u);
}

TEST(SecondHistograms, SummedTheyEqualOneHistogramFedTheSameValues) {
  std::mt19937_64 random(7);
  std::lognormal_distribution<double> latency(6.0, 1.5);
  SecondHistograms worker_a, worker_b;
  worker_a.enable(Histogram{});
  worker_b.enable(Histogram{});
  Histogram whole;
  for (std::size_t second = 0; second < 5; ++second) {
    for (int i = 0; i < 2000; ++i) {
      const auto value = static_cast<std::uint64_t>(latency(random)) + 1;
      (i % 3 == 0 ? worker_a : worker_b).record(second, value);
      whole.record(value);
    }
  }
  worker_a.finish();
  worker_b.finish();
  SecondHistograms total;
  total.merge(worker_a);
  total.merge(worker_b);
  ASSERT_EQ(total.size(), 5u);
  Histogram sum;
  for (std::size_t i = 0; i < total.size(); ++i) {
    EXPECT_EQ(total.histogram(i).count(), 2000u);
    sum.merge(total.histogram(i));
  }
  expect_same_buckets(sum, whole);
}

TEST(SecondHistograms, MergeRefusesAnotherLayout) {
  SecondHistograms a, b;
  a.enable(Histogram{});
  b.enable(Histogram(1, 1000, 2));
  a.finish();
  b.finish();
  EXPECT_THROW(a.merge(b), std::invalid_argument);
}

}  // namespace
}  // namespace ringside::load
