#include "harness/check/fairness.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <span>

#include "http/token.hpp"

namespace ringside::harness {
namespace {

std::string printf_text(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// "43.7 ms", "0.052 ms": per-request times are milliseconds, with three significant figures.
std::string ms_text(double seconds) {
  const double ms = seconds * 1e3;
  return printf_text(ms >= 100  ? "%.0f ms"
                     : ms >= 10 ? "%.1f ms"
                     : ms >= 1  ? "%.2f ms"
                                : "%.3f ms",
                     ms);
}

std::string percent_text(double share) {
  return printf_text("%.0f%%", share * 100);
}

// "1,000"
std::string count_text(unsigned long long value) {
  std::string digits = std::to_string(value);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) digits.insert(at, ",");
  return digits;
}

FairnessWarning warning(FairnessCheck check, std::string message) {
  return {check, std::move(message)};
}

}  // namespace

std::string_view fairness_check_name(FairnessCheck check) {
  switch (check) {
    case FairnessCheck::kTcpNoDelay:
      return "tcp-nodelay";
    case FairnessCheck::kSlowRequests:
      return "slow-requests";
    case FairnessCheck::kListenBacklog:
      return "listen-backlog";
    case FairnessCheck::kProductionSettings:
      return "production-settings";
    case FairnessCheck::kThreads:
      return "threads";
  }
  return "?";
}

std::string FairnessWarning::line(const std::string& contestant) const {
  return "WARN fairness: " + contestant + ": " + std::string(fairness_check_name(check)) + ": " +
         message;
}

bool far_above(double seconds, double floor_s) {
  return std::isfinite(seconds) && std::isfinite(floor_s) && seconds >= kFarFactor * floor_s &&
         seconds - floor_s >= kFarMarginS;
}

namespace {

double median_of(std::vector<double> values) {
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

}  // namespace

double median_total_s(const std::vector<Exchange>& exchanges) {
  std::vector<double> totals;
  for (const Exchange& exchange : exchanges) totals.push_back(exchange.total_s);
  return median_of(std::move(totals));
}

std::optional<FairnessWarning> judge_latency(const LatencyProbe& probe) {
  const double floor = median_total_s(probe.floor);
  const double server = median_total_s(probe.server);
  if (!std::isfinite(floor) || !std::isfinite(server)) return std::nullopt;
  std::vector<double> spreads;
  unsigned pieces = 0;
  for (const Exchange& exchange : probe.server) {
    if (exchange.pieces < 2 || !far_above(exchange.spread_s, floor)) continue;
    spreads.push_back(exchange.spread_s);
    pieces = std::max(pieces, exchange.pieces);
  }
  const std::string measured =
      "GET " + probe.path + " took " + ms_text(server) + " a request (median of " +
      std::to_string(probe.server.size()) +
      " sequential keep-alive requests; a canned responder on loopback: " + ms_text(floor) + ")";
  if (spreads.size() * 2 >= probe.server.size()) {
    return warning(FairnessCheck::kTcpNoDelay,
                   measured + ", each response in " + std::to_string(pieces) + " pieces " +
                       ms_text(median_of(spreads)) +
                       " apart: Nagle's algorithm holds the rest back until the client's "
                       "delayed ACK; set TCP_NODELAY on accepted sockets (or write the head "
                       "and body in one write)");
  }
  if (!far_above(server, floor)) return std::nullopt;
  return warning(FairnessCheck::kSlowRequests,
                 measured + ", " + printf_text("%.0f", server / floor) +
                     "x the floor: look for a debug build (its build flags), a logging "
                     "middleware (turn request logging off) or synchronous I/O per request "
                     "(strace -f -c the server while it answers)");
}

namespace {

bool as_declared(const BacklogProbe& probe) {
  return probe.declared > 0 &&
         std::all_of(probe.backlogs.begin(), probe.backlogs.end(),
                     [&](std::uint32_t backlog) { return backlog == probe.declared; });
}

}  // namespace

std::optional<FairnessWarning> judge_backlog(const BacklogProbe& probe) {
  if (probe.backlogs.empty() || probe.connections == 0) return std::nullopt;
  const std::uint32_t smallest = *std::min_element(probe.backlogs.begin(), probe.backlogs.end());
  if (probe.declared > 0 && !as_declared(probe)) {
    return warning(FairnessCheck::kListenBacklog,
                   "its manifest says its runtime fixes the listen backlog at " +
                       count_text(probe.declared) + " (listen_backlog), but port " +
                       std::to_string(probe.port) + " has " + count_text(smallest) +
                       ": correct listen_backlog, or remove it and set the backlog in listen()");
  }
  unsigned wanted = probe.connections;
  if (probe.somaxconn && *probe.somaxconn > 0) wanted = std::min(wanted, *probe.somaxconn);
  if (smallest >= wanted || as_declared(probe)) return std::nullopt;
  std::string message = "the listen backlog of port " + std::to_string(probe.port) + " is " +
                        count_text(smallest) + " (the kernel's Send-Q of its ";
  message += probe.backlogs.size() == 1
                 ? std::string("listening socket)")
                 : "smallest of " + std::to_string(probe.backlogs.size()) + " listening sockets)";
  message += ", below the " + count_text(probe.connections) + " connections of " +
             probe.connections_source;
  if (probe.somaxconn) {
    message += " (net.core.somaxconn " + count_text(*probe.somaxconn) + " caps any backlog)";
  }
  return warning(FairnessCheck::kListenBacklog,
                 message +
                     ": connections beyond it wait for SYN retransmits; pass a larger "
                     "backlog to listen() (Python: request_queue_size = 4096 or "
                     "sock.listen(4096); Node: server.listen({port, backlog: 65535}))");
}

namespace {

std::string_view base_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

using Command = std::vector<std::string>;

// The commands an argv runs: itself, or for `sh -c SCRIPT` (bash, dash too) the script's commands,
// split at ; & | and newlines into words at blanks. No quoting: manifests' scripts are short.
std::vector<Command> commands_of(const std::vector<std::string>& argv) {
  if (argv.size() < 3 || argv[1] != "-c") return {argv};
  const std::string_view shell = base_name(argv[0]);
  if (shell != "sh" && shell != "bash" && shell != "dash") return {argv};
  std::vector<Command> commands(1);
  std::string word;
  for (const char c : argv[2] + "\n") {
    const bool ends_command = c == ';' || c == '&' || c == '|' || c == '\n';
    if (ends_command || c == ' ' || c == '\t') {
      if (!word.empty()) commands.back().push_back(std::move(word));
      word.clear();
      if (ends_command && !commands.back().empty()) commands.emplace_back();
    } else {
      word += c;
    }
  }
  if (commands.back().empty()) commands.pop_back();
  return commands;
}

// Node or Bun, by the manifest's runtime or the program its start runs.
std::string javascript_runtime(const Manifest& manifest) {
  const std::string runtime = http::lowercase_copy(manifest.runtime);
  const std::string program =
      manifest.start.empty() ? "" : std::string(base_name(manifest.start[0]));
  if (runtime == "node" || program == "node" || program == "nodejs") return "node";
  if (runtime == "bun" || program == "bun") return "bun";
  return "";
}

std::optional<FairnessWarning> node_env_warning(const Manifest& manifest) {
  const std::string runtime = javascript_runtime(manifest);
  if (runtime.empty()) return std::nullopt;
  for (const auto& [name, value] : manifest.env) {
    if (name == "NODE_ENV" && value == "production") return std::nullopt;
  }
  const std::string why = runtime == "bun"
                              ? "Bun.serve runs in development mode without it"
                              : "express and other frameworks take their development paths "
                                "without it (no view cache, stack traces in error pages)";
  return warning(FairnessCheck::kProductionSettings,
                 "its [env] does not set NODE_ENV = \"production\" (runtime " + runtime +
                     "): " + why + "; add NODE_ENV = \"production\" to [env]");
}

std::optional<FairnessWarning> inspector_warning(const Manifest& manifest) {
  for (const Command& command : commands_of(manifest.start)) {
    for (const std::string& word : command) {
      if (!word.starts_with("--inspect")) continue;
      return warning(FairnessCheck::kProductionSettings,
                     "its start runs with " + word +
                         ": a debugger's inspector slows every request; remove it from start");
    }
  }
  return std::nullopt;
}

// cargo build/run without --release (or -r, or --profile release), or a start under target/debug.
bool cargo_debug(const Command& command) {
  const auto cargo = std::find_if(command.begin(), command.end(),
                                  [](const std::string& w) { return base_name(w) == "cargo"; });
  if (cargo == command.end()) return false;
  const auto sub = std::find_if(cargo + 1, command.end(), [](const std::string& w) {
    return !w.empty() && w[0] != '-' && w[0] != '+';
  });
  if (sub == command.end() || (*sub != "build" && *sub != "run" && *sub != "b" && *sub != "r"))
    return false;
  for (auto word = cargo + 1; word != command.end(); ++word) {
    if (*word == "--release" || *word == "-r" || word->starts_with("--profile=") ||
        (*word == "--profile" && word + 1 != command.end())) {
      return false;
    }
  }
  return true;
}

std::optional<FairnessWarning> cargo_warning(const Manifest& manifest) {
  bool debug =
      !manifest.start.empty() && (manifest.start[0].starts_with("target/debug/") ||
                                  manifest.start[0].find("/target/debug/") != std::string::npos);
  for (const auto* argv : {&manifest.build, &manifest.start}) {
    for (const Command& command : commands_of(*argv)) debug = debug || cargo_debug(command);
  }
  if (!debug) return std::nullopt;
  return warning(FairnessCheck::kProductionSettings,
                 "it builds or starts a cargo debug build (no --release): unoptimised Rust runs "
                 "several times slower (the seeds' Rocket measured 5x so); build with cargo build "
                 "--release and start target/release/...");
}

// A C or C++ compiler run whose last -O is -O0, or that has none.
bool unoptimised_compile(const Command& command) {
  static const std::vector<std::string_view> compilers = {"cc",  "gcc", "clang",
                                                          "c++", "g++", "clang++"};
  if (command.empty() ||
      std::find(compilers.begin(), compilers.end(), base_name(command[0])) == compilers.end()) {
    return false;
  }
  std::string level = "-O0";
  for (const std::string& word : command) {
    if (word.starts_with("-O")) level = word;
  }
  return level == "-O0";
}

std::optional<FairnessWarning> compiler_warning(const Manifest& manifest) {
  for (const Command& command : commands_of(manifest.build)) {
    if (!unoptimised_compile(command)) continue;
    return warning(FairnessCheck::kProductionSettings,
                   "its build runs " + command[0] +
                       " without optimisation (no -O, or -O0): add -O2 to the compile in build");
  }
  return std::nullopt;
}

}  // namespace

std::vector<FairnessWarning> judge_production_settings(const Manifest& manifest) {
  std::vector<FairnessWarning> warnings;
  for (auto judge : {node_env_warning, inspector_warning, cargo_warning, compiler_warning}) {
    if (auto found = judge(manifest)) warnings.push_back(std::move(*found));
  }
  return warnings;
}

std::vector<ThreadWork> thread_work(const std::vector<ThreadTimes>& before,
                                    const std::vector<ThreadTimes>& after) {
  std::map<pid_t, double> earlier;
  for (const ThreadTimes& thread : before) earlier[thread.tid] = thread.times.run_s;
  std::vector<ThreadWork> work;
  for (const ThreadTimes& thread : after) {
    const auto found = earlier.find(thread.tid);
    const double start = found == earlier.end() ? 0 : found->second;
    work.push_back({thread.tid, thread.name, std::max(0.0, thread.times.run_s - start)});
  }
  std::sort(work.begin(), work.end(),
            [](const ThreadWork& a, const ThreadWork& b) { return a.cpu_s > b.cpu_s; });
  return work;
}

namespace {

// "node 98%, libuv-worker 1%": the first few threads with their share of `of`.
std::string threads_text(std::span<const ThreadWork> threads, double of) {
  std::string text;
  for (std::size_t i = 0; i < threads.size() && i < 4; ++i) {
    text += (i ? ", " : "") + threads[i].name + " " + percent_text(threads[i].cpu_s / of);
  }
  if (threads.size() > 4) text += ", ...";
  return text;
}

std::string given_text(const ThreadProbe& probe) {
  return probe.param ? "{threads} = " + std::to_string(probe.given)
                     : "threads = " + std::to_string(probe.given) + " in its manifest";
}

std::string burst_text(const ThreadProbe& probe) {
  return "a " + printf_text("%.1f", probe.wall_s) + " s burst of " +
         std::to_string(probe.connections) + " connections";
}

}  // namespace

std::optional<FairnessWarning> judge_threads(const ThreadProbe& probe) {
  double total = 0;
  for (const ThreadWork& thread : probe.threads) total += thread.cpu_s;
  if (total < kMinBurstCpuS || probe.wall_s <= 0) return std::nullopt;
  const unsigned given = std::max(1u, probe.given);
  std::vector<ThreadWork> threads = probe.threads;
  std::sort(threads.begin(), threads.end(),
            [](const ThreadWork& a, const ThreadWork& b) { return a.cpu_s > b.cpu_s; });
  const auto working =
      static_cast<unsigned>(std::count_if(threads.begin(), threads.end(), [&](const ThreadWork& t) {
        return t.cpu_s * 4 * given >= total;
      }));
  if (probe.param && given > 1 && working < given) {
    return warning(FairnessCheck::kThreads,
                   given_text(probe) + ", but " + std::to_string(working) +
                       " thread(s) did a real share of the work in " + burst_text(probe) + " (" +
                       threads_text(threads, total) +
                       " of its CPU): make {threads} set its worker count (threads, processes "
                       "or isolates)");
  }
  // Helpers (a garbage collector's, a JIT's) run beside the main thread for part of its time;
  // workers each carry a like share. So busy means on a CPU for kBusyShare of the burst and for
  // at least half the busiest thread's time.
  const double busiest = threads.front().cpu_s;
  const auto busy =
      static_cast<unsigned>(std::count_if(threads.begin(), threads.end(), [&](const ThreadWork& t) {
        return t.cpu_s >= kBusyShare * probe.wall_s && t.cpu_s * 2 >= busiest;
      }));
  if (busy <= given) return std::nullopt;
  return warning(FairnessCheck::kThreads,
                 given_text(probe) + ", but " + std::to_string(busy) +
                     " threads were each on a CPU for " + percent_text(kBusyShare) + " of " +
                     burst_text(probe) + " or more (" + threads_text(threads, probe.wall_s) +
                     " of the time): it uses more cores than it is given; make it honour "
                     "{threads}, or give its real count as threads in its manifest");
}

std::string describe_measurements(const LatencyProbe& latency, const BacklogProbe& backlog,
                                  const ThreadProbe& threads) {
  std::vector<std::string> parts;
  if (!latency.server.empty() && !latency.floor.empty()) {
    parts.push_back("GET " + latency.path + " " + ms_text(median_total_s(latency.server)) +
                    " a request (floor " + ms_text(median_total_s(latency.floor)) + ")");
  }
  if (!backlog.backlogs.empty()) {
    parts.push_back(
        "listen backlog " +
        count_text(*std::min_element(backlog.backlogs.begin(), backlog.backlogs.end())) +
        (as_declared(backlog) ? " (fixed by its runtime, as its manifest says)" : ""));
  }
  if (threads.wall_s > 0) {
    double total = 0;
    for (const ThreadWork& thread : threads.threads) total += thread.cpu_s;
    parts.push_back(printf_text("%.2f", total / threads.wall_s) + " CPUs over " +
                    burst_text(threads) + ": " + threads_text(threads.threads, threads.wall_s));
  }
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : "; ") + part;
  return text;
}

}  // namespace ringside::harness
