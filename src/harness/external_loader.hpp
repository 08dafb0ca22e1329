// Other load generators as a point's loader (a scenario's `loader = "wrk"`): wrk, ab, h2load and
// hey, run pinned to the load CPUs, their output parsed into the same figures ringside load gives,
// so a loader comparison is just a scenario. Argument building and parsing are pure and
// unit-tested against recorded outputs; only run_external_loader starts a process.
//
//   LoaderSpec spec{.kind = LoaderKind::kWrk, .url = "http://127.0.0.1:8080/", .connections = 100,
//                   .duration_s = 5};
//   LoaderOutcome outcome = run_external_loader(spec);   // outcome.error empty on success
//   outcome.figures.requests_per_s, .latency, .statuses, .errors, .completed, .failed
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/results.hpp"

namespace ringside::harness {

enum class LoaderKind { kRingside, kWrk, kAb, kH2load, kHey };

std::string_view loader_name(LoaderKind kind);                         // "wrk"
std::optional<LoaderKind> loader_from_name(std::string_view name);     // nothing when unknown
// The program a loader needs on PATH ("" for ringside, which runs in-process).
std::string_view loader_program(LoaderKind kind);

struct LoaderSpec {
  LoaderKind kind = LoaderKind::kWrk;
  std::string url;                   // one URL (external loaders take no URL list)
  std::string method = "GET";
  std::vector<std::string> headers;  // "Name: value"
  std::string body;
  unsigned connections = 1;
  unsigned threads = 1;
  double duration_s = 0;             // > 0: run this long
  std::uint64_t requests = 0;        // > 0 (and duration_s == 0): this many requests
  double rate = 0;                   // > 0: open model at this rate (only loaders that can)
  bool keep_alive = true;
  std::string cpus;                  // taskset list; "" = unpinned
  double timeout_s = 0;              // 0: duration + 60 s
};

struct LoaderOutcome {
  RoundFigures figures;     // requests_per_s, latency, statuses, errors, completed, failed,
                            // duration_s, loader_cpu_s (from wait4's rusage)
  std::string output;       // what it printed (kept for reports of failures)
  std::string error;        // "" on success; else one line saying what went wrong
};

// argv for the spec, or an error (a loader that cannot do what the spec asks: hey has no
// pipelining, ab no duration-and-rate, ...). Pure.
std::vector<std::string> loader_argv(const LoaderSpec& spec, std::string& error);

// Parsers of each loader's normal output (what loader_argv asks for). Pure; they fill what the
// tool reports and leave the rest unmeasured. Throw nothing: a field they cannot find stays NaN,
// and `error` says what was missing when the output is not the tool's report at all.
RoundFigures parse_wrk_output(std::string_view text, std::string& error);
RoundFigures parse_ab_output(std::string_view text, std::string& error);
RoundFigures parse_h2load_output(std::string_view text, std::string& error);
RoundFigures parse_hey_output(std::string_view text, std::string& error);

// Runs the loader (pinned to spec.cpus), waits for it within its timeout, parses its output.
LoaderOutcome run_external_loader(const LoaderSpec& spec);

}  // namespace ringside::harness
