#include "harness/report/report_markdown.hpp"

#include <gtest/gtest.h>

#include "report_sample.hpp"

namespace ringside::harness {
namespace {

using testing::fixture_results;
using testing::small_run;

// The whole document for a small run: the layout a README gets, pinned.
TEST(ReportMarkdown, SmallRunHasTheExactStructure) {
  const std::string expected = R"md(# ringside compare: tiny

## Verdict

Each score is the geometric mean of a contestant's medians over the workload's connection levels (closed model), in brackets its interval; contestants whose intervals overlap share a place ("2.=", a tie).

**hello** (10 connections)

- requests/s: 1. **ringside** 100,000 \[99,000–101,000\] (baseline) · 2. node-http 12,345 \[12,000–12,500\]
- CPU per request (lower is better): 1. **ringside** 7.90 µs \[7.90–7.90\] (baseline) · 2. node-http 66.0 µs \[66.0–66.0\]
- fairness warnings: node-http (listen-backlog): see Fairness warnings below

## Fairness warnings

The check before timing found these: each says what it measured and the fix (docs/harness.md, "Fairness").

- node-http: listen-backlog: the listen backlog of port 8080 is 511, below the 1,000 connections of the scenario's largest level

Scenario tiny (scenarios/tiny.toml), run from 2025-06-02T09:14:03Z to 2025-06-02T09:14:30Z by ringside 0.9.0.
Each figure is the median of 1 round; in brackets, the interval of requests/s: the median's confidence interval (the rounds' min–max in results that have none); ratios are against ringside (closed model: its requests/s; equal load: its p99 latency).
Closed model: a fixed number of connections sending as fast as the server answers. Open model (equal load): every contestant offered the same request rate, latency corrected for coordinated omission, so latency and CPU per request compare at the same load.

## hello: GET /

### 10 connections

| rank | contestant | req/s | interval | p50 | p99 | max | errors | CPU/req | idle RSS (MiB) | peak RSS (MiB) | flags | req/s vs ringside |
|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|
| 1 | ringside | 100,000 | \[99,000–101,000\] | 80 µs | 0.25 ms | 1.20 ms | 0 | 7.90 µs | 1.5 | 2.0 |  | 1.00× |
| 2 | node-http | 12,345 | \[12,000–12,500\] | 0.79 ms | 2.10 ms | 45.0 ms | 7 (reset 2, HTTP 503 5) | 66.0 µs | 43.8 | 48.8 | listen-overflow \[1\] | 0.12× |

## Notes

1. hello, 10 connections, node-http: **listen-overflow**: the kernel dropped 7 connection attempts

What the flags mean:

- listen-overflow: the kernel's listen queue overflowed: connection attempts were dropped before the server saw them, and the clients' retries show up as latency

## Errors and what the kernel did

| workload | point | contestant | transport errors | non-2xx | listen overflows | listen drops | SYN retransmits | resets sent | established (peak) |
|---|---|---|--:|--:|--:|--:|--:|--:|--:|
| hello | 10 connections | node-http | 2 (reset 2) | 5 | 0 | 0 | 0 | 0 | 0 |

## Contestants

| contestant | description | runtime | version | threads | status | fairness | idle RSS (MiB) | RSS after (MiB) |
|---|---|---|---|--:|---|---|--:|--:|
| ringside | ringside serve | ringside | 0.9.0 | 1 | ran | ok | 1.5 | 2.0 |
| node-http | node \| http | node | v20.19.2 | 1 | ran | WARN listen-backlog | 43.8 | 58.6 |

## Machine

| fact | value |
|---|---|
| CPU | Test CPU |
| cores | 2 |
| kernel | 6.1.0 |
| memory | 977 MiB |
| frequency governor | not visible |
| server CPUs | 0 |
| loader CPUs | 1 |
| CPU shield | off (--no-shield) |

Warnings:

- server and loader share core 0

## Scenario

| workload | request | protocol | mode | loader |
|---|---|---|---|---|
| hello | GET / | http | closed | ringside |

Run it again with `ringside compare scenarios/tiny.toml`.
)md";
  RunResults run = small_run();
  run.contestants[1].warnings = {{"listen-backlog", "the listen backlog of port 8080 is 511, below "
                                                    "the 1,000 connections of the scenario's largest level"}};
  EXPECT_EQ(render_markdown(run), expected);
}

TEST(ReportMarkdown, DatabaseColumnsBesideTheServersCpu) {
  RunResults run = small_run();
  for (PointResult& p : run.points) {
    p.median.database.queries = 1000;
    p.median.database.queries_per_request = p.contestant == "ringside" ? 1.0 : 2.0;
    p.median.database.cpu_us_per_request = p.contestant == "ringside" ? 6.1 : 40.8;
  }
  const std::string markdown = render_markdown(run);
  EXPECT_NE(markdown.find("| CPU/req | DB CPU/req | queries/req | idle RSS (MiB) | peak RSS (MiB) |"),
            std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| 7.90 µs | 6.10 µs | 1.00 | 1.5 | 2.0 |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| 66.0 µs | 40.8 µs | 2.00 |"), std::string::npos) << markdown;
  EXPECT_EQ(render_markdown(small_run()).find("DB CPU/req"), std::string::npos)
      << "no database, no columns";
}

// A difference inside the intervals is a tie, in the verdict and in the ratio column.
TEST(ReportMarkdown, OverlappingIntervalsReadAsATie) {
  RunResults run = small_run();
  PointResult& node = run.points[1];
  node.median.requests_per_s = 102'000;
  node.requests_per_s_interval = {100'500, 103'000, 0.95};
  run.points[0].requests_per_s_interval = {98'000, 101'000, 0.95};
  const std::string text = render_markdown(run);
  EXPECT_NE(text.find("- requests/s: 1.= node-http 102,000 \\[100,500–103,000\\], **ringside** "
                      "100,000 \\[98,000–101,000\\] (baseline) (tie)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| 1= | node-http | 102,000 |"), std::string::npos) << text;
  EXPECT_NE(text.find("| 1.02×, tie |"), std::string::npos) << "never a win";
  EXPECT_NE(text.find("| 1.00× |"), std::string::npos) << "the baseline itself";
  EXPECT_LT(text.find("## Verdict"), text.find("## hello")) << "the answer first";
}

TEST(ReportMarkdown, PartialRunSaysSoFirst) {
  RunResults results = small_run();
  results.partial = true;
  const std::string text = render_markdown(results);
  EXPECT_EQ(text.find("# ringside compare: tiny\n\n> **Partial run:"), 0u);
}

TEST(ReportMarkdown, TextFromTheResultsCannotBreakTheTable) {
  RunResults results = small_run();
  results.contestants[1].description = "a | b\n## not a heading <b>";
  const std::string text = render_markdown(results);
  EXPECT_NE(text.find("| a \\| b \\#\\# not a heading &lt;b&gt; |"), std::string::npos);
}

TEST(ReportMarkdown, NoBaselineMeansNoRatioColumn) {
  RunResults results = small_run();
  results.baseline = "";
  const std::string text = render_markdown(results);
  EXPECT_EQ(text.find(" vs "), std::string::npos);
  results.baseline = "h2o";
  EXPECT_NE(render_markdown(results).find("The baseline h2o has no measured point"),
            std::string::npos);
}

// The sample run: every point group gets its table, failed and noisy points say so in words.
TEST(ReportMarkdown, SampleRunShowsEveryGroupAndExplainsEveryFlag) {
  const std::string text = render_markdown(read_results_file(fixture_results("run-a")));
  for (const char* heading :
       {"## hello: GET /\n", "## users: GET /users/{1..10000}\n", "### 10 connections\n",
        "### 100 connections\n", "### 1,000 connections\n",
        "### Equal load: 7,100 req/s offered (open model, 100 connections)\n",
        "### Equal load: 3,100 req/s offered (open model, 100 connections)\n", "## Notes\n",
        "## Contestants\n", "## Machine\n", "## Scenario\n"}) {
    EXPECT_NE(text.find(heading), std::string::npos) << heading;
  }
  // The verdict opens the report; a contestant that failed a level is ranked apart.
  EXPECT_LT(text.find("## Verdict\n"), text.find("## hello: GET /\n"));
  EXPECT_NE(text.find("- requests/s: 1. **ringside** 103,729"), std::string::npos) << text;
  EXPECT_NE(text.find("- not ranked: express (failed at 100 connections)\n"), std::string::npos);
  // The open tables compare tails, not throughput, against the baseline.
  EXPECT_NE(text.find("| flags | p99 vs ringside |"), std::string::npos);
  EXPECT_NE(text.find("| express | failed | – |"), std::string::npos);
  EXPECT_NE(text.find("crashed: exit code 134 (SIGABRT)"), std::string::npos);
  EXPECT_NE(text.find("**noisy**: it did not converge: requests/s 24,768 \\[22,080–25,920\\]"), std::string::npos) << text;
  EXPECT_NE(text.find("up to 10.9% from the median"), std::string::npos);
  EXPECT_NE(text.find("**loader-bound**: the loader used 98% of its core"), std::string::npos);
  EXPECT_NE(text.find("**syn-retransmits**: 1,840 SYNs were retransmitted"), std::string::npos);
  EXPECT_NE(text.find("deno skipped: runtime 'deno' is not on PATH"), std::string::npos);
  EXPECT_NE(text.find("express failed: stopped answering"), std::string::npos);
  // Every "[n]" in a table has its note.
  for (int n = 1;; ++n) {
    const std::string reference = "\\[" + std::to_string(n) + "\\]";
    if (text.find(reference) == std::string::npos) {
      EXPECT_GT(n, 5) << "the sample has at least five flagged points";
      EXPECT_EQ(text.find("\n" + std::to_string(n) + ". "), std::string::npos)
          << "note without a flag";
      break;
    }
    EXPECT_NE(text.find("\n" + std::to_string(n) + ". "), std::string::npos) << reference;
  }
}

}  // namespace
}  // namespace ringside::harness
