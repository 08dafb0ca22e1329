// Other load generators as a point's loader (a scenario's `loader = "wrk"`): wrk, ab, h2load and
// hey, run pinned to the load CPUs, their output parsed into the same figures ringside load gives,
// so a loader comparison is just a scenario. Argument building and parsing are pure and
// unit-tested against recorded outputs (tests/fixtures/loader_output/); only run_external_loader
// starts a process. docs/loaders.md says what each tool can do and what it leaves unmeasured.
//
//   LoaderSpec spec{.kind = LoaderKind::kWrk, .url = "http://127.0.0.1:8080/", .connections = 100,
//                   .duration_s = 5};
//   LoaderOutcome outcome = run_external_loader(spec);   // outcome.error empty on success
//   outcome.figures.requests_per_s, .latency, .statuses, .errors, .completed, .failed
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/results/kinds.hpp"
#include "harness/results/results.hpp"

namespace ringside::harness {

// LoaderKind, loader_name and loader_from_name: harness/results/kinds.hpp.
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
  unsigned pipeline = 1;             // requests in flight per connection (wrk, h2load)
  bool keep_alive = true;
  std::string cpus;                  // taskset list; "" = unpinned
  double timeout_s = 0;              // 0: duration + 60 s (count mode: 60 s + 10 ms a request)
};

struct LoaderOutcome {
  RoundFigures figures;     // requests_per_s, latency, statuses, errors, completed, failed,
                            // duration_s, loader_cpu_s (from wait4's rusage)
  std::string output;       // what it printed (kept for reports of failures)
  std::string error;        // "" on success; else one line saying what went wrong
};

// argv for the spec, or an error (a loader that cannot do what the spec asks: hey has no
// pipelining, ab no duration-and-rate, ...). Pure. Files the tool must read (wrk's Lua script,
// ab's and h2load's request body) appear in it as kLoaderFilesDir "/" + LoaderFile::name;
// run_external_loader writes them into a fresh temporary directory and puts its path there.
std::vector<std::string> loader_argv(const LoaderSpec& spec, std::string& error);

inline constexpr std::string_view kLoaderFilesDir = "{files}";

struct LoaderFile {
  std::string name;      // "request.lua", "body"
  std::string contents;
};
std::vector<LoaderFile> loader_files(const LoaderSpec& spec);  // pure; none for most specs

// Parsers of each loader's normal output (what loader_argv asks for). Pure; they fill what the
// tool reports and leave the rest unmeasured. Throw nothing: a field they cannot find stays NaN,
// and `error` says what was missing when the output is not the tool's report at all.
// `failed` counts transport failures only (as ringside load does); an answer with any status is
// completed. Status keys are what each tool tells apart: hey the codes ("200"), h2load classes
// ("2xx" ... "5xx"), ab "2xx" and "non-2xx", wrk "2xx-3xx" and "non-2xx-3xx". Error keys are
// ringside load's where the tool's class means the same ("connect_refused", "read", "write",
// "timeout", "reset", "closed", "malformed"), else the tool's own ("connect", "length",
// "exceptions", "errored", "other").
RoundFigures parse_wrk_output(std::string_view text, std::string& error);
RoundFigures parse_ab_output(std::string_view text, std::string& error);
RoundFigures parse_h2load_output(std::string_view text, std::string& error);
RoundFigures parse_hey_output(std::string_view text, std::string& error);

// Runs the loader (pinned to spec.cpus, in its own process group), waits for it within its
// timeout (or until *stop becomes true: then it is killed and the outcome says so), reaps it with
// wait4 for loader_cpu_s, parses its output. A tool not on PATH: "wrk is not installed: run
// scripts/setup".
LoaderOutcome run_external_loader(const LoaderSpec& spec,
                                  const std::atomic<bool>* stop = nullptr);

}  // namespace ringside::harness
