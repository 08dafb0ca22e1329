#include "harness/measure/point_figures.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "load/hdr_log.hpp"

namespace ringside::harness {
namespace {

load::LoadResult sample_result() {
  load::LoadResult result;
  result.elapsed_s = 2;
  result.start_epoch_s = 1700000000;
  for (std::uint64_t micros = 1; micros <= 100; ++micros) {
    result.stats.latency.record(micros * 10);
    result.stats.count_completion(0);
  }
  result.stats.status[200] = 98;
  result.stats.status[503] = 2;
  result.stats.count_error(load::ErrorClass::kReset, 3);
  return result;
}

TEST(PointFigures, FromALoadResult) {
  RoundFigures figures;
  fill_from_load(sample_result(), figures);
  EXPECT_EQ(figures.completed, 100u);
  EXPECT_EQ(figures.failed, 3u);
  EXPECT_DOUBLE_EQ(figures.requests_per_s, 50);
  EXPECT_DOUBLE_EQ(figures.duration_s, 2);
  EXPECT_NEAR(figures.latency.p50, 500, 1);
  EXPECT_NEAR(figures.latency.p99, 990, 1);
  EXPECT_NEAR(figures.latency.max, 1000, 1);
  EXPECT_NEAR(figures.latency.mean, 505, 1);
  EXPECT_EQ(figures.statuses, (std::map<std::string, std::uint64_t>{{"200", 98}, {"503", 2}}));
  EXPECT_EQ(figures.errors, (std::map<std::string, std::uint64_t>{{"reset", 3}}));
  RoundFigures empty;
  fill_from_load(load::LoadResult{}, empty);
  EXPECT_TRUE(std::isnan(empty.requests_per_s));
  EXPECT_TRUE(std::isnan(empty.latency.p50));
}

TEST(PointFigures, TwoGeneratorsMergedWithTheirOwnFigures) {
  std::vector<load::GeneratorResult> inputs(2);
  inputs[0].tag = "gen1";
  inputs[0].result = sample_result();
  inputs[0].result.cpu_s = 1;
  inputs[0].result.threads = 2;
  inputs[0].result.start_late_s = 0.002;
  inputs[1].tag = "gen2";
  inputs[1].result = sample_result();
  RoundFigures figures;
  fill_from_merge(load::merge_generators(std::move(inputs)), figures, true);
  EXPECT_EQ(figures.completed, 200u);
  EXPECT_DOUBLE_EQ(figures.requests_per_s, 100);
  ASSERT_EQ(figures.generators.size(), 2u);
  EXPECT_EQ(figures.generators[0].name, "gen1");
  EXPECT_EQ(figures.generators[0].completed, 100u);
  EXPECT_DOUBLE_EQ(figures.generators[0].requests_per_s, 50);
  EXPECT_DOUBLE_EQ(figures.generators[0].cpu_share, 0.25);  // 1 s of 2 threads x 2 s
  EXPECT_DOUBLE_EQ(figures.generators[0].start_late_s, 0.002);
  EXPECT_TRUE(std::isnan(figures.generators[1].cpu_share)) << "no loader figures: unmeasured";
}

TEST(PointFigures, TheLogHasOneIntervalPerSecond) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "ringside-point-seconds";
  std::filesystem::remove_all(dir);
  load::LoadResult result = sample_result();
  result.stats.latency_seconds.enable(result.stats.latency);
  result.stats.latency_seconds.record(0, 100);
  result.stats.latency_seconds.record(1, 200);
  result.stats.latency_seconds.finish();
  ASSERT_TRUE(write_histogram_log(dir, "a.hlog", "c", result));
  std::ifstream in(dir / "a.hlog");
  std::stringstream text;
  text << in.rdbuf();
  const std::string log = text.str();
  EXPECT_NE(log.find("\n0.000,1.000,"), std::string::npos) << log;
  EXPECT_NE(log.find("\n1.000,1.000,"), std::string::npos) << log;
  std::filesystem::remove_all(dir);
}

TEST(PointFigures, LogNames) {
  EXPECT_EQ(histogram_log_name("hello", "nginx", LoadMode::kClosed, 100, 0, 1),
            "histograms/hello-nginx-closed-c100-round1.hlog");
  EXPECT_EQ(histogram_log_name("users", "deno", LoadMode::kOpen, 1000, 2482.6, 3),
            "histograms/users-deno-open-c1000-r2483-round3.hlog");
}

TEST(PointFigures, TheLogHoldsTheHistogram) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "point_figures_test";
  std::filesystem::remove_all(dir);
  const load::LoadResult result = sample_result();
  ASSERT_TRUE(write_histogram_log(dir, "histograms/a.hlog", "a comment", result));
  std::ifstream in(dir / "histograms" / "a.hlog");
  std::stringstream text;
  text << in.rdbuf();
  const std::string log = text.str();
  EXPECT_EQ(log.rfind("#a comment\n", 0), 0u) << log;
  const std::size_t encoded = log.find("HISTF");
  ASSERT_NE(encoded, std::string::npos);
  const std::size_t line_end = log.find('\n', encoded);
  const load::Histogram decoded = load::decode_compressed(log.substr(encoded, line_end - encoded));
  EXPECT_EQ(decoded.count(), 100u);
  EXPECT_FALSE(write_histogram_log("/proc/no-such-dir", "x.hlog", "", result));
  std::filesystem::remove_all(dir);
}

TEST(PointFigures, DatabaseFiguresPerRequestAndPerQuery) {
  TreeUsage before{.cpu_s = 10.0, .processes = 6};
  TreeUsage after{.cpu_s = 10.5, .processes = 6};
  DatabaseFigures figures;
  fill_database_figures(before, after, 1000, 101000, 50000, figures);
  EXPECT_DOUBLE_EQ(figures.cpu_s, 0.5);
  EXPECT_DOUBLE_EQ(figures.cpu_us_per_request, 10.0);
  EXPECT_DOUBLE_EQ(figures.queries, 100000);
  EXPECT_DOUBLE_EQ(figures.queries_per_request, 2.0);
  EXPECT_DOUBLE_EQ(figures.cpu_us_per_query, 5.0);
}

TEST(PointFigures, DatabaseFiguresUnmeasuredWhenCountsCannotBeTrusted) {
  DatabaseFigures figures;
  // No database tree (none started), a statistics reset in between: nothing invented.
  fill_database_figures({}, {}, 5000, 10, 100, figures);
  EXPECT_TRUE(std::isnan(figures.cpu_s));
  EXPECT_TRUE(std::isnan(figures.queries));
  EXPECT_TRUE(std::isnan(figures.cpu_us_per_query));
  // Counted, but no requests completed: totals without ratios.
  fill_database_figures({.cpu_s = 1, .processes = 2}, {.cpu_s = 2, .processes = 2}, 0, 7, 0, figures);
  EXPECT_DOUBLE_EQ(figures.queries, 7);
  EXPECT_TRUE(std::isnan(figures.queries_per_request));
  EXPECT_TRUE(std::isnan(figures.cpu_us_per_request));
  EXPECT_NEAR(figures.cpu_us_per_query, 1e6 / 7, 1e-6);
}

}  // namespace
}  // namespace ringside::harness
