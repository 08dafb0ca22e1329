#include "harness/run/compare_run.hpp"

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
  try {
    select_for_scenario(scenario, all, {}, {"zz"}, "looked in /x (bundled)");
    FAIL() << "an unknown name must be refused";
  } catch (const ScenarioError& error) {
    EXPECT_STREQ(error.what(), "--skip: unknown contestant 'zz' (known: a, b, c); looked in /x (bundled)");
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

PointResult closed_rounds(const std::string& contestant, unsigned connections,
                          const std::vector<double>& rates) {
  PointResult point = closed(contestant, connections, rates.front());
  for (std::size_t i = 1; i < rates.size(); ++i) {
    point.rounds.push_back(point.rounds.front());
    point.rounds.back().requests_per_s = rates[i];
  }
  return point;
}

TEST(CompareRun, EqualLoadIsAFractionOfTheMedianContestantsSustainedRate) {
  // fast's best level is 80k by its median, not the 90k of its best round.
  std::vector<PointResult> points = {
      closed_rounds("fast", 10, {50000, 52000, 48000}), closed_rounds("fast", 100, {80000, 90000, 10000}),
      closed_rounds("mid", 10, {20000}),                closed_rounds("mid", 100, {24000}),
      closed("slow", 10, 9000), closed("slow", 100, 12000), closed("slow", 1000, 11000)};
  PointResult other = closed("slow", 10, 10);
  other.workload = "users";
  points.push_back(other);
  PointResult open = closed("slow", 10, 10);
  open.mode = LoadMode::kOpen;
  points.push_back(open);
  PointResult failed = closed("dead", 10, 1);
  failed.failure = "exited";
  points.push_back(failed);
  const EqualLoad equal = equal_load_for(points, "hello", 0.5, 30000, 0.5, 5);
  EXPECT_DOUBLE_EQ(equal.rate, 12000);  // half of mid's 24k: the median of 80k, 24k, 12k
  EXPECT_EQ(equal.reference, "mid");
  EXPECT_EQ(equal.contestants, 3u);
  EXPECT_EQ(equal.connections, 1000u);  // the most connections: headroom for the schedule
  EXPECT_DOUBLE_EQ(equal.duration_s, 2.5);  // 30,000 requests at 12k/s
  EXPECT_DOUBLE_EQ(equal_load_for(points, "none", 0.5, 30000, 0.5, 5).rate, 0);

  // Of an even number, the slower middle one; the duration within its bounds.
  points.push_back(closed("tiny", 10, 1000));
  const EqualLoad even = equal_load_for(points, "hello", 0.5, 30000, 0.5, 4);
  EXPECT_EQ(even.reference, "slow");
  EXPECT_DOUBLE_EQ(even.rate, 6000);
  EXPECT_DOUBLE_EQ(even.duration_s, 4);  // 5 s wanted, 4 at most
  EXPECT_DOUBLE_EQ(equal_load_for(points, "hello", 1, 100, 0.5, 5).duration_s, 0.5);  // at least
}

}  // namespace
}  // namespace ringside::harness
