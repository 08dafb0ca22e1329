#include "harness/report/report_diff.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "report_sample.hpp"

namespace ringside::harness {
namespace {

using testing::fixture_results;
using testing::small_run;

const FigureChange& figure(const PointDiff& point, const std::string& name) {
  for (const FigureChange& change : point.figures) {
    if (change.figure == name) return change;
  }
  throw std::runtime_error("no figure " + name);
}

const PointDiff& point(const RunDiff& diff, const std::string& contestant) {
  for (const PointDiff& p : diff.points) {
    if (p.contestant == contestant) return p;
  }
  throw std::runtime_error("no point of " + contestant);
}

// A point's requests/s with its rounds spread `spread` around the median, as a run records it.
void set_rate(PointResult& p, double median, double spread) {
  p.median.requests_per_s = median;
  p.rounds[0].requests_per_s = median;
  p.requests_per_s_min = median * (1 - spread);
  p.requests_per_s_max = median * (1 + spread);
}

// small_run's ringside point spreads 1% (99,000-101,000 around 100,000): the 2% floor applies.
TEST(ReportDiff, AChangeWithinTwoPercentIsNotReal) {
  const RunResults a = small_run();
  RunResults b = small_run();
  set_rate(b.points[0], 101'900, 0.01);
  const RunDiff diff = diff_runs(a, b);
  const FigureChange& change = figure(point(diff, "ringside"), "req/s");
  EXPECT_NEAR(change.change, 0.019, 1e-9);
  EXPECT_DOUBLE_EQ(change.threshold, kDiffMinimumNoise);
  EXPECT_FALSE(change.real);
}

TEST(ReportDiff, AChangeBeyondTheNoiseIsRealAndHasADirection) {
  const RunResults a = small_run();
  RunResults b = small_run();
  set_rate(b.points[0], 90'000, 0.01);
  b.points[0].median.latency.p99 = b.points[0].rounds[0].latency.p99 = 200;
  const RunDiff diff = diff_runs(a, b);
  const PointDiff& p = point(diff, "ringside");
  EXPECT_TRUE(figure(p, "req/s").real);
  EXPECT_FALSE(figure(p, "req/s").better);
  EXPECT_TRUE(figure(p, "p99").real);
  EXPECT_TRUE(figure(p, "p99").better) << "a shorter tail is better";
}

TEST(ReportDiff, TheNoisierRunSetsTheThreshold) {
  const RunResults a = small_run();
  RunResults b = small_run();
  // B's rounds spread 8% around its median: a 6% change is within it, a 9% one is not.
  b.points[0].median.requests_per_s = 106'000;
  b.points[0].requests_per_s_min = 106'000 * 0.92;
  b.points[0].requests_per_s_max = 106'000 * 1.01;
  FigureChange change = figure(point(diff_runs(a, b), "ringside"), "req/s");  // a copy
  EXPECT_NEAR(change.threshold, 0.08, 1e-9);
  EXPECT_FALSE(change.real);
  b.points[0].median.requests_per_s = 109'000;
  b.points[0].requests_per_s_min = 109'000 * 0.92;
  b.points[0].requests_per_s_max = 109'000 * 1.01;
  change = figure(point(diff_runs(a, b), "ringside"), "req/s");
  EXPECT_TRUE(change.real);
  // The same for a figure whose noise comes from the rounds.
  EXPECT_NEAR(figure_noise(b.points[0], "p99"), 0, 1e-12) << "one round: no spread";
}

TEST(ReportDiff, PointsInOneRunOnlyAreListed) {
  const RunResults a = small_run();
  RunResults b = small_run();
  b.points.erase(b.points.begin() + 1);
  PointResult extra = b.points[0];
  extra.connections = 100;
  b.points.push_back(extra);
  const RunDiff diff = diff_runs(a, b);
  EXPECT_EQ(diff.points.size(), 1u);
  EXPECT_EQ(diff.only_a, std::vector<std::string>{"hello c=10 node-http"});
  EXPECT_EQ(diff.only_b, std::vector<std::string>{"hello c=100 ringside"});
  const std::string text = render_diff(diff, "a", "b");
  EXPECT_NE(text.find("Only in A (1):\n  hello c=10 node-http\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Only in B (1):\n  hello c=100 ringside\n"), std::string::npos) << text;
  // One header cell per figure compared, the database's included.
  const std::string header = text.substr(text.find("workload"), text.find('\n', text.find("workload")) - text.find("workload"));
  for (const char* column : {"req/s", "p99", "CPU/req", "peak RSS", "DB CPU/req", "queries/req"}) {
    EXPECT_NE(header.find(column), std::string::npos) << column << " in: " << header;
  }
}

TEST(ReportDiff, FailedPointsAreNotedNotCompared) {
  const RunResults a = small_run();
  RunResults b = small_run();
  b.points[1].failure = "crashed";
  const RunDiff diff = diff_runs(a, b);
  const PointDiff& p = point(diff, "node-http");
  EXPECT_EQ(p.note, "failed in B: crashed");
  EXPECT_TRUE(std::isnan(figure(p, "req/s").change));
}

// The equal-load rate comes from each run's own slowest contestant: open points match across it.
TEST(ReportDiff, OpenPointsMatchAcrossRatesWithANote) {
  RunResults a = small_run();
  a.points[0].mode = LoadMode::kOpen;
  a.points[0].rate = 7'100;
  RunResults b = a;
  b.points[0].rate = 7'500;
  const RunDiff diff = diff_runs(a, b);
  EXPECT_TRUE(diff.only_a.empty());
  EXPECT_EQ(point(diff, "ringside").point, "open 7,100/s");
  EXPECT_EQ(point(diff, "ringside").note, "offered rate 7,100 -> 7,500 req/s");
  b.points[0].rate = 7'150;
  EXPECT_EQ(point(diff_runs(a, b), "ringside").note, "") << "within 1%";
}

// The sample runs: ringside's hello c=100 is 15% faster in B, rust-hyper's noisy users c=100
// (rounds 10.9% apart) 5% faster; express ran only in A and deno only in B.
TEST(ReportDiff, SampleRuns) {
  const RunDiff diff = diff_runs(read_results_file(fixture_results("run-a")),
                                 read_results_file(fixture_results("run-b")));
  std::size_t checked = 0;
  for (const PointDiff& p : diff.points) {
    if (p.workload == "hello" && p.point == "c=100" && p.contestant == "ringside") {
      EXPECT_NEAR(figure(p, "req/s").change, 0.15, 0.001);
      EXPECT_TRUE(figure(p, "req/s").real);
      ++checked;
    }
    if (p.workload == "users" && p.point == "c=100" && p.contestant == "rust-hyper") {
      EXPECT_NEAR(figure(p, "req/s").change, 0.05, 0.001);
      EXPECT_FALSE(figure(p, "req/s").real);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2u);
  EXPECT_EQ(diff.real_changes, 1u);
  EXPECT_EQ(diff.only_a.size(), 6u);  // express, everywhere but the equal-load points
  EXPECT_EQ(diff.only_b.size(), 8u);  // deno: 3 levels and equal load, 2 workloads
  const std::string text = render_diff(diff, "run-a", "run-b");
  EXPECT_NE(text.find("hello     c=100         ringside    +15.0% *"), std::string::npos) << text;
  EXPECT_NE(
      text.find("  hello c=100 ringside: req/s +15.0% (118,566 -> 136,351, better; noise 2.0%)"),
      std::string::npos)
      << text;
}

}  // namespace
}  // namespace ringside::harness
