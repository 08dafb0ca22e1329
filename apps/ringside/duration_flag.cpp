#include "duration_flag.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "number_flag.hpp"

namespace ringside::apps {
namespace {

struct Unit {
  std::string_view name;
  double seconds;
};

// Largest first, so format_seconds picks the coarsest unit that writes a limit exactly.
constexpr std::array<Unit, 6> kUnits{
    {{"d", 86400}, {"h", 3600}, {"m", 60}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}}};

}  // namespace

std::optional<double> parse_duration_seconds(std::string_view text) {
  double value = 0;
  // from_chars for double is in g++ 12's libstdc++. It reads "-5", "inf" and "nan" (refused
  // below) and fails on an exponent beyond double's range.
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || !std::isfinite(value) || value < 0) return std::nullopt;
  std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  double scale = 0;
  if (unit.empty()) scale = 1;
  for (const Unit& known : kUnits) {
    if (unit == known.name) scale = known.seconds;
  }
  if (scale == 0) return std::nullopt;
  const double seconds = value * scale;
  if (!std::isfinite(seconds)) return std::nullopt;  // 1e308h
  return seconds;
}

std::string check_duration(std::string_view text, double min_s, double max_s) {
  const std::optional<double> seconds = parse_duration_seconds(text);
  const std::string range = "between " + format_seconds(min_s) + " and " + format_seconds(max_s);
  if (!seconds && !text.empty() && text.front() == '-') {
    return "must be " + range + ", got: " + quote_value(text);
  }
  if (!seconds) {
    return "not a duration (e.g. 30s, 500ms, 2m), expected one " + range + ": " + quote_value(text);
  }
  if (*seconds < min_s || *seconds > max_s) {
    return "must be " + range + ", got: " + quote_value(text);
  }
  return "";
}

std::string format_seconds(double seconds) {
  char text[32];
  if (!std::isfinite(seconds)) return "forever";
  if (seconds == 0) return "0s";
  for (const Unit& unit : kUnits) {
    const double count = seconds / unit.seconds;
    if (count >= 1 && count < 1e6 && std::fabs(count - std::round(count)) < 1e-9 * count) {
      std::snprintf(text, sizeof text, "%.0f%.*s", std::round(count),
                    static_cast<int>(unit.name.size()), unit.name.data());
      return text;
    }
  }
  std::snprintf(text, sizeof text, "%gs", seconds);
  return text;
}

}  // namespace ringside::apps
