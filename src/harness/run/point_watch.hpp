// The server's side of one point, read over the loader's measured phase: the server tree's CPU
// and memory, what else ran on its CPUs, what the kernel did to its connections, and the
// database's CPU and statements. A PointWatch is the PointWindow a loader runs against
// (point_loader.hpp): the loader says when the phase starts and ends, the watch takes its
// readings then.
//
//   PointWatch watch(server, loader, {.server_cpus = cpus, ...}, [&] { return stopping(); });
//   LoaderRun run = loader.run(load, watch);
//   watch.finish();                 // closes a window the loader never opened or closed
//   watch.fill(run.figures, load.requests > 0);
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "harness/measure/kernel_counters.hpp"
#include "harness/measure/sampler.hpp"
#include "harness/measure/server_cpu_watch.hpp"
#include "harness/process/lifecycle.hpp"
#include "harness/run/point_loader.hpp"

namespace ringside::db {
class StatementCounter;
}

namespace ringside::harness {

struct WatchSetup {
  std::vector<int> server_cpus;
  pid_t database_pid = -1;                       // the throwaway PostgreSQL's postmaster, or -1
  db::StatementCounter* statements = nullptr;    // its pg_stat_statements, when countable
};

class PointWatch final : public PointWindow {
 public:
  // Reads the kernel's counters now: what it does to a point's connections starts with the
  // warm-up, which opens them.
  PointWatch(RunningContestant& server, const PointLoader& loader, WatchSetup setup,
             std::function<bool()> stopping);

  // A counted point's database window is the in-process loader's whole run, warm-up included:
  // read before it starts and after its last answer, the only moments with nothing in flight,
  // so the statements counted are exactly those of the requests answered (a reading taken while
  // requests are in flight counts queries of requests not yet answered, or the reverse).
  void read_database_before_load();

  void measure_start(const std::vector<pid_t>& loader_threads) override;
  void measure_end() override;
  [[nodiscard]] bool server_alive() override { return server_.process().running(); }
  [[nodiscard]] bool stopping() const override { return stopping_(); }

  // After the loader: the phase closed if it never was, the last readings taken.
  void finish();
  // The server's figures into the loader's: CPU, memory, kernel, database, server CPUs, and the
  // duration when the loader could not say. `counted`: a count-mode point.
  void fill(RoundFigures& figures, bool counted) const;
  [[nodiscard]] LoaderCpu loader_cpu(double cores) const;
  [[nodiscard]] bool connections_counted() const { return kernel_.readable; }
  [[nodiscard]] bool listen_drops_per_port() const { return drops_before_ && drops_after_; }

 private:
  using Clock = std::chrono::steady_clock;
  // Each reading notes the time and the responses the loader had so far, so the requests
  // answered between the two readings are known exactly, not only those of the measured phase.
  struct DatabaseReading {
    Clock::time_point at;
    std::optional<std::uint64_t> answered;
    TreeUsage tree;
    std::optional<std::uint64_t> queries;
  };
  DatabaseReading read_database() const;
  void fill_server(RoundFigures& figures) const;
  void fill_database(RoundFigures& figures, bool counted) const;
  void fill_kernel(RoundFigures& figures) const;

  RunningContestant& server_;
  const PointLoader& loader_;
  WatchSetup setup_;
  std::function<bool()> stopping_;
  const pid_t pid_;
  const int port_;
  ServerCpuWatch cpu_watch_;  // what else ran on the server's CPUs, and how long it waited
  std::unique_ptr<PointSampler> sampler_;
  bool whole_run_ = false, started_ = false, ended_ = false;
  KernelCounters kernel_before_, kernel_after_, kernel_;
  std::optional<std::uint64_t> drops_before_, drops_after_;
  DatabaseReading database_start_, database_end_;
  TreeUsage tree_before_, tree_after_;
  double throttled_before_ = 0, throttled_s_ = 0;
  double process_cpu_before_ = 0, process_cpu_s_ = 0;
  Clock::time_point measure_start_;
  double wall_s_ = 0;
  SamplerFigures sampled_;
};

}  // namespace ringside::harness
