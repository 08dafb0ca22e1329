// Runs a load test in-process: one LoadWorker per thread, each with its share of connections and
// of the -n budget. The CLI (`ringside load`) and the harness both drive it.
//
//   LoadRun run(config);
//   run.start();
//   while (!run.wait_for(250ms)) show(run.progress());   // run.stop() from any thread
//   LoadResult result = run.finish();
//
// The constructor checks the config with validate() (and, for https://, that its TLS client
// context can be made: --cacert) and throws std::invalid_argument with the message, so an
// embedder cannot start a run that would divide by zero or overflow. start, wait_for, progress
// and finish belong to the thread that owns the run; stop may come from any.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.hpp"
#include "load/load_config.hpp"
#include "load/stats.hpp"

namespace ringside::load {

class LoadWorker;

struct LoadResult {
  LoadConfig config;
  Stats stats;
  double elapsed_s = 0;  // the measured phase: from the end of the warm-up to the stop
  bool interrupted = false;
  double start_epoch_s = 0;  // wall clock when the measured phase began (for logs)
  // --start-at: the instant asked for, and start_epoch_s minus it (how late the start was).
  std::optional<double> intended_start_epoch_s;
  std::optional<double> start_late_s;
  // The loader's own CPU (user + system) over the measured phase, summed over its threads, and
  // how many threads it ran: a generator's saturation check needs nothing else.
  double cpu_s = 0;
  unsigned threads = 0;
};

struct LoadProgress {
  std::uint64_t completed = 0;
  std::uint64_t errored = 0;
  std::uint64_t answered = 0;  // responses of the warm-up too: what the server did so far
  double elapsed_s = 0;  // since the measured phase began (negative during the warm-up)
  bool warming_up = false;  // before the measured phase: the warm-up runs (else: idle, --start-at)
};

// Checks every setting against its range (load_config.hpp) and the ones that depend on each
// other; returns one line naming the flag at fault, or "".
std::string validate(const LoadConfig& config);

// One worker's part of a run: a block of connections and its share of -n.
struct WorkerShare {
  unsigned first_connection = 0;
  unsigned connections = 0;
  std::uint64_t requests = 0;  // 0 when the run has no -n
};

// Splits `connections` as evenly as possible over min(threads, connections) workers, and
// `requests` in proportion to connections, rounding the running total: the shares add up to
// exactly `requests` for any 64-bit value, and each covers its connections when requests >=
// connections. Empty when connections or threads is 0.
std::vector<WorkerShare> share_work(std::uint64_t requests, unsigned connections, unsigned threads);

class LoadRun {
 public:
  explicit LoadRun(LoadConfig config);  // throws std::invalid_argument: validate()'s message
  ~LoadRun();
  LoadRun(const LoadRun&) = delete;
  LoadRun& operator=(const LoadRun&) = delete;

  // Once; after an early stop() the workers start already stopped. With --start-at, the instant
  // is converted to the steady clock here, once.
  void start();
  // --start-at: how far the instant was already past when start() ran (0: not past, or none).
  // The measured phase then begins at once.
  [[nodiscard]] double late_at_start_s() const { return late_at_start_s_; }
  void stop();   // from any thread (not a signal handler: it locks); what was measured is kept
  [[nodiscard]] bool wait_for(core::Duration timeout);  // true once every worker has finished
  [[nodiscard]] LoadProgress progress() const;
  LoadResult finish();  // joins and merges; call once

 private:
  LoadConfig config_;
  core::TimePoint warmup_end_{};
  core::TimePoint measure_from_{};
  double start_epoch_s_ = 0;
  double late_at_start_s_ = 0;
  std::mutex start_stop_;  // stop() must not walk workers_ while start() fills it
  std::atomic<bool> stopped_{false};
  bool started_ = false;
  std::vector<std::unique_ptr<LoadWorker>> workers_;
  std::vector<std::thread> threads_;
};

}  // namespace ringside::load
