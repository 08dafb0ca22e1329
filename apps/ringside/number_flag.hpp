// Counts, rates and sizes on the command line, checked against a documented range. Pure
// functions, unit-tested in tests/unit/apps/number_flag_test.cpp; cli_support.hpp turns them into
// CLI11 validators. A check returns "" or one line saying what is allowed, limits written
// humanly (never a 309-digit number), and the value quoted back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ringside::apps {

// A whole number: decimal digits only (no sign, so "-5" cannot wrap to 2^64 - 5), fitting 64 bits.
std::optional<std::uint64_t> parse_count(std::string_view text);
std::string check_count(std::string_view text, std::uint64_t min, std::uint64_t max);

// A finite decimal number ("nan", "inf" and anything past the digits are refused).
std::optional<double> parse_number(std::string_view text);
std::string check_number(std::string_view text, double min, double max);

// Bytes, with an optional binary suffix: k, m, g, t (also kb/kib, mb/mib, ...; any case).
std::optional<std::uint64_t> parse_size(std::string_view text);
std::string check_size(std::string_view text, std::uint64_t min, std::uint64_t max);

// 1e8 -> "100000000", 0.01 -> "0.01", 1e300 -> "1e+300".
std::string format_number(double value);
// 1048576 -> "1m", 1099511627776 -> "1t", 1000 -> "1000" (the suffixes the flags accept).
std::string format_size(std::uint64_t bytes);

// A flag's value as quoted in a message: control bytes shown as '?', long values cut.
std::string quote_value(std::string_view text);

}  // namespace ringside::apps
