// Monotonic time for intervals and deadlines. The event loop reads the clock once per turn
// (EventLoop::now()), so code on the hot path never calls the clock itself.
#pragma once

#include <chrono>

namespace ringside::core {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;
using Duration = Clock::duration;

// Converts seconds (as given on a command line) to a Duration without losing sub-second parts.
constexpr Duration seconds_to_duration(double seconds) {
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(seconds));
}

}  // namespace ringside::core
