#include "harness/check/fairness.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "harness/check/fairness_probe.hpp"

namespace ringside::harness {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::vector<Exchange> exchanges(std::size_t count, Exchange each) {
  return std::vector<Exchange>(count, each);
}

TEST(Fairness, NamesItsChecksAndWritesOneLine) {
  EXPECT_EQ(fairness_check_name(FairnessCheck::kTcpNoDelay), "tcp-nodelay");
  EXPECT_EQ(fairness_check_name(FairnessCheck::kSlowRequests), "slow-requests");
  EXPECT_EQ(fairness_check_name(FairnessCheck::kListenBacklog), "listen-backlog");
  EXPECT_EQ(fairness_check_name(FairnessCheck::kProductionSettings), "production-settings");
  EXPECT_EQ(fairness_check_name(FairnessCheck::kThreads), "threads");
  const FairnessWarning warning{FairnessCheck::kListenBacklog, "the backlog is 5"};
  EXPECT_EQ(warning.line("stock"), "WARN fairness: stock: listen-backlog: the backlog is 5");
}

TEST(Fairness, FarAboveTakesAFactorAndAMargin) {
  EXPECT_TRUE(far_above(0.044, 0.00005));
  EXPECT_FALSE(far_above(0.0009, 0.00001)) << "90x, but under a millisecond: a slow runtime";
  EXPECT_FALSE(far_above(0.005, 0.001)) << "4 ms more, but 5x: the machine, not the server";
  EXPECT_FALSE(far_above(std::nan(""), 0.001));
}

// Issue 21's stock Python server: every response but the first (quick ACKs at a connection's
// start) in two pieces 43 ms apart.
TEST(JudgeLatency, NaglesSignatureSaysTcpNoDelay) {
  LatencyProbe probe{"/", exchanges(24, {0.0437, 0.0435, 2}), exchanges(24, {0.00004, 0, 1})};
  probe.server[0] = {0.0004, 0.0001, 2};
  const auto warning = judge_latency(probe);
  ASSERT_TRUE(warning);
  EXPECT_EQ(warning->check, FairnessCheck::kTcpNoDelay);
  EXPECT_TRUE(contains(warning->message, "GET / took 43.7 ms a request")) << warning->message;
  EXPECT_TRUE(contains(warning->message, "0.040 ms")) << warning->message;
  EXPECT_TRUE(contains(warning->message, "2 pieces 43.5 ms apart")) << warning->message;
  EXPECT_TRUE(contains(warning->message, "set TCP_NODELAY")) << warning->message;
}

TEST(JudgeLatency, FarAboveTheFloorInOnePieceNamesTheLikelyCauses) {
  const LatencyProbe probe{"/health", exchanges(24, {0.012, 0, 1}), exchanges(24, {0.00003, 0, 1})};
  const auto warning = judge_latency(probe);
  ASSERT_TRUE(warning);
  EXPECT_EQ(warning->check, FairnessCheck::kSlowRequests);
  EXPECT_TRUE(contains(warning->message, "GET /health took 12.0 ms")) << warning->message;
  EXPECT_TRUE(contains(warning->message, "400x the floor")) << warning->message;
  EXPECT_TRUE(contains(warning->message, "debug build")) << warning->message;
  EXPECT_TRUE(contains(warning->message, "logging")) << warning->message;
  EXPECT_TRUE(contains(warning->message, "synchronous I/O")) << warning->message;
}

TEST(JudgeLatency, ASlowRuntimeOrAFewSplitResponsesAreNoWarning) {
  // express: 0.26 ms against 0.02 ms, 13x but a fraction of a millisecond.
  EXPECT_FALSE(
      judge_latency({"/", exchanges(24, {0.00026, 0.00001, 2}), exchanges(24, {0.00002, 0, 1})}));
  // Pieces far apart in fewer than half the responses (a garbage collection, a neighbour).
  LatencyProbe probe{"/", exchanges(24, {0.0001, 0.00002, 2}), exchanges(24, {0.00002, 0, 1})};
  for (std::size_t i = 0; i < 11; ++i) probe.server[i] = {0.045, 0.044, 2};
  EXPECT_FALSE(judge_latency(probe));
  // Nothing measured: nothing judged.
  EXPECT_FALSE(judge_latency({"/", {}, {}}));
}

BacklogProbe backlog(std::vector<std::uint32_t> backlogs, unsigned declared = 0) {
  return {8080, std::move(backlogs), 4096u, 1000, "the default scenario's largest level", declared};
}

TEST(JudgeBacklog, BelowTheConnectionsItWillGetNamesTheFix) {
  const auto warning = judge_backlog(backlog({5}));
  ASSERT_TRUE(warning);
  EXPECT_EQ(warning->check, FairnessCheck::kListenBacklog);
  EXPECT_EQ(warning->message,
            "the listen backlog of port 8080 is 5 (the kernel's Send-Q of its listening socket), "
            "below the 1,000 connections of the default scenario's largest level "
            "(net.core.somaxconn 4,096 caps any backlog): connections beyond it wait for SYN "
            "retransmits; pass a larger backlog to listen() (Python: request_queue_size = 4096 or "
            "sock.listen(4096); Node: server.listen({port, backlog: 65535}))");
  const auto reuseport = judge_backlog(backlog({4096, 511}));
  ASSERT_TRUE(reuseport);
  EXPECT_TRUE(contains(reuseport->message,
                       "is 511 (the kernel's Send-Q of its smallest of 2 "
                       "listening sockets)"))
      << reuseport->message;
}

TEST(JudgeBacklog, EnoughOrCappedBySomaxconnIsNoWarning) {
  EXPECT_FALSE(judge_backlog(backlog({4096})));
  EXPECT_FALSE(judge_backlog(backlog({1000, 1000})));
  BacklogProbe capped = backlog({128});
  capped.somaxconn = 128;  // the kernel gives no listener more: the server asked enough
  EXPECT_FALSE(judge_backlog(capped));
  EXPECT_FALSE(judge_backlog(backlog({})));  // no listener found: not judged
}

TEST(JudgeBacklog, ARuntimesFixedBacklogIsNotedWhileItHolds) {
  EXPECT_FALSE(judge_backlog(backlog({512}, 512)));
  const auto stale = judge_backlog(backlog({4096}, 512));
  ASSERT_TRUE(stale);
  EXPECT_TRUE(contains(stale->message,
                       "fixes the listen backlog at 512 (listen_backlog), but port "
                       "8080 has 4,096"))
      << stale->message;
  EXPECT_TRUE(judge_backlog(backlog({512, 4096}, 512)));
}

Manifest manifest(std::string runtime, std::vector<std::string> start,
                  std::vector<std::string> build = {}) {
  Manifest m;
  m.name = "x";
  m.runtime = std::move(runtime);
  m.start = std::move(start);
  m.build = std::move(build);
  return m;
}

std::vector<FairnessCheck> checks_of(const std::vector<FairnessWarning>& warnings) {
  std::vector<FairnessCheck> checks;
  for (const FairnessWarning& w : warnings) checks.push_back(w.check);
  return checks;
}

TEST(JudgeProductionSettings, NodeAndBunWantNodeEnvProduction) {
  Manifest node = manifest("node", {"node", "server.js"});
  auto warnings = judge_production_settings(node);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].check, FairnessCheck::kProductionSettings);
  EXPECT_TRUE(contains(warnings[0].message, "NODE_ENV = \"production\"")) << warnings[0].message;
  node.env = {{"NODE_ENV", "development"}};
  EXPECT_EQ(judge_production_settings(node).size(), 1u);
  node.env = {{"PORT", "{port}"}, {"NODE_ENV", "production"}};
  EXPECT_TRUE(judge_production_settings(node).empty());
  // Known by its program when the runtime is free text.
  EXPECT_EQ(judge_production_settings(manifest("JavaScript", {"/usr/bin/node", "a.js"})).size(),
            1u);
  warnings =
      judge_production_settings(manifest("bun", {"../node_modules/.bin/bun", "run", "s.js"}));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(contains(warnings[0].message, "Bun.serve runs in development mode"))
      << warnings[0].message;
  EXPECT_TRUE(judge_production_settings(manifest("deno", {"sh", "start.sh"})).empty());
}

TEST(JudgeProductionSettings, NoInspector) {
  Manifest node = manifest("node", {"node", "--inspect=9229", "server.js"});
  node.env = {{"NODE_ENV", "production"}};
  const auto warnings = judge_production_settings(node);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(contains(warnings[0].message, "--inspect=9229")) << warnings[0].message;
}

TEST(JudgeProductionSettings, CargoBuildsForRelease) {
  EXPECT_TRUE(judge_production_settings(manifest("rustc", {"target/release/x"},
                                                 {"cargo", "build", "--release", "--offline"}))
                  .empty());
  EXPECT_TRUE(judge_production_settings(
                  manifest("rustc", {"target/x"}, {"cargo", "build", "--profile", "release"}))
                  .empty());
  const auto debug =
      judge_production_settings(manifest("rustc", {"target/debug/x"}, {"cargo", "build"}));
  ASSERT_EQ(debug.size(), 1u) << "one warning for one switch, however it shows";
  EXPECT_TRUE(contains(debug[0].message, "--release")) << debug[0].message;
  EXPECT_EQ(judge_production_settings(manifest("rustc", {"cargo", "run", "--offline"})).size(), 1u);
  EXPECT_EQ(judge_production_settings(manifest("rustc", {"x"}, {"sh", "-c", "cd x && cargo build"}))
                .size(),
            1u);
  EXPECT_TRUE(judge_production_settings(manifest("rustc", {"x"}, {"cargo", "fetch"})).empty());
}

TEST(JudgeProductionSettings, CCompiledWithOptimisation) {
  // The floor contestant's build.
  EXPECT_TRUE(judge_production_settings(
                  manifest("native (cc)", {"build/floor"},
                           {"sh", "-c", "mkdir -p build && cc -O2 -Wall -o build/floor floor.c"}))
                  .empty());
  EXPECT_EQ(checks_of(judge_production_settings(
                manifest("cc", {"a"}, {"sh", "-c", "mkdir -p build && cc -Wall -o a a.c"}))),
            std::vector{FairnessCheck::kProductionSettings});
  EXPECT_EQ(judge_production_settings(manifest("cc", {"a"}, {"gcc", "-O2", "-O0", "a.c"})).size(),
            1u);
  EXPECT_TRUE(judge_production_settings(manifest("cc", {"a"}, {"g++", "-O3", "a.cpp"})).empty());
  EXPECT_TRUE(judge_production_settings(manifest("python3", {"python3", "s.py"})).empty());
}

ThreadWork thread(pid_t tid, const char* name, double cpu_s) {
  return {tid, name, cpu_s};
}

TEST(ThreadWork, IsEachThreadsCpuBetweenTwoReadings) {
  const std::vector<ThreadTimes> before = {
      {10, 10, "main", {1.0, 0}}, {10, 11, "worker", {2.0, 0}}, {10, 12, "gone", {0.5, 0}}};
  const std::vector<ThreadTimes> after = {
      {10, 10, "main", {1.1, 0}}, {10, 11, "worker", {2.5, 0}}, {10, 13, "new", {0.2, 0}}};
  const std::vector<ThreadWork> work = thread_work(before, after);
  ASSERT_EQ(work.size(), 3u);
  EXPECT_EQ(work[0].tid, 11);
  EXPECT_DOUBLE_EQ(work[0].cpu_s, 0.5);
  EXPECT_EQ(work[1].name, "new");  // started during the burst: from zero
  EXPECT_DOUBLE_EQ(work[1].cpu_s, 0.2);
  EXPECT_NEAR(work[2].cpu_s, 0.1, 1e-9);
}

ThreadProbe threads(std::vector<ThreadWork> work, unsigned given, bool param) {
  return {std::move(work), 0.6, given, param, 16 * given};
}

TEST(JudgeThreads, AParamServerThatUsesOneOfItsThreadsIsWarned) {
  const auto warning =
      judge_threads(threads({thread(1, "node", 0.55), thread(2, "node", 0.02)}, 2, true));
  ASSERT_TRUE(warning);
  EXPECT_EQ(warning->check, FairnessCheck::kThreads);
  EXPECT_TRUE(contains(warning->message, "{threads} = 2, but 1 thread(s) did a real share"))
      << warning->message;
  EXPECT_TRUE(contains(warning->message, "0.6 s burst of 32 connections")) << warning->message;
  EXPECT_TRUE(contains(warning->message, "node 96%")) << warning->message;
  // Two workers, unevenly loaded (connections hash to listeners), both working: no warning.
  EXPECT_FALSE(judge_threads(
      threads({thread(1, "w1", 0.40), thread(2, "w2", 0.12), thread(3, "main", 0.001)}, 2, true)));
  // A fixed count is the manifest's word: not held to {threads}.
  EXPECT_FALSE(judge_threads(threads({thread(1, "w1", 0.55)}, 1, false)));
}

TEST(JudgeThreads, MoreBusyThreadsThanGivenIsWarned) {
  const auto warning =
      judge_threads(threads({thread(1, "w1", 0.30), thread(2, "w2", 0.28)}, 1, false));
  ASSERT_TRUE(warning);
  EXPECT_TRUE(contains(warning->message,
                       "threads = 1 in its manifest, but 2 threads were each on a "
                       "CPU for 25% of a 0.6 s burst"))
      << warning->message;
  EXPECT_TRUE(contains(warning->message, "w1 50%, w2 47%")) << warning->message;
  EXPECT_TRUE(judge_threads(
      threads({thread(1, "a", 0.3), thread(2, "b", 0.3), thread(3, "c", 0.3)}, 2, true)));
}

TEST(JudgeThreads, HelpersAndThreadsPerConnectionAreNotWorkers) {
  // node: the main thread, and V8's garbage collector's helpers beside it for part of the time.
  EXPECT_FALSE(judge_threads(threads({thread(1, "node", 0.51), thread(2, "node", 0.21),
                                      thread(3, "node", 0.13), thread(4, "node", 0.10)},
                                     1, false)));
  // Python's ThreadingHTTPServer: a thread per connection, taking turns under the GIL.
  std::vector<ThreadWork> gil;
  for (pid_t tid = 1; tid <= 16; ++tid) gil.push_back(thread(tid, "python3", 0.035));
  EXPECT_FALSE(judge_threads(threads(gil, 1, false)));
  // Too little work to tell.
  EXPECT_FALSE(judge_threads(threads({thread(1, "a", 0.02), thread(2, "b", 0.02)}, 1, false)));
}

TEST(Fairness, DescribesWhatItMeasured) {
  const LatencyProbe latency{"/", exchanges(3, {0.000061, 0, 1}), exchanges(3, {0.000032, 0, 1})};
  const ThreadProbe burst = threads({thread(1, "ringside", 0.54)}, 1, true);
  EXPECT_EQ(describe_measurements(latency, backlog({4096}), burst),
            "GET / 0.061 ms a request (floor 0.032 ms); listen backlog 4,096; 0.90 CPUs over a "
            "0.6 s burst of 16 connections: ringside 90%");
  EXPECT_EQ(describe_measurements({"/", {}, {}}, backlog({512}, 512), {}),
            "listen backlog 512 (fixed by its runtime, as its manifest says)");
}

// The floor's responder answers each request in one piece, and the probe times both sides.
TEST(FairnessProbe, MeasuresAServerAgainstTheCannedResponder) {
  CannedResponder server;
  ASSERT_GT(server.port(), 0);
  FairnessOptions options;
  options.exchanges = 5;
  const LatencyProbe probe = probe_latency("127.0.0.1", server.port(), "/", options);
  ASSERT_EQ(probe.server.size(), 5u);
  ASSERT_EQ(probe.floor.size(), 5u);
  for (const Exchange& exchange : probe.server) {
    EXPECT_GT(exchange.total_s, 0);
    EXPECT_GE(exchange.pieces, 1u);
  }
  EXPECT_FALSE(judge_latency(probe)) << "the same responder on both sides";
  // Nothing listening: nothing measured.
  int closed_port = 0;
  {
    CannedResponder gone;
    closed_port = gone.port();
  }
  EXPECT_TRUE(probe_latency("127.0.0.1", closed_port, "/", options).server.empty());
}

TEST(FairnessProbe, TakesTheScenariosLargestLevel) {
  Scenario scenario;
  scenario.workloads.resize(2);
  scenario.workloads[0].connections = {10, 5000};
  scenario.workloads[1].connections = {100};
  const FairnessOptions options = fairness_options_for(scenario, "the scenario's largest level");
  EXPECT_EQ(options.connections, 5000u);
  EXPECT_EQ(options.connections_source, "the scenario's largest level");
  EXPECT_EQ(fairness_options_for(Scenario{}, "x").connections, kDefaultFairnessConnections);
}

}  // namespace
}  // namespace ringside::harness
