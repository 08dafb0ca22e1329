#include "harness/report/verdict.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace ringside::harness {
namespace {

// A closed point with its median, its requests/s interval and its CPU interval.
PointResult point(const std::string& contestant, unsigned connections, double rps, double low,
                  double high, double cpu = 10, double cpu_low = 9.5, double cpu_high = 10.5) {
  PointResult p;
  p.workload = "hello";
  p.contestant = contestant;
  p.connections = connections;
  RoundFigures r;
  r.requests_per_s = rps;
  r.server_cpu_us_per_request = cpu;
  p.rounds = {r};
  p.median = r;
  p.requests_per_s_min = rps;
  p.requests_per_s_max = rps;
  p.requests_per_s_interval = {low, high, 0.95};
  p.cpu_us_per_request_interval = {cpu_low, cpu_high, 0.95};
  return p;
}

RunResults run_of(const std::vector<std::string>& names) {
  RunResults r;
  r.baseline = "a";
  r.workloads = {{"hello", "GET", "/", LoadMode::kClosed, LoaderKind::kRingside}};
  for (const std::string& name : names) {
    ContestantResult c;
    c.name = name;
    r.contestants.push_back(c);
  }
  return r;
}

std::vector<std::string> labels(const TieGroup& group) {
  std::vector<std::string> out;
  for (const RankedEntry& e : group.entries) out.push_back(e.label);
  return out;
}

TEST(Verdict, RanksByTheGeometricMeanOverTheLevels) {
  RunResults r = run_of({"a", "b"});
  // a: 100 and 400 -> 200; b: 300 and 150 -> 212.1 (higher, though a wins the larger level).
  r.points = {point("a", 10, 100, 99, 101), point("a", 100, 400, 396, 404),
              point("b", 10, 300, 297, 303), point("b", 100, 150, 148, 152)};
  const Verdict v = decide_verdict(r);
  ASSERT_EQ(v.workloads.size(), 1u);
  const WorkloadVerdict& w = v.workloads[0];
  EXPECT_EQ(w.levels, (std::vector<unsigned>{10, 100}));
  ASSERT_EQ(w.throughput.groups.size(), 2u);
  EXPECT_EQ(labels(w.throughput.groups[0]), std::vector<std::string>{"b"});
  EXPECT_EQ(w.throughput.groups[1].place, 2u);
  EXPECT_NEAR(w.throughput.groups[0].entries[0].score, std::sqrt(300.0 * 150), 1e-9);
  EXPECT_NEAR(w.throughput.groups[0].entries[0].span.low, std::sqrt(297.0 * 148), 1e-9);
  EXPECT_NEAR(w.throughput.groups[0].entries[0].span.high, std::sqrt(303.0 * 152), 1e-9);
  EXPECT_TRUE(w.throughput.higher_is_better);
  EXPECT_TRUE(w.throughput.unranked.empty());
  // Per level, the same rule: a first at 100 connections, b at 10.
  ASSERT_EQ(w.by_level.size(), 2u);
  EXPECT_EQ(place_of(w.by_level[0].throughput, "b"), "1");
  EXPECT_EQ(place_of(w.by_level[1].throughput, "a"), "1");
  EXPECT_EQ(place_of(w.by_level[1].throughput, "b"), "2");
}

TEST(Verdict, TheBaselineIsMarked) {
  RunResults r = run_of({"a", "b"});
  r.points = {point("a", 10, 100, 99, 101), point("b", 10, 200, 198, 202)};
  const WorkloadVerdict w = decide_verdict(r).workloads.at(0);
  EXPECT_FALSE(w.throughput.groups[0].entries[0].baseline);
  EXPECT_TRUE(w.throughput.groups[1].entries[0].baseline);
  EXPECT_EQ(w.throughput.groups[1].entries[0].label, "a");
}

TEST(Verdict, TiesGroupWithTheFirstMemberOnlyNotAlongAChain) {
  RunResults r = run_of({"a", "b", "c", "d"});
  // a ~ b and b ~ c overlap, a and c do not: c starts a new group (and takes d, which overlaps it).
  r.points = {point("a", 10, 100, 95, 105), point("b", 10, 93, 88, 96),
              point("c", 10, 86, 80, 90), point("d", 10, 50, 45, 55)};
  const Verdict verdict = decide_verdict(r);
  const Ranking& t = verdict.workloads.at(0).throughput;
  ASSERT_EQ(t.groups.size(), 3u);
  EXPECT_EQ(labels(t.groups[0]), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(t.groups[0].place, 1u);
  EXPECT_TRUE(t.groups[0].tie());
  EXPECT_EQ(labels(t.groups[1]), std::vector<std::string>{"c"});
  EXPECT_EQ(t.groups[1].place, 3u) << "two contestants share the place above it";
  EXPECT_EQ(labels(t.groups[2]), std::vector<std::string>{"d"});
  EXPECT_EQ(t.groups[2].place, 4u);
  EXPECT_EQ(place_of(t, "b"), "1=");
  EXPECT_EQ(place_of(t, "c"), "3");
  EXPECT_EQ(place_of(t, "absent"), "");
}

TEST(Verdict, CpuPerRequestRanksLowerFirst) {
  RunResults r = run_of({"a", "b", "c"});
  r.points = {point("a", 10, 100, 99, 101, 20, 19, 21), point("b", 10, 100, 99, 101, 8, 7.5, 8.5),
              point("c", 10, 100, 99, 101, 8.4, 8.2, 9)};
  const Verdict verdict = decide_verdict(r);
  const Ranking& cpu = verdict.workloads.at(0).cpu;
  EXPECT_FALSE(cpu.higher_is_better);
  ASSERT_EQ(cpu.groups.size(), 2u);
  EXPECT_EQ(labels(cpu.groups[0]), (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(labels(cpu.groups[1]), std::vector<std::string>{"a"});
  EXPECT_EQ(cpu.groups[1].place, 3u);
}

TEST(Verdict, AContestantMissingALevelOrFailingIsListedApart) {
  RunResults r = run_of({"a", "b", "c"});
  PointResult failed = point("c", 100, kUnmeasured, kUnmeasured, kUnmeasured);
  failed.failure = "round 1: exited (exit 7) during hello at 100 connections";
  r.points = {point("a", 10, 100, 99, 101), point("a", 100, 200, 198, 202),
              point("b", 10, 300, 297, 303),  // no point at 100
              point("c", 10, 90, 89, 91), failed};
  const WorkloadVerdict w = decide_verdict(r).workloads.at(0);
  ASSERT_EQ(w.throughput.groups.size(), 1u);
  EXPECT_EQ(labels(w.throughput.groups[0]), std::vector<std::string>{"a"});
  ASSERT_EQ(w.throughput.unranked.size(), 2u);
  EXPECT_EQ(w.throughput.unranked[0].label, "b");
  EXPECT_EQ(w.throughput.unranked[0].why, "no point at 100 connections");
  EXPECT_EQ(w.throughput.unranked[1].label, "c");
  EXPECT_EQ(w.throughput.unranked[1].why, "failed at 100 connections");
  EXPECT_EQ(w.cpu.unranked.size(), 2u);
  // At 10 connections alone, everyone ran: b first.
  EXPECT_EQ(place_of(w.by_level[0].throughput, "b"), "1");
  EXPECT_EQ(w.by_level[1].throughput.unranked.size(), 1u) << "c failed there; b did not run it";
}

TEST(Verdict, OpenPointsAreNotRanked) {
  RunResults r = run_of({"a"});
  PointResult open = point("a", 10, 100, 99, 101);
  open.mode = LoadMode::kOpen;
  r.points = {open};
  EXPECT_TRUE(decide_verdict(r).workloads.empty());
}

TEST(Verdict, NanIntervalsFallBackToTheRoundsMinMax) {
  PointResult p = point("a", 10, 100, kUnmeasured, kUnmeasured, 10, kUnmeasured, kUnmeasured);
  p.requests_per_s_min = 90;
  p.requests_per_s_max = 104;
  RoundFigures r1 = p.median, r2 = p.median;
  r1.server_cpu_us_per_request = 9;
  r2.server_cpu_us_per_request = 12;
  p.rounds = {r1, r2};
  EXPECT_EQ(requests_per_s_span(p).low, 90);
  EXPECT_EQ(requests_per_s_span(p).high, 104);
  EXPECT_EQ(cpu_per_request_span(p).low, 9);
  EXPECT_EQ(cpu_per_request_span(p).high, 12);
  p.requests_per_s_interval = {97, 103, 0.95};
  EXPECT_EQ(requests_per_s_span(p).low, 97) << "the interval wins where it is known";

  // In a ranking: a's min-max 90-104 overlaps b's 102-110, so they tie.
  RunResults run = run_of({"a", "b"});
  PointResult a = point("a", 10, 100, kUnmeasured, kUnmeasured);
  a.requests_per_s_min = 90;
  a.requests_per_s_max = 104;
  PointResult b = point("b", 10, 106, kUnmeasured, kUnmeasured);
  b.requests_per_s_min = 102;
  b.requests_per_s_max = 110;
  run.points = {a, b};
  const Verdict verdict = decide_verdict(run);
  const Ranking& t = verdict.workloads.at(0).throughput;
  ASSERT_EQ(t.groups.size(), 1u);
  EXPECT_EQ(labels(t.groups[0]), (std::vector<std::string>{"b", "a"}));
}

TEST(Verdict, ARatioWhoseIntervalsOverlapIsATie) {
  const RatioCall tie = call_ratio(102, {98, 106}, 100, {97, 103});
  EXPECT_NEAR(tie.ratio, 1.02, 1e-12);
  EXPECT_TRUE(tie.tie);
  const RatioCall win = call_ratio(152, {150, 154}, 100, {97, 103});
  EXPECT_NEAR(win.ratio, 1.52, 1e-12);
  EXPECT_FALSE(win.tie);
  // Unknown intervals stand for the medians themselves: only equal medians tie.
  EXPECT_FALSE(call_ratio(101, {}, 100, {}).tie);
  EXPECT_TRUE(call_ratio(100, {}, 100, {}).tie);
  EXPECT_TRUE(std::isnan(call_ratio(100, {}, 0, {}).ratio));
  EXPECT_FALSE(call_ratio(kUnmeasured, {}, 100, {}).tie);
}

TEST(Verdict, SeveralLoadersAreRankedApart) {
  RunResults r = run_of({"nginx"});
  r.baseline = "nginx";
  PointResult wrk = point("nginx", 10, 200, 198, 202);
  wrk.loader = LoaderKind::kWrk;
  r.points = {point("nginx", 10, 100, 99, 101), wrk};
  const Verdict verdict = decide_verdict(r);
  const Ranking& t = verdict.workloads.at(0).throughput;
  ASSERT_EQ(t.groups.size(), 2u);
  EXPECT_EQ(t.groups[0].entries[0].label, "nginx via wrk");
  EXPECT_EQ(t.groups[1].entries[0].label, "nginx via ringside");
  EXPECT_TRUE(t.groups[0].entries[0].baseline);
}

TEST(Verdict, GeometricMean) {
  EXPECT_NEAR(geometric_mean({2, 8}), 4, 1e-12);
  EXPECT_EQ(geometric_mean({0, 8}), 0);
  EXPECT_TRUE(std::isnan(geometric_mean({})));
  EXPECT_TRUE(std::isnan(geometric_mean({2, kUnmeasured})));
}

}  // namespace
}  // namespace ringside::harness
