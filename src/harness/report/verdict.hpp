// The answer a report opens with, decided once: per workload, the contestants ranked by
// requests/s and, apart, by server CPU per request, those whose intervals overlap sharing a place;
// and the rule that turns a ratio against the baseline into a tie. Pure: RunResults in, a Verdict
// out; every report (terminal, report.md, report.html) prints the same one.
//
//   const Verdict verdict = decide_verdict(results);
//   for (const WorkloadVerdict& w : verdict.workloads) ... w.throughput.groups ...
//   const RatioCall call = call_ratio(p.median.requests_per_s, requests_per_s_span(p), ...);
//   if (call.tie) ...   // "1.02x, tie": never a win
//
// The rule (docs/compare.md, "The verdict"): a workload's closed points; a contestant's score is
// the geometric mean of its medians over the workload's connection levels, its interval the
// geometric means of the lows and of the highs; a contestant without a measured point at every
// level is listed apart with the reason. Walking down the sorted list, a contestant joins the
// current tie group when its interval overlaps that of the group's first member.
#pragma once

#include <string>
#include <vector>

#include "harness/results/results.hpp"

namespace ringside::harness {

// A figure's interval: the median's confidence interval where the run computed one, else the
// rounds' min-max (older results files).
struct Span {
  double low = kUnmeasured;
  double high = kUnmeasured;
};

// Both ends measured (finite).
bool span_known(const Span& span);
Span requests_per_s_span(const PointResult& point);
Span cpu_per_request_span(const PointResult& point);
Span p99_span(const PointResult& point);  // the rounds' min-max of p99 latency
// Both ends known and the spans share at least one value.
bool spans_overlap(const Span& a, const Span& b);

// A ratio against the baseline, and whether it is a tie: the two intervals overlap, so the
// difference is inside the noise and must not read as a win or a loss.
struct RatioCall {
  double ratio = kUnmeasured;
  bool tie = false;
};
RatioCall call_ratio(double value, const Span& value_span, double base, const Span& base_span);

struct RankedEntry {
  std::string contestant;
  std::string label;  // the contestant, or "nginx via wrk" when a workload compares loaders
  double score = kUnmeasured;
  Span span;
  bool baseline = false;
  bool noisy = false;  // one of the points it stands on did not converge
};

struct TieGroup {
  unsigned place = 0;  // 1-based: one more than the entries ranked above the group
  std::vector<RankedEntry> entries;
  bool tie() const { return entries.size() > 1; }
};

struct Unranked {
  std::string label;
  std::string why;  // "failed at 1,000 connections", "no point at 10 connections"
};

struct Ranking {
  bool higher_is_better = true;
  std::vector<TieGroup> groups;
  std::vector<Unranked> unranked;
  bool empty() const { return groups.empty() && unranked.empty(); }
};

struct LevelVerdict {
  unsigned connections = 0;
  Ranking throughput;
  Ranking cpu;
};

struct WorkloadVerdict {
  std::string workload;
  std::vector<unsigned> levels;  // the closed levels the scores are taken over, ascending
  Ranking throughput;            // requests/s, higher first
  Ranking cpu;                   // server CPU µs per request, lower first
  std::vector<LevelVerdict> by_level;  // the same ranking at each level alone
};

struct Verdict {
  std::string baseline;
  std::vector<WorkloadVerdict> workloads;  // in the results' workload order
};

// The workloads in the order the reports show them: the scenario's, then any only points name.
std::vector<std::string> workload_order(const RunResults& results);

Verdict decide_verdict(const RunResults& results);

// The place of a contestant (label) in a ranking: "1", "2=" (a shared place), "" when not ranked.
std::string place_of(const Ranking& ranking, const std::string& label);
// The geometric mean of positive finite values; NaN when one is not.
double geometric_mean(const std::vector<double>& values);

}  // namespace ringside::harness
