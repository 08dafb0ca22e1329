// `ringside load --start-at TIME`: an instant on the wall clock, written as seconds since the
// epoch ("1712345678.25", what `date +%s.%N` prints) or as "+" and a duration from now ("+5",
// "+2.5s", "+500ms"). Pure, unit-tested in tests/unit/apps/start_at_flag_test.cpp.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ringside::apps {

// At most this far ahead (and, for an epoch time, this far back: "5" is 1970, surely a "+5"
// without its plus). An instant a little in the past is allowed: the run then starts at once.
inline constexpr double kMaxStartDistanceS = 24 * 3600.0;

// The instant in seconds since the epoch, given the time now; or nothing, with `error` set to
// one line saying what is wrong (without the flag's name).
std::optional<double> parse_start_at(std::string_view text, double now_epoch_s, std::string& error);

}  // namespace ringside::apps
