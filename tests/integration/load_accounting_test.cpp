// What ringside load counts beside latency, for embedders such as `ringside compare`: the
// requests it had in flight on average (Little's law's L, measured), every answer including the
// warm-up's, and connects slow enough to have been retried. Against ringside's hello server
// in-process (one worker, a free port).
#include <gtest/gtest.h>

#include <string>

#include "hello_server.hpp"
#include "load/load_run.hpp"

namespace ringside::load {
namespace {

class LoadAccounting : public ::testing::Test {
 protected:
  void SetUp() override { server_ = test_support::start_hello_server(); }
  void TearDown() override { server_->stop(/*force=*/true); }

  LoadConfig config(unsigned connections) const {
    LoadConfig config;
    Url url;
    std::string error;
    EXPECT_TRUE(parse_url("http://127.0.0.1:" + std::to_string(server_->port()) + "/", url, error))
        << error;
    config.targets.push_back(make_target(url, RequestSpec{}));
    config.connections = connections;
    config.threads = 1;
    config.timeout_s = 60;  // generous: the machine may be busy
    return config;
  }

  static LoadResult run(const LoadConfig& config) {
    LoadRun run(config);
    run.start();
    while (!run.wait_for(std::chrono::milliseconds(50))) {
    }
    const LoadProgress progress = run.progress();
    LoadResult result = run.finish();
    EXPECT_EQ(progress.answered, result.stats.completed + result.stats.warmup_completed);
    return result;
  }

  std::unique_ptr<server::Server> server_;
};

TEST_F(LoadAccounting, AClosedLoopKeepsEveryConnectionBusy) {
  LoadConfig closed = config(8);
  closed.pipeline = 2;
  closed.warmup_s = 0.2;
  closed.duration_s = 0.6;
  const LoadResult result = run(closed);
  ASSERT_GT(result.stats.completed, 0u);
  EXPECT_EQ(result.stats.errored, 0u);
  const double mean_outstanding = result.stats.outstanding_s / result.elapsed_s;
  // 8 connections x 2 pipelined, all the time (a little less while a turn's answers are read).
  EXPECT_GT(mean_outstanding, 12.0);
  EXPECT_LE(mean_outstanding, 16.0 + 1e-6);
  EXPECT_GT(result.stats.warmup_completed, 0u) << "the warm-up's answers are counted apart";
  EXPECT_EQ(result.stats.slow_connects, 0u) << "loopback connects take microseconds";
}

TEST_F(LoadAccounting, APipelinedLoopRefillsOncePerReadNotOncePerAnswer) {
  LoadConfig pipelined = config(4);
  pipelined.pipeline = 16;
  pipelined.duration_s = 0.5;
  const LoadResult result = run(pipelined);
  ASSERT_GT(result.stats.completed, 1000u);
  ASSERT_GT(result.stats.writes, 0u);
  // The server answers a write's 16 requests together; the loader sends the next 16 in one
  // write. A write per answer (what it did before) would make this ratio about 1.
  EXPECT_GT(static_cast<double>(result.stats.completed) / static_cast<double>(result.stats.writes), 4.0)
      << result.stats.completed << " requests in " << result.stats.writes << " writes";
}

TEST_F(LoadAccounting, AnOpenLoopAtALowRateLeavesConnectionsIdle) {
  LoadConfig open = config(8);
  open.rate = 200;  // a request every 5 ms over 8 connections: each answered in well under 5 ms
  open.duration_s = 0.6;
  const LoadResult result = run(open);
  ASSERT_GT(result.stats.completed, 50u);
  const double mean_outstanding = result.stats.outstanding_s / result.elapsed_s;
  EXPECT_LT(mean_outstanding, 4.0) << "most of the time no request is in flight";
  EXPECT_GT(result.stats.outstanding_s, 0.0);
}

}  // namespace
}  // namespace ringside::load
