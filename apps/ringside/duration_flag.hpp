// Durations on the command line: "30s", "2m", "250ms", "1h", "2d", or a bare number of seconds.
// Pure functions, unit-tested in tests/unit/apps/duration_flag_test.cpp; cli_support.hpp turns
// them into CLI11 validators.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ringside::apps {

// Seconds, or nothing when text is not a finite, non-negative duration with a known unit.
std::optional<double> parse_duration_seconds(std::string_view text);

// "" when text is a duration from min_s to max_s (both included); otherwise one line saying
// what is allowed, with the limits written as durations ("between 1ms and 1h, got: 1e10").
std::string check_duration(std::string_view text, double min_s, double max_s);

// A limit as a person writes it: 0.001 -> "1ms", 3600 -> "1h", 2592000 -> "30d", 90 -> "90s".
std::string format_seconds(double seconds);

}  // namespace ringside::apps
