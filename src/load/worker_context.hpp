// What a load worker's connections share: the thread's loop, timers, buffers and Stats, the
// worker's own TLS client context for https:// (its last session, the --tls-resume accumulator),
// and the claim on the next request (the -n budget left, the -R schedule of due sends, the phases
// of the worker's plan). The LoadWorker (load/load_worker.hpp) owns one and runs its loop; each of
// its ClientConnections points to it. Only that thread touches it, and nothing here allocates per
// request: the queue of due sends is reserved for every connection up front.
//
//   WorkerContext context(config, plan);
//   WorkerContext::Claim claim = context.claim(connection, now);  // from a connection
//   context.fire_due(now, [](ScheduledSender& s) { static_cast<ClientConnection&>(s).on_due(); });
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include "core/block_pool.hpp"
#include "core/clock.hpp"
#include "core/event_loop.hpp"
#include "core/timer_list.hpp"
#include "core/tls_context.hpp"
#include "core/tls_layer.hpp"
#include "http/response_parser.hpp"
#include "load/load_config.hpp"
#include "load/stats.hpp"

namespace ringside::load {

struct WorkerPlan {
  unsigned first_connection = 0;  // global index of this worker's first connection
  unsigned connections = 0;
  std::uint64_t requests = 0;     // this worker's share of -n (0: unbounded)
  core::TimePoint start;          // traffic starts
  // No request is sent from warmup_end until measure_from (--start-at: the warm-up ended before
  // the instant; the connections stay open and idle). Equal without --start-at.
  core::TimePoint warmup_end;
  core::TimePoint measure_from;   // the measured phase begins
  std::optional<core::TimePoint> end;  // duration ends
};

// A connection's -R send times as the worker's schedule sees them. ClientConnection is one: the
// queue of due sends holds these, and hands each back to the worker's loop when its time comes
// (as core::TimerList does with its nodes), so the schedule knows nothing of connections.
class ScheduledSender {
 public:
  [[nodiscard]] core::TimePoint next_send() const { return next_send_; }
  // --start-at: the schedule begins again at start + this sender's offset.
  void restart_schedule(core::TimePoint start) { next_send_ = start + schedule_offset_; }

  bool due_queued = false;  // sits in the worker's -R schedule

 protected:
  ScheduledSender() = default;
  ~ScheduledSender() = default;

  core::TimePoint next_send_{};  // -R: the next scheduled send
  core::Duration schedule_offset_{};
};

// A TLS client context for the config's https:// URLs: --cacert, SNI and the verified name or
// address from the URL's host. nullptr and `error` (one line naming --cacert) when it cannot be
// made; nullptr and no error for http://.
std::unique_ptr<core::TlsContext> make_tls_client(const LoadConfig& config, std::string& error);

// --tls-resume as a whole number of millionths, and the accumulator that spreads it: every
// connection attempt adds the ratio, and one that brings the sum to a whole offers the last
// session. Exact for any ratio with six decimals (0.5: every second attempt), no random draws,
// so a run's resumed count is known in advance.
class ResumeAccumulator {
 public:
  static constexpr std::uint32_t kWhole = 1'000'000;
  explicit ResumeAccumulator(double ratio = 0);
  bool next();  // true: this attempt offers the session

 private:
  std::uint32_t step_ = 0;
  std::uint32_t credit_ = 0;
};

class WorkerContext {
 public:
  static constexpr std::size_t kReadBytes = 64 * 1024;
  static constexpr std::size_t kWriteBytes = 16 * 1024;  // the most one write hands over
  // The largest HTTP/2 frame a server may send us: header and the default SETTINGS_MAX_FRAME_SIZE.
  static constexpr std::size_t kFrameBytes = 9 + 16384;
  static constexpr auto kBackoff = std::chrono::milliseconds(10);

  // Throws std::runtime_error when the TLS context cannot be made (make_tls_client's message).
  WorkerContext(const LoadConfig& config, const WorkerPlan& plan);
  WorkerContext(const WorkerContext&) = delete;
  WorkerContext& operator=(const WorkerContext&) = delete;

  // Claims the right to start one request now, or says when to ask again (by queueing `sender`
  // for its next send).
  struct Claim {
    bool granted = false;
    core::TimePoint intended{};
    bool measured = false;
  };
  Claim claim(ScheduledSender& sender, core::TimePoint now);
  void schedule_due(ScheduledSender& sender);
  // Hands every sender whose send is due by `now` to on_due(ScheduledSender&), earliest first.
  template <typename OnDue>
  void fire_due(core::TimePoint now, OnDue&& on_due);
  [[nodiscard]] bool has_due() const { return !due_.empty(); }
  [[nodiscard]] core::TimePoint next_due() const { return due_.top().at; }

  // False once no further request can be claimed (budget spent, time up, stopping).
  [[nodiscard]] bool may_start_more(core::TimePoint now) const;
  // -n: every request of the budget was claimed, and none is still in flight.
  [[nodiscard]] bool budget_done() const {
    return plan_.requests > 0 && unclaimed_ == 0 && in_flight_ == 0;
  }
  void stop_claiming() { stopping_ = true; }
  void in_flight_changed(int delta) { in_flight_ += delta; }
  [[nodiscard]] std::int64_t in_flight() const { return in_flight_; }
  // Round-robin over the URLs per worker, not per connection, so they get equal shares however
  // the connections' paces differ.
  [[nodiscard]] std::uint32_t peek_target() const { return target_cursor_; }  // next_target's next
  std::uint32_t next_target() {
    const std::uint32_t target = target_cursor_;
    if (++target_cursor_ == config.targets.size()) target_cursor_ = 0;
    return target;
  }

  [[nodiscard]] const WorkerPlan& plan() const { return plan_; }
  [[nodiscard]] bool measuring(core::TimePoint t) const { return t >= plan_.measure_from; }
  [[nodiscard]] bool idle(core::TimePoint t) const {
    return t >= plan_.warmup_end && t < plan_.measure_from;
  }
  [[nodiscard]] std::size_t second_of(core::TimePoint t) const;
  [[nodiscard]] std::uint64_t micros(core::Duration d) const;
  [[nodiscard]] Stats& stats() { return stats_; }
  // https://: this worker's client context (nullptr for http://), and whether the connection
  // being opened now offers its last session (--tls-resume).
  [[nodiscard]] core::TlsContext* tls() const { return tls_.get(); }
  bool next_connection_resumes() { return resume_.next(); }
  // A connection (started connecting at `connect_started`) is open at `now`: its connect and TLS
  // handshake times and counts, a slow connect, and the first handshake's parameters.
  void count_opened(const core::TlsLayer* tls, core::TimePoint connect_started,
                    core::TimePoint now);

  const LoadConfig& config;
  core::EventLoop loop;
  core::TimerList timeouts;
  core::TimerList backoffs{kBackoff};
  core::BlockPool partial_blocks{http::kMaxResponseHeadBytes, 64, 16};
  // Requests the kernel did not take at once wait here (one block per stalled connection).
  core::BlockPool write_blocks{kWriteBytes, 64, 16};
  // --http2: a frame cut by a read waits here (one block per connection with one).
  core::BlockPool frame_blocks{kFrameBytes, 64};
  std::vector<char> read_buffer = std::vector<char>(kReadBytes);
  http::Response response;  // scratch for the parser: one response is parsed at a time
  core::Duration send_interval{};  // -R: between two sends of one connection

 private:
  struct Due {
    core::TimePoint at;
    ScheduledSender* sender;
    bool operator>(const Due& other) const { return at > other.at; }
  };

  WorkerPlan plan_;
  Stats stats_;
  std::unique_ptr<core::TlsContext> tls_;
  ResumeAccumulator resume_;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;
  std::uint64_t unclaimed_ = 0;  // -n budget left
  std::uint32_t target_cursor_ = 0;
  std::int64_t in_flight_ = 0;
  bool stopping_ = false;
};

template <typename OnDue>
void WorkerContext::fire_due(core::TimePoint now, OnDue&& on_due) {
  while (!due_.empty() && due_.top().at <= now) {
    ScheduledSender* sender = due_.top().sender;
    due_.pop();
    sender->due_queued = false;
    on_due(*sender);
  }
}

}  // namespace ringside::load
