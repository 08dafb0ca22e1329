// One load-generator thread: its own event loop, connections, schedule and Stats. Workers share
// nothing while running; the runner merges their Stats after join and reads their progress
// counters, which each worker publishes once per loop turn, never per request.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <vector>

#include "core/clock.hpp"
#include "load/client_connection.hpp"
#include "load/h2_client_connection.hpp"
#include "load/load_config.hpp"
#include "load/stats.hpp"
#include "load/worker_context.hpp"

namespace ringside::load {

class LoadWorker {
 public:
  LoadWorker(const LoadConfig& config, const WorkerPlan& plan);
  LoadWorker(const LoadWorker&) = delete;
  LoadWorker& operator=(const LoadWorker&) = delete;

  void run();                       // returns when the plan is done or stop() was called
  void stop() { stop_requested_.store(true, std::memory_order_relaxed); }
  [[nodiscard]] Stats& stats() { return context_.stats(); }
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

 private:
  [[nodiscard]] bool finished(core::TimePoint now) const;
  // LoadConfig::drain_s: waits for the answers in flight, sending nothing new.
  template <typename Fire>
  void drain(Fire& fire);
  [[nodiscard]] core::Duration next_wait(core::TimePoint now) const;
  // Adds `outstanding` requests held from `from` to `to`, clipped to the measured phase.
  void count_outstanding(core::TimePoint from, core::TimePoint to, std::int64_t outstanding);
  void publish_progress();

  WorkerContext context_;  // before the connections, which point to it
  std::deque<ClientConnection> http1_;    // one of these two holds the connections,
  std::deque<H2ClientConnection> http2_;  // by LoadConfig::http2
  std::vector<LoadConnection*> connections_;
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
