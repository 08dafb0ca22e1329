// What `ringside compare` measured: one RunResults per run, written as results.json (schema
// "ringside-compare/1", docs/compare-json.md and docs/compare-json.schema.json) and read back by
// the reports and by `compare --diff`. Plain data; the run engine fills it, the reports read it.
//
//   RunResults results = ...;                       // harness/run/compare_run.hpp
//   write_results_file(results, dir / "results.json");
//   RunResults again = read_results_file(dir / "results.json");   // ResultsError
//
// Times are microseconds, memory KiB, CPU seconds; a figure that could not be measured is NaN in
// memory and null in JSON.
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/results/kinds.hpp"

namespace ringside::harness {

inline constexpr const char* kResultsSchema = "ringside-compare/1";
inline constexpr double kUnmeasured = std::numeric_limits<double>::quiet_NaN();

struct LatencyFigures {  // microseconds
  double p50 = kUnmeasured;
  double p90 = kUnmeasured;
  double p99 = kUnmeasured;
  double p999 = kUnmeasured;
  double p9999 = kUnmeasured;
  double max = kUnmeasured;
  double mean = kUnmeasured;
};

// What the kernel did around a point (deltas of /proc/net/netstat and /proc/net/snmp, and the
// server's established connections counted during the point).
struct KernelFigures {
  std::uint64_t listen_overflows = 0;  // TcpExt ListenOverflows
  std::uint64_t listen_drops = 0;      // the server's listening sockets' drops (sock_diag);
                                       // TcpExt ListenDrops when those cannot be read
  std::uint64_t syn_retransmits = 0;   // TcpExt TCPSynRetrans
  std::uint64_t resets_sent = 0;       // Tcp OutRsts
  std::uint64_t established_peak = 0;  // the server port's ESTABLISHED sockets, at most
};

// What the database did for a point, when the harness started it (`database = "postgres"`):
// its whole process tree's CPU (postmaster, backends, background workers), and the statements it
// executed as pg_stat_statements counts them. Unmeasured (NaN) for other databases.
struct DatabaseFigures {
  double cpu_s = kUnmeasured;
  double cpu_us_per_request = kUnmeasured;
  double queries = kUnmeasured;               // statements executed during the point
  double queries_per_request = kUnmeasured;
  double cpu_us_per_query = kUnmeasured;
};

// One load host's part of a round (a scenario's [load] engine = "ssh"; the local engine has none):
// its own accounting, from its `ringside load --json`.
struct GeneratorFigures {
  std::string name;                 // its tag
  std::uint64_t completed = 0;
  std::uint64_t failed = 0;
  double requests_per_s = kUnmeasured;  // completed / its own elapsed
  double start_late_s = kUnmeasured;    // its measured phase began this long after the instant
  double cpu_s = kUnmeasured;           // the loader's own CPU over its measured phase
  unsigned threads = 0;
  double cpu_share = kUnmeasured;       // cpu_s / (elapsed x threads), 0..1
};

// A process that ran on the server's CPUs during a round, by name (its threads and same-named
// processes summed), with the CPU time it took there.
struct ProcessShare {
  std::string name;
  double cpu_s = 0;
};

// What took the server's CPUs besides the server: its own threads' run-queue delay, and the CPU
// time everything else used on `server_cpus` (per-CPU /proc/stat less the server's and the
// scenario database's own time; hypervisor steal included). Unmeasured (NaN) with load hosts'
// external CPUs or when /proc cannot be read.
struct ServerCpuFigures {
  double wait_s = kUnmeasured;        // the server tree's threads runnable, waiting for a CPU
  double others_s = kUnmeasured;      // CPU time of every other task on the server CPUs, steal included
  double steal_s = kUnmeasured;       // of which hypervisor steal
  double others_share = kUnmeasured;  // others_s / (duration x server CPUs), 0..1
  std::vector<ProcessShare> others;   // the few that ran there most, largest first
};

// One measured run of one point (a round).
struct RoundFigures {
  unsigned round = 0;                 // 1-based
  double duration_s = kUnmeasured;    // measured phase
  std::uint64_t completed = 0;
  std::uint64_t failed = 0;           // transport failures (refused, reset, timeout, ...)
  double requests_per_s = kUnmeasured;
  double target_rate = kUnmeasured;   // open model: the rate asked for
  LatencyFigures latency;             // corrected for coordinated omission in the open model
  std::map<std::string, std::uint64_t> statuses;  // "200" -> count
  std::map<std::string, std::uint64_t> errors;    // class -> count ("reset", "timeout", ...)
  double server_cpu_s = kUnmeasured;              // utime+stime of the tree, reaped children too
  double server_cpu_us_per_request = kUnmeasured;
  double loader_cpu_s = kUnmeasured;
  double loader_cpu_share = kUnmeasured;          // of the cores the loader may use, 0..1
  double loader_wait_s = kUnmeasured;  // its threads runnable but waiting for a CPU (schedstat)
  double rss_peak_kib = kUnmeasured;              // sampled every 100 ms, and VmHWM
  double rss_mean_kib = kUnmeasured;
  KernelFigures kernel;
  DatabaseFigures database;
  ServerCpuFigures server_cpus;
  std::string histogram_log;  // HdrHistogram log, relative to the results folder; "" when none
  std::vector<std::string> flags;  // "loader-bound", "listen-overflow", ... (see Flag below)
  std::vector<std::string> notes;  // one sentence per flag, saying what it means here
  std::vector<GeneratorFigures> generators;  // load hosts (ssh engine); empty for the local one
};

// A confidence interval for a point's median over its rounds (point_summary.hpp says how).
struct Interval {
  double low = kUnmeasured;
  double high = kUnmeasured;
  double confidence = kUnmeasured;  // 0..1: the interval's coverage of the true median
};

// A point: one workload at one concurrency (or rate), for one contestant, over its rounds.
struct PointResult {
  std::string workload;
  std::string contestant;
  LoadMode mode = LoadMode::kClosed;
  unsigned connections = 0;
  double rate = kUnmeasured;    // open model
  LoaderKind loader = LoaderKind::kRingside;
  std::vector<RoundFigures> rounds;
  RoundFigures median;          // each figure the median over rounds (flags: union)
  // Rounds left out of the median and intervals: server-starved while the point had at least as
  // many rounds with the server's CPUs to themselves (point_summary.hpp).
  std::vector<unsigned> left_out;
  double requests_per_s_min = kUnmeasured;
  double requests_per_s_max = kUnmeasured;
  // The median's interval: requests/s, and server CPU per request.
  Interval requests_per_s_interval;
  Interval cpu_us_per_request_interval;
  // Did not converge: its median requests/s was not known to within the run's target when its
  // rounds ended (the maximum, or the time budget). For a fixed number of rounds: the interval
  // is wider than the target.
  bool noisy = false;
  std::string noisy_note;       // noisy: the spread, and what else used the server's CPUs
  // An open point the contestant could not carry: it answered less than the rate asked.
  bool could_not_carry = false;
  std::string failure;          // non-empty: the contestant failed here (and why)
};

// A warning of the fairness check run before a contestant's first point
// (harness/check/fairness.hpp): which check ("tcp-nodelay", "listen-backlog", ...) and its line,
// which says what was measured and the fix.
struct ContestantWarning {
  std::string check;
  std::string message;
};

// A workload a contestant would have run but for its protocol (its manifest's `protocols` do not
// list the workload's): "does not serve https (its manifest's protocols: http)".
struct WorkloadSkip {
  std::string workload;
  std::string reason;
};

struct ContestantResult {
  std::string name;
  std::string description;
  std::string runtime;
  std::string version;
  unsigned threads = 0;
  ContestantStatus status = ContestantStatus::kRan;
  std::string reason;           // failed or skipped: why
  std::string last_output;      // failed: its last lines
  double rss_idle_kib = kUnmeasured;   // after start-up, before any load (median over rounds)
  double rss_after_kib = kUnmeasured;  // after its points and a settle time
  std::vector<ContestantWarning> warnings;  // the fairness check's; empty: none, or not checked
  std::vector<WorkloadSkip> skipped_workloads;  // not given for their protocol; the rest ran
};

struct MachineFacts {
  std::string cpu_model;
  unsigned cores = 0;
  std::string kernel;
  std::uint64_t memory_kib = 0;
  std::string governor;          // "" when not visible
  std::string server_cpus;       // as pinned
  std::string load_cpus;
  std::vector<std::string> warnings;  // "server and loader share core 0", ...
};

// How the run chose its rounds: fixed (`rounds = N`) or until each point's median is known
// (`rounds = "auto"`, the default).
struct RoundsPolicy {
  bool automatic = false;
  unsigned min = 0;                    // rounds every point gets
  unsigned max = 0;                    // rounds at most
  double target = kUnmeasured;         // the median's interval within +-target (0.03: 3%)
  double confidence = kUnmeasured;     // the interval's (0.9: 90%)
  double time_budget_s = kUnmeasured;  // for the whole run: no new round starts past it
  std::string method;                  // how the interval is computed, in words
};

// The CPU shield: other tasks moved off the server CPUs for the run (compare --no-shield: off).
struct ShieldFacts {
  bool requested = false;
  bool active = false;                 // tasks were moved (and put back after)
  unsigned moved = 0;                  // tasks (threads) moved
  unsigned unmovable = 0;              // tasks that could not be moved (kernel threads, ...)
  std::vector<std::string> unmovable_names;  // the few of them, by name
  std::string problem;                 // why it could not shield ("not root", ...), or ""
};

// A load host as the run found it before the first point (ssh engine).
struct LoadHostFacts {
  std::string name;
  std::string destination;          // as ssh was given it
  std::string binary;               // where ringside was copied
  double clock_offset_s = kUnmeasured;  // its CLOCK_REALTIME minus the harness's
  double round_trip_s = kUnmeasured;    // of the sample the offset came from (the shortest)
};

struct WorkloadInfo {
  std::string name;
  std::string method = "GET";
  std::string path;
  LoadMode mode = LoadMode::kClosed;
  LoaderKind loader = LoaderKind::kRingside;
  Protocol protocol = Protocol::kHttp;
  double tls_resume = 0;  // https: the share of new connections that offered to resume
  unsigned streams = 1;   // h2c, h2: concurrent streams per connection
};

struct RunResults {
  std::string schema = kResultsSchema;
  std::string ringside_version;
  std::string scenario_name;
  std::string scenario_file;
  std::string started_at;   // RFC 3339 UTC
  std::string finished_at;
  bool partial = false;     // interrupted (Ctrl-C) or stopped early: not every point ran
  // Why a run stopped early on its own (its database died), empty after Ctrl-C; not in
  // results.json (the point it stopped in carries the reason as its failure).
  std::string stopped_by;
  unsigned rounds = 0;      // the most any point ran
  RoundsPolicy rounds_policy;
  std::string baseline;     // contestant the ratios are taken against
  MachineFacts machine;
  ShieldFacts shield;
  std::string load_engine = "local";       // the scenario's [load] engine
  std::string server_address;              // ssh engine: where the load hosts sent their load
  std::vector<LoadHostFacts> load_hosts;   // ssh engine
  std::vector<WorkloadInfo> workloads;
  std::vector<ContestantResult> contestants;
  std::vector<PointResult> points;
};

struct ResultsError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string to_json_text(const RunResults& results);  // pretty, 2-space indent, trailing newline
RunResults from_json_text(const std::string& text);   // throws ResultsError naming the field
void write_results_file(const RunResults& results, const std::filesystem::path& path);
RunResults read_results_file(const std::filesystem::path& path);  // ResultsError naming the file

}  // namespace ringside::harness
