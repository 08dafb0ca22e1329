// The fairness check's measurements (judged by fairness.hpp), made on a contestant that has just
// passed validation and is still running: sequential keep-alive requests on its hello route
// against a canned responder run here on loopback (the floor), interleaved so both see the same
// machine; the backlog the kernel keeps for its listening sockets (sock_diag); and a short burst
// of concurrent requests (ringside load, one thread, bounded in time) while its threads' CPU is
// read from /proc. A check, not a benchmark: about a second, longer only for a server slow enough
// to be warned about.
//
//   FairnessOptions options;  options.connections = scenario_largest_level;
//   FairnessResult found = check_fairness(contestant, server, threads, options);
//   for (const FairnessWarning& warning : found.warnings) ... warning.line(contestant.name())
#pragma once

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "harness/check/fairness.hpp"
#include "harness/config/contestant.hpp"
#include "harness/config/scenario.hpp"
#include "harness/process/lifecycle.hpp"

namespace ringside::harness {

// The connections the backlog is judged against when no scenario says (compare --validate
// without a default scenario to read): the default scenario's largest level.
inline constexpr unsigned kDefaultFairnessConnections = 1000;

struct FairnessOptions {
  bool enabled = true;
  unsigned connections = kDefaultFairnessConnections;  // the most it will be given at once
  std::string connections_source = "a run's usual largest level (the default scenario's)";
  unsigned exchanges = 24;        // sequential requests, and as many to the floor
  double exchanges_budget_s = 5;  // fewer when a slow server's would take longer
  double burst_warmup_s = 0.4;    // load before the threads' CPU is read (JITs settle)
  double burst_s = 0.6;           // the burst the threads are judged over
  unsigned burst_connections_per_thread = 16;
  unsigned max_burst_connections = 64;
  double timeout_s = 2;  // per connect, request and response
};

// Options for a scenario: its largest connection level (over every workload), named `source`
// in the backlog's message ("the scenario's largest level").
FairnessOptions fairness_options_for(const Scenario& scenario, std::string source);

// The canned responder the floor is measured against: HTTP/1.1 200 "Hello World!" in one
// write per request head, TCP_NODELAY, on 127.0.0.1, one connection, on a thread of its own until
// destroyed. port() is 0 when it could not listen.
class CannedResponder {
 public:
  CannedResponder();
  ~CannedResponder();
  CannedResponder(const CannedResponder&) = delete;
  CannedResponder& operator=(const CannedResponder&) = delete;
  [[nodiscard]] int port() const { return port_; }

 private:
  void serve();
  int listener_ = -1;
  int port_ = 0;
  std::atomic<int> connection_{-1};
  std::thread thread_;
};

// The sequential exchanges, each request to the floor followed by one to the server, until
// options.exchanges or options.exchanges_budget_s. Empty vectors when either could not be asked
// (a connect or an exchange failed: no judgement).
LatencyProbe probe_latency(const std::string& host, int port, const std::string& path,
                           const FairnessOptions& options);

// The burst against root's tree; `given` is the threads it was given.
ThreadProbe probe_threads(pid_t root, const std::string& host, int port, const std::string& path,
                          unsigned given, bool param, const FairnessOptions& options,
                          const std::atomic<bool>* stop);

// All four, judged; `threads` is {threads}. Nothing when options.enabled is false. On an https
// start only the backlog and the production settings: the latency and threads probes speak
// plain HTTP.
struct FairnessResult {
  std::vector<FairnessWarning> warnings;
  std::string measured;  // describe_measurements: the figures, for the progress output
};
FairnessResult check_fairness(const Contestant& contestant, RunningContestant& server, int threads,
                              const FairnessOptions& options,
                              const std::atomic<bool>* stop = nullptr);

}  // namespace ringside::harness
