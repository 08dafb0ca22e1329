#include "harness/results/results.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace ringside::harness {
namespace {

RunResults sample() {
  RunResults results;
  results.ringside_version = "0.1.0";
  results.scenario_name = "tiny";
  results.rounds = 2;
  results.baseline = "ringside";
  results.machine.cores = 2;
  results.machine.warnings = {"server and loader share core 0"};
  results.workloads.push_back({"hello", "GET", "/", LoadMode::kClosed, LoaderKind::kRingside});
  results.workloads.push_back(
      {"tls", "GET", "/", LoadMode::kClosed, LoaderKind::kWrk, Protocol::kHttps});
  results.load_engine = "ssh";
  results.server_address = "10.0.0.10";
  results.load_hosts = {{"gen1", "root@10.0.0.21", "/tmp/ringside-x", 0.0003, 0.0012}};
  ContestantResult contestant;
  contestant.name = "nginx";
  contestant.rss_idle_kib = 1900;
  contestant.warnings = {{"listen-backlog", "the listen backlog of port 8080 is 5"}};
  contestant.skipped_workloads = {{"tls", "does not serve https (its manifest's protocols: http)"}};
  results.contestants.push_back(contestant);
  PointResult point;
  point.workload = "hello";
  point.contestant = "nginx";
  point.connections = 100;
  RoundFigures round;
  round.round = 1;
  round.requests_per_s = 123456.5;
  round.latency.p99 = 812;
  round.statuses = {{"200", 1000}};
  round.errors = {{"reset", 3}};
  round.kernel.listen_overflows = 7;
  round.loader_wait_s = 0.25;
  round.database.queries = 5000;
  round.database.queries_per_request = 1.0;
  round.database.cpu_us_per_query = 6.1;
  round.flags = {"listen-overflow"};
  round.generators = {{.name = "gen1", .completed = 500, .failed = 1, .requests_per_s = 250,
                       .start_late_s = 0.0001, .cpu_s = 0.5, .threads = 2, .cpu_share = 0.125}};
  point.rounds = {round};
  point.median = round;
  point.noisy = true;
  results.points.push_back(point);
  return results;
}

TEST(Results, RoundTripsThroughJson) {
  const RunResults again = from_json_text(to_json_text(sample()));
  EXPECT_EQ(again.schema, kResultsSchema);
  EXPECT_EQ(again.scenario_name, "tiny");
  ASSERT_EQ(again.points.size(), 1u);
  const PointResult& point = again.points[0];
  EXPECT_EQ(point.connections, 100u);
  EXPECT_TRUE(point.noisy);
  ASSERT_EQ(point.rounds.size(), 1u);
  EXPECT_DOUBLE_EQ(point.rounds[0].requests_per_s, 123456.5);
  EXPECT_DOUBLE_EQ(point.median.latency.p99, 812);
  EXPECT_TRUE(std::isnan(point.median.latency.p50)) << "unmeasured stays unmeasured";
  EXPECT_EQ(point.median.statuses.at("200"), 1000u);
  EXPECT_EQ(point.median.errors.at("reset"), 3u);
  EXPECT_EQ(point.median.kernel.listen_overflows, 7u);
  EXPECT_DOUBLE_EQ(point.median.loader_wait_s, 0.25);
  EXPECT_DOUBLE_EQ(point.median.database.queries, 5000);
  EXPECT_DOUBLE_EQ(point.median.database.queries_per_request, 1.0);
  EXPECT_DOUBLE_EQ(point.median.database.cpu_us_per_query, 6.1);
  EXPECT_TRUE(std::isnan(point.median.database.cpu_s));
  EXPECT_EQ(point.median.flags, std::vector<std::string>{"listen-overflow"});
  EXPECT_DOUBLE_EQ(again.contestants.at(0).rss_idle_kib, 1900);
  ASSERT_EQ(again.contestants.at(0).warnings.size(), 1u);
  EXPECT_EQ(again.contestants.at(0).warnings[0].check, "listen-backlog");
  EXPECT_EQ(again.contestants.at(0).warnings[0].message, "the listen backlog of port 8080 is 5");
  EXPECT_EQ(again.machine.warnings.at(0), "server and loader share core 0");
  EXPECT_EQ(again.load_engine, "ssh");
  EXPECT_EQ(again.server_address, "10.0.0.10");
  ASSERT_EQ(again.load_hosts.size(), 1u);
  EXPECT_EQ(again.load_hosts[0].destination, "root@10.0.0.21");
  EXPECT_DOUBLE_EQ(again.load_hosts[0].clock_offset_s, 0.0003);
  EXPECT_DOUBLE_EQ(again.load_hosts[0].round_trip_s, 0.0012);
  ASSERT_EQ(point.rounds[0].generators.size(), 1u);
  const GeneratorFigures& g = point.rounds[0].generators[0];
  EXPECT_EQ(g.name, "gen1");
  EXPECT_EQ(g.completed, 500u);
  EXPECT_EQ(g.failed, 1u);
  EXPECT_DOUBLE_EQ(g.start_late_s, 0.0001);
  EXPECT_EQ(g.threads, 2u);
  EXPECT_DOUBLE_EQ(g.cpu_share, 0.125);
}

TEST(Results, WorkloadsSayTheirProtocolAndContestantsWhatTheySkipped) {
  const RunResults again = from_json_text(to_json_text(sample()));
  ASSERT_EQ(again.workloads.size(), 2u);
  EXPECT_EQ(again.workloads[0].protocol, Protocol::kHttp);
  EXPECT_EQ(again.workloads[1].protocol, Protocol::kHttps);
  ASSERT_EQ(again.contestants.at(0).skipped_workloads.size(), 1u);
  EXPECT_EQ(again.contestants[0].skipped_workloads[0].workload, "tls");
  EXPECT_EQ(again.contestants[0].skipped_workloads[0].reason,
            "does not serve https (its manifest's protocols: http)");
  // Files written before https workloads have neither: every workload was http.
  std::string text = to_json_text(sample());
  for (const std::string field : {",\n      \"protocol\": \"http\"", ",\n      \"protocol\": \"https\""}) {
    const std::size_t at = text.find(field);
    ASSERT_NE(at, std::string::npos) << field << "\n" << text;
    text.erase(at, field.size());
  }
  const std::size_t skipped = text.find(",\n      \"skipped_workloads\"");
  ASSERT_NE(skipped, std::string::npos);
  text.erase(skipped, text.find(']', skipped) + 1 - skipped);
  const RunResults old = from_json_text(text);
  EXPECT_EQ(old.workloads.at(1).protocol, Protocol::kHttp);
  EXPECT_TRUE(old.contestants.at(0).skipped_workloads.empty());
}

TEST(Results, Http2WorkloadsKeepTheirStreams) {
  RunResults results = sample();
  results.workloads[1].protocol = Protocol::kH2;
  results.workloads[1].streams = 100;
  const std::string text = to_json_text(results);
  EXPECT_NE(text.find("\"protocol\": \"h2\""), std::string::npos) << text;
  const RunResults again = from_json_text(text);
  EXPECT_EQ(again.workloads[1].protocol, Protocol::kH2);
  EXPECT_EQ(again.workloads[1].streams, 100u);
  EXPECT_EQ(again.workloads[0].streams, 1u);  // HTTP/1.1 writes none: one
}

TEST(Results, UnmeasuredIsNullInJson) {
  const std::string text = to_json_text(sample());
  EXPECT_NE(text.find("\"p50\": null"), std::string::npos);
}

TEST(Results, FilesWithoutDatabaseFiguresReadAsUnmeasured) {
  std::string text = to_json_text(sample());
  // Drop every "database" object, as files written before it existed have none.
  for (std::size_t at; (at = text.find("\"database\": {")) != std::string::npos;) {
    const std::size_t close = text.find('}', at);
    text.erase(at, close + 2 - at);  // the object and its comma
  }
  ASSERT_EQ(text.find("\"database\""), std::string::npos);
  const RunResults again = from_json_text(text);
  EXPECT_TRUE(std::isnan(again.points.at(0).median.database.queries));
}

TEST(Results, RefusesOtherSchemasAndBadTypes) {
  EXPECT_THROW(from_json_text("{\"schema\": \"other/1\"}"), ResultsError);
  EXPECT_THROW(from_json_text("[]"), ResultsError);
  EXPECT_THROW(from_json_text("{\"schema\": \"ringside-compare/1\", \"points\": [{\"workload\": \"a\"}]}"),
               ResultsError);
  EXPECT_THROW(from_json_text("{\"schema\": \"ringside-compare/1\", \"rounds\": \"three\"}"),
               ResultsError);
}

}  // namespace
}  // namespace ringside::harness
