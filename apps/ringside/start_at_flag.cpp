#include "start_at_flag.hpp"

#include <charconv>
#include <cmath>

#include "duration_flag.hpp"
#include "number_flag.hpp"

namespace ringside::apps {

std::optional<double> parse_start_at(std::string_view text, double now_epoch_s, std::string& error) {
  const std::string forms = " (seconds since the epoch, or +S from now: +5, +2.5s, +500ms)";
  if (!text.empty() && text.front() == '+') {
    const std::optional<double> ahead = parse_duration_seconds(text.substr(1));
    if (!ahead) {
      error = "not a time" + forms + ": " + quote_value(text);
      return std::nullopt;
    }
    if (*ahead > kMaxStartDistanceS) {
      error = "must be at most 24h ahead, got: " + quote_value(text);
      return std::nullopt;
    }
    return now_epoch_s + *ahead;
  }
  double epoch = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), epoch);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(epoch)) {
    error = "not a time" + forms + ": " + quote_value(text);
    return std::nullopt;
  }
  if (epoch > now_epoch_s + kMaxStartDistanceS) {
    error = "is more than 24h ahead (" + format_seconds(std::round(epoch - now_epoch_s)) +
            "): give an epoch time within a day, or +S";
    return std::nullopt;
  }
  if (epoch < now_epoch_s - kMaxStartDistanceS) {
    error = "is more than 24h ago: give seconds since the epoch (date +%s), or +S for S seconds "
            "from now, got: " + quote_value(text);
    return std::nullopt;
  }
  return epoch;
}

}  // namespace ringside::apps
