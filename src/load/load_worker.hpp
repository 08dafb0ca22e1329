// One load-generator thread: its own event loop, connections, schedule and Stats. Workers share
// nothing while running; the runner merges their Stats after join and reads their progress
// counters, which each worker publishes once per loop turn, never per request.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <optional>
#include <queue>
#include <vector>

#include "core/block_pool.hpp"
#include "core/event_loop.hpp"
#include "core/timer_list.hpp"
#include "http/response_parser.hpp"
#include "load/client_connection.hpp"
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

class LoadWorker {
 public:
  static constexpr std::size_t kReadBytes = 64 * 1024;
  static constexpr std::size_t kWriteBytes = 16 * 1024;  // the most one write hands over
  static constexpr auto kBackoff = std::chrono::milliseconds(10);

  LoadWorker(const LoadConfig& config, const WorkerPlan& plan);
  LoadWorker(const LoadWorker&) = delete;
  LoadWorker& operator=(const LoadWorker&) = delete;

  void run();                       // returns when the plan is done or stop() was called
  void stop() { stop_requested_.store(true, std::memory_order_relaxed); }
  [[nodiscard]] Stats& stats() { return stats_; }
  [[nodiscard]] std::uint64_t published_completed() const { return published_completed_.load(std::memory_order_relaxed); }
  [[nodiscard]] std::uint64_t published_answered() const { return published_answered_.load(std::memory_order_relaxed); }
  [[nodiscard]] std::uint64_t published_errored() const { return published_errored_.load(std::memory_order_relaxed); }
  [[nodiscard]] bool done() const { return done_.load(std::memory_order_acquire); }
  // Wall clock (seconds since the epoch) read on the first loop turn of the measured phase; 0 if
  // the worker stopped before it. Read after run() has returned.
  [[nodiscard]] double measured_start_epoch_s() const { return measured_start_epoch_s_; }
  // This thread's CPU time (user + system) from its first measured turn to its end; read after
  // the thread is joined.
  [[nodiscard]] double measured_cpu_s() const { return measured_cpu_s_; }

  // For connections. Claims the right to start one request now, or says when to ask again.
  struct Claim {
    bool granted = false;
    core::TimePoint intended{};
    bool measured = false;
  };
  Claim claim(ClientConnection& connection, core::TimePoint now);
  void schedule_due(ClientConnection& connection);
  // False once no further request can be claimed (budget spent, time up, stopping).
  [[nodiscard]] bool may_start_more(core::TimePoint now) const;
  void in_flight_changed(int delta) { in_flight_ += delta; }
  // Round-robin over the URLs per worker, not per connection, so they get equal shares however
  // the connections' paces differ.
  std::uint32_t next_target() {
    const std::uint32_t target = target_cursor_;
    if (++target_cursor_ == config.targets.size()) target_cursor_ = 0;
    return target;
  }
  [[nodiscard]] bool measuring(core::TimePoint t) const { return t >= plan_.measure_from; }
  [[nodiscard]] bool idle(core::TimePoint t) const {
    return t >= plan_.warmup_end && t < plan_.measure_from;
  }
  [[nodiscard]] std::size_t second_of(core::TimePoint t) const;
  [[nodiscard]] std::uint64_t micros(core::Duration d) const;
  [[nodiscard]] bool stopping() const { return stopping_; }

  const LoadConfig& config;
  core::EventLoop loop;
  core::TimerList timeouts;
  core::TimerList backoffs{kBackoff};
  core::BlockPool partial_blocks{http::kMaxResponseHeadBytes, 64, 16};
  // Requests the kernel did not take at once wait here (one block per stalled connection).
  core::BlockPool write_blocks{kWriteBytes, 64, 16};
  std::vector<char> read_buffer = std::vector<char>(kReadBytes);
  http::Response response;  // scratch for the parser: one response is parsed at a time
  core::Duration send_interval{};  // -R: between two sends of one connection

 private:
  struct Due {
    core::TimePoint at;
    ClientConnection* connection;
    bool operator>(const Due& other) const { return at > other.at; }
  };

  [[nodiscard]] bool finished(core::TimePoint now) const;
  [[nodiscard]] core::Duration next_wait(core::TimePoint now) const;
  // Adds `outstanding` requests held from `from` to `to`, clipped to the measured phase.
  void count_outstanding(core::TimePoint from, core::TimePoint to, std::int64_t outstanding);
  void fire_due(core::TimePoint now);

  WorkerPlan plan_;
  Stats stats_;
  std::deque<ClientConnection> connections_;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;
  std::uint64_t unclaimed_ = 0;  // -n budget left
  std::uint32_t target_cursor_ = 0;
  std::int64_t in_flight_ = 0;
  bool stopping_ = false;
  double measured_start_epoch_s_ = 0;
  double measured_cpu_from_s_ = -1;
  double measured_cpu_s_ = 0;
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> done_{false};
  std::atomic<std::uint64_t> published_completed_{0};
  std::atomic<std::uint64_t> published_answered_{0};  // warm-up answers too
  std::atomic<std::uint64_t> published_errored_{0};
};

}  // namespace ringside::load
