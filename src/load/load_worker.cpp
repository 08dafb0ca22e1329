#include "load/load_worker.hpp"

#include <sys/prctl.h>
#include <time.h>

#include <algorithm>

namespace ringside::load {
namespace {

constexpr auto kPublishEvery = std::chrono::milliseconds(100);

}  // namespace

LoadWorker::LoadWorker(const LoadConfig& cfg, const WorkerPlan& plan)
    : config(cfg),
      timeouts(core::seconds_to_duration(cfg.timeout_s)),
      plan_(plan),
      unclaimed_(plan.requests),
      target_cursor_(static_cast<std::uint32_t>(plan.first_connection % cfg.targets.size())) {
  if (config.rate > 0) {
    send_interval = core::seconds_to_duration(config.connections / config.rate);
  }
  std::vector<Due> storage;
  storage.reserve(plan.connections + 1);
  due_ = decltype(due_)(std::greater<>{}, std::move(storage));
  const core::Duration stagger = config.rate > 0 ? core::seconds_to_duration(1.0 / config.rate)
                                                 : core::Duration::zero();
  for (unsigned i = 0; i < plan.connections; ++i) {
    // -R: connection g of all sends first at start + g/rate, so sends are spread evenly.
    connections_.emplace_back().init(*this, plan.start, stagger * (plan.first_connection + i));
  }
  if (config.latency_per_second) stats_.latency_seconds.enable(stats_.latency);
  if (plan.end) stats_.per_second.reserve(static_cast<std::size_t>(std::min<core::Duration>(*plan.end - plan.measure_from, std::chrono::hours(1)) / std::chrono::seconds(1)) + 2);  // -d 30d: grows
}

LoadWorker::Claim LoadWorker::claim(ClientConnection& connection, core::TimePoint now) {
  if (!may_start_more(now)) return {};
  core::TimePoint intended = now;
  if (config.rate > 0) {
    if (connection.next_send() > now) {
      schedule_due(connection);
      return {};
    }
    intended = connection.next_send();
  }
  if (idle(intended)) {
    // --start-at: between the warm-up and the instant. The connection's schedule starts over at
    // the instant (with its -R stagger), so the measured phase opens as a run without warm-up.
    connection.restart_schedule(plan_.measure_from);
    schedule_due(connection);
    return {};
  }
  const bool measured = measuring(intended);
  if (measured) {
    if (plan_.requests > 0) --unclaimed_;
    ++stats_.started;
  } else {
    ++stats_.warmup_requests;
  }
  return {true, intended, measured};
}

bool LoadWorker::may_start_more(core::TimePoint now) const {
  if (stopping_) return false;
  if (plan_.end && now >= *plan_.end) return false;
  if (plan_.requests > 0 && unclaimed_ == 0 && measuring(now)) return false;
  return true;
}

void LoadWorker::schedule_due(ClientConnection& connection) {
  if (connection.due_queued) return;
  connection.due_queued = true;
  due_.push({connection.next_send(), &connection});
}

void LoadWorker::fire_due(core::TimePoint now) {
  while (!due_.empty() && due_.top().at <= now) {
    ClientConnection* connection = due_.top().connection;
    due_.pop();
    connection->due_queued = false;
    connection->on_due();
  }
}

std::size_t LoadWorker::second_of(core::TimePoint t) const {
  if (t < plan_.measure_from) return 0;
  return static_cast<std::size_t>((t - plan_.measure_from) / std::chrono::seconds(1));
}

std::uint64_t LoadWorker::micros(core::Duration d) const {
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(d).count();
  return us < 1 ? 1 : static_cast<std::uint64_t>(us);
}

bool LoadWorker::finished(core::TimePoint now) const {
  if (stop_requested_.load(std::memory_order_relaxed)) return true;
  if (plan_.end && now >= *plan_.end) return true;
  return plan_.requests > 0 && unclaimed_ == 0 && in_flight_ == 0;
}

core::Duration LoadWorker::next_wait(core::TimePoint now) const {
  core::TimePoint until = now + kPublishEvery;
  if (!timeouts.empty()) until = std::min(until, timeouts.next_deadline());
  if (!backoffs.empty()) until = std::min(until, backoffs.next_deadline());
  if (!due_.empty()) until = std::min(until, due_.top().at);
  if (plan_.end) until = std::min(until, *plan_.end);
  // Wake at the instant the measured phase begins, to note when it did (--start-at).
  if (!measuring(now)) until = std::min(until, plan_.measure_from);
  return std::max(until - now, core::Duration::zero());
}

void LoadWorker::count_outstanding(core::TimePoint from, core::TimePoint to,
                                   std::int64_t outstanding) {
  if (outstanding <= 0) return;
  from = std::max(from, plan_.measure_from);
  if (plan_.end) to = std::min(to, *plan_.end);
  if (to <= from) return;
  stats_.outstanding_s += static_cast<double>(outstanding) * std::chrono::duration<double>(to - from).count();
}

namespace {

double thread_cpu_s() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

}  // namespace

void LoadWorker::run() {
  // The default 50 us timer slack would make every scheduled -R send late by up to that much.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  loop.refresh_now();
  for (ClientConnection& connection : connections_) connection.start();
  auto fire = [](core::TimerNode& node) { static_cast<ClientConnection&>(node).on_timer(); };
  core::TimePoint last_turn = loop.now();
  while (!finished(loop.now())) {
    // What was outstanding while the loop waited stayed so until the events it returns with.
    const std::int64_t outstanding = in_flight_;
    loop.run_once(next_wait(loop.now()));
    const core::TimePoint now = loop.now();
    count_outstanding(last_turn, now, outstanding);
    last_turn = now;
    if (measured_start_epoch_s_ == 0 && measuring(now)) {
      measured_start_epoch_s_ =
          std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
      measured_cpu_from_s_ = thread_cpu_s();
    }
    timeouts.expire(now, fire);
    backoffs.expire(now, fire);
    fire_due(now);
    published_completed_.store(stats_.completed, std::memory_order_relaxed);
    published_answered_.store(stats_.completed + stats_.warmup_completed, std::memory_order_relaxed);
    published_errored_.store(stats_.errored, std::memory_order_relaxed);
  }
  stopping_ = true;
  for (ClientConnection& connection : connections_) connection.abandon();
  stats_.latency_seconds.finish();
  if (measured_cpu_from_s_ >= 0) measured_cpu_s_ = thread_cpu_s() - measured_cpu_from_s_;
  published_completed_.store(stats_.completed, std::memory_order_relaxed);
  published_answered_.store(stats_.completed + stats_.warmup_completed, std::memory_order_relaxed);
  published_errored_.store(stats_.errored, std::memory_order_relaxed);
  done_.store(true, std::memory_order_release);
}

}  // namespace ringside::load
