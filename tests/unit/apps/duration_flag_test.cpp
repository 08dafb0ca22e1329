#include "duration_flag.hpp"

#include <gtest/gtest.h>

#include <string>

namespace ringside::apps {
namespace {

TEST(ParseDuration, UnitsAndBareSeconds) {
  struct Case {
    std::string_view text;
    double seconds;
  };
  const Case cases[] = {{"30", 30},      {"30s", 30},     {"1.5s", 1.5}, {"250ms", 0.25},
                        {"100us", 1e-4}, {"2m", 120},     {"1h", 3600},  {"2d", 172800},
                        {"0", 0},        {"0.001", 1e-3}, {"1e3ms", 1}};
  for (const Case& c : cases) {
    std::optional<double> seconds = parse_duration_seconds(c.text);
    ASSERT_TRUE(seconds) << c.text;
    EXPECT_DOUBLE_EQ(*seconds, c.seconds) << c.text;
  }
}

TEST(ParseDuration, RefusesWhatIsNotAFiniteNonNegativeDuration) {
  for (std::string_view bad :
       {"",      "s",      "soon", "-1",   "-1s", "nan", "NaN",   "inf", "infinity", "-inf",
        "1e400", "1e308h", "10x",  "10 s", " 10", "10S", "1h30m", "+5",  "0x10",     "5e"}) {
    EXPECT_FALSE(parse_duration_seconds(bad)) << bad;
  }
}

TEST(CheckDuration, RangeIsInclusiveAndWrittenHumanly) {
  EXPECT_EQ(check_duration("1ms", 0.001, 3600), "");
  EXPECT_EQ(check_duration("1h", 0.001, 3600), "");
  EXPECT_EQ(check_duration("3600", 0.001, 3600), "");
  EXPECT_EQ(check_duration("0", 0, 3600), "");
  EXPECT_EQ(check_duration("0", 0.001, 3600), "must be between 1ms and 1h, got: 0");
  EXPECT_EQ(check_duration("-1", 0, 3600), "must be between 0s and 1h, got: -1");
  EXPECT_EQ(check_duration("1e10", 0.001, 3600), "must be between 1ms and 1h, got: 1e10");
  EXPECT_EQ(check_duration("1000000h", 0.001, 30 * 86400.0),
            "must be between 1ms and 30d, got: 1000000h");
  const std::string error = check_duration("1e400", 0.001, 3600);
  EXPECT_NE(error.find("not a duration"), std::string::npos) << error;
  EXPECT_NE(error.find("between 1ms and 1h"), std::string::npos) << error;
}

TEST(CheckDuration, NeverPrintsAHugeNumberOrASecondLine) {
  const std::string error = check_duration("nan\r\nX", 0, 1.7976931348623157e308);
  EXPECT_LT(error.size(), 120u) << error;
  EXPECT_EQ(error.find_first_of("\r\n"), std::string::npos) << error;
}

TEST(FormatSeconds, PicksTheCoarsestExactUnit) {
  EXPECT_EQ(format_seconds(0), "0s");
  EXPECT_EQ(format_seconds(0.001), "1ms");
  EXPECT_EQ(format_seconds(1e-6), "1us");
  EXPECT_EQ(format_seconds(1), "1s");
  EXPECT_EQ(format_seconds(90), "90s");
  EXPECT_EQ(format_seconds(120), "2m");
  EXPECT_EQ(format_seconds(3600), "1h");
  EXPECT_EQ(format_seconds(86400), "1d");
  EXPECT_EQ(format_seconds(30 * 86400.0), "30d");
  EXPECT_EQ(format_seconds(1.5), "1500ms");
  EXPECT_EQ(format_seconds(1e10), "1e+10s");
  EXPECT_EQ(format_seconds(1.7976931348623157e308), "1.79769e+308s");
}

}  // namespace
}  // namespace ringside::apps
