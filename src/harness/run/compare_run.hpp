// The run engine of `ringside compare`: a scenario, measured. Checks and builds the contestants,
// provisions the database, validates each contestant once (an invalid one is never timed), then
// runs the rounds, interleaving the contestants (the order rotates each round, so drift hits all
// alike): start pinned to the server CPUs, wait until ready, idle memory, every point of every
// workload it answers (warm-up, then the measured phase with its server CPU, memory, loader CPU,
// kernel counters and HdrHistogram log), an equal-load point per workload, settle, memory again,
// stop. The loader runs in-process (ringside::load) on the load CPUs, or as an external program
// (external_loader.hpp). docs/compare.md describes it all.
//
//   CompareOptions options;  options.out_dir = "results/default-...";  options.stop = &interrupted;
//   RunResults results = run_compare(scenario, contestants, options);   // partial on a stop
//   write_results_file(results, options.out_dir / "results.json");
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "harness/config/contestant.hpp"
#include "harness/results/results.hpp"
#include "harness/config/scenario.hpp"

namespace ringside::harness {

struct CompareOptions {
  std::filesystem::path out_dir;           // histogram logs go to out_dir/histograms
  std::string ringside_version;
  double ready_timeout_s = 30;
  double stop_grace_s = 5;
  bool shield = true;                      // move other tasks off the server CPUs (cpu_shield.hpp)
  const std::atomic<bool>* stop = nullptr;                  // Ctrl-C: stop, keep what was measured
  std::function<void(const std::string&)> progress;         // one line per step, for stderr
};

// The contestants a scenario takes from `all`: its `contestants` list (every one when empty),
// then --only (when not empty) and --skip. Throws ScenarioError naming an unknown contestant, with
// `unknown_hint` after it when not empty (where it looked: contestant_folders.hpp).
std::vector<Contestant> select_for_scenario(const Scenario& scenario, const std::vector<Contestant>& all,
                                            const std::vector<std::string>& only,
                                            const std::vector<std::string>& skip,
                                            const std::string& unknown_hint = {});

// The equal-load point of a workload: `fraction` of the median contestant's sustained
// requests/s (each contestant's best closed level by its median over rounds; of an even number of
// contestants, the slower middle one), so that most contestants can carry it; offered over as
// many connections as the workload's largest level (headroom: one slow response does not hold
// back the schedule), for long enough that its p99 rests on `requests` / 100 requests, between
// `min_s` and `max_s`. Rate 0 when no contestant has a closed point.
struct EqualLoad {
  double rate = 0;
  unsigned connections = 0;
  double duration_s = 0;
  std::string reference;  // the median contestant
  unsigned contestants = 0;
};
EqualLoad equal_load_for(const std::vector<PointResult>& points, const std::string& workload,
                         double fraction, double requests, double min_s, double max_s);

RunResults run_compare(const Scenario& scenario, const std::vector<Contestant>& contestants,
                       const CompareOptions& options);

}  // namespace ringside::harness
