#include "harness/report/report_text.hpp"

#include <gtest/gtest.h>

#include "harness/report/report_html.hpp"
#include "harness/report/report_markdown.hpp"
#include "harness/report/report_model.hpp"

namespace ringside::harness {
namespace {

PointResult closed_point(const std::string& contestant, double rate) {
  PointResult point;
  point.workload = "hello";
  point.contestant = contestant;
  point.connections = 100;
  RoundFigures r;
  r.requests_per_s = rate;
  r.latency.p50 = 812;
  r.latency.p99 = 2500;
  r.latency.max = 12000;
  r.server_cpu_us_per_request = 12.5;
  r.rss_peak_kib = 4096;
  r.statuses = {{"200", 1000}, {"500", 3}};
  r.failed = 2;
  point.rounds = {r};
  point.median = r;
  point.requests_per_s_min = rate * 0.99;
  point.requests_per_s_max = rate * 1.01;
  return point;
}

TEST(ReportText, TablePerWorkloadWithRatiosFlagsAndNotes) {
  RunResults results;
  results.baseline = "ringside";
  results.workloads.push_back({"hello", "GET", "/", LoadMode::kClosed, LoaderKind::kRingside});
  results.workloads.push_back({"users", "GET", "/users/{1..10}", LoadMode::kClosed, LoaderKind::kRingside});
  ContestantResult ringside;
  ringside.name = "ringside";
  ringside.rss_idle_kib = 1536;
  results.contestants.push_back(ringside);
  ContestantResult node;
  node.name = "node-http";
  results.contestants.push_back(node);
  ContestantResult broken;
  broken.name = "bun";
  broken.status = ContestantStatus::kFailed;
  broken.reason = "validation failed: pipelined x16: closed";
  results.contestants.push_back(broken);
  results.points.push_back(closed_point("ringside", 120000));
  PointResult slow = closed_point("node-http", 30000);
  slow.median.flags = {"listen-overflow"};
  slow.median.notes = {"the kernel's listen queue overflowed 3 times"};
  slow.noisy = true;
  slow.noisy_note = "3 rounds from 29.7k to 30.3k requests/s: not known to within +-3%";
  slow.rounds.front().server_cpus = {.wait_s = 0, .others_s = 0.12, .steal_s = 0, .others_share = 0.12,
                                     .others = {{"python3", 0.1}}};
  results.points.push_back(slow);
  PointResult failed;
  failed.workload = "hello";
  failed.contestant = "deno";
  failed.connections = 100;
  failed.failure = "round 1: exited (exit 7) during hello at 100 connections";
  results.points.push_back(failed);
  results.partial = true;

  const std::string text = render_text_report(results);
  EXPECT_NE(text.find("hello (GET /)\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("users ("), std::string::npos) << "a workload without points has no table";
  EXPECT_NE(text.find("vs ringside"), std::string::npos);
  EXPECT_NE(text.find("120.0k"), std::string::npos);
  EXPECT_NE(text.find("baseline"), std::string::npos);
  EXPECT_NE(text.find("0.25x"), std::string::npos) << text;
  EXPECT_NE(text.find("idle RSS (MiB)  peak RSS (MiB)"), std::string::npos) << text;
  EXPECT_NE(text.find("  1.5  "), std::string::npos) << "idle RSS";
  EXPECT_NE(text.find("  4.0  "), std::string::npos) << "peak RSS";
  EXPECT_EQ(text.find(" MB"), std::string::npos) << text;
  EXPECT_NE(text.find("12.5"), std::string::npos) << "CPU per request";
  EXPECT_NE(text.find("listen-overflow,noisy"), std::string::npos) << text;
  EXPECT_NE(text.find("node-http c=100: the kernel's listen queue overflowed 3 times"), std::string::npos);
  EXPECT_NE(text.find("    noisy (1 of 3 points: node-http c=100): they did not converge"),
            std::string::npos) << text;
  // And what else used the server's CPUs in their rounds.
  EXPECT_NE(text.find("    other processes used up to 12% of the server's CPUs in their rounds: "
                      "python3\n"),
            std::string::npos) << text;
  // The verdict opens the report: ringside first (the baseline, starred), deno apart.
  EXPECT_EQ(text.find("verdict: "), 0u) << text;
  EXPECT_LT(text.find("    1 ringside* 120.0k [118.8k-121.2k]"), text.find("hello (GET /)\n"))
      << text;
  EXPECT_NE(text.find("    2 node-http  30.0k [29.7k-30.3k]"), std::string::npos) << text;
  EXPECT_NE(text.find("    not ranked: deno (failed at 100 connections)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("deno"), std::string::npos);
  EXPECT_NE(text.find("failed"), std::string::npos);
  EXPECT_NE(text.find("  bun: failed: validation failed: pipelined x16: closed"), std::string::npos);
  EXPECT_NE(text.find("PARTIAL"), std::string::npos);
  // errors: 2 transport failures + 3 non-2xx answers
  EXPECT_NE(text.find("  5  "), std::string::npos) << text;
}

TEST(ReportText, DatabaseColumnsOnlyWhereTheDatabaseServedQueries) {
  RunResults results;
  results.baseline = "ringside";
  results.workloads.push_back({"hello", "GET", "/", LoadMode::kClosed, LoaderKind::kRingside});
  results.workloads.push_back({"users", "GET", "/users/{1..10}", LoadMode::kClosed, LoaderKind::kRingside});
  results.points.push_back(closed_point("ringside", 120000));  // hello: no database figures
  PointResult users = closed_point("ringside", 70000);
  users.workload = "users";
  users.median.database.queries = 140000;
  users.median.database.queries_per_request = 1.0;
  users.median.database.cpu_us_per_request = 6.14;
  results.points.push_back(users);
  PointResult users_node = closed_point("node-http", 7000);
  users_node.workload = "users";
  users_node.median.database.queries = 28000;
  users_node.median.database.queries_per_request = 2.0;
  users_node.median.database.cpu_us_per_request = 81.66;
  results.points.push_back(users_node);

  const std::string text = render_text_report(results);
  const std::size_t users_at = text.find("users (");
  ASSERT_NE(users_at, std::string::npos) << text;
  EXPECT_EQ(text.substr(0, users_at).find("DB us/req"), std::string::npos) << "hello has no DB columns";
  const std::string users_table = text.substr(users_at);
  EXPECT_NE(users_table.find("DB us/req"), std::string::npos) << text;
  EXPECT_NE(users_table.find("q/req"), std::string::npos);
  EXPECT_NE(users_table.find("6.1"), std::string::npos);
  EXPECT_NE(users_table.find("1.00"), std::string::npos);
  EXPECT_NE(users_table.find("81.7"), std::string::npos);
  EXPECT_NE(users_table.find("2.00"), std::string::npos) << "two queries per request show";
}

TEST(ReportText, ARatioInsideTheNoiseIsATieAndTheVerdictFitsInAHundredColumns) {
  RunResults results;
  results.baseline = "ringside";
  results.workloads.push_back({"hello", "GET", "/", LoadMode::kClosed, LoaderKind::kRingside});
  results.points.push_back(closed_point("ringside", 100000));     // [99.0k-101.0k]
  results.points.push_back(closed_point("a-long-contestant-name", 101500));  // overlaps: a tie
  results.points.push_back(closed_point("node-http", 50000));
  const std::string text = render_text_report(results);
  EXPECT_NE(text.find(" 1.01x, tie\n"), std::string::npos) << text;
  EXPECT_NE(text.find(" 0.50x\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    1= a-long-contestant-name 101.5k"), std::string::npos) << text;
  EXPECT_NE(text.find("    1= ringside*"), std::string::npos) << text;
  EXPECT_NE(text.find("    3  node-http"), std::string::npos) << text;
  const std::string verdict = text.substr(0, text.find("hello (GET /)"));
  std::size_t from = 0;
  for (std::size_t end = verdict.find('\n'); end != std::string::npos;
       from = end + 1, end = verdict.find('\n', from)) {
    EXPECT_LE(end - from, 100u) << verdict.substr(from, end - from);
  }
}

TEST(ReportText, FairnessWarningsStandUnderTheVerdict) {
  RunResults results;
  results.baseline = "ringside";
  results.workloads.push_back({"hello", "GET", "/", LoadMode::kClosed, LoaderKind::kRingside});
  ContestantResult ringside;
  ringside.name = "ringside";
  results.contestants.push_back(ringside);
  ContestantResult stock;
  stock.name = "stock";
  stock.warnings = {{"tcp-nodelay", "GET / took 43.9 ms a request"},
                    {"listen-backlog", "the listen backlog of port 8080 is 5"}};
  results.contestants.push_back(stock);
  results.points.push_back(closed_point("ringside", 120000));
  results.points.push_back(closed_point("stock", 22.7));
  const std::string text = render_text_report(results);
  const auto named = text.find("    fairness warnings: stock (tcp-nodelay, listen-backlog)\n");
  const auto first = text.find("WARN fairness: stock: tcp-nodelay: GET / took 43.9 ms a request\n");
  const auto second = text.find("WARN fairness: stock: listen-backlog: the listen backlog of port 8080 is 5\n");
  ASSERT_NE(named, std::string::npos) << text;
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_LT(named, first);
  EXPECT_LT(first, second);
  EXPECT_LT(second, text.find("hello (GET /)")) << "before the tables";
}

// An https workload says so beside its request; a contestant that does not serve https is listed
// with the workload it was not given and why, in the terminal and in report.md alike.
TEST(ReportText, HttpsWorkloadsAndTheContestantsThatSkippedThem) {
  RunResults results;
  results.baseline = "ringside";
  results.workloads.push_back(
      {"hello", "GET", "/", LoadMode::kClosed, LoaderKind::kWrk, Protocol::kHttps});
  ContestantResult nginx;
  nginx.name = "nginx";
  results.contestants.push_back(nginx);
  ContestantResult floor;
  floor.name = "floor";
  floor.skipped_workloads = {{"hello", "does not serve https (its manifest's protocols: http)"}};
  results.contestants.push_back(floor);
  results.points.push_back(closed_point("nginx", 50000));
  const std::string text = render_text_report(results);
  EXPECT_NE(text.find("hello (GET / over https)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  floor: skipped hello: does not serve https (its manifest's protocols: http)\n"),
            std::string::npos)
      << text;
  const std::string markdown = render_markdown(results);
  EXPECT_NE(markdown.find("## hello: GET / over https\n"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("floor skipped hello: does not serve https"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| hello | GET / | https | closed | wrk |"), std::string::npos) << markdown;
}

TEST(ReportText, ShortNumbers) {
  EXPECT_EQ(short_rate(845), "845");
  EXPECT_EQ(short_rate(12345), "12.3k");
  EXPECT_EQ(short_rate(1234567), "1.23M");
  EXPECT_EQ(short_rate(kUnmeasured), "-");
  EXPECT_EQ(memory_text(512), "0.50");
  EXPECT_EQ(memory_text(2048), "2.0");
  EXPECT_EQ(memory_text(0), "-");
  EXPECT_EQ(memory_text(kUnmeasured), "-");
}

TEST(ReportText, AnOpenPointTheContestantCouldNotCarrySaysSoInsteadOfARatio) {
  RunResults results;
  results.baseline = "ringside";
  results.workloads.push_back({"hello", "GET", "/", LoadMode::kClosed, LoaderKind::kRingside});
  ContestantResult ringside, express;
  ringside.name = "ringside";
  express.name = "express";
  results.contestants = {ringside, express};
  for (const char* name : {"ringside", "express"}) {
    PointResult open = closed_point(name, 4000);
    open.mode = LoadMode::kOpen;
    open.rate = 4000;
    open.median.target_rate = 4000;
    results.points.push_back(open);
  }
  results.points.back().median.requests_per_s = 1870;
  results.points.back().could_not_carry = true;
  const std::string text = render_text_report(results);
  EXPECT_NE(text.find("could not carry 4,000/s"), std::string::npos) << text;
  EXPECT_EQ(text.find("1.00x p99"), std::string::npos) << text;
}

TEST(ReportText, OneLineSaysWhatTheCpuShieldDid) {
  ShieldFacts shield;
  EXPECT_EQ(shield_summary(shield, "0"), "CPU shield: off (--no-shield)");
  shield.requested = true;
  shield.problem = "ringside compare is not root; run it as root to keep the server CPUs quiet";
  EXPECT_EQ(shield_summary(shield, "0"), "CPU shield: not possible: ringside compare is not root; "
                                         "run it as root to keep the server CPUs quiet");
  shield.problem.clear();
  shield.active = true;
  shield.moved = 183;
  EXPECT_EQ(shield_summary(shield, "0"), "CPU shield: moved 183 tasks off CPU 0 for the run");
  shield.unmovable = 12;
  shield.unmovable_names = {"ksoftirqd/0", "migration/0"};
  EXPECT_EQ(shield_summary(shield, "0-1,3"),
            "CPU shield: moved 183 tasks off CPUs 0-1,3 for the run (12 could not move: "
            "ksoftirqd/0, migration/0, ...)");

  RunResults results;
  results.machine.server_cpus = "0";
  results.shield = shield;
  EXPECT_NE(render_text_report(results).find(shield_summary(shield, "0") + "\n"), std::string::npos);
}

// The terminal, report.md and report.html write one memory figure the same way (MiB from KiB,
// the unit in the heading: a seed printed 20.7 "MB" here and 21.7 MB in report.md), and a tiny
// ratio with its digits, never 0.00.
TEST(ReportText, MemoryAndRatiosReadTheSameInEveryReport) {
  RunResults results;
  results.baseline = "ringside";
  results.workloads.push_back({"hello", "GET", "/", LoadMode::kClosed, LoaderKind::kRingside});
  for (const char* name : {"ringside", "slow"}) {
    ContestantResult contestant;
    contestant.name = name;
    contestant.rss_idle_kib = 21'197;
    results.contestants.push_back(contestant);
  }
  results.points.push_back(closed_point("ringside", 100000));
  results.points.push_back(closed_point("slow", 314));
  const std::string text = render_text_report(results);
  const std::string markdown = render_markdown(results);
  const std::string html = render_html(results, "", "");
  for (const std::string* report : {&text, &markdown, &html}) {
    EXPECT_NE(report->find("idle RSS (MiB)"), std::string::npos) << *report;
    EXPECT_NE(report->find("peak RSS (MiB)"), std::string::npos) << *report;
    EXPECT_NE(report->find("20.7"), std::string::npos) << *report;
    EXPECT_EQ(report->find("21.7"), std::string::npos) << *report;
    EXPECT_EQ(report->find(" MB"), std::string::npos) << *report;
    EXPECT_NE(report->find("0.0031"), std::string::npos) << *report;
    EXPECT_EQ(report->find("0.00x"), std::string::npos) << *report;
    EXPECT_EQ(report->find("0.00×"), std::string::npos) << *report;
  }
}

}  // namespace
}  // namespace ringside::harness
