// What the reports of `ringside compare` say, decided once for report.md and report.html: the
// verdict that opens them, the tables (plain text cells; each renderer escapes for its format), the
// numbered notes that the flags refer to, and the sections around them. Built from a RunResults
// alone.
//
//   const ReportModel model = build_report_model(results);
//   for (const WorkloadSection& section : model.workloads) ...   // one table per point group
#pragma once

#include <string>
#include <vector>

#include "harness/report/report_verdict.hpp"
#include "harness/results/results.hpp"

namespace ringside::harness {

struct ReportTable {
  std::string id;       // stable, for HTML ids and tests ("summary-hello-c100", "contestants")
  std::string heading;  // "" for none
  std::vector<std::string> columns;
  std::vector<bool> numeric;  // right-aligned
  std::vector<std::vector<std::string>> rows;
};

// A flag explained: "[n]" in a table's flags cell points here.
struct ReportNote {
  int number = 0;
  std::string where;  // "hello, 1000 connections, node-http"
  std::string flag;
  std::string text;  // the engine's note, or what the flag means in general
};

struct WorkloadSection {
  std::string name;
  std::string heading;              // "hello: GET /"
  std::vector<ReportTable> tables;  // closed levels ascending, then the equal-load point(s)
};

struct ReportModel {
  std::string title;
  // The answer first: per workload, the contestants ranked (harness/report/verdict.hpp).
  std::string verdict_rule;
  std::vector<VerdictBlock> verdict;    // each with a "fairness warnings" line where due
  // The fairness check's warnings (harness/check/fairness.hpp), right after the verdict, one line
  // each: "stock: tcp-nodelay: GET / took 43.9 ms a request ...".
  std::vector<std::string> fairness;
  std::vector<std::string> preamble;  // sentences
  std::vector<std::string> alerts;    // partial run, missing baseline, ...
  std::vector<WorkloadSection> workloads;
  std::vector<ReportNote> notes;
  std::vector<std::string> flag_meanings;  // "loader-bound: ...", one per flag that occurs
  ReportTable errors;                      // points with errors or kernel events; may have no rows
  ReportTable contestants;
  std::vector<std::string> contestant_details;  // why failed / skipped, last output
  ReportTable machine;
  ReportTable load_hosts;  // engine "ssh": each host's clock against the harness's; else no rows
  std::vector<std::string> warnings;
  ReportTable workload_list;
  std::string command;  // how to run the scenario again
};

// A point group: the points of one workload measured alike, so their figures compare.
struct PointGroupKey {
  std::string workload;
  LoadMode mode = LoadMode::kClosed;
  unsigned connections = 0;
  double rate = 0;  // open only
  LoaderKind loader = LoaderKind::kRingside;
};

ReportModel build_report_model(const RunResults& results);

// A contestant's fairness warnings by check: "tcp-nodelay, listen-backlog"; "" when none.
std::string fairness_checks(const ContestantResult& contestant);
// Every fairness warning of the run, one line each: "stock: tcp-nodelay: GET / took ...".
std::vector<std::string> fairness_lines(const RunResults& results);
// The contestants a workload's verdict ranks, or lists apart, that have fairness warnings:
// "stock (tcp-nodelay, listen-backlog)"; "" when none has.
std::string fairness_in_verdict(const RunResults& results, const WorkloadVerdict& verdict);

// The load hosts' table (rows only with engine "ssh"): host, ssh destination, clock offset and
// round trip in ms.
ReportTable load_hosts_table(const RunResults& results);
// What the report must say of the load hosts: a clock more than 5 ms off the harness's ("sync
// clocks with chrony or PTP"), a generator whose measured phase began more than 5 ms late.
std::vector<std::string> load_host_warnings(const RunResults& results);

// The CPU shield in one line: "CPU shield: moved 183 tasks off CPU 0 for the run (12 could not
// move: ksoftirqd/0, ...)", "CPU shield: off (--no-shield)" or "CPU shield: not possible: ...".
std::string shield_summary(const ShieldFacts& shield, const std::string& server_cpus);

// "10 connections", "open model, 7,100 req/s offered" (with " via wrk" for another loader).
std::string describe_point(const PointResult& point);
// What a flag means in general, for a flag without the engine's own note.
std::string flag_meaning(const std::string& flag);
// Transport failures plus responses that were not 2xx.
std::uint64_t error_total(const RoundFigures& figures);
// Every flag of a point: the median's, "noisy", and "failed" (in that order, no repeats).
std::vector<std::string> point_flags(const PointResult& point);

}  // namespace ringside::harness
