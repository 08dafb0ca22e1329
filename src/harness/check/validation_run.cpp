#include "harness/check/validation_run.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "harness/check/http2_probe.hpp"
#include "harness/check/runtime_version.hpp"

namespace ringside::harness {
namespace {

void say(const ValidationRunOptions& options, const std::string& line) {
  if (options.progress) options.progress(line);
}

bool interrupted(const ValidationRunOptions& options) {
  return options.stop != nullptr && options.stop->load();
}

}  // namespace

std::string skip_reason(const Runnability& runnability) {
  std::string reason = runnability.reason;
  if (!runnability.install.empty()) reason += "; install: " + runnability.install;
  return reason;
}

std::string ContestantReport::problem_text() const {
  std::string text;
  for (std::size_t i = 0; i < problems.size(); ++i) text += (i > 0 ? "; " : "") + problems[i];
  return text;
}

std::string_view describe(CheckVerdict verdict) {
  switch (verdict) {
    case CheckVerdict::kPass: return "PASS";
    case CheckVerdict::kFail: return "FAIL";
    case CheckVerdict::kSkip: return "SKIP";
    case CheckVerdict::kInterrupted: return "STOPPED";
  }
  return "?";
}

std::string ContestantReport::line() const {
  std::string text = std::string(describe(verdict)) + " " + name;
  if (!version.empty()) text += " (" + version + ")";
  if (protocol == Protocol::kHttps) {
    text += " over https";
    if (tls) text += " (" + tls->text() + ")";
  }
  const auto passed = std::count_if(checks.begin(), checks.end(),
                                    [](const Check& check) { return check.passed; });
  if (verdict == CheckVerdict::kPass) {
    return text + ": " + describe_checks(checks) +
           (pipelining ? "" : " (no pipelining: its manifest says it cannot)");
  }
  text += ": " + problem_text();
  if (verdict == CheckVerdict::kInterrupted && !checks.empty()) {
    text += " (" + std::to_string(passed) + " of " + std::to_string(checks.size()) +
            " checks run passed)";
  }
  return text;
}

std::vector<std::string> ContestantReport::warning_lines() const {
  std::vector<std::string> lines;
  for (const FairnessWarning& warning : warnings) lines.push_back(warning.line(name));
  return lines;
}

namespace {

void fail(ContestantReport& report, std::string problem) {
  report.verdict = CheckVerdict::kFail;
  report.problems.push_back(std::move(problem));
}

void stop_early(ContestantReport& report, const std::string& at) {
  report.verdict = CheckVerdict::kInterrupted;
  report.problems.push_back("interrupted " + at);
}

// Builds the contestant when its build is not cached; false (the report says why) to stop here.
bool build_step(const Contestant& contestant, const ValidationRunOptions& options,
                ContestantReport& report) {
  if (options.cache.state(contestant) == BuildState::kNeedsBuild) {
    say(options, contestant.name() + ": building");
  }
  BuildOutcome built =
      build_if_needed(contestant, options.cache, options.build_timeout_s, options.stop);
  if (interrupted(options)) {
    stop_early(report, "while building");
    return false;
  }
  if (!built.ok) {
    fail(report, built.reason);
    return false;
  }
  return true;
}

// Waits for the started server to be ready, then runs the checks on its routes.
void check_step(const Contestant& contestant, RunningContestant& server,
                const ValidationRunOptions& options, ContestantReport& report) {
  ReadyResult ready = server.wait_ready(options.ready_timeout_s, options.stop);
  if (ready.ok) {
    say(options, contestant.name() + ": ready on " + server.host() + " port " +
                     std::to_string(server.port()) + ", checking");
    ValidateOptions checks = options.checks;
    checks.stop = options.stop;
    checks.pipelining = contestant.manifest.pipelining;
    checks.host = server.host();
    checks.tls = server.protocol() == Protocol::kHttps ? options.start.tls_client : nullptr;
    // Without a database its database routes answer 503 by design: check the others.
    std::vector<Route> routes = contestant.manifest.routes;
    if (options.start.db_url == "none") {
      std::erase_if(routes, is_database_route);
    }
    TlsFacts handshake;
    report.checks = validate_server(server.port(), routes, checks, &handshake);
    if (!handshake.version.empty()) report.tls = handshake;
    if (options.prove_http2 && !interrupted(options)) {
      const bool tls = server.protocol() == Protocol::kHttps;
      const std::string problem =
          prove_http2(server.host(), server.port(), tls ? options.start.tls_files.ca : "",
                      options.checks.timeout_s);
      report.checks.push_back({tls ? "HTTP/2 by ALPN (h2)" : "HTTP/2 with prior knowledge (h2c)",
                               problem.empty(), problem});
    }
    for (const Check& check : report.checks) {
      if (!check.passed) fail(report, check.name + ": " + check.reason);
    }
  } else if (ready.interrupted) {
    stop_early(report, "before it was ready");
  } else {
    fail(report, ready.reason);
  }
  if (interrupted(options) && report.verdict != CheckVerdict::kInterrupted) {
    stop_early(report, "while checking");
  }
}

// A contestant that passed: is it set up to be timed fairly? Warnings only (fairness.hpp).
void fairness_step(const Contestant& contestant, RunningContestant& server,
                   const ValidationRunOptions& options, ContestantReport& report) {
  if (report.verdict != CheckVerdict::kPass || !options.fairness.enabled || interrupted(options)) {
    return;
  }
  say(options, contestant.name() + ": checking fairness (latency against a canned responder, "
                                   "listen backlog, production settings, threads)");
  FairnessResult found =
      check_fairness(contestant, server, options.start.threads, options.fairness, options.stop);
  if (!found.measured.empty()) say(options, contestant.name() + ": fairness: " + found.measured);
  report.warnings = std::move(found.warnings);
  if (interrupted(options)) stop_early(report, "while checking fairness");
}

// Stops the server with its stop signal; a stop that left something behind is a failure.
void stop_step(const Contestant& contestant, RunningContestant& server,
               const ValidationRunOptions& options, ContestantReport& report) {
  say(options, contestant.name() + ": stopping with " + contestant.manifest.stop_signal_name);
  const StopResult stopped = server.stop(options.stop_grace_s);
  const std::string problem = stopped.problem();
  if (!problem.empty()) {
    if (report.verdict == CheckVerdict::kInterrupted) {
      report.problems.push_back(problem);
    } else {
      fail(report, "stop: " + problem);
    }
  }
  if (report.verdict == CheckVerdict::kFail) report.last_output = server.last_output(5);
}

}  // namespace

ContestantReport validate_contestant(const Contestant& contestant,
                                     const ValidationRunOptions& options) {
  ContestantReport report;
  report.name = contestant.name();
  report.pipelining = contestant.manifest.pipelining;
  report.protocol = options.start.protocol;
  const Runnability runnability = check_runnable(contestant);
  if (!runnability.runnable) {
    report.verdict = CheckVerdict::kSkip;
    report.problems.push_back(skip_reason(runnability));
    return report;
  }
  if (const std::string unserved = unserved_protocol(contestant, report.protocol); !unserved.empty()) {
    report.verdict = CheckVerdict::kSkip;
    report.problems.push_back(unserved);
    return report;
  }
  report.version = runtime_version(contestant);
  if (!build_step(contestant, options, report)) return report;
  if (options.start.host != "127.0.0.1" && !contestant.takes_host()) {
    fail(report, no_host_reason(options.start.host));
    return report;
  }
  say(options, contestant.name() + ": starting");
  std::optional<RunningContestant> server;
  try {
    server.emplace(contestant, options.start);
  } catch (const std::exception& error) {
    fail(report, std::string("start: ") + error.what());
    return report;
  }
  check_step(contestant, *server, options, report);
  fairness_step(contestant, *server, options, report);
  stop_step(contestant, *server, options, report);
  return report;
}

bool needs_database(const std::vector<Contestant>& contestants) {
  return std::any_of(contestants.begin(), contestants.end(), [](const Contestant& contestant) {
    return contestant.manifest.db_pool > 0 && check_runnable(contestant).runnable;
  });
}

std::string ListEntry::line(std::size_t name_width, std::size_t version_width) const {
  auto pad = [](std::string text, std::size_t width) {
    if (text.size() < width) text.append(width - text.size(), ' ');
    return text;
  };
  std::string text = pad(name, name_width) + "  " + pad(version, version_width) + "  " +
                     pad(std::string(describe(build)), 11) + "  ";
  if (runnability.runnable) {
    text += "runnable";
  } else {
    text += "not runnable: " + runnability.reason;
    if (!runnability.install.empty()) text += "; install: " + runnability.install;
  }
  if (!found_in.empty()) text += "  (from " + found_in.string() + ")";
  return text;
}

ListEntry list_entry(const Contestant& contestant, const BuildCache& cache) {
  ListEntry entry;
  entry.name = contestant.name();
  entry.runnability = check_runnable(contestant);
  entry.version = entry.runnability.runnable ? runtime_version(contestant) : "-";
  entry.build = cache.state(contestant);
  if (!contestant.bundled) entry.found_in = contestant.found_in;
  return entry;
}

}  // namespace ringside::harness
