// What one point of a run asks for, and the one place a workload at a level becomes a load:
// PointPlan is the engine's (a workload at a connection level, closed or open at a rate, for a
// measured phase), PointLoad the loader's (URL, request, connections, rate, count or duration,
// warm-up), whichever loader runs it (point_loader.hpp).
//
//   const PointPlan plan{&workload, LoadMode::kClosed, 100, 0, scenario.duration_s};
//   const PointLoad load = point_load(plan, scenario, server.port());
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/config/scenario.hpp"
#include "harness/results/results.hpp"

namespace ringside::harness {

// A workload at a connection level, closed or open at a rate, for a measured phase of duration_s
// (the scenario's, or an equal-load point's own).
struct PointPlan {
  const Workload* workload = nullptr;
  LoadMode mode = LoadMode::kClosed;
  unsigned connections = 0;
  double rate = 0;
  double duration_s = 0;

  // The rate a loader is asked for: none (0) in the closed model.
  [[nodiscard]] double offered_rate() const { return mode == LoadMode::kOpen ? rate : 0; }
  // results.json's target_rate and point rate: unmeasured in the closed model.
  [[nodiscard]] double target_rate() const { return mode == LoadMode::kOpen ? rate : kUnmeasured; }
};

inline constexpr double kRequestTimeoutS = 10;

struct PointLoad {
  std::string workload;               // its name, for messages
  LoaderKind loader = LoaderKind::kRingside;
  std::string url_base;               // "http://127.0.0.1:PORT", "https://[fd00::10]:PORT"
  std::string path;                   // a {A..B} pattern only for the in-process loader
  std::string method = "GET";
  std::vector<std::string> headers;   // "Name: value"
  std::string body;
  unsigned connections = 1;
  unsigned threads = 1;               // the loader's (per host, for load hosts)
  unsigned pipeline = 1;
  bool keep_alive = true;
  bool http2 = false;                 // ringside load's --http2 (h2c on http://, h2 on https://)
  unsigned streams = 1;               // and --streams
  double tls_resume = 0;              // ringside load's --tls-resume (https and h2 only)
  double rate = 0;                    // 0: closed
  std::uint64_t requests = 0;         // > 0: count mode, and duration_s is 0
  double duration_s = 0;
  double warmup_s = 0;
  double timeout_s = kRequestTimeoutS;  // a request's

  [[nodiscard]] std::string url() const { return url_base + path; }
};

// The plan's load against a server on `port` at the scenario's server_address.
PointLoad point_load(const PointPlan& plan, const Scenario& scenario, int port);

}  // namespace ringside::harness
