// What a server's process tree and the loader's threads use, read from /proc while a point runs:
// CPU time of the tree (utime + stime of every process, plus cutime + cstime, the children each
// one has already reaped, so a server that forks workers is charged for them), its resident
// memory (VmRSS summed, sampled every 100 ms on a thread of its own, and each process's
// high-water mark VmHWM, which catches a spike between two samples), the server port's
// ESTABLISHED connections, and how long the loader's threads ran and waited for a CPU
// (/proc/self/task/TID/schedstat).
//
//   TreeUsage before = measure_tree(server_pid);
//   PointSampler sampler(server_pid, port, loader_tids);  sampler.start();
//   ... the point ...
//   SamplerFigures figures = sampler.finish();
//   double cpu_s = measure_tree(server_pid).cpu_s - before.cpu_s;
//
// Parsers are pure and tested against recorded /proc texts.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "harness/process/thread_times.hpp"

namespace ringside::harness {

inline constexpr int kSampleIntervalMs = 100;
inline constexpr int kEstablishedEveryNthSample = 5;  // /proc/net/tcp is long at 10k sockets

// Clock ticks of utime + stime + cutime + cstime in a /proc/PID/stat text; nothing when malformed.
std::optional<std::uint64_t> parse_stat_cpu_ticks(std::string_view stat);
// The same, apart: the process's own (utime + stime, its exited threads included) and its reaped
// children's (cutime + cstime).
struct StatCpuTicks {
  std::uint64_t own = 0;
  std::uint64_t children = 0;
};
std::optional<StatCpuTicks> parse_stat_cpu(std::string_view stat);
// A "Key:   1234 kB" line of /proc/PID/status, in KiB; 0 when absent (a kernel thread, a zombie).
std::uint64_t parse_status_kib(std::string_view status, std::string_view key);
// SchedTimes and parse_schedstat (a thread's run and wait times): process/thread_times.hpp.

struct TreeUsage {
  double cpu_s = 0;
  double rss_kib = 0;
  double hwm_kib = 0;      // VmHWM summed: at most the tree's true peak, since each peaked alone
  unsigned processes = 0;  // 0: the root is gone
};
// `with_cpu` false skips the CPU (the sampler's 100 ms memory readings need none, and reading every
// thread's schedstat each time would be work on the loader's core for nothing).
TreeUsage measure_tree(pid_t root, bool with_cpu = true);

// The cpu.stat file of this process's CPU cgroup, from a /proc/self/cgroup text: cgroup v1's
// "N:cpu,cpuacct:/path" under /sys/fs/cgroup/<controllers>, or v2's "0::/path" under
// /sys/fs/cgroup (or /sys/fs/cgroup/unified in the hybrid layout). Candidates, most likely
// first.
std::vector<std::string> cgroup_cpu_stat_paths(std::string_view proc_self_cgroup);
// Seconds the cgroup was throttled by its CPU quota, from cpu.stat ("throttled_time" ns in v1,
// "throttled_usec" in v2); nothing when the text has neither.
std::optional<double> parse_throttled_s(std::string_view cpu_stat);
// This process's cgroup's throttled seconds now; 0 when not visible (no quota, no cgroup fs).
double cgroup_throttled_s();

// Threads of this process now.
std::vector<pid_t> own_threads();
// Summed run and wait times of these threads of this process (those that still exist).
SchedTimes thread_sched_times(const std::vector<pid_t>& tids);

struct SamplerFigures {
  double rss_peak_kib = 0;
  double rss_mean_kib = 0;
  unsigned samples = 0;
  std::uint64_t established_peak = 0;
  SchedTimes loader;  // during the point, summed over the loader's threads (a thread that ended
                      // counts until its last sample)
};

class PointSampler {
 public:
  // port 0: no connection counting; loader_tids empty: no thread times.
  PointSampler(pid_t root, int port, std::vector<pid_t> loader_tids);
  ~PointSampler();
  PointSampler(const PointSampler&) = delete;
  PointSampler& operator=(const PointSampler&) = delete;

  void start();
  // One sample now, from the caller's thread: at the end of the measured phase, while the
  // loader's threads still exist (the sampling thread shares their CPUs and may be starved
  // with them).
  void sample_now() { sample(port_ > 0); }
  SamplerFigures finish();  // stops the thread, takes one last sample

 private:
  void sample(bool count_connections);

  pid_t root_;
  int port_;
  std::vector<pid_t> loader_tids_;
  std::map<pid_t, SchedTimes> first_sched_;  // when the point began
  std::map<pid_t, SchedTimes> last_sched_;
  double rss_sum_ = 0;
  SamplerFigures figures_;
  std::mutex mutex_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace ringside::harness
