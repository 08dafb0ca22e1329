#include "load/load_worker.hpp"

#include <sys/prctl.h>
#include <time.h>

#include <algorithm>

namespace ringside::load {
namespace {

constexpr auto kPublishEvery = std::chrono::milliseconds(100);

double thread_cpu_s() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

}  // namespace

LoadWorker::LoadWorker(const LoadConfig& config, const WorkerPlan& plan) : context_(config, plan) {
  const core::Duration stagger = config.rate > 0 ? core::seconds_to_duration(1.0 / config.rate)
                                                 : core::Duration::zero();
  connections_.reserve(plan.connections);
  for (unsigned i = 0; i < plan.connections; ++i) {
    // -R: connection g of all sends first at start + g/rate, so sends are spread evenly.
    const core::Duration offset = stagger * (plan.first_connection + i);
    if (config.http2) {
      http2_.emplace_back().init(context_, plan.start, offset);
      connections_.push_back(&http2_.back());
    } else {
      http1_.emplace_back().init(context_, plan.start, offset);
      connections_.push_back(&http1_.back());
    }
  }
}

bool LoadWorker::finished(core::TimePoint now) const {
  if (stop_requested_.load(std::memory_order_relaxed)) return true;
  const WorkerPlan& plan = context_.plan();
  if (plan.end && now >= *plan.end) return true;
  return context_.budget_done();
}

core::Duration LoadWorker::next_wait(core::TimePoint now) const {
  const WorkerPlan& plan = context_.plan();
  core::TimePoint until = now + kPublishEvery;
  if (!context_.timeouts.empty()) until = std::min(until, context_.timeouts.next_deadline());
  if (!context_.backoffs.empty()) until = std::min(until, context_.backoffs.next_deadline());
  if (context_.has_due()) until = std::min(until, context_.next_due());
  if (plan.end) until = std::min(until, *plan.end);
  // Wake at the instant the measured phase begins, to note when it did (--start-at).
  if (!context_.measuring(now)) until = std::min(until, plan.measure_from);
  return std::max(until - now, core::Duration::zero());
}

void LoadWorker::count_outstanding(core::TimePoint from, core::TimePoint to,
                                   std::int64_t outstanding) {
  if (outstanding <= 0) return;
  const WorkerPlan& plan = context_.plan();
  from = std::max(from, plan.measure_from);
  if (plan.end) to = std::min(to, *plan.end);
  if (to <= from) return;
  context_.stats().outstanding_s +=
      static_cast<double>(outstanding) * std::chrono::duration<double>(to - from).count();
}

void LoadWorker::publish_progress() {
  const Stats& stats = context_.stats();
  published_completed_.store(stats.completed, std::memory_order_relaxed);
  published_answered_.store(stats.completed + stats.warmup_completed, std::memory_order_relaxed);
  published_errored_.store(stats.errored, std::memory_order_relaxed);
}

// LoadConfig::drain_s: the loop goes on, claiming nothing, until no answer is in flight or the
// drain's time is up; a request that times out meanwhile ends as it would have.
template <typename Fire>
void LoadWorker::drain(Fire& fire) {
  if (!(context_.config.drain_s > 0)) return;
  core::EventLoop& loop = context_.loop;
  const core::TimePoint until = loop.now() + core::seconds_to_duration(context_.config.drain_s);
  while (context_.in_flight() > 0 && loop.now() < until) {
    loop.run_once(std::min(until - loop.now(), core::Duration(kPublishEvery)));
    context_.timeouts.expire(loop.now(), fire);
  }
}

void LoadWorker::run() {
  // The default 50 us timer slack would make every scheduled -R send late by up to that much.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  core::EventLoop& loop = context_.loop;
  loop.refresh_now();
  for (LoadConnection* connection : connections_) connection->start();
  auto fire = [](core::TimerNode& node) { static_cast<LoadConnection&>(node).on_timer(); };
  auto due = [](ScheduledSender& sender) { static_cast<LoadConnection&>(sender).on_due(); };
  core::TimePoint last_turn = loop.now();
  while (!finished(loop.now())) {
    // What was outstanding while the loop waited stayed so until the events it returns with.
    const std::int64_t outstanding = context_.in_flight();
    loop.run_once(next_wait(loop.now()));
    const core::TimePoint now = loop.now();
    count_outstanding(last_turn, now, outstanding);
    last_turn = now;
    if (measured_start_epoch_s_ == 0 && context_.measuring(now)) {
      measured_start_epoch_s_ =
          std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
      measured_cpu_from_s_ = thread_cpu_s();
    }
    context_.timeouts.expire(now, fire);
    context_.backoffs.expire(now, fire);
    context_.fire_due(now, due);
    publish_progress();
  }
  context_.stop_claiming();
  drain(fire);
  for (LoadConnection* connection : connections_) connection->abandon();
  context_.stats().latency_seconds.finish();
  if (measured_cpu_from_s_ >= 0) measured_cpu_s_ = thread_cpu_s() - measured_cpu_from_s_;
  publish_progress();
  done_.store(true, std::memory_order_release);
}

}  // namespace ringside::load
