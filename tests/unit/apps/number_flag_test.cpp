#include "number_flag.hpp"

#include <gtest/gtest.h>

#include <string>

namespace ringside::apps {
namespace {

constexpr std::uint64_t kMax64 = ~std::uint64_t{0};

TEST(ParseCount, DigitsOnlySoNegativesCannotWrap) {
  EXPECT_EQ(parse_count("0"), 0u);
  EXPECT_EQ(parse_count("5"), 5u);
  EXPECT_EQ(parse_count("18446744073709551615"), kMax64);
  for (std::string_view bad : {"", "-5", "+5", "-0", "5.0", "1e3", "5 ", " 5", "0x10", "nan",
                               "18446744073709551616", "99999999999999999999999"}) {
    EXPECT_FALSE(parse_count(bad)) << bad;
  }
}

TEST(CheckCount, InclusiveRangeNamedInTheMessage) {
  EXPECT_EQ(check_count("1", 1, 1024), "");
  EXPECT_EQ(check_count("1024", 1, 1024), "");
  EXPECT_EQ(check_count("0", 1, 1024), "must be a whole number from 1 to 1024, got: 0");
  EXPECT_EQ(check_count("-5", 1, 1024), "must be a whole number from 1 to 1024, got: -5");
  EXPECT_EQ(check_count("1025", 1, 1024), "must be a whole number from 1 to 1024, got: 1025");
  EXPECT_NE(check_count("18446744073709551616", 1, kMax64).find("too large"), std::string::npos);
}

TEST(ParseNumber, FiniteOnly) {
  EXPECT_EQ(parse_number("0.5"), 0.5);
  EXPECT_EQ(parse_number("1e3"), 1000.0);
  EXPECT_EQ(parse_number("-5"), -5.0);
  for (std::string_view bad : {"", "nan", "inf", "-inf", "infinity", "1e400", "5x", "5 ", "+5"}) {
    EXPECT_FALSE(parse_number(bad)) << bad;
  }
}

TEST(CheckNumber, RefusesNanInfinityAndOutOfRange) {
  EXPECT_EQ(check_number("0.01", 0.01, 1e8), "");
  EXPECT_EQ(check_number("100000000", 0.01, 1e8), "");
  for (std::string_view bad : {"nan", "inf", "-5", "0", "1e9", "1e400"}) {
    EXPECT_EQ(check_number(bad, 0.01, 1e8),
              "must be a number from 0.01 to 100000000, got: " + std::string(bad));
  }
}

TEST(ParseSize, SuffixesAreBinary) {
  EXPECT_EQ(parse_size("0"), 0u);
  EXPECT_EQ(parse_size("100"), 100u);
  EXPECT_EQ(parse_size("100b"), 100u);
  EXPECT_EQ(parse_size("4k"), 4096u);
  EXPECT_EQ(parse_size("4K"), 4096u);
  EXPECT_EQ(parse_size("4kb"), 4096u);
  EXPECT_EQ(parse_size("4KiB"), 4096u);
  EXPECT_EQ(parse_size("1m"), 1u << 20);
  EXPECT_EQ(parse_size("2g"), std::uint64_t{2} << 30);
  EXPECT_EQ(parse_size("1t"), std::uint64_t{1} << 40);
  for (std::string_view bad :
       {"", "-5", "-5k", "k", "lots", "1.5m", "1x", "16777216t", "99999999999999999999"}) {
    EXPECT_FALSE(parse_size(bad)) << bad;
  }
}

TEST(CheckSize, RangeWrittenWithSuffixes) {
  EXPECT_EQ(check_size("1t", 0, std::uint64_t{1} << 40), "");
  EXPECT_EQ(check_size("-5", 0, std::uint64_t{1} << 40),
            "must be a size in bytes from 0 to 1t (suffixes k, m, g, t), got: -5");
  EXPECT_NE(check_size("2t", 0, std::uint64_t{1} << 40), "");
}

TEST(Format, HumanNumbers) {
  EXPECT_EQ(format_number(1e8), "100000000");
  EXPECT_EQ(format_number(0.01), "0.01");
  EXPECT_EQ(format_number(1.7976931348623157e308), "1.79769e+308");
  EXPECT_EQ(format_size(0), "0");
  EXPECT_EQ(format_size(1000), "1000");
  EXPECT_EQ(format_size(1024), "1k");
  EXPECT_EQ(format_size(1536), "1536");
  EXPECT_EQ(format_size(1u << 20), "1m");
  EXPECT_EQ(format_size(std::uint64_t{1} << 40), "1t");
}

TEST(QuoteValue, OneShortLine) {
  EXPECT_EQ(quote_value("a\r\nb"), "a??b");
  EXPECT_EQ(quote_value(std::string(100, 'x')), std::string(40, 'x') + "...");
}

}  // namespace
}  // namespace ringside::apps
