#include "harness/report/verdict.hpp"

#include <algorithm>
#include <cmath>

#include "harness/report/report_format.hpp"

namespace ringside::harness {

bool span_known(const Span& span) {
  return std::isfinite(span.low) && std::isfinite(span.high);
}

namespace {

Span known_interval(const Interval& i) { return {i.low, i.high}; }

// The rounds' lowest and highest value of one figure; unknown when no round measured it.
template <typename Figure>
Span rounds_min_max(const PointResult& point, Figure figure) {
  Span span;
  for (const RoundFigures& round : point.rounds) {
    const double v = figure(round);
    if (!std::isfinite(v)) continue;
    span.low = std::isfinite(span.low) ? std::min(span.low, v) : v;
    span.high = std::isfinite(span.high) ? std::max(span.high, v) : v;
  }
  return span;
}

// What a ranking ranks: a point's figure, its interval, and which way is better.
struct Measure {
  bool higher_is_better;
  const char* what;  // for "... not measured at ..."
  double (*value)(const PointResult&);
  Span (*span)(const PointResult&);
};

const Measure kThroughput = {
    true, "requests/s", [](const PointResult& p) { return p.median.requests_per_s; },
    requests_per_s_span};
const Measure kCpu = {
    false, "CPU", [](const PointResult& p) { return p.median.server_cpu_us_per_request; },
    cpu_per_request_span};

// A contestant (with its loader when the workload compares loaders) and its closed points.
struct Candidate {
  std::string contestant;
  std::string label;
  std::vector<const PointResult*> points;
};

std::size_t contestant_index(const RunResults& results, const std::string& name) {
  for (std::size_t i = 0; i < results.contestants.size(); ++i) {
    if (results.contestants[i].name == name) return i;
  }
  return results.contestants.size();
}

std::vector<const PointResult*> closed_points(const RunResults& results,
                                              const std::string& workload) {
  std::vector<const PointResult*> points;
  for (const PointResult& p : results.points) {
    if (p.workload == workload && p.mode == LoadMode::kClosed) points.push_back(&p);
  }
  return points;
}

// One candidate per contestant (and loader), in the order of the contestants table.
std::vector<Candidate> candidates_of(const RunResults& results,
                                     const std::vector<const PointResult*>& points) {
  const bool several_loaders = std::any_of(points.begin(), points.end(), [&](const PointResult* p) {
    return p->loader != points.front()->loader;
  });
  std::vector<Candidate> candidates;
  for (const PointResult* p : points) {
    const std::string label = several_loaders ? p->contestant + " via " + std::string(loader_name(p->loader))
                                            : p->contestant;
    auto found = std::find_if(candidates.begin(), candidates.end(),
                              [&](const Candidate& c) { return c.label == label; });
    if (found == candidates.end()) {
      candidates.push_back({p->contestant, label, {}});
      found = candidates.end() - 1;
    }
    found->points.push_back(p);
  }
  std::stable_sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
    return contestant_index(results, a.contestant) < contestant_index(results, b.contestant);
  });
  return candidates;
}

std::string level_text(unsigned connections) {
  return format_count(connections) + (connections == 1 ? " connection" : " connections");
}

// Scores a candidate over the levels; a non-empty `why` when it cannot be ranked.
RankedEntry score(const Candidate& candidate, const std::vector<unsigned>& levels,
                  const Measure& measure, std::string& why) {
  RankedEntry entry{candidate.contestant, candidate.label, kUnmeasured, {}, false, false};
  std::vector<double> values, lows, highs;
  for (unsigned level : levels) {
    auto at = std::find_if(candidate.points.begin(), candidate.points.end(),
                           [&](const PointResult* p) { return p->connections == level; });
    if (at == candidate.points.end()) {
      why = "no point at " + level_text(level);
      return entry;
    }
    const PointResult& p = **at;
    if (!p.failure.empty()) {
      why = "failed at " + level_text(level);
      return entry;
    }
    const double value = measure.value(p);
    if (!std::isfinite(value) || value <= 0) {
      why = std::string(measure.what) + " not measured at " + level_text(level);
      return entry;
    }
    Span span = measure.span(p);
    if (!span_known(span)) span = {value, value};
    values.push_back(value);
    lows.push_back(span.low);
    highs.push_back(span.high);
    entry.noisy = entry.noisy || p.noisy;
  }
  entry.score = geometric_mean(values);
  entry.span = {geometric_mean(lows), geometric_mean(highs)};
  return entry;
}

// Walking down the sorted list: an entry joins the current group when its interval overlaps the
// interval of the group's first entry (not the last one's: ties do not chain).
std::vector<TieGroup> group_ties(const std::vector<RankedEntry>& sorted) {
  std::vector<TieGroup> groups;
  unsigned position = 0;
  for (const RankedEntry& entry : sorted) {
    ++position;
    if (!groups.empty() && spans_overlap(groups.back().entries.front().span, entry.span)) {
      groups.back().entries.push_back(entry);
    } else {
      groups.push_back({position, {entry}});
    }
  }
  return groups;
}

Ranking rank(const std::vector<Candidate>& candidates, const std::vector<unsigned>& levels,
             const Measure& measure, const std::string& baseline) {
  Ranking ranking;
  ranking.higher_is_better = measure.higher_is_better;
  std::vector<RankedEntry> ranked;
  for (const Candidate& candidate : candidates) {
    std::string why;
    RankedEntry entry = score(candidate, levels, measure, why);
    if (!why.empty()) {
      ranking.unranked.push_back({candidate.label, why});
      continue;
    }
    entry.baseline = !baseline.empty() && entry.contestant == baseline;
    ranked.push_back(std::move(entry));
  }
  std::stable_sort(ranked.begin(), ranked.end(), [&](const RankedEntry& a, const RankedEntry& b) {
    return measure.higher_is_better ? a.score > b.score : a.score < b.score;
  });
  ranking.groups = group_ties(ranked);
  return ranking;
}

bool has_level(const Candidate& c, unsigned level) {
  return std::any_of(c.points.begin(), c.points.end(),
                     [&](const PointResult* p) { return p->connections == level; });
}

std::vector<unsigned> all_levels(const std::vector<const PointResult*>& points) {
  std::vector<unsigned> all;
  for (const PointResult* p : points) {
    if (std::find(all.begin(), all.end(), p->connections) == all.end())
      all.push_back(p->connections);
  }
  std::sort(all.begin(), all.end());
  return all;
}

WorkloadVerdict decide_workload(const RunResults& results, const std::string& workload) {
  WorkloadVerdict verdict;
  verdict.workload = workload;
  const std::vector<const PointResult*> points = closed_points(results, workload);
  if (points.empty()) return verdict;
  const std::vector<Candidate> candidates = candidates_of(results, points);
  verdict.levels = all_levels(points);
  verdict.throughput = rank(candidates, verdict.levels, kThroughput, results.baseline);
  verdict.cpu = rank(candidates, verdict.levels, kCpu, results.baseline);
  for (unsigned level : verdict.levels) {
    std::vector<Candidate> at_level;
    for (const Candidate& c : candidates) {
      if (has_level(c, level)) at_level.push_back(c);
    }
    verdict.by_level.push_back({level, rank(at_level, {level}, kThroughput, results.baseline),
                                rank(at_level, {level}, kCpu, results.baseline)});
  }
  return verdict;
}

}  // namespace

std::vector<std::string> workload_order(const RunResults& results) {
  std::vector<std::string> names;
  auto add = [&](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (const WorkloadInfo& w : results.workloads) add(w.name);
  for (const PointResult& p : results.points) add(p.workload);
  return names;
}


Span requests_per_s_span(const PointResult& point) {
  const Span interval = known_interval(point.requests_per_s_interval);
  if (span_known(interval)) return interval;
  const Span min_max{point.requests_per_s_min, point.requests_per_s_max};
  if (span_known(min_max)) return min_max;
  return rounds_min_max(point, [](const RoundFigures& r) { return r.requests_per_s; });
}

Span cpu_per_request_span(const PointResult& point) {
  const Span interval = known_interval(point.cpu_us_per_request_interval);
  if (span_known(interval)) return interval;
  return rounds_min_max(point, [](const RoundFigures& r) { return r.server_cpu_us_per_request; });
}

Span p99_span(const PointResult& point) {
  return rounds_min_max(point, [](const RoundFigures& r) { return r.latency.p99; });
}

bool spans_overlap(const Span& a, const Span& b) {
  return span_known(a) && span_known(b) && a.low <= b.high && b.low <= a.high;
}

RatioCall call_ratio(double value, const Span& value_span, double base, const Span& base_span) {
  RatioCall call;
  if (!std::isfinite(value) || !std::isfinite(base) || base <= 0) return call;
  call.ratio = value / base;
  const Span a = span_known(value_span) ? value_span : Span{value, value};
  const Span b = span_known(base_span) ? base_span : Span{base, base};
  call.tie = spans_overlap(a, b);
  return call;
}

Verdict decide_verdict(const RunResults& results) {
  Verdict verdict;
  verdict.baseline = results.baseline;
  for (const std::string& workload : workload_order(results)) {
    WorkloadVerdict w = decide_workload(results, workload);
    if (!w.levels.empty()) verdict.workloads.push_back(std::move(w));
  }
  return verdict;
}

std::string place_of(const Ranking& ranking, const std::string& label) {
  for (const TieGroup& group : ranking.groups) {
    for (const RankedEntry& entry : group.entries) {
      if (entry.label == label) return std::to_string(group.place) + (group.tie() ? "=" : "");
    }
  }
  return "";
}

double geometric_mean(const std::vector<double>& values) {
  if (values.empty()) return kUnmeasured;
  double logs = 0;
  for (double v : values) {
    if (!std::isfinite(v) || v < 0) return kUnmeasured;
    if (v == 0) return 0;
    logs += std::log(v);
  }
  return std::exp(logs / static_cast<double>(values.size()));
}

}  // namespace ringside::harness
