#include "harness/measure/median_interval.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace ringside::harness {
namespace {

TEST(MedianInterval, CoverageIsTheBinomialOfOrderStatistics) {
  EXPECT_DOUBLE_EQ(order_statistic_coverage(3, 1), 0.75);       // 1 - 2/8
  EXPECT_DOUBLE_EQ(order_statistic_coverage(4, 1), 0.875);      // 1 - 2/16
  EXPECT_DOUBLE_EQ(order_statistic_coverage(5, 1), 0.9375);
  EXPECT_DOUBLE_EQ(order_statistic_coverage(6, 2), 1 - 2 * 7.0 / 64);
  EXPECT_DOUBLE_EQ(order_statistic_coverage(8, 2), 1 - 2 * 9.0 / 256);
  EXPECT_DOUBLE_EQ(order_statistic_coverage(3, 2), 0);  // k past n/2: no interval
  EXPECT_DOUBLE_EQ(order_statistic_coverage(3, 0), 0);
}

TEST(MedianInterval, TheNarrowestIntervalThatReachesTheConfidence) {
  const Interval three = median_interval({101, 99, 100}, 0.75);
  EXPECT_DOUBLE_EQ(three.low, 99);
  EXPECT_DOUBLE_EQ(three.high, 101);
  EXPECT_DOUBLE_EQ(three.confidence, 0.75);
  // Too few for 90%: min-max, with the coverage it has.
  const Interval short_of = median_interval({101, 99, 100}, 0.9);
  EXPECT_DOUBLE_EQ(short_of.low, 99);
  EXPECT_DOUBLE_EQ(short_of.confidence, 0.75);
  // Eight rounds drop an outlier at each end and still cover 93%.
  const Interval eight = median_interval({100, 60, 101, 99, 100, 140, 102, 98}, 0.9);
  EXPECT_DOUBLE_EQ(eight.low, 98);
  EXPECT_DOUBLE_EQ(eight.high, 102);
  EXPECT_NEAR(eight.confidence, 0.9297, 1e-4);
  // NaN rounds are left out; fewer than two values: unmeasured.
  EXPECT_DOUBLE_EQ(median_interval({NAN, 5, 7}, 0.5).high, 7);
  EXPECT_TRUE(std::isnan(median_interval({5}, 0.75).low));
  EXPECT_TRUE(std::isnan(median_interval({}, 0.75).low));
}

TEST(MedianInterval, StopsWhenTheIntervalIsWithinTheTargetAtTheConfidence) {
  const StoppingRule rule{.target = 0.03, .confidence = 0.75};
  EXPECT_TRUE(converged(median_interval({100, 102.9, 97.1}, 0.75), 100, rule));
  EXPECT_FALSE(converged(median_interval({100, 103.5, 99}, 0.75), 100, rule));   // 3.5% above
  EXPECT_FALSE(converged(median_interval({100, 100, 96}, 0.75), 100, rule));     // 4% below
  // Not yet at the confidence: two rounds cover 50% only.
  EXPECT_FALSE(converged(median_interval({100, 100}, 0.75), 100, rule));
  EXPECT_FALSE(converged(Interval{}, 100, rule));
  // A noisy point settles once more rounds let the interval drop its outliers.
  std::vector<double> rounds = {100, 80, 101};
  EXPECT_FALSE(converged(median_interval(rounds, 0.75), 100, rule));
  for (double more : {99.0, 100.5, 120.0}) rounds.push_back(more);
  const Interval six = median_interval(rounds, 0.75);  // 2nd to 5th of six: 78%
  EXPECT_DOUBLE_EQ(six.low, 99);
  EXPECT_DOUBLE_EQ(six.high, 101);
  EXPECT_TRUE(converged(six, 100.25, rule));
}

}  // namespace
}  // namespace ringside::harness
