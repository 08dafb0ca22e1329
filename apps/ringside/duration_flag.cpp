#include "duration_flag.hpp"

#include <charconv>
#include <cmath>
#include <string>

namespace ringside::apps {

std::optional<double> parse_duration_seconds(std::string_view text) {
  double value = 0;
  // from_chars for double is in g++ 12's libstdc++.
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || !std::isfinite(value) || value < 0) return std::nullopt;
  std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  if (unit.empty() || unit == "s") return value;
  if (unit == "ms") return value / 1000;
  if (unit == "us") return value / 1e6;
  if (unit == "m") return value * 60;
  if (unit == "h") return value * 3600;
  return std::nullopt;
}

}  // namespace ringside::apps
