// Something that lives on one worker's event loop beside the sockets the loop watches: a database
// client that batches the queries of one turn and keeps its own deadlines. The worker calls it
// once per turn, after the turn's events, and wakes up in time for its next deadline.
//
//   turn: loop.run_once(wait until min(timers, participant.next_deadline()))
//         participant.on_timer(now)     // deadlines that passed
//         participant.after_events()    // send what this turn gathered, in one write
#pragma once

#include "core/clock.hpp"

namespace ringside::core {

class LoopParticipant {
 public:
  virtual ~LoopParticipant() = default;
  // After the events of a turn: flush what they queued (one pipeline sync for many requests).
  virtual void after_events() {}
  // The earliest time on_timer wants to run; TimePoint::max() when nothing is due.
  [[nodiscard]] virtual TimePoint next_deadline() const { return TimePoint::max(); }
  // Called every turn with the loop's time: handle whatever deadline has passed.
  virtual void on_timer(TimePoint /*now*/) {}
};

}  // namespace ringside::core
