#include "http/query.hpp"

#include <gtest/gtest.h>

#include <string_view>

namespace ringside::http {
namespace {

TEST(QueryValue, FindsTheFirstPairOfThatName) {
  EXPECT_EQ(query_value("queries=20&x=1", "queries"), "20");
  EXPECT_EQ(query_value("x=1&queries=20&queries=3", "queries"), "20");
  EXPECT_EQ(query_value("queries", "queries"), "");
  EXPECT_EQ(query_value("queries=", "queries"), "");
  EXPECT_FALSE(query_value("", "queries"));
  EXPECT_FALSE(query_value("query=1&queriesx=2", "queries"));
  EXPECT_FALSE(query_value("&&", "queries"));
}

// TechEmpower's verifier: queries=2 -> 2, 0 -> 1, -1 -> 1, foo -> 1, empty or missing -> 1,
// 501 -> 500.
TEST(QueriesCount, FollowsTechEmpowersClampingRules) {
  struct Case {
    std::string_view query;
    unsigned expected;
  };
  const Case cases[] = {
      {"queries=2", 2},     {"queries=0", 1},    {"queries=-1", 1},   {"queries=foo", 1},
      {"queries=", 1},      {"", 1},             {"queries=501", 500}, {"queries=500", 500},
      {"queries=1", 1},     {"queries=20&x=y", 20}, {"queries=2x", 1},
      {"queries=99999999999999999999999", 500},   {"x=3", 1},          {"queries=007", 7},
  };
  for (const Case& c : cases) EXPECT_EQ(queries_count(c.query), c.expected) << c.query;
}

static_assert(queries_count("queries=42") == 42);

}  // namespace
}  // namespace ringside::http
