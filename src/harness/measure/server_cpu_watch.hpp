// What took the server's CPUs during a point besides the server: the run-queue delay of the
// server tree's threads (/proc/PID/task/TID/schedstat, field 2), the CPU time everything else
// used on `server_cpus` (per-CPU /proc/stat: user + nice + system of those CPUs, less the
// server's and the scenario database's own CPU, plus hypervisor steal), and by name the few tasks
// that ran there (every task's utime + stime, where /proc/TID/stat's `processor` field puts it at
// the end of the point). Interrupt and softirq time are left out: on loopback most of it is the
// server's own traffic.
//
//   ServerCpuWatch watch(server_cpus, server_pid, database_pid);
//   watch.begin();  ... the point ...  watch.end();
//   ServerCpuFigures figures = watch.figures();   // over the window between begin() and end()
//
// The server's and the database's own CPU over the window are their threads' schedstat run times
// (nanoseconds), read in the same snapshots as /proc/stat.
//
// The parsers and the arithmetic are pure and tested against recorded /proc texts.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "harness/process/proc_table.hpp"
#include "harness/results/results.hpp"
#include "harness/measure/sampler.hpp"

namespace ringside::harness {

// One CPU's line of /proc/stat, in clock ticks (USER_HZ).
struct CpuTicks {
  std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
                steal = 0;
  [[nodiscard]] std::uint64_t tasks() const { return user + nice + system; }
};
// The "cpuN ..." lines of a /proc/stat text, by N (the all-CPUs "cpu" line is skipped).
std::map<int, CpuTicks> parse_proc_stat_cpus(std::string_view text);

// Everything read at one end of a point.
struct CpuWatchSnapshot {
  std::map<int, CpuTicks> cpus;                  // the server CPUs only
  std::map<pid_t, TaskStat> tasks;                // every other task of the machine, by tid
  std::map<pid_t, SchedTimes> server_threads;    // the server tree's threads, by tid
  std::map<pid_t, SchedTimes> database_threads;  // the scenario database's, by tid
};

// A window shorter than this many clock ticks (0.1 s at USER_HZ 100) leaves the figures
// unmeasured: /proc/stat's whole ticks cannot tell a share over it.
inline constexpr double kShortestWatchTicks = 10;

struct CpuWatchInputs {
  std::vector<int> server_cpus;
  double duration_s = 0;         // the point's measured phase
  double ticks_per_s = 100;      // USER_HZ
  std::size_t most_named = 3;    // how many tasks to name
};

// The figures between two snapshots (pure).
ServerCpuFigures server_cpu_figures(const CpuWatchSnapshot& before, const CpuWatchSnapshot& after,
                                    const CpuWatchInputs& inputs);

// "CPU 0", "CPUs 0, 2": for sentences.
std::string cpus_phrase(const std::vector<int>& cpus);

class ServerCpuWatch {
 public:
  // `database_root` (or -1): the scenario database's postmaster, whose work on the server CPUs
  // is the contestant's (its queries), not "other". The harness's own threads are pinned to the
  // load CPUs and left out.
  ServerCpuWatch(std::vector<int> server_cpus, pid_t server_root, pid_t database_root);
  void begin();
  void end();
  ServerCpuFigures figures() const;

 private:
  CpuWatchSnapshot snapshot() const;

  std::vector<int> server_cpus_;
  pid_t server_root_;
  pid_t database_root_;
  CpuWatchSnapshot before_, after_;
  double begun_s_ = 0, ended_s_ = 0;  // steady clock
};

}  // namespace ringside::harness
