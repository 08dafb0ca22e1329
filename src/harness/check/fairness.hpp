// Is a contestant set up to be timed fairly? Correctness (validate.hpp) is not enough: a server
// that answers right can still run at a fraction of its speed for reasons that have nothing to do
// with its code (issue 21: Python's stock server passed validation, then ran at 44 ms a request,
// Nagle's algorithm against the client's delayed ACK, with a listen backlog of 5). The fairness
// check measures four things while the validated server is still up (fairness_probe.hpp) and
// judges them here, each into at most one warning:
//
//   tcp-nodelay          sequential keep-alive requests whose responses arrive in pieces far apart
//   slow-requests        sequential requests far slower than a canned responder on loopback
//   listen-backlog       the backlog its listening socket has, below the connections it will get
//   production-settings  a manifest without its runtime's production switch (NODE_ENV, --release)
//   threads              fewer threads working than {threads}, or more than it is given
//
// "Far" is relative to the floor measured in the same check, with an absolute margin on top, so
// a machine's speed is no threshold and a slow runtime (express) is not a broken one. Warnings
// never fail a contestant: they are printed and recorded beside its results.
//
//   std::vector<FairnessWarning> warnings = judge_production_settings(contestant.manifest);
//   if (auto w = judge_latency(probe)) warnings.push_back(*w);
//
// Everything here is pure and unit-tested (tests/unit/harness/fairness_test.cpp).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/config/contestant.hpp"
#include "harness/process/thread_times.hpp"

namespace ringside::harness {

enum class FairnessCheck : std::uint8_t {
  kTcpNoDelay,
  kSlowRequests,
  kListenBacklog,
  kProductionSettings,
  kThreads,
};

// "tcp-nodelay", "slow-requests", "listen-backlog", "production-settings", "threads".
std::string_view fairness_check_name(FairnessCheck check);

struct FairnessWarning {
  FairnessCheck check = FairnessCheck::kTcpNoDelay;
  std::string message;  // one line: what was measured, and the fix

  // "WARN fairness: NAME: CHECK: MESSAGE"
  [[nodiscard]] std::string line(const std::string& contestant) const;
};

// "Far above the floor": at least kFarFactor times it and kFarMarginS more than it.
inline constexpr double kFarFactor = 20;
inline constexpr double kFarMarginS = 0.002;
bool far_above(double seconds, double floor_s);

// 1. Sequential keep-alive requests: the contestant's and, interleaved with them, a canned
// responder's that the check runs itself on loopback with TCP_NODELAY (the floor).
struct Exchange {
  double total_s = 0;   // from writing the request to the response's last byte
  double spread_s = 0;  // from its first byte to its last
  unsigned pieces = 1;  // receives it took
};
struct LatencyProbe {
  std::string path;  // the hello route, or the ready_path
  std::vector<Exchange> server, floor;
};
double median_total_s(const std::vector<Exchange>& exchanges);  // NaN when empty
// tcp-nodelay when at least half the responses came in pieces far apart (relative to the floor's
// whole exchange), else slow-requests when the median exchange is far above the floor's.
std::optional<FairnessWarning> judge_latency(const LatencyProbe& probe);

// 2. The listen backlogs the kernel keeps for the server's port (one per listening socket).
struct BacklogProbe {
  int port = 0;
  std::vector<std::uint32_t> backlogs;  // empty: no listener found (not judged)
  std::optional<unsigned> somaxconn;    // net.core.somaxconn; nothing: not readable
  unsigned connections = 0;             // the most connections it will be given
  std::string connections_source;       // "the scenario's largest level", ...
  unsigned declared = 0;                // the manifest's listen_backlog: its runtime's fixed one
};
// listen-backlog when the smallest backlog is below min(connections, somaxconn), unless every
// listener has exactly the backlog the manifest declares its runtime fixes; and when a declared
// backlog is not what the kernel shows (the declaration is out of date).
std::optional<FairnessWarning> judge_backlog(const BacklogProbe& probe);

// 3. Production switches a manifest can state: NODE_ENV=production for Node (and Bun, whose
// Bun.serve runs in development mode without it), no inspector, cargo builds with --release, C
// and C++ compiled with optimisation. One warning per switch missing.
std::vector<FairnessWarning> judge_production_settings(const Manifest& manifest);

// 4. How many threads worked during a short burst of concurrent requests.
struct ThreadWork {
  pid_t tid = 0;
  std::string name;
  double cpu_s = 0;  // on a CPU during the burst
};
// Each thread's CPU between two readings of the same tree, matched by tid (a thread that started
// during the burst counts from zero); largest first.
std::vector<ThreadWork> thread_work(const std::vector<ThreadTimes>& before,
                                    const std::vector<ThreadTimes>& after);
struct ThreadProbe {
  std::vector<ThreadWork> threads;
  double wall_s = 0;   // the burst's length
  unsigned given = 1;  // {threads}, or the manifest's fixed count
  bool param = false;  // threads = "param": it should use all `given`
  unsigned connections = 0;
};
// A thread "worked" when it did at least 1/(4 x given) of the tree's CPU, and was "busy" when it
// was on a CPU for kBusyShare of the burst or more and at least half as long as the busiest (a
// runtime's helper threads, its garbage collector's and JIT's, are not workers). threads when a
// "param" contestant given N > 1 had fewer than N threads working, or any contestant had more
// busy threads than it was given. Not judged below kMinBurstCpuS of CPU in all.
inline constexpr double kBusyShare = 0.25;
inline constexpr double kMinBurstCpuS = 0.05;
std::optional<FairnessWarning> judge_threads(const ThreadProbe& probe);

// What was measured, in one line for the progress output (the figures behind a warning, or
// behind none): "GET / 0.061 ms a request (floor 0.032 ms); listen backlog 4,096; 0.9 CPUs over a
// 0.6 s burst of 16 connections: python3 52%, python3 3%". A part not measured is left out.
std::string describe_measurements(const LatencyProbe& latency, const BacklogProbe& backlog,
                                  const ThreadProbe& threads);

}  // namespace ringside::harness
