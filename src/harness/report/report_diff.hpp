// `ringside compare --diff A B`: two runs compared point by point (same workload, contestant,
// mode, connections and loader), on requests/s, p99 latency, server CPU per request and peak RSS.
// A change counts as real only when it is larger than the noise of both runs: the larger of A's
// and B's round-to-round spread around the median for that figure, and at least 2%.
//
//   const RunDiff diff = diff_runs(read_results_file(a), read_results_file(b));
//   std::fputs(render_diff(diff, "a/results.json", "b/results.json").c_str(), stdout);
//
// Open-model points match whatever rate each run offered (the equal-load rate is derived from the
// run itself, so it moves a little between runs); a rate that differs by more than 1% is noted.
#pragma once

#include <string>
#include <vector>

#include "harness/results/results.hpp"

namespace ringside::harness {

inline constexpr double kDiffMinimumNoise = 0.02;

struct FigureChange {
  std::string figure;  // "req/s", "p99", "CPU/req", "peak RSS"
  double a = kUnmeasured;
  double b = kUnmeasured;
  double change = kUnmeasured;     // (b - a) / a
  double threshold = kUnmeasured;  // max(noise A, noise B, 2%)
  bool real = false;               // |change| > threshold
  bool better = false;             // the direction a reader wants (more req/s, less of the rest)
};

struct PointDiff {
  std::string workload;
  std::string contestant;
  std::string point;  // "c=100", "open 7,100/s", with " via wrk" for another loader
  std::vector<FigureChange> figures;
  std::string note;  // failed in one run, a different offered rate, ...
};

struct RunDiff {
  std::vector<PointDiff> points;    // in A's order
  std::vector<std::string> only_a;  // "hello c=10 express"
  std::vector<std::string> only_b;
  std::size_t real_changes = 0;
  std::string about_a;  // scenario and start time
  std::string about_b;
};

RunDiff diff_runs(const RunResults& a, const RunResults& b);
// A figure's noise in one point: the largest distance of a round from the median, relative to the
// median (requests/s from the recorded min and max); 0 when there is only the median.
double figure_noise(const PointResult& point, const std::string& figure);
std::string render_diff(const RunDiff& diff, const std::string& label_a,
                        const std::string& label_b);

}  // namespace ringside::harness
