// Timers without allocation. A TimerList holds timers that all share one duration (the
// header-read timeout, the keep-alive idle timeout, ...). Because every timer armed later
// expires later, appending at the tail keeps the list ordered by deadline: arming, disarming and
// re-arming are O(1), and expiry walks only the timers that are due. The node lives inside the
// object it times (a connection), so arming a timer never allocates.
#pragma once

#include <cstddef>

#include "core/clock.hpp"

namespace ringside::core {

struct TimerNode {
  TimerNode* prev = nullptr;
  TimerNode* next = nullptr;
  TimePoint deadline{};

  [[nodiscard]] bool armed() const { return prev != nullptr; }

  // Unlinks the node from whatever list holds it; a no-op when it is not armed.
  void disarm() {
    if (!armed()) return;
    prev->next = next;
    next->prev = prev;
    prev = next = nullptr;
  }
};

class TimerList {
 public:
  explicit TimerList(Duration duration) : duration_(duration) { head_.prev = head_.next = &head_; }
  TimerList(const TimerList&) = delete;
  TimerList& operator=(const TimerList&) = delete;

  [[nodiscard]] Duration duration() const { return duration_; }
  [[nodiscard]] bool empty() const { return head_.next == &head_; }

  // (Re)arms `node` to fire `duration()` after `now`, moving it from any list it was in.
  void arm(TimerNode& node, TimePoint now) {
    node.disarm();
    node.deadline = now + duration_;
    node.prev = head_.prev;
    node.next = &head_;
    head_.prev->next = &node;
    head_.prev = &node;
  }

  // The earliest deadline; only meaningful when !empty().
  [[nodiscard]] TimePoint next_deadline() const { return head_.next->deadline; }

  // Disarms each due timer and hands it to `on_expired`, which may arm timers again
  // (they land after `now`, so the walk ends).
  template <class OnExpired>
  std::size_t expire(TimePoint now, OnExpired&& on_expired) {
    std::size_t count = 0;
    while (!empty() && head_.next->deadline <= now) {
      TimerNode& node = *head_.next;
      node.disarm();
      ++count;
      on_expired(node);
    }
    return count;
  }

 private:
  TimerNode head_;  // sentinel of a circular list
  Duration duration_;
};

}  // namespace ringside::core
