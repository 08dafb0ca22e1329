// Durations on the command line: "30s", "2m", "250ms", "1h", or a bare number of seconds.
#pragma once

#include <optional>
#include <string_view>

namespace ringside::apps {

std::optional<double> parse_duration_seconds(std::string_view text);

}  // namespace ringside::apps
