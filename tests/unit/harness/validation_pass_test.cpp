#include "harness/check/validation_pass.hpp"

#include <gtest/gtest.h>

#include "harness/config/scenario.hpp"

namespace ringside::harness {
namespace {

Contestant serving(std::vector<Protocol> protocols) {
  Contestant contestant;
  contestant.manifest.protocols = std::move(protocols);
  return contestant;
}

// A start per transport the scenario's protocols need (h2c rides on http's, h2 on https's), the
// fairness check on the first, and HTTP/2 proved only where it is used and served.
TEST(ValidationPass, OneStartPerTransportAndHttp2ProvedWhereItIsUsed) {
  const Scenario scenario = parse_scenario(R"(
[[workload]]
name = "a"
protocol = "h2c"
[[workload]]
name = "b"
protocol = "https"
[[workload]]
name = "c"
protocol = "h2"
)",
                                           "s.toml");
  const auto runs_all = [](const Workload&) { return true; };
  const std::vector<Protocol> used = protocols_to_validate(scenario, runs_all);
  EXPECT_EQ(used, (std::vector<Protocol>{Protocol::kHttps, Protocol::kH2c, Protocol::kH2}));

  const Contestant all =
      serving({Protocol::kHttp, Protocol::kHttps, Protocol::kH2c, Protocol::kH2});
  std::vector<ValidationTarget> targets;
  EXPECT_EQ(add_targets(targets, all, used), 2u);
  ASSERT_EQ(targets.size(), 2u);
  EXPECT_EQ(targets[0].protocol, Protocol::kHttp);
  EXPECT_TRUE(targets[0].fairness);
  EXPECT_TRUE(targets[0].http2);
  EXPECT_EQ(targets[1].protocol, Protocol::kHttps);
  EXPECT_FALSE(targets[1].fairness);
  EXPECT_TRUE(targets[1].http2);

  // nginx serves h2 but not h2c: its plain start is checked as HTTP/1.1 alone.
  const Contestant tls_only = serving({Protocol::kHttp, Protocol::kHttps, Protocol::kH2});
  targets.clear();
  EXPECT_EQ(add_targets(targets, tls_only, used), 2u);
  EXPECT_FALSE(targets[0].http2);
  EXPECT_TRUE(targets[1].http2);

  // HTTP/1.1 workloads alone prove nothing of HTTP/2.
  targets.clear();
  EXPECT_EQ(add_targets(targets, all, {Protocol::kHttp}), 1u);
  EXPECT_FALSE(targets[0].http2);
}

}  // namespace
}  // namespace ringside::harness
