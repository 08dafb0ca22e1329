// ringside load in this process (harness/run/point_loader.hpp): its threads on the load CPUs the
// harness pinned itself to, watched while they run.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "harness/measure/point_figures.hpp"
#include "harness/measure/sampler.hpp"
#include "harness/run/point_loader.hpp"
#include "load/load_run.hpp"

namespace ringside::harness {
namespace {

constexpr double kPollS = 0.02;  // how often the run is looked at while the loader works

load::LoadConfig load_config(const PointLoad& load, bool measured) {
  load::LoadConfig config;
  load::RequestSpec spec;
  spec.method = load.method;
  spec.headers = load.headers;
  spec.body = load.body;
  spec.keep_alive = load.keep_alive;
  for (const std::string& path : expand_path(load.path)) {
    load::Url url;
    std::string error;
    if (!load::parse_url(load.url_base + path, url, error)) {
      throw std::invalid_argument("workload '" + load.workload + "': " + error);
    }
    config.targets.push_back(load::make_target(url, spec));
  }
  config.connections = load.connections;
  config.threads = load.threads;
  config.pipeline = load.pipeline;
  config.keep_alive = load.keep_alive;
  config.http2 = load.http2;
  config.streams = load.streams;
  config.tls_resume = load.tls_resume;
  config.timeout_s = load.timeout_s;
  config.warmup_s = load.warmup_s;
  config.rate = load.rate;
  config.latency_per_second = measured;  // the point's log: one interval per second
  if (measured && load.requests > 0) {
    config.requests = load.requests;
  } else {
    config.duration_s = measured ? load.duration_s : 0.001;
  }
  return config;
}

std::vector<pid_t> threads_since(const std::vector<pid_t>& before) {
  std::vector<pid_t> started;
  for (pid_t tid : own_threads()) {
    if (!std::binary_search(before.begin(), before.end(), tid)) started.push_back(tid);
  }
  return started;
}

class InProcessLoader final : public PointLoader {
 public:
  explicit InProcessLoader(bool measured) : measured_(measured) {}

  LoaderRun run(const PointLoad& load, PointWindow& window) override {
    load::LoadConfig config;
    try {
      config = load_config(load, measured_);
    } catch (const std::invalid_argument& refused) {
      // A URL ringside load does not take (https, until it speaks TLS): the loader's failure,
      // carried by the point, not the server's.
      LoaderRun run;
      run.error = refused.what();
      run.server_alive = window.server_alive();
      return run;
    }
    const std::vector<pid_t> before = own_threads();
    load::LoadRun running(config);
    running.start();
    running_ = &running;
    threads_ = threads_since(before);
    const bool alive = watch(running, config, window);
    running_ = nullptr;
    result_ = running.finish();
    return outcome(alive);
  }

  [[nodiscard]] std::optional<std::uint64_t> answered_so_far() const override {
    if (running_ == nullptr) return std::nullopt;
    return running_->progress().answered;
  }
  [[nodiscard]] bool counts_answers() const override { return true; }

  void account_cpu(RoundFigures& figures, const LoaderCpu& cpu) const override {
    figures.loader_cpu_s = threads_.empty() ? cpu.process_s : cpu.threads_run_s;
    // Waiting for a CPU: on a run queue (schedstat), or throttled by the cgroup's CPU quota
    // (cpu.stat; a wait schedstat only counts once the thread runs again).
    figures.loader_wait_s = threads_.empty() ? kUnmeasured : std::max(cpu.threads_wait_s, cpu.throttled_s);
    if (std::isfinite(figures.loader_cpu_s) && figures.duration_s > 0) {
      figures.loader_cpu_share = figures.loader_cpu_s / (figures.duration_s * cpu.cores);
    }
  }

  bool write_histogram_log(const std::filesystem::path& dir, const std::string& relative,
                           const std::string& comment) const override {
    return result_.stats.latency.count() > 0 &&
           harness::write_histogram_log(dir, relative, comment, result_);
  }

 private:
  // Until the loader is done: the window's edges as the loader's clock passes them, and a stop
  // when the run stops or the server dies. False when it died.
  bool watch(load::LoadRun& running, const load::LoadConfig& config, PointWindow& window) const {
    bool started = false, ended = false, alive = true;
    // The end is taken just before the loader closes its connections: closing with requests in
    // flight makes the kernel send resets, which are the loader's doing, not the server's.
    const double end_at = config.duration_s > 0 ? config.duration_s - 2 * kPollS : -1;
    const auto poll = std::chrono::milliseconds(static_cast<int>(kPollS * 1000) / 2);
    while (!running.wait_for(started ? poll : std::chrono::milliseconds(5))) {
      if (window.stopping()) running.stop();
      const double elapsed = running.progress().elapsed_s;
      if (!started && elapsed >= 0) {
        started = true;
        window.measure_start(threads_);
      }
      if (started && !ended && end_at > 0 && elapsed >= end_at) {
        ended = true;
        window.measure_end();
      }
      if (alive && !window.server_alive()) {
        alive = false;
        running.stop();
      }
    }
    if (!started) window.measure_start(threads_);  // a count-mode point can finish inside one poll
    if (!ended) window.measure_end();
    return alive;
  }

  LoaderRun outcome(bool alive) const {
    LoaderRun run;
    run.server_alive = alive;
    if (measured_) fill_from_load(result_, run.figures);
    const load::Stats& stats = result_.stats;
    run.in_flight_at_end = static_cast<long long>(stats.in_flight);
    run.slow_connects = static_cast<long long>(stats.slow_connects);
    run.resets = static_cast<long long>(stats.errors[static_cast<std::size_t>(load::ErrorClass::kReset)]);
    run.mean_outstanding = result_.elapsed_s > 0 ? stats.outstanding_s / result_.elapsed_s : -1;
    return run;
  }

  bool measured_;
  load::LoadRun* running_ = nullptr;  // while run() is under way
  std::vector<pid_t> threads_;        // the loader's, in this process
  load::LoadResult result_;
};

}  // namespace

std::unique_ptr<PointLoader> make_in_process_loader(bool measured) {
  return std::make_unique<InProcessLoader>(measured);
}

}  // namespace ringside::harness
