// `ringside load --start-at` and `--hlog`'s seconds, in-process against ringside's hello server:
// the measured phase begins at the wall-clock instant (not before, and within a bound after),
// the connections open and the warm-up runs before it and then idle, a warm-up that would run
// past the instant is cut, a passed instant starts at once, and the per-second latency
// histograms add up to the whole run's bucket for bucket.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "hello_server.hpp"
#include "load/load_run.hpp"

namespace ringside::load {
namespace {

// Generous: the machine may be busy with builds; a start is still never early.
constexpr double kLateBoundS = 0.05;

double now_epoch_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class LoadStartAt : public ::testing::Test {
 protected:
  void SetUp() override { server_ = test_support::start_hello_server(); }
  void TearDown() override { server_->stop(/*force=*/true); }

  LoadConfig config(unsigned connections, double rate) const {
    LoadConfig config;
    Url url;
    std::string error;
    EXPECT_TRUE(parse_url("http://127.0.0.1:" + std::to_string(server_->port()) + "/", url, error))
        << error;
    config.targets.push_back(make_target(url, RequestSpec{}));
    config.connections = connections;
    config.threads = 1;
    config.rate = rate;
    config.timeout_s = 60;
    return config;
  }

  static LoadResult run(const LoadConfig& config, double* late_at_start = nullptr) {
    LoadRun run(config);
    run.start();
    if (late_at_start != nullptr) *late_at_start = run.late_at_start_s();
    while (!run.wait_for(std::chrono::milliseconds(50))) {
    }
    return run.finish();
  }

  std::unique_ptr<server::Server> server_;
};

TEST_F(LoadStartAt, ClosedLoopConnectsFirstThenMeasuresFromTheInstant) {
  LoadConfig c = config(2, 0);
  c.duration_s = 0.5;
  c.start_at_epoch_s = now_epoch_s() + 0.5;
  const LoadResult r = run(c);
  ASSERT_TRUE(r.intended_start_epoch_s && r.start_late_s);
  EXPECT_EQ(*r.intended_start_epoch_s, *c.start_at_epoch_s);
  EXPECT_GE(r.start_epoch_s, *c.start_at_epoch_s) << "began before the instant";
  EXPECT_LT(*r.start_late_s, kLateBoundS);
  EXPECT_DOUBLE_EQ(*r.start_late_s, r.start_epoch_s - *c.start_at_epoch_s);
  EXPECT_EQ(r.stats.warmup_requests, 0u) << "no warm-up: idle until the instant";
  EXPECT_EQ(r.stats.connections_opened, 0u) << "the connections were opened before the instant";
  EXPECT_GT(r.stats.completed, 0u);
  EXPECT_EQ(r.stats.errored, 0u);
}

TEST_F(LoadStartAt, WarmUpThenIdleThenTheRateScheduleStartsAtTheInstant) {
  // -R 200 over 2 connections: 200 sends in the measured second, 40 in the 0.2 s warm-up, none
  // in the 0.6 s idle gap (a warm-up running on into it would send ~160).
  LoadConfig c = config(2, 200);
  c.duration_s = 1;
  c.warmup_s = 0.2;
  c.start_at_epoch_s = now_epoch_s() + 0.8;
  const LoadResult r = run(c);
  EXPECT_GE(r.start_epoch_s, *c.start_at_epoch_s);
  EXPECT_LT(*r.start_late_s, kLateBoundS);
  EXPECT_GE(r.stats.warmup_requests, 38u);
  EXPECT_LE(r.stats.warmup_requests, 42u);
  EXPECT_GE(r.stats.started, 199u);
  EXPECT_LE(r.stats.started, 201u);
}

TEST_F(LoadStartAt, AWarmUpThatWouldRunPastTheInstantIsCut) {
  LoadConfig c = config(2, 200);
  c.duration_s = 0.3;
  c.warmup_s = 30;
  c.start_at_epoch_s = now_epoch_s() + 0.3;
  const auto began = std::chrono::steady_clock::now();
  const LoadResult r = run(c);
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(10));
  EXPECT_GE(r.start_epoch_s, *c.start_at_epoch_s);
  EXPECT_LE(r.stats.warmup_requests, 62u) << "30 s of warm-up would be 6000";
  EXPECT_GT(r.stats.completed, 0u);
}

TEST_F(LoadStartAt, APassedInstantStartsAtOnceAndSaysHowLate) {
  LoadConfig c = config(1, 0);
  c.duration_s = 0.2;
  c.warmup_s = 5;  // cut to nothing: the instant has passed
  c.start_at_epoch_s = now_epoch_s() - 2;
  double late = 0;
  const LoadResult r = run(c, &late);
  EXPECT_GE(late, 2.0);
  EXPECT_LT(late, 2.0 + 5);
  EXPECT_GE(*r.start_late_s, 2.0);
  EXPECT_EQ(r.stats.warmup_requests, 0u);
  EXPECT_GT(r.stats.completed, 0u);
}

TEST_F(LoadStartAt, TheSecondsAddUpToTheWholeRunBucketForBucket) {
  LoadConfig c = config(2, 400);
  c.duration_s = 2.5;
  c.threads = 2;
  c.latency_per_second = true;
  const LoadResult r = run(c);
  const SecondHistograms& seconds = r.stats.latency_seconds;
  ASSERT_GE(seconds.size(), 3u);
  EXPECT_LE(seconds.size(), 4u);
  Histogram sum;
  std::uint64_t completed_in_seconds = 0;
  for (std::size_t i = 0; i < seconds.size(); ++i) {
    const Histogram second = seconds.histogram(i);
    EXPECT_EQ(second.count(), i < r.stats.per_second.size() ? r.stats.per_second[i] : 0u) << i;
    completed_in_seconds += second.count();
    sum.merge(second);
  }
  EXPECT_EQ(completed_in_seconds, r.stats.completed);
  EXPECT_GT(seconds.histogram(0).count(), 300u) << "about 400 in a full second";
  for (std::size_t i = 0; i < sum.counts_length(); ++i) {
    ASSERT_EQ(sum.count_at_index(i), r.stats.latency.count_at_index(i)) << "bucket " << i;
  }
}

}  // namespace
}  // namespace ringside::load
