#include "core/clock.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ringside::core {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

TEST(SecondsToDuration, KeepsSubSecondParts) {
  EXPECT_EQ(seconds_to_duration(1.5), milliseconds(1500));
  EXPECT_EQ(seconds_to_duration(0.001), milliseconds(1));
  EXPECT_EQ(seconds_to_duration(1e-9), nanoseconds(1));
  EXPECT_EQ(seconds_to_duration(0), Duration::zero());
  EXPECT_EQ(seconds_to_duration(-2), -std::chrono::seconds(2));
}

TEST(SecondsToDuration, ClampsWhatDoesNotFitInsteadOfOverflowing) {
  // 1e10 s is 1e19 ns, past 2^63: converting it was undefined behaviour (--drain-timeout 1e10
  // ended the drain at once).
  EXPECT_EQ(seconds_to_duration(1e10), kMaxDuration);
  EXPECT_EQ(seconds_to_duration(std::numeric_limits<double>::max()), kMaxDuration);
  EXPECT_EQ(seconds_to_duration(HUGE_VAL), kMaxDuration);
  EXPECT_EQ(seconds_to_duration(-1e10), -kMaxDuration);
  EXPECT_EQ(seconds_to_duration(-HUGE_VAL), -kMaxDuration);
  EXPECT_EQ(seconds_to_duration(std::nan("")), Duration::zero());
  static_assert(seconds_to_duration(1e300) == kMaxDuration);
}

TEST(SecondsToDuration, TheLongestStillAddsToNow) {
  const TimePoint now = Clock::now();
  EXPECT_GT(now + seconds_to_duration(1e300), now);
}

}  // namespace
}  // namespace ringside::core
