// Monotonic time for intervals and deadlines. The event loop reads the clock once per turn
// (EventLoop::now()), so code on the hot path never calls the clock itself.
#pragma once

#include <chrono>

namespace ringside::core {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;
using Duration = Clock::duration;

// The longest Duration seconds_to_duration returns: about 100 years, so that adding it to any
// steady_clock time point (counted from boot) still fits in the 64-bit nanosecond count.
inline constexpr Duration kMaxDuration = std::chrono::hours(24 * 365 * 100);

// Converts seconds (as given on a command line) to a Duration without losing sub-second parts.
// Converting a double that does not fit is undefined behaviour, so values are clamped to
// ±kMaxDuration first and NaN becomes zero; flags refuse such values before they get here.
constexpr Duration seconds_to_duration(double seconds) {
  constexpr double kMaxSeconds = std::chrono::duration<double>(kMaxDuration).count();
  if (!(seconds == seconds)) return Duration::zero();  // NaN; std::isnan is not constexpr
  if (seconds >= kMaxSeconds) return kMaxDuration;
  if (seconds <= -kMaxSeconds) return -kMaxDuration;
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(seconds));
}

}  // namespace ringside::core
