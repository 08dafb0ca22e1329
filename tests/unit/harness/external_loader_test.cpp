#include "harness/loaders/external_loader.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

namespace ringside::harness {
namespace {

std::string fixture(const std::string& name) {
  const std::string path =
      std::string(RINGSIDE_SOURCE_DIR) + "/tests/fixtures/loader_output/" + name;
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(file) << "missing fixture " << path;
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::vector<std::string> argv_of(const LoaderSpec& spec) {
  std::string error;
  auto argv = loader_argv(spec, error);
  EXPECT_EQ(error, "");
  return argv;
}

std::string error_of(const LoaderSpec& spec) {
  std::string error;
  auto argv = loader_argv(spec, error);
  EXPECT_TRUE(argv.empty());
  return error;
}

LoaderSpec spec_for(LoaderKind kind) {
  LoaderSpec spec;
  spec.kind = kind;
  spec.url = "http://127.0.0.1:8080/";
  spec.connections = 10;
  spec.duration_s = 5;
  return spec;
}

using Argv = std::vector<std::string>;

// ---------------------------------------------------------------------------------------------
// names

TEST(LoaderNames, RoundTrip) {
  for (auto kind : {LoaderKind::kRingside, LoaderKind::kWrk, LoaderKind::kAb, LoaderKind::kH2load,
                    LoaderKind::kHey}) {
    EXPECT_EQ(loader_from_name(loader_name(kind)), kind);
  }
  EXPECT_FALSE(loader_from_name("bombardier"));
  EXPECT_EQ(loader_program(LoaderKind::kRingside), "");
  EXPECT_EQ(loader_program(LoaderKind::kAb), "ab");
}

// ---------------------------------------------------------------------------------------------
// argv

TEST(WrkArgv, ClosedDuration) {
  LoaderSpec spec = spec_for(LoaderKind::kWrk);
  spec.threads = 2;
  spec.headers = {"Accept: text/plain"};
  EXPECT_EQ(argv_of(spec), (Argv{"wrk", "-t", "2", "-c", "10", "-d", "5s", "--latency", "-H",
                                 "Accept: text/plain", "http://127.0.0.1:8080/"}));
  EXPECT_TRUE(loader_files(spec).empty());
}

TEST(WrkArgv, ScriptForMethodBodyAndPipelining) {
  LoaderSpec spec = spec_for(LoaderKind::kWrk);
  spec.method = "POST";
  spec.body = "{\"a\":\"1\"}\n";
  spec.pipeline = 16;
  spec.keep_alive = false;
  const Argv argv = argv_of(spec);
  EXPECT_EQ(argv, (Argv{"wrk", "-t", "1", "-c", "10", "-d", "5s", "--latency", "-H",
                        "Connection: close", "-s", "{files}/request.lua",
                        "http://127.0.0.1:8080/"}));
  const auto files = loader_files(spec);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].name, "request.lua");
  EXPECT_NE(files[0].contents.find("wrk.method = \"POST\""), std::string::npos);
  // Quotes and the newline as decimal escapes Lua reads back byte for byte.
  EXPECT_NE(files[0].contents.find("wrk.body = \"{\\034a\\034:\\0341\\034}\\010\""),
            std::string::npos)
      << files[0].contents;
  EXPECT_NE(files[0].contents.find("for i = 1, 16 do"), std::string::npos);
}

TEST(WrkArgv, RefusesWhatWrkCannotDo) {
  LoaderSpec spec = spec_for(LoaderKind::kWrk);
  spec.rate = 1000;
  EXPECT_NE(error_of(spec).find("wrk: no open model (rate): that needs wrk2"), std::string::npos);
  spec = spec_for(LoaderKind::kWrk);
  spec.duration_s = 0;
  spec.requests = 10000;
  EXPECT_NE(error_of(spec).find("wrk: a request count"), std::string::npos);
  spec = spec_for(LoaderKind::kWrk);
  spec.duration_s = 1.5;
  EXPECT_NE(error_of(spec).find("whole seconds"), std::string::npos);
  spec = spec_for(LoaderKind::kWrk);
  spec.threads = 12;
  EXPECT_NE(error_of(spec).find("must not exceed connections"), std::string::npos);
}

TEST(AbArgv, CountModeLikeTheSeed) {
  LoaderSpec spec = spec_for(LoaderKind::kAb);
  spec.url = "http://127.0.0.1:3000/users/1";
  spec.duration_s = 0;
  spec.requests = 10000;
  spec.connections = 1000;
  spec.keep_alive = false;
  EXPECT_EQ(argv_of(spec), (Argv{"ab", "-q", "-r", "-l", "-c", "1000", "-n", "10000",
                                 "http://127.0.0.1:3000/users/1"}));
}

TEST(AbArgv, DurationLiftsTheRequestCapAndAddsAPath) {
  LoaderSpec spec = spec_for(LoaderKind::kAb);
  spec.url = "http://127.0.0.1:8080";
  EXPECT_EQ(argv_of(spec), (Argv{"ab", "-q", "-r", "-l", "-c", "10", "-t", "5", "-n", "5000000",
                                 "-k", "http://127.0.0.1:8080/"}));
}

TEST(AbArgv, MethodsAndBodies) {
  LoaderSpec spec = spec_for(LoaderKind::kAb);
  spec.method = "HEAD";
  EXPECT_EQ(argv_of(spec)[11], "-i");
  spec.method = "POST";
  spec.body = "x=1";
  spec.headers = {"Content-Type: application/x-www-form-urlencoded", "X-Test: 1"};
  const Argv argv = argv_of(spec);
  EXPECT_EQ(Argv(argv.begin() + 11, argv.end()),
            (Argv{"-H", "X-Test: 1", "-p", "{files}/body", "-T",
                  "application/x-www-form-urlencoded", "http://127.0.0.1:8080/"}));
  ASSERT_EQ(loader_files(spec).size(), 1u);
  EXPECT_EQ(loader_files(spec)[0].contents, "x=1");
  spec.method = "PUT";
  EXPECT_EQ(argv_of(spec)[13], "-u");
  spec.method = "DELETE";
  spec.body.clear();
  const Argv deleting = argv_of(spec);
  EXPECT_EQ(Argv(deleting.begin() + 11, deleting.begin() + 13), (Argv{"-m", "DELETE"}));
}

TEST(AbArgv, RefusesWhatAbCannotDo) {
  LoaderSpec spec = spec_for(LoaderKind::kAb);
  spec.rate = 100;
  EXPECT_NE(error_of(spec).find("ab: no open model"), std::string::npos);
  spec = spec_for(LoaderKind::kAb);
  spec.pipeline = 16;
  EXPECT_NE(error_of(spec).find("ab: no pipelining"), std::string::npos);
  spec = spec_for(LoaderKind::kAb);
  spec.threads = 2;
  EXPECT_NE(error_of(spec).find("ab: single-threaded"), std::string::npos);
  spec = spec_for(LoaderKind::kAb);
  spec.duration_s = 0;
  spec.requests = 5;
  EXPECT_NE(error_of(spec).find("at least connections"), std::string::npos);
  spec = spec_for(LoaderKind::kAb);
  spec.connections = 20001;
  EXPECT_NE(error_of(spec).find("at most 20000"), std::string::npos);
}

TEST(H2loadArgv, DurationRatePipelining) {
  LoaderSpec spec = spec_for(LoaderKind::kH2load);
  spec.duration_s = 1.5;
  spec.rate = 1000;
  spec.pipeline = 4;
  spec.threads = 2;
  EXPECT_EQ(argv_of(spec), (Argv{"h2load", "--h1", "-t", "2", "-c", "10", "-D", "1500ms",
                                 "--rps=100", "-m", "4", "http://127.0.0.1:8080/"}));
}

TEST(H2loadArgv, CountAndPostBody) {
  LoaderSpec spec = spec_for(LoaderKind::kH2load);
  spec.duration_s = 0;
  spec.requests = 100;
  spec.method = "POST";
  spec.body = "hi";
  spec.keep_alive = false;
  EXPECT_EQ(argv_of(spec), (Argv{"h2load", "--h1", "-t", "1", "-c", "10", "-n", "100", "-H",
                                 "Connection: close", "-d", "{files}/body",
                                 "http://127.0.0.1:8080/"}));
}

TEST(H2loadArgv, RefusesWhatH2loadCannotDo) {
  LoaderSpec spec = spec_for(LoaderKind::kH2load);
  spec.method = "DELETE";
  EXPECT_NE(error_of(spec).find("h2load: method DELETE"), std::string::npos);
  spec = spec_for(LoaderKind::kH2load);
  spec.body = "x";
  EXPECT_NE(error_of(spec).find("POST"), std::string::npos);
  spec = spec_for(LoaderKind::kH2load);
  spec.pipeline = 2;
  spec.keep_alive = false;
  EXPECT_NE(error_of(spec).find("pipelining needs keep-alive"), std::string::npos);
}

TEST(HeyArgv, DurationRateHeaders) {
  LoaderSpec spec = spec_for(LoaderKind::kHey);
  spec.rate = 500;
  spec.headers = {"Content-Type: application/json", "X-A: b"};
  spec.method = "POST";
  spec.body = "{}";
  spec.keep_alive = false;
  EXPECT_EQ(argv_of(spec),
            (Argv{"hey", "-c", "10", "-cpus", "1", "-z", "5000ms", "-q", "50", "-m", "POST", "-H",
                  "X-A: b", "-T", "application/json", "-d", "{}", "-disable-keepalive",
                  "http://127.0.0.1:8080/"}));
}

TEST(HeyArgv, RefusesWhatHeyCannotDo) {
  LoaderSpec spec = spec_for(LoaderKind::kHey);
  spec.pipeline = 16;
  EXPECT_NE(error_of(spec).find("hey: no pipelining"), std::string::npos);
  spec = spec_for(LoaderKind::kHey);
  spec.method = "PATCH";
  EXPECT_NE(error_of(spec).find("hey: method PATCH"), std::string::npos);
  spec = spec_for(LoaderKind::kHey);
  spec.duration_s = 0;
  spec.requests = 10005;
  EXPECT_NE(error_of(spec).find("multiple of connections"), std::string::npos);
}

TEST(LoaderArgv, CommonRefusals) {
  LoaderSpec spec = spec_for(LoaderKind::kWrk);
  spec.duration_s = 0;
  EXPECT_EQ(error_of(spec), "wrk: neither a duration nor a request count: give one");
  spec = spec_for(LoaderKind::kHey);
  spec.connections = 0;
  EXPECT_EQ(error_of(spec), "hey: connections must be at least 1");
  spec = spec_for(LoaderKind::kRingside);
  EXPECT_NE(error_of(spec).find("in-process"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// parsers, against what the tools printed

TEST(ParseWrk, HelloWithLatencyDistribution) {
  std::string error;
  const RoundFigures f = parse_wrk_output(fixture("wrk_hello.txt"), error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(f.completed, 9557u);
  EXPECT_EQ(f.failed, 0u);
  EXPECT_DOUBLE_EQ(f.duration_s, 1.09);
  EXPECT_DOUBLE_EQ(f.requests_per_s, 8746.25);
  EXPECT_DOUBLE_EQ(f.latency.p50, 160.0);
  EXPECT_DOUBLE_EQ(f.latency.p90, 25690.0);
  EXPECT_DOUBLE_EQ(f.latency.p99, 102840.0);
  EXPECT_DOUBLE_EQ(f.latency.mean, 8750.0);
  EXPECT_DOUBLE_EQ(f.latency.max, 120020.0);
  EXPECT_TRUE(std::isnan(f.latency.p999));  // wrk does not say
  EXPECT_EQ(f.statuses, (std::map<std::string, std::uint64_t>{{"2xx-3xx", 9557}}));
  EXPECT_TRUE(f.errors.empty());
}

TEST(ParseWrk, NonSuccessResponses) {
  std::string error;
  const RoundFigures f = parse_wrk_output(fixture("wrk_non2xx.txt"), error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(f.completed, 11391u);
  EXPECT_EQ(f.statuses, (std::map<std::string, std::uint64_t>{{"non-2xx-3xx", 11391}}));
}

TEST(ParseWrk, ReadErrorsAndNoResponse) {
  std::string error;
  const RoundFigures f = parse_wrk_output(fixture("wrk_read_errors.txt"), error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(f.completed, 0u);
  EXPECT_EQ(f.failed, 1666u);
  EXPECT_EQ(f.errors, (std::map<std::string, std::uint64_t>{{"read", 1666}}));
  EXPECT_EQ(f.requests_per_s, 0.0);
  // No response: wrk's zeros are not latencies.
  EXPECT_TRUE(std::isnan(f.latency.p50));
  EXPECT_TRUE(std::isnan(f.latency.mean));
}

TEST(ParseWrk, EveryErrorClassAndLongUnits) {
  std::string error;
  const RoundFigures f = parse_wrk_output(fixture("wrk_socket_errors_handmade.txt"), error);
  EXPECT_EQ(error, "");
  EXPECT_DOUBLE_EQ(f.duration_s, 60.0);
  EXPECT_DOUBLE_EQ(f.latency.p50, 1.5e6);
  EXPECT_DOUBLE_EQ(f.latency.mean, 1.52e6);
  EXPECT_EQ(f.failed, 100u);
  EXPECT_EQ(f.errors, (std::map<std::string, std::uint64_t>{
                          {"connect", 3}, {"read", 5}, {"write", 2}, {"timeout", 90}}));
  EXPECT_EQ(f.statuses,
            (std::map<std::string, std::uint64_t>{{"2xx-3xx", 5988}, {"non-2xx-3xx", 12}}));
}

TEST(ParseWrk, NotAReport) {
  std::string error;
  parse_wrk_output(fixture("wrk_refused.txt"), error);
  EXPECT_EQ(error, "wrk printed no report: unable to connect to 127.0.0.1:1 Connection refused");
  parse_wrk_output(fixture("wrk_usage.txt"), error);
  EXPECT_NE(error.find("wrk printed no report"), std::string::npos);
  parse_wrk_output(fixture("empty.txt"), error);
  EXPECT_EQ(error, "wrk printed no report");
}

TEST(ParseAb, KeepAliveMillisecondsBecomeMicroseconds) {
  std::string error;
  const RoundFigures f = parse_ab_output(fixture("ab_keepalive.txt"), error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(f.completed, 2000u);
  EXPECT_EQ(f.failed, 0u);
  EXPECT_DOUBLE_EQ(f.duration_s, 0.367);
  EXPECT_NEAR(f.requests_per_s, 2000 / 0.367, 1e-6);
  EXPECT_DOUBLE_EQ(f.latency.p50, 0.0);
  EXPECT_DOUBLE_EQ(f.latency.p90, 7000.0);
  EXPECT_DOUBLE_EQ(f.latency.p99, 14000.0);
  EXPECT_DOUBLE_EQ(f.latency.max, 20000.0);
  EXPECT_DOUBLE_EQ(f.latency.mean, 2000.0);
  EXPECT_EQ(f.statuses, (std::map<std::string, std::uint64_t>{{"2xx", 2000}}));
}

TEST(ParseAb, TheSeedsOwnOutput) {
  std::string error;
  const RoundFigures f = parse_ab_output(fixture("ab_seed_node_c1000.txt"), error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(f.completed, 10000u);
  EXPECT_DOUBLE_EQ(f.latency.p50, 419000.0);
  EXPECT_DOUBLE_EQ(f.latency.p99, 7686000.0);
  EXPECT_DOUBLE_EQ(f.latency.max, 9767000.0);
  EXPECT_DOUBLE_EQ(f.latency.mean, 685000.0);
  // ... and its 10,000-connection run, which ab abandoned at the first reset (no -r).
  parse_ab_output(fixture("ab_seed_node_c10000_reset.txt"), error);
  EXPECT_EQ(error, "ab printed no report: apr_socket_recv: Connection reset by peer (104) | "
                   "Total of 7972 requests completed");
}

TEST(ParseAb, NonSuccess) {
  std::string error;
  const RoundFigures f = parse_ab_output(fixture("ab_non2xx.txt"), error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(f.completed, 1000u);
  EXPECT_EQ(f.statuses, (std::map<std::string, std::uint64_t>{{"non-2xx", 1000}}));
}

TEST(ParseAb, ResetsCountedOncePerRequest) {
  std::string error;
  const RoundFigures f = parse_ab_output(fixture("ab_reset.txt"), error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(f.completed, 0u);
  EXPECT_EQ(f.failed, 200u);  // ab says 400: each reset is a Receive and an Exception
  EXPECT_EQ(f.errors, (std::map<std::string, std::uint64_t>{{"read", 200}, {"exceptions", 200}}));
  EXPECT_TRUE(f.statuses.empty());
  EXPECT_TRUE(std::isnan(f.latency.p50));
  EXPECT_EQ(f.requests_per_s, 0.0);
  const RoundFigures refused = parse_ab_output(fixture("ab_refused_counted.txt"), error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(refused.completed, 0u);
  EXPECT_EQ(refused.failed, 100u);
}

TEST(ParseAb, ClosedUnansweredIsNotComplete) {
  std::string error;
  const RoundFigures f = parse_ab_output(fixture("ab_closed.txt"), error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(f.completed, 0u);
  EXPECT_EQ(f.failed, 100u);
  EXPECT_EQ(f.errors, (std::map<std::string, std::uint64_t>{{"closed", 100}}));
}

TEST(ParseAb, NotAReport) {
  std::string error;
  parse_ab_output(fixture("ab_refused.txt"), error);
  EXPECT_NE(error.find("ab printed no report: "), std::string::npos);
  EXPECT_NE(error.find("Connection refused (111)"), std::string::npos);
  parse_ab_output(fixture("ab_timeout.txt"), error);
  EXPECT_NE(error.find("The timeout specified has expired"), std::string::npos);
  parse_ab_output(fixture("ab_usage.txt"), error);
  EXPECT_NE(error.find("ab printed no report"), std::string::npos);
}

TEST(ParseH2load, Duration) {
  std::string error;
  const RoundFigures f = parse_h2load_output(fixture("h2load_duration.txt"), error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(f.completed, 8385u);
  EXPECT_EQ(f.failed, 0u);
  EXPECT_DOUBLE_EQ(f.duration_s, 1.0);
  EXPECT_DOUBLE_EQ(f.requests_per_s, 8385.0);
  EXPECT_DOUBLE_EQ(f.latency.mean, 1190.0);
  EXPECT_DOUBLE_EQ(f.latency.max, 53900.0);
  EXPECT_TRUE(std::isnan(f.latency.p50));  // h2load gives no percentiles
  EXPECT_EQ(f.statuses, (std::map<std::string, std::uint64_t>{{"2xx", 8385}}));
}

TEST(ParseH2load, NonSuccessIsAnsweredNotFailed) {
  std::string error;
  const RoundFigures f = parse_h2load_output(fixture("h2load_non2xx.txt"), error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(f.completed, 2000u);
  EXPECT_EQ(f.failed, 0u);  // h2load's "2000 failed" are 404s
  EXPECT_DOUBLE_EQ(f.duration_s, 0.27731);
  EXPECT_EQ(f.statuses, (std::map<std::string, std::uint64_t>{{"4xx", 2000}}));
}

TEST(ParseH2load, Errored) {
  std::string error;
  const RoundFigures f = parse_h2load_output(fixture("h2load_refused.txt"), error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(f.completed, 0u);
  EXPECT_EQ(f.failed, 100u);
  EXPECT_EQ(f.errors, (std::map<std::string, std::uint64_t>{{"errored", 100}}));
  EXPECT_TRUE(std::isnan(f.latency.mean));
  const RoundFigures closed = parse_h2load_output(fixture("h2load_closed.txt"), error);
  EXPECT_EQ(closed.failed, 200u);
  const RoundFigures silent = parse_h2load_output(fixture("h2load_timeout.txt"), error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(silent.completed, 0u);
  EXPECT_DOUBLE_EQ(silent.duration_s, 2.03);
}

TEST(ParseH2load, NotAReport) {
  std::string error;
  parse_h2load_output(fixture("h2load_usage.txt"), error);
  EXPECT_NE(error.find("h2load printed no report"), std::string::npos);
}

TEST(ParseHey, Duration) {
  std::string error;
  const RoundFigures f = parse_hey_output(fixture("hey_duration.txt"), error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(f.completed, 12533u);
  EXPECT_EQ(f.failed, 0u);
  EXPECT_DOUBLE_EQ(f.duration_s, 1.0043);
  EXPECT_NEAR(f.requests_per_s, 12533 / 1.0043, 1e-6);
  EXPECT_DOUBLE_EQ(f.latency.p50, 500.0);
  EXPECT_DOUBLE_EQ(f.latency.p90, 800.0);
  EXPECT_DOUBLE_EQ(f.latency.p99, 11300.0);
  EXPECT_DOUBLE_EQ(f.latency.max, 26200.0);
  EXPECT_DOUBLE_EQ(f.latency.mean, 800.0);
  EXPECT_EQ(f.statuses, (std::map<std::string, std::uint64_t>{{"200", 12533}}));
}

TEST(ParseHey, StatusCodes) {
  std::string error;
  const RoundFigures f = parse_hey_output(fixture("hey_non2xx.txt"), error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(f.statuses, (std::map<std::string, std::uint64_t>{{"404", 1000}}));
}

TEST(ParseHey, ErrorsByClassAndNoRateFromThem) {
  std::string error;
  const RoundFigures refused = parse_hey_output(fixture("hey_refused.txt"), error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(refused.completed, 0u);
  EXPECT_EQ(refused.failed, 100u);
  EXPECT_EQ(refused.errors, (std::map<std::string, std::uint64_t>{{"connect_refused", 100}}));
  EXPECT_EQ(refused.requests_per_s, 0.0);  // hey's own says 8988.97: it counts errors
  EXPECT_TRUE(std::isnan(refused.latency.mean));
  const RoundFigures closed = parse_hey_output(fixture("hey_closed.txt"), error);
  EXPECT_EQ(closed.errors, (std::map<std::string, std::uint64_t>{{"closed", 200}}));
  const RoundFigures silent = parse_hey_output(fixture("hey_timeout.txt"), error);
  EXPECT_EQ(silent.errors, (std::map<std::string, std::uint64_t>{{"timeout", 20}}));
}

TEST(ParseHey, NotAReport) {
  std::string error;
  parse_hey_output(fixture("hey_usage.txt"), error);
  EXPECT_NE(error.find("hey printed no report"), std::string::npos);
  parse_hey_output(fixture("empty.txt"), error);
  EXPECT_EQ(error, "hey printed no report");
}

// ---------------------------------------------------------------------------------------------
// running: what can be checked without a server

TEST(RunExternalLoader, RefusalComesBeforeAnyProcess) {
  LoaderSpec spec = spec_for(LoaderKind::kWrk);
  spec.rate = 10;
  const LoaderOutcome outcome = run_external_loader(spec);
  EXPECT_NE(outcome.error.find("wrk: no open model"), std::string::npos);
}

TEST(RunExternalLoader, MissingTool) {
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path != nullptr ? old_path : "";
  setenv("PATH", "/nonexistent", 1);
  const LoaderOutcome outcome = run_external_loader(spec_for(LoaderKind::kH2load));
  setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(outcome.error, "h2load is not installed: run scripts/setup");
}

TEST(RunExternalLoader, BadCpuList) {
  LoaderSpec spec = spec_for(LoaderKind::kAb);
  spec.cpus = "one";
  const LoaderOutcome outcome = run_external_loader(spec);
  EXPECT_EQ(outcome.error, "load CPUs 'one' are not a list like 1 or 0-3 or 1,3");
}

}  // namespace
}  // namespace ringside::harness
