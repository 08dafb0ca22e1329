#include "load/load_run.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "load/load_worker.hpp"
#include "load/worker_context.hpp"

namespace ringside::load {

namespace {

// floor(value * numerator / denominator) for numerator <= denominator, without the 64-bit
// overflow of multiplying first: value = q * d + r, so value * n / d = q * n + r * n / d, where
// r * n < d * d fits since d is 32 bits.
std::uint64_t scale(std::uint64_t value, unsigned numerator, unsigned denominator) {
  const std::uint64_t q = value / denominator;
  const std::uint64_t r = value % denominator;
  return q * numerator + r * numerator / denominator;
}

// False for NaN, which compares false with everything.
bool within(double value, double min, double max) { return value >= min && value <= max; }

double wall_clock_epoch_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::string check_tag(std::string_view tag) {
  if (tag.empty() || tag.size() > kMaxTagLength) {
    return "must be 1 to " + std::to_string(kMaxTagLength) + " characters, got " +
           std::to_string(tag.size());
  }
  for (const char c : tag) {
    const bool allowed = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                         (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!allowed) return "may hold only letters, digits, '.', '_' and '-'";
  }
  return "";
}

namespace {

// --http2 and --streams, and what HTTP/2 requests cannot carry yet.
std::string validate_http2(const LoadConfig& config) {
  if (config.streams == 0 || config.streams > kMaxStreams) {
    return "--streams must be from 1 to " + std::to_string(kMaxStreams);
  }
  if (!config.http2) {
    return config.streams > 1 ? "--streams needs --http2 (HTTP/1.1 has --pipeline)" : "";
  }
  if (config.pipeline > 1) return "--pipeline is HTTP/1.1's: with --http2 use --streams";
  if (!config.keep_alive) return "--no-keepalive is HTTP/1.1's: drop it with --http2";
  for (const Target& target : config.targets) {
    if (target.h2_headers.empty()) {
      return "-H/--header: the request's headers exceed one 16 KiB HTTP/2 frame: send fewer or "
             "shorter ones";
    }
  }
  return "";
}

}  // namespace

std::string validate(const LoadConfig& config) {
  if (config.targets.empty()) return "no URL given: pass one, or --urls-file";
  if (config.connections == 0 || config.connections > kMaxConnections) {
    return "-c/--connections must be from 1 to " + std::to_string(kMaxConnections);
  }
  if (config.threads == 0 || config.threads > kMaxThreads) {
    return "-t/--threads must be from 1 to " + std::to_string(kMaxThreads);
  }
  if (config.pipeline == 0 || config.pipeline > kMaxPipeline) {
    return "--pipeline must be between 1 and " + std::to_string(kMaxPipeline);
  }
  if (!within(config.duration_s, 0, kMaxDurationS)) return "-d/--duration must be at most 30 days";
  if (config.rate != 0 && !within(config.rate, kMinRate, kMaxRate)) {
    return "-R/--rate must be from 0.01 to 100000000 requests/s (0: as fast as possible)";
  }
  if (!within(config.timeout_s, kMinTimeoutS, kMaxTimeoutS)) {
    return "--timeout must be from 1ms to 1h";
  }
  if (!within(config.warmup_s, 0, kMaxWarmupS)) return "--warmup must be from 0s to 1h";
  if (!config.tag.empty()) {
    if (std::string error = check_tag(config.tag); !error.empty()) return "--tag " + error;
  }
  if (config.start_at_epoch_s && !std::isfinite(*config.start_at_epoch_s)) {
    return "--start-at must be a finite time";
  }
  if (!config.keep_alive && config.pipeline > 1) return "--pipeline needs keep-alive (drop --no-keepalive)";
  if (std::string error = validate_http2(config); !error.empty()) return error;
  if (config.requests > 0 && config.connections > config.requests) {
    return "-c/--connections " + std::to_string(config.connections) + " exceeds -n/--requests " +
           std::to_string(config.requests) + ": every connection needs at least one request";
  }
  if (!within(config.tls_resume, 0, 1)) return "--tls-resume must be from 0 to 1";
  const Url& first = config.targets.front().url;
  if (!first.tls && !config.ca_file.empty()) return "--cacert needs https:// URLs";
  if (!first.tls && config.tls_resume > 0) return "--tls-resume needs https:// URLs";
  for (const Target& target : config.targets) {
    if (target.url.tls != first.tls) {
      return std::string("url, --urls-file: every URL must use the scheme of the first (") +
             (first.tls ? "https" : "http") + "://), since connections are reused across them";
    }
    if (target.url.host != first.host || target.url.port != first.port) {
      return "--urls-file: every URL must name the host and port of the first (" + first.host +
             ":" + std::to_string(first.port) + "), since connections are reused across them";
    }
    if (std::string error = check_method(target.method); !error.empty()) {
      return "-m/--method: " + error;
    }
  }
  return "";
}

std::vector<WorkerShare> share_work(std::uint64_t requests, unsigned connections,
                                    unsigned threads) {
  std::vector<WorkerShare> shares;
  if (connections == 0 || threads == 0) return shares;
  if (threads > connections) threads = connections;
  unsigned first_connection = 0;
  std::uint64_t requests_assigned = 0;
  for (unsigned i = 0; i < threads; ++i) {
    WorkerShare& share = shares.emplace_back();
    share.first_connection = first_connection;
    share.connections = connections / threads + (i < connections % threads ? 1 : 0);
    first_connection += share.connections;
    share.requests = scale(requests, first_connection, connections) - requests_assigned;
    requests_assigned += share.requests;
  }
  return shares;
}

LoadRun::LoadRun(LoadConfig config) : config_(std::move(config)) {
  if (std::string error = validate(config_); !error.empty()) throw std::invalid_argument(error);
  // A --cacert that cannot be read fails here, once, not in every worker.
  std::string tls_error;
  if (config_.tls() && !make_tls_client(config_, tls_error)) throw std::invalid_argument(tls_error);
  if (config_.threads > config_.connections) config_.threads = config_.connections;
}

LoadRun::~LoadRun() {
  stop();
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

void LoadRun::start() {
  std::lock_guard lock(start_stop_);
  if (started_) throw std::logic_error("LoadRun::start called twice");
  started_ = true;
  const core::TimePoint start = core::Clock::now();
  const double start_epoch = wall_clock_epoch_s();
  const core::Duration warmup = core::seconds_to_duration(config_.warmup_s);
  if (config_.start_at_epoch_s) {
    // The instant becomes a point on the steady clock once, here, and the workers' loops wait
    // for it with their own timers (epoll_pwait2: nanosecond timeouts) rather than a thread
    // sleeping with clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME): the loops keep serving the
    // idle connections meanwhile (a close by the server, a reconnect), and both clocks are
    // slewed alike by NTP, so they part only if the wall clock is stepped during the wait
    // (at most a day), which chrony and ntpd do not do once synchronised.
    const double wait = *config_.start_at_epoch_s - start_epoch;
    late_at_start_s_ = wait < 0 ? -wait : 0;
    measure_from_ = start + core::seconds_to_duration(wait > 0 ? wait : 0);
    warmup_end_ = std::min(start + warmup, measure_from_);
    start_epoch_s_ = start_epoch + (wait > 0 ? wait : 0);
  } else {
    measure_from_ = start + warmup;
    warmup_end_ = measure_from_;
    start_epoch_s_ = start_epoch + config_.warmup_s;
  }
  const double duration = config_.effective_duration_s();
  for (const WorkerShare& share :
       share_work(config_.requests, config_.connections, config_.threads)) {
    WorkerPlan plan;
    plan.first_connection = share.first_connection;
    plan.connections = share.connections;
    plan.requests = share.requests;
    plan.start = start;
    plan.warmup_end = warmup_end_;
    plan.measure_from = measure_from_;
    if (duration > 0) plan.end = measure_from_ + core::seconds_to_duration(duration);
    workers_.push_back(std::make_unique<LoadWorker>(config_, plan));
    if (stopped_.load()) workers_.back()->stop();  // stopped before it began: end at once
  }
  for (auto& worker : workers_) {
    threads_.emplace_back([w = worker.get()] {
      try {
        w->run();
      } catch (const std::exception& e) {
        // Only a broken event loop gets here (EventLoop::run_once throws): numbers from the other
        // workers alone would be wrong, so stop loudly, naming the cause.
        std::fprintf(stderr, "ringside: a load worker stopped: %s\n", e.what());
        std::abort();
      }
    });
  }
}

void LoadRun::stop() {
  stopped_.store(true);
  std::lock_guard lock(start_stop_);
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
    progress.answered += worker->published_answered();
  }
  const core::TimePoint now = core::Clock::now();
  progress.elapsed_s = std::chrono::duration<double>(now - measure_from_).count();
  progress.warming_up = now < warmup_end_;
  return progress;
}

LoadResult LoadRun::finish() {
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  const core::TimePoint end = core::Clock::now();
  LoadResult result;
  result.config = config_;
  result.interrupted = stopped_.load();
  result.start_epoch_s = start_epoch_s_;
  if (config_.start_at_epoch_s) {
    // The actual start: the earliest worker's first turn in the measured phase, read on the wall
    // clock (the converted instant above is only when it was due).
    double earliest = 0;
    for (auto& worker : workers_) {
      const double t = worker->measured_start_epoch_s();
      if (t > 0 && (earliest == 0 || t < earliest)) earliest = t;
    }
    if (earliest > 0) result.start_epoch_s = earliest;
    result.intended_start_epoch_s = config_.start_at_epoch_s;
    result.start_late_s = result.start_epoch_s - *config_.start_at_epoch_s;
  }
  for (auto& worker : workers_) {
    result.stats.merge(worker->stats());
    result.cpu_s += worker->measured_cpu_s();
  }
  result.threads = static_cast<unsigned>(workers_.size());
  double elapsed = std::chrono::duration<double>(end - measure_from_).count();
  const double duration = config_.effective_duration_s();
  if (duration > 0 && !result.interrupted && elapsed > duration) elapsed = duration;
  result.elapsed_s = elapsed > 0 ? elapsed : 0;
  return result;
}

}  // namespace ringside::load
