// Results for the report tests: a small hand-made run, and the committed sample runs of
// tests/fixtures/results (made by its generate.py).
#pragma once

#include <filesystem>
#include <string>

#include "harness/results/results.hpp"

namespace ringside::harness::testing {

inline std::filesystem::path fixture_results(const std::string& folder) {
  return std::filesystem::path(RINGSIDE_SOURCE_DIR) / "tests/fixtures/results" / folder /
         "results.json";
}

inline RoundFigures figures(double rps, double p50, double p99, double max, double cpu,
                            double peak) {
  RoundFigures f;
  f.round = 1;
  f.duration_s = 10;
  f.completed = static_cast<std::uint64_t>(rps * 10);
  f.requests_per_s = rps;
  f.latency.p50 = p50;
  f.latency.p90 = p50 * 1.5;
  f.latency.p99 = p99;
  f.latency.p999 = p99 * 2;
  f.latency.p9999 = p99 * 3;
  f.latency.max = max;
  f.latency.mean = p50;
  f.statuses = {{"200", f.completed}};
  f.server_cpu_us_per_request = cpu;
  f.rss_peak_kib = peak;
  return f;
}

inline PointResult closed_point(const std::string& contestant, unsigned connections,
                                const RoundFigures& f, double min, double max) {
  PointResult p;
  p.workload = "hello";
  p.contestant = contestant;
  p.connections = connections;
  p.rounds = {f};
  p.median = f;
  p.median.round = 0;
  p.requests_per_s_min = min;
  p.requests_per_s_max = max;
  return p;
}

// One workload, two contestants, one level, one round.
inline RunResults small_run() {
  RunResults r;
  r.ringside_version = "0.9.0";
  r.scenario_name = "tiny";
  r.scenario_file = "scenarios/tiny.toml";
  r.started_at = "2025-06-02T09:14:03Z";
  r.finished_at = "2025-06-02T09:14:30Z";
  r.rounds = 1;
  r.baseline = "ringside";
  r.machine.cpu_model = "Test CPU";
  r.machine.cores = 2;
  r.machine.kernel = "6.1.0";
  r.machine.memory_kib = 1'000'000;
  r.machine.server_cpus = "0";
  r.machine.load_cpus = "1";
  r.machine.warnings = {"server and loader share core 0"};
  r.workloads = {{"hello", "GET", "/", LoadMode::kClosed, LoaderKind::kRingside}};
  ContestantResult ringside;
  ringside.name = "ringside";
  ringside.description = "ringside serve";
  ringside.runtime = "ringside";
  ringside.version = "0.9.0";
  ringside.threads = 1;
  ringside.rss_idle_kib = 1536;
  ringside.rss_after_kib = 2048;
  ContestantResult node = ringside;
  node.name = "node-http";
  node.description = "node | http";
  node.runtime = "node";
  node.version = "v20.19.2";
  node.rss_idle_kib = 44800;
  node.rss_after_kib = 60000;
  r.contestants = {ringside, node};
  r.points.push_back(
      closed_point("ringside", 10, figures(100'000, 80, 250, 1200, 7.9, 2000), 99'000, 101'000));
  RoundFigures slow = figures(12'345, 790, 2100, 45'000, 66, 50'000);
  slow.statuses["503"] = 5;
  slow.errors = {{"reset", 2}};
  slow.failed = 2;
  slow.flags = {"listen-overflow"};
  slow.notes = {"the kernel dropped 7 connection attempts"};
  r.points.push_back(closed_point("node-http", 10, slow, 12'000, 12'500));
  return r;
}

}  // namespace ringside::harness::testing
