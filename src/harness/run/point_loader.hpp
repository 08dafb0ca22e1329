// The three ways a point's load is made, behind one interface chosen once per point: ringside load
// in this process on the load CPUs (the default), another program (wrk, ab, h2load, hey, after an
// in-process warm-up), or ringside load on the load hosts over ssh (a scenario's [load] engine =
// "ssh"). Each runs the point and tells the engine, through a PointWindow, when the measured
// phase starts and ends, so the server's side is measured over the same window whoever loads.
//
//   std::unique_ptr<PointLoader> loader = make_point_loader(workload, setup);
//   LoaderRun run = loader->run(point_load(plan, scenario, port), window);
//   loader->account_cpu(run.figures, cpu);                   // after the window closed
//   if (loader->write_histogram_log(dir, relative, comment)) run.figures.histogram_log = relative;
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/config/scenario.hpp"
#include "harness/results/results.hpp"
#include "harness/run/point_plan.hpp"

namespace ringside::harness {

class LoadHosts;

// The engine's side of a point, as a loader sees it while it runs.
class PointWindow {
 public:
  // The measured phase begins (after the warm-up); `loader_threads` are this process's threads
  // that make the load (none for another program or other machines).
  virtual void measure_start(const std::vector<pid_t>& loader_threads) = 0;
  virtual void measure_end() = 0;
  [[nodiscard]] virtual bool server_alive() = 0;
  [[nodiscard]] virtual bool stopping() const = 0;  // Ctrl-C, or the database died

 protected:
  ~PointWindow() = default;
};

// What a loader made of a point.
struct LoaderRun {
  RoundFigures figures;       // the loader's own accounting: requests, latency, statuses, errors,
                              // duration, generators
  std::string error;          // "" unless the loader itself failed (not the server)
  bool server_alive = true;   // false: the server died during the point
  // The loader's view of its own connections for judge_round (point_summary.hpp), -1 where it
  // has none.
  long long in_flight_at_end = -1;
  long long slow_connects = -1;
  long long resets = -1;
  double mean_outstanding = -1;
};

// The loader's CPU over the measured phase, as the engine read it.
struct LoaderCpu {
  double process_s = kUnmeasured;   // this whole process's CPU time
  double threads_run_s = 0;         // the loader threads' time on a CPU (schedstat)
  double threads_wait_s = 0;        // and waiting for one
  double throttled_s = 0;           // the cgroup's CPU quota throttling
  double cores = 1;                 // cores the loader's threads could use
};

class PointLoader {
 public:
  virtual ~PointLoader() = default;
  // Runs the point: warm-up, then the measured phase between window.measure_start() and
  // window.measure_end() (each called once, even when the point ends early). Throws
  // std::invalid_argument for a load that cannot be made (a bad URL).
  virtual LoaderRun run(const PointLoad& load, PointWindow& window) = 0;
  // While run() is under way: the responses answered so far, warm-up included; nothing when the
  // loader cannot say.
  [[nodiscard]] virtual std::optional<std::uint64_t> answered_so_far() const { return std::nullopt; }
  // True when answered_so_far() counts from the first request, so that a counted point's
  // database window can be the loader's whole run.
  [[nodiscard]] virtual bool counts_answers() const { return false; }
  // loader_cpu_s, loader_cpu_share and loader_wait_s, once the point is over.
  virtual void account_cpu(RoundFigures& figures, const LoaderCpu& cpu) const = 0;
  // Writes the point's HdrHistogram log to dir/relative; false when there is none.
  virtual bool write_histogram_log(const std::filesystem::path& dir, const std::string& relative,
                                   const std::string& comment) const = 0;
};

// What the loaders need besides the point.
struct LoaderSetup {
  const Scenario* scenario = nullptr;
  LoadHosts* load_hosts = nullptr;   // the ssh engine's, prepared
  std::function<void(const std::string&)> say;
};

std::unique_ptr<PointLoader> make_point_loader(const Workload& workload, const LoaderSetup& setup);

// Each loader alone. The in-process one with `measured` false: the warm-up only (no measured
// phase to speak of, no per-second log), as another program's points take it.
std::unique_ptr<PointLoader> make_in_process_loader(bool measured);
std::unique_ptr<PointLoader> make_external_loader(const std::string& cpus);  // taskset list
std::unique_ptr<PointLoader> make_remote_loader(LoadHosts& hosts,
                                                const std::function<void(const std::string&)>& say);

}  // namespace ringside::harness
