// `ringside compare --validate` and `--list` as a library: for one contestant, skip it when it
// cannot run here (or does not serve the protocol asked), build it (cached), start it on a free
// port (over TLS when options.start.protocol is https), wait until ready, run the checks of
// validate.hpp and, when they pass, the fairness check (fairness_probe.hpp: warnings, never a
// failure), stop it and check nothing of it is left; and the facts --list shows. The CLI
// (apps/ringside/compare_command.cpp) only parses flags, provisions the database and prints.
//
//   ValidationRunOptions options;  options.stop = &interrupted;  options.progress = print_line;
//   ContestantReport report = validate_contestant(contestant, options);
//   puts(report.line().c_str());   // "PASS name (version): GET /, ..." / "FAIL name: reasons"
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/process/build_cache.hpp"
#include "harness/config/contestant.hpp"
#include "harness/process/lifecycle.hpp"
#include "harness/check/fairness_probe.hpp"
#include "harness/check/validate.hpp"

namespace ringside::harness {

enum class CheckVerdict { kPass, kFail, kSkip, kInterrupted };

std::string_view describe(CheckVerdict verdict);  // "PASS", "FAIL", "SKIP", "STOPPED"

struct ContestantReport {
  std::string name;
  CheckVerdict verdict = CheckVerdict::kPass;
  std::string version;
  std::vector<Check> checks;
  std::vector<std::string> problems;  // why it failed or was skipped, one phrase each
  std::string last_output;            // its last lines, when it failed after starting
  bool pipelining = true;             // its manifest's `pipelining`: false leaves that check out
  Protocol protocol = Protocol::kHttp;  // what it was started and checked over
  std::optional<TlsFacts> tls;        // https: what the handshake agreed on, when it got that far
  std::vector<FairnessWarning> warnings;  // the fairness check's, when it passed

  // The problems, joined with "; ".
  [[nodiscard]] std::string problem_text() const;
  // One line: "PASS name (version): GET /, GET /json, keep-alive x100, pipelined x16, split
  // request" (the checks that ran), "FAIL name: problem; problem",
  // "SKIP name: needs node (not on PATH); install: scripts/setup". Over https the name is
  // followed by "over https" and, once the handshake was made, what it agreed on:
  // "PASS nginx (nginx/1.22.1) over https (TLSv1.3, TLS_AES_256_GCM_SHA384, X25519, ALPN
  // http/1.1): TLS handshake, GET /, ...".
  [[nodiscard]] std::string line() const;
  // One "WARN fairness: name: check: message" line per warning.
  [[nodiscard]] std::vector<std::string> warning_lines() const;
};

struct ValidationRunOptions {
  StartOptions start;                    // threads, db_url, cpus, host, protocol and its TLS
  double ready_timeout_s = 30;
  double stop_grace_s = kStopGraceS;
  double build_timeout_s = kBuildTimeoutS;
  BuildCache cache;
  ValidateOptions checks;
  FairnessOptions fairness;              // after the checks pass; enabled = false: left out
  bool prove_http2 = false;  // and that it speaks HTTP/2 on the port (check/http2_probe)
  const std::atomic<bool>* stop = nullptr;                  // Ctrl-C: finish this one early
  std::function<void(const std::string&)> progress;         // one line per step, for stderr
};

ContestantReport validate_contestant(const Contestant& contestant,
                                     const ValidationRunOptions& options);

// Why a contestant that cannot run here is skipped: "needs node (not on PATH); install: ...".
std::string skip_reason(const Runnability& runnability);

// True when one of these would need a database: runnable, with a pool (db_pool > 0).
bool needs_database(const std::vector<Contestant>& contestants);

struct ListEntry {
  std::string name;
  std::string version;   // runtime version, or "-" when not runnable
  BuildState build = BuildState::kNone;
  Runnability runnability;
  std::filesystem::path found_in;  // the folder it came from, when not the bundled one
  // "name  version  build state  runnable" or "... not runnable: reason; install: command", then
  // "  (from FOLDER)" for a contestant that is not bundled
  [[nodiscard]] std::string line(std::size_t name_width, std::size_t version_width) const;
};

ListEntry list_entry(const Contestant& contestant, const BuildCache& cache);

}  // namespace ringside::harness
