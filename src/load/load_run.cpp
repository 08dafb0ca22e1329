#include "load/load_run.hpp"

#include <chrono>

#include "load/load_worker.hpp"

namespace ringside::load {

std::string validate(const LoadConfig& config) {
  if (config.targets.empty()) return "no URL given: pass one, or --urls-file";
  if (config.connections == 0) return "-c/--connections must be at least 1";
  if (config.threads == 0) return "-t/--threads must be at least 1";
  if (config.pipeline == 0 || config.pipeline > kMaxPipeline) {
    return "--pipeline must be between 1 and " + std::to_string(kMaxPipeline);
  }
  if (!config.keep_alive && config.pipeline > 1) return "--pipeline needs keep-alive (drop --no-keepalive)";
  if (config.requests > 0 && config.connections > config.requests) {
    return "-c/--connections " + std::to_string(config.connections) + " exceeds -n/--requests " +
           std::to_string(config.requests) + ": every connection needs at least one request";
  }
  const Url& first = config.targets.front().url;
  for (const Target& target : config.targets) {
    if (target.url.host != first.host || target.url.port != first.port) {
      return "--urls-file: every URL must name the host and port of the first (" + first.host +
             ":" + std::to_string(first.port) + "), since connections are reused across them";
    }
  }
  return "";
}

LoadRun::LoadRun(LoadConfig config) : config_(std::move(config)) {
  if (config_.threads > config_.connections) config_.threads = config_.connections;
}

LoadRun::~LoadRun() {
  stop();
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

void LoadRun::start() {
  const core::TimePoint start = core::Clock::now();
  measure_from_ = start + core::seconds_to_duration(config_.warmup_s);
  const double duration = config_.effective_duration_s();
  const auto now_epoch = std::chrono::system_clock::now().time_since_epoch();
  start_epoch_s_ = std::chrono::duration<double>(now_epoch).count() + config_.warmup_s;
  const unsigned threads = config_.threads;
  unsigned first_connection = 0;
  std::uint64_t requests_assigned = 0;
  for (unsigned i = 0; i < threads; ++i) {
    WorkerPlan plan;
    plan.first_connection = first_connection;
    plan.connections = config_.connections / threads + (i < config_.connections % threads ? 1 : 0);
    first_connection += plan.connections;
    // -n is shared in proportion to connections (so every worker's budget covers its
    // connections), rounding the running total: the shares add up to exactly -n.
    if (config_.requests > 0) {
      plan.requests = config_.requests * first_connection / config_.connections - requests_assigned;
      requests_assigned += plan.requests;
    }
    plan.start = start;
    plan.measure_from = measure_from_;
    if (duration > 0) plan.end = measure_from_ + core::seconds_to_duration(duration);
    workers_.push_back(std::make_unique<LoadWorker>(config_, plan));
  }
  for (auto& worker : workers_) threads_.emplace_back([w = worker.get()] { w->run(); });
}

void LoadRun::stop() {
  stopped_ = true;
  for (auto& worker : workers_) worker->stop();
}

bool LoadRun::wait_for(core::Duration timeout) {
  const core::TimePoint deadline = core::Clock::now() + timeout;
  while (true) {
    bool all_done = true;
    for (auto& worker : workers_) all_done = all_done && worker->done();
    if (all_done) return true;
    if (core::Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // polling a flag, bounded
  }
}

LoadProgress LoadRun::progress() const {
  LoadProgress progress;
  for (const auto& worker : workers_) {
    progress.completed += worker->published_completed();
    progress.errored += worker->published_errored();
  }
  progress.elapsed_s = std::chrono::duration<double>(core::Clock::now() - measure_from_).count();
  return progress;
}

LoadResult LoadRun::finish() {
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  const core::TimePoint end = core::Clock::now();
  LoadResult result;
  result.config = config_;
  result.interrupted = stopped_;
  result.start_epoch_s = start_epoch_s_;
  for (auto& worker : workers_) result.stats.merge(worker->stats());
  double elapsed = std::chrono::duration<double>(end - measure_from_).count();
  const double duration = config_.effective_duration_s();
  if (duration > 0 && !stopped_ && elapsed > duration) elapsed = duration;
  result.elapsed_s = elapsed > 0 ? elapsed : 0;
  return result;
}

}  // namespace ringside::load
