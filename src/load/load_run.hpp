// Runs a load test in-process: one LoadWorker per thread, each with its share of connections and
// of the -n budget. The CLI (`ringside load`) and the harness both drive it.
//
//   LoadRun run(config);
//   run.start();
//   while (!run.wait_for(250ms)) show(run.progress());   // run.stop() from a signal handler thread
//   LoadResult result = run.finish();
#pragma once

#include <memory>
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
};

struct LoadProgress {
  std::uint64_t completed = 0;
  std::uint64_t errored = 0;
  double elapsed_s = 0;  // since the measured phase began (negative during the warm-up)
};

// Checks settings that depend on each other; returns one line naming the flag, or "".
std::string validate(const LoadConfig& config);

class LoadRun {
 public:
  explicit LoadRun(LoadConfig config);
  ~LoadRun();
  LoadRun(const LoadRun&) = delete;
  LoadRun& operator=(const LoadRun&) = delete;

  void start();
  void stop();  // thread-safe; what was measured so far is kept
  [[nodiscard]] bool wait_for(core::Duration timeout);  // true once every worker has finished
  [[nodiscard]] LoadProgress progress() const;
  LoadResult finish();  // joins and merges; call once

 private:
  LoadConfig config_;
  core::TimePoint measure_from_{};
  double start_epoch_s_ = 0;
  bool stopped_ = false;
  std::vector<std::unique_ptr<LoadWorker>> workers_;
  std::vector<std::thread> threads_;
};

}  // namespace ringside::load
