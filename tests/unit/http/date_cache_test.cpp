#include "http/date_cache.hpp"

#include <gtest/gtest.h>

#include <ctime>
#include <string_view>

namespace ringside::http {
namespace {

struct DateCase {
  std::time_t epoch_seconds;
  std::string_view imf_fixdate;
};

// Expected strings checked against `date -u -d @SECONDS '+%a, %d %b %Y %H:%M:%S GMT'`.
constexpr DateCase kDateCases[] = {
    {784111777, "Sun, 06 Nov 1994 08:49:37 GMT"},   // the example in RFC 9110 section 5.6.7
    {0, "Thu, 01 Jan 1970 00:00:00 GMT"},
    {951782400, "Tue, 29 Feb 2000 00:00:00 GMT"},   // leap day of a century leap year
    {1234567890, "Fri, 13 Feb 2009 23:31:30 GMT"},
    {1700000000, "Tue, 14 Nov 2023 22:13:20 GMT"},
    {4102444799, "Thu, 31 Dec 2099 23:59:59 GMT"},
};

class DateCacheFormats : public testing::TestWithParam<DateCase> {};

TEST_P(DateCacheFormats, ExactImfFixdate) {
  DateCache cache;
  EXPECT_TRUE(cache.update(GetParam().epoch_seconds));
  EXPECT_EQ(cache.value(), GetParam().imf_fixdate);
  EXPECT_EQ(cache.value().size(), DateCache::kLength);
}

INSTANTIATE_TEST_SUITE_P(KnownInstants, DateCacheFormats, testing::ValuesIn(kDateCases));

TEST(DateCache, SameSecondIsNotReformatted) {
  DateCache cache;
  EXPECT_TRUE(cache.update(784111777));
  EXPECT_FALSE(cache.update(784111777));
  EXPECT_EQ(cache.value(), "Sun, 06 Nov 1994 08:49:37 GMT");
}

TEST(DateCache, NextSecondIsReformatted) {
  DateCache cache;
  ASSERT_TRUE(cache.update(784111777));
  EXPECT_TRUE(cache.update(784111778));
  EXPECT_EQ(cache.value(), "Sun, 06 Nov 1994 08:49:38 GMT");
  // Going back (a wall-clock step) reformats too.
  EXPECT_TRUE(cache.update(784111777));
  EXPECT_EQ(cache.value(), "Sun, 06 Nov 1994 08:49:37 GMT");
}

TEST(DateCache, StartsWithTheCurrentTime) {
  const std::time_t before = std::time(nullptr);
  DateCache cache;
  const std::time_t after = std::time(nullptr);
  // The constructor formatted one of these seconds, so updating to it is a no-op.
  EXPECT_TRUE(!cache.update(before) || !cache.update(after));
  EXPECT_EQ(cache.value().size(), DateCache::kLength);
  EXPECT_EQ(cache.value().substr(DateCache::kLength - 4), " GMT");
}

}  // namespace
}  // namespace ringside::http
