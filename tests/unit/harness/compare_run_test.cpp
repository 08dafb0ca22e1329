#include "harness/compare_run.hpp"

#include <gtest/gtest.h>

namespace ringside::harness {
namespace {

Contestant named(const std::string& name) {
  Contestant contestant;
  contestant.manifest.name = name;
  return contestant;
}

std::vector<std::string> names_of(const std::vector<Contestant>& contestants) {
  std::vector<std::string> names;
  for (const Contestant& contestant : contestants) names.push_back(contestant.name());
  return names;
}

TEST(CompareRun, SelectsByScenarioOnlyAndSkip) {
  const std::vector<Contestant> all = {named("a"), named("b"), named("c")};
  Scenario scenario;
  scenario.file = "s.toml";
  EXPECT_EQ(names_of(select_for_scenario(scenario, all, {}, {})), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(names_of(select_for_scenario(scenario, all, {"c", "a"}, {})), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(names_of(select_for_scenario(scenario, all, {}, {"b"})), (std::vector<std::string>{"a", "c"}));
  scenario.contestants = {"a", "b"};
  EXPECT_EQ(names_of(select_for_scenario(scenario, all, {}, {"a"})), (std::vector<std::string>{"b"}));
  try {
    select_for_scenario(scenario, all, {"zz"}, {});
    FAIL() << "an unknown name must be refused";
  } catch (const ScenarioError& error) {
    EXPECT_STREQ(error.what(), "--only: unknown contestant 'zz' (known: a, b, c)");
  }
  scenario.contestants = {"q"};
  EXPECT_THROW(select_for_scenario(scenario, all, {}, {}), ScenarioError);
}

PointResult closed(const std::string& contestant, unsigned connections, double rate) {
  PointResult point;
  point.workload = "hello";
  point.contestant = contestant;
  point.connections = connections;
  RoundFigures round;
  round.requests_per_s = rate;
  point.rounds.push_back(round);
  return point;
}

TEST(CompareRun, EqualLoadIsAFractionOfTheSlowestBest) {
  std::vector<PointResult> points = {closed("fast", 10, 50000), closed("fast", 100, 80000),
                                     closed("slow", 10, 9000), closed("slow", 100, 12000),
                                     closed("slow", 1000, 11000)};
  PointResult other = closed("slow", 10, 10);
  other.workload = "users";
  points.push_back(other);
  PointResult open = closed("slow", 10, 10);
  open.mode = "open";
  points.push_back(open);
  PointResult failed;
  failed.workload = "hello";
  failed.contestant = "dead";
  failed.failure = "exited";
  points.push_back(failed);
  const EqualLoad equal = equal_load_for(points, "hello", 0.5);
  EXPECT_DOUBLE_EQ(equal.rate, 6000);
  EXPECT_EQ(equal.connections, 1000u);  // the most connections: headroom for the schedule
  EXPECT_EQ(equal.slowest, "slow");
  EXPECT_DOUBLE_EQ(equal_load_for(points, "none", 0.5).rate, 0);
}

}  // namespace
}  // namespace ringside::harness
