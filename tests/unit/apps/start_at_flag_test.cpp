#include "start_at_flag.hpp"

#include <gtest/gtest.h>

#include <string>

namespace ringside::apps {
namespace {

constexpr double kNow = 1'700'000'000.5;

TEST(ParseStartAt, RelativeFormsAddToNow) {
  struct Case {
    std::string_view text;
    double ahead;
  };
  const Case cases[] = {{"+5", 5}, {"+2.5s", 2.5}, {"+500ms", 0.5}, {"+0", 0}, {"+1m", 60},
                        {"+24h", 86400}};
  for (const Case& c : cases) {
    std::string error;
    const std::optional<double> at = parse_start_at(c.text, kNow, error);
    ASSERT_TRUE(at) << c.text << ": " << error;
    EXPECT_DOUBLE_EQ(*at, kNow + c.ahead) << c.text;
  }
}

TEST(ParseStartAt, EpochSecondsAreTakenAsGiven) {
  for (double epoch : {kNow + 10, kNow + 0.25, kNow - 3, kNow + 86'000}) {
    std::string error;
    const std::string text = std::to_string(epoch);
    const std::optional<double> at = parse_start_at(text, kNow, error);
    ASSERT_TRUE(at) << text << ": " << error;
    EXPECT_NEAR(*at, epoch, 1e-6) << text;
  }
  std::string error;
  EXPECT_EQ(parse_start_at("1700000010", kNow, error), 1'700'000'010.0);
}

TEST(ParseStartAt, RefusesWhatIsNoTimeOrTooFar) {
  struct Case {
    std::string_view text;
    std::string_view says;
  };
  const Case cases[] = {{"", "not a time"},           {"soon", "not a time"},
                        {"+", "not a time"},          {"+-5", "not a time"},
                        {"+5x", "not a time"},        {"12:00", "not a time"},
                        {"nan", "not a time"},        {"inf", "not a time"},
                        {"+25h", "at most 24h ahead"}, {"1700090000.5", "more than 24h ahead"},
                        {"5", "more than 24h ago"},   {"-5", "more than 24h ago"},
                        {"1e300", "more than 24h ahead"}};
  for (const Case& c : cases) {
    std::string error;
    EXPECT_FALSE(parse_start_at(c.text, kNow, error)) << c.text;
    EXPECT_NE(error.find(c.says), std::string::npos) << c.text << ": " << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << "one line";
  }
}

}  // namespace
}  // namespace ringside::apps
