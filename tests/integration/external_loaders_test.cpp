// Each external loader for real, through run_external_loader, against ringside's hello server
// in-process (one worker, a free port): its argv runs, its output parses, its CPU is measured.
// The tools come from scripts/setup; a missing one fails here rather than skips.
#include <gtest/gtest.h>

#include <cmath>

#include "harness/loaders/external_loader.hpp"
#include "hello_server.hpp"

namespace ringside::harness {
namespace {

class ExternalLoaders : public ::testing::TestWithParam<LoaderKind> {
 protected:
  void SetUp() override { server_ = test_support::start_hello_server(); }
  void TearDown() override { server_->stop(/*force=*/true); }

  LoaderSpec spec() const {
    LoaderSpec spec;
    spec.kind = GetParam();
    spec.url = "http://127.0.0.1:" + std::to_string(server_->port()) + "/";
    spec.connections = 10;
    spec.duration_s = 1;
    spec.timeout_s = 60;  // generous: the machine may be busy building
    return spec;
  }

  std::unique_ptr<server::Server> server_;
};

std::uint64_t successes(const RoundFigures& figures) {
  std::uint64_t total = 0;
  for (const auto& [status, count] : figures.statuses) {
    if (status == "200" || status == "2xx" || status == "2xx-3xx") total += count;
  }
  return total;
}

TEST_P(ExternalLoaders, OneSecondClosedLoop) {
  const LoaderOutcome outcome = run_external_loader(spec());
  ASSERT_EQ(outcome.error, "") << outcome.output;
  const RoundFigures& f = outcome.figures;
  EXPECT_GT(f.completed, 0u) << outcome.output;
  EXPECT_EQ(f.failed, 0u) << outcome.output;
  EXPECT_GT(f.requests_per_s, 0.0);
  EXPECT_GT(f.duration_s, 0.5);
  EXPECT_EQ(successes(f), f.completed) << "only 2xx expected:\n" << outcome.output;
  EXPECT_GT(f.loader_cpu_s, 0.0);
  EXPECT_FALSE(std::isnan(f.latency.mean) && std::isnan(f.latency.p50));
}

TEST_P(ExternalLoaders, CountModeOrItsRefusal) {
  LoaderSpec count = spec();
  count.duration_s = 0;
  count.requests = 200;
  count.keep_alive = false;
  const LoaderOutcome outcome = run_external_loader(count);
  if (GetParam() == LoaderKind::kWrk) {
    EXPECT_NE(outcome.error.find("wrk: a request count"), std::string::npos);
    return;
  }
  ASSERT_EQ(outcome.error, "") << outcome.output;
  EXPECT_EQ(outcome.figures.completed, 200u) << outcome.output;
  EXPECT_EQ(successes(outcome.figures), 200u) << outcome.output;
}

TEST_P(ExternalLoaders, PinnedToOneCpu) {
  LoaderSpec pinned = spec();
  pinned.cpus = "0";
  const LoaderOutcome outcome = run_external_loader(pinned);
  ASSERT_EQ(outcome.error, "") << outcome.output;
  const RoundFigures& f = outcome.figures;
  EXPECT_GT(f.completed, 0u);
  // One CPU allowed: the share is of that one CPU, not of the machine's.
  EXPECT_GT(f.loader_cpu_share, 0.0);
  EXPECT_NEAR(f.loader_cpu_share, f.loader_cpu_s / f.duration_s, 1e-9);
}

TEST_P(ExternalLoaders, TimeoutKillsIt) {
  LoaderSpec slow = spec();
  slow.duration_s = 10;
  slow.timeout_s = 1;
  const LoaderOutcome outcome = run_external_loader(slow);
  EXPECT_NE(outcome.error.find("did not finish within 1 s: killed"), std::string::npos)
      << outcome.error;
}

INSTANTIATE_TEST_SUITE_P(Tools, ExternalLoaders,
                         ::testing::Values(LoaderKind::kWrk, LoaderKind::kAb, LoaderKind::kH2load,
                                           LoaderKind::kHey),
                         [](const auto& tool) { return std::string(loader_name(tool.param)); });

}  // namespace
}  // namespace ringside::harness
