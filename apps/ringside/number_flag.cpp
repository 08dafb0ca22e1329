#include "number_flag.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace ringside::apps {
namespace {

constexpr std::array<std::string_view, 4> kSizeSuffixes{"k", "m", "g", "t"};

char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
}

bool all_digits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// 0 for no suffix, 10 for k, 20 for m, ...; -1 when the suffix is unknown.
int size_shift(std::string_view suffix) {
  std::string unit;
  for (char c : suffix) unit += lower(c);
  if (unit.empty() || unit == "b") return 0;
  for (std::size_t i = 0; i < kSizeSuffixes.size(); ++i) {
    const std::string p(kSizeSuffixes[i]);
    if (unit == p || unit == p + "b" || unit == p + "i" || unit == p + "ib") {
      return 10 * static_cast<int>(i + 1);
    }
  }
  return -1;
}

}  // namespace

std::optional<std::uint64_t> parse_count(std::string_view text) {
  if (!all_digits(text)) return std::nullopt;
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string check_count(std::string_view text, std::uint64_t min, std::uint64_t max) {
  const std::string range =
      "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
  std::optional<std::uint64_t> value = parse_count(text);
  if (!value && all_digits(text)) {
    return "too large: must be " + range + ", got: " + quote_value(text);
  }
  if (!value || *value < min || *value > max) {
    return "must be " + range + ", got: " + quote_value(text);
  }
  return "";
}

std::optional<double> parse_number(std::string_view text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::string check_number(std::string_view text, double min, double max) {
  std::optional<double> value = parse_number(text);
  if (!value || *value < min || *value > max) {
    return "must be a number from " + format_number(min) + " to " + format_number(max) +
           ", got: " + quote_value(text);
  }
  return "";
}

std::optional<std::uint64_t> parse_size(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  std::optional<std::uint64_t> count = parse_count(text.substr(0, digits));
  const int shift = size_shift(text.substr(digits));
  if (!count || shift < 0) return std::nullopt;
  if (shift > 0 && *count > (~std::uint64_t{0} >> shift)) return std::nullopt;  // would wrap
  return *count << shift;
}

std::string check_size(std::string_view text, std::uint64_t min, std::uint64_t max) {
  std::optional<std::uint64_t> value = parse_size(text);
  if (!value || *value < min || *value > max) {
    return "must be a size in bytes from " + format_size(min) + " to " + format_size(max) +
           " (suffixes k, m, g, t), got: " + quote_value(text);
  }
  return "";
}

std::string format_number(double value) {
  char text[32];
  if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e15) {
    std::snprintf(text, sizeof text, "%.0f", value);
  } else {
    std::snprintf(text, sizeof text, "%g", value);
  }
  return text;
}

std::string format_size(std::uint64_t bytes) {
  for (int i = static_cast<int>(kSizeSuffixes.size()); i > 0; --i) {
    const int shift = 10 * i;
    if (bytes != 0 && bytes % (std::uint64_t{1} << shift) == 0) {
      return std::to_string(bytes >> shift) +
             std::string(kSizeSuffixes[static_cast<std::size_t>(i - 1)]);
    }
  }
  return std::to_string(bytes);
}

std::string quote_value(std::string_view text) {
  constexpr std::size_t kShown = 40;
  std::string out;
  for (char c : text.substr(0, kShown)) {
    out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  }
  if (text.size() > kShown) out += "...";
  return out;
}

}  // namespace ringside::apps
