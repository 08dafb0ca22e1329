#include "harness/loaders/external_loader.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <thread>

#include "harness/process/process.hpp"
#include "http/token.hpp"

namespace ringside::harness {
namespace {

constexpr double kTimeoutSlackS = 60;
constexpr double kCountModeSPerRequest = 0.01;
constexpr unsigned kAbMaxConnections = 20000;  // ab's MAX_CONCURRENCY
// ab sizes its results array by -n before it starts, and -t alone caps it at 50,000 requests; so
// with -t, -n is a rate no single core reaches (1M requests/s) over the duration.
constexpr double kAbDurationRequestsPerS = 1e6;
constexpr std::size_t kMaxOutput = 1 << 20;
constexpr auto kPoll = std::chrono::milliseconds(20);

std::string format_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

bool is_whole(double value) { return value == std::floor(value); }

// "Content-Type: text/plain" -> its value when the header is that name, else nothing.
std::optional<std::string> header_value(std::string_view header, std::string_view name) {
  const std::size_t colon = header.find(':');
  if (colon == std::string_view::npos || !http::equals_ignore_case(header.substr(0, colon), name)) {
    return std::nullopt;
  }
  std::string_view value = header.substr(colon + 1);
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  return std::string(value);
}

std::optional<std::string> content_type(const LoaderSpec& spec) {
  for (const auto& header : spec.headers) {
    if (auto value = header_value(header, "content-type")) return value;
  }
  return std::nullopt;
}

// A URL with an empty path gets "/": ab refuses one without, and the others send "/" anyway.
std::string url_with_path(const std::string& url) {
  const std::size_t scheme = url.find("://");
  const std::size_t host = scheme == std::string::npos ? 0 : scheme + 3;
  return url.find('/', host) == std::string::npos ? url + "/" : url;
}

std::string file_path(std::string_view name) {
  return std::string(kLoaderFilesDir) + "/" + std::string(name);
}

// A Lua string literal holding any bytes: three-digit decimal escapes, so a digit after one is
// not read as part of it.
std::string lua_quote(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || byte < 0x20 || byte >= 0x7f) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\%03u", unsigned(byte));
      out += escape;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

bool wrk_needs_script(const LoaderSpec& spec) {
  return spec.method != "GET" || !spec.body.empty() || spec.pipeline > 1;
}

std::string wrk_script(const LoaderSpec& spec) {
  std::string lua = "-- written by ringside compare for one point; see docs/loaders.md\n";
  lua += "wrk.method = " + lua_quote(spec.method) + "\n";
  if (!spec.body.empty()) lua += "wrk.body = " + lua_quote(spec.body) + "\n";
  if (spec.pipeline > 1) {
    // wrk counts the requests in what request() returns and expects that many responses.
    lua += "local batch\n"
           "function init(args)\n"
           "  local requests = {}\n"
           "  for i = 1, " + std::to_string(spec.pipeline) + " do requests[i] = wrk.format() end\n"
           "  batch = table.concat(requests)\n"
           "end\n"
           "function request() return batch end\n";
  }
  return lua;
}

std::string refuse(std::string_view loader, std::string_view what) {
  return std::string(loader) + ": " + std::string(what);
}

// The checks every loader shares: something to run, a way to end, sane counts.
std::string check_common(const LoaderSpec& spec) {
  const std::string_view name = loader_name(spec.kind);
  if (spec.url.empty()) return refuse(name, "no URL to load");
  if (spec.connections == 0) return refuse(name, "connections must be at least 1");
  if (spec.threads == 0) return refuse(name, "loader_threads must be at least 1");
  if (spec.pipeline == 0) return refuse(name, "pipeline must be at least 1");
  if (spec.duration_s <= 0 && spec.requests == 0) {
    return refuse(name, "neither a duration nor a request count: give one");
  }
  if (spec.rate < 0) return refuse(name, "rate must not be negative");
  return {};
}

std::vector<std::string> wrk_argv(const LoaderSpec& spec, std::string& error) {
  if (spec.duration_s <= 0) {
    error = "wrk: a request count (requests = N) is not possible: wrk only runs for a duration";
  } else if (spec.rate > 0) {
    error = "wrk: no open model (rate): that needs wrk2, which Debian does not package; use "
            "loader = \"ringside\"";
  } else if (!is_whole(spec.duration_s)) {
    error = "wrk: duration must be whole seconds (wrk -d takes no fraction), not " +
            format_number(spec.duration_s) + " s";
  } else if (spec.threads > spec.connections) {
    error = "wrk: loader_threads (" + std::to_string(spec.threads) +
            ") must not exceed connections (" + std::to_string(spec.connections) + ")";
  }
  if (!error.empty()) return {};
  std::vector<std::string> argv = {"wrk",
                                   "-t",
                                   std::to_string(spec.threads),
                                   "-c",
                                   std::to_string(spec.connections),
                                   "-d",
                                   format_number(spec.duration_s) + "s",
                                   "--latency"};
  for (const auto& header : spec.headers) argv.insert(argv.end(), {"-H", header});
  // wrk reconnects when the server closes, so this is how it runs without keep-alive.
  if (!spec.keep_alive) argv.insert(argv.end(), {"-H", "Connection: close"});
  if (wrk_needs_script(spec)) argv.insert(argv.end(), {"-s", file_path("request.lua")});
  argv.push_back(url_with_path(spec.url));
  return argv;
}

std::vector<std::string> ab_argv(const LoaderSpec& spec, std::string& error) {
  if (spec.rate > 0) {
    error = "ab: no open model (rate): ab only runs closed; use loader = \"ringside\"";
  } else if (spec.pipeline > 1) {
    error = "ab: no pipelining: ab sends one request at a time per connection";
  } else if (spec.threads > 1) {
    error = "ab: single-threaded: loader_threads must be 1";
  } else if (spec.connections > kAbMaxConnections) {
    error = "ab: at most 20000 connections (ab's limit), not " + std::to_string(spec.connections);
  } else if (spec.duration_s > 0 && (!is_whole(spec.duration_s))) {
    error = "ab: duration must be whole seconds (ab -t takes no fraction), not " +
            format_number(spec.duration_s) + " s";
  } else if (spec.duration_s <= 0 && spec.requests < spec.connections) {
    error = "ab: requests (" + std::to_string(spec.requests) +
            ") must be at least connections (" + std::to_string(spec.connections) + ")";
  }
  if (!error.empty()) return {};
  // -r: go on after a receive error and count it (the seed's ab stopped at the first reset);
  // -l: a response whose length differs from the first is not a failure (/users/{1..N}).
  std::vector<std::string> argv = {"ab", "-q", "-r", "-l", "-c", std::to_string(spec.connections)};
  if (spec.duration_s > 0) {
    const double cap = std::min(spec.duration_s * kAbDurationRequestsPerS,
                                double(std::numeric_limits<int>::max()));
    argv.insert(argv.end(), {"-t", format_number(spec.duration_s), "-n",
                             std::to_string(static_cast<long long>(cap))});
  } else {
    argv.insert(argv.end(), {"-n", std::to_string(spec.requests)});
  }
  if (spec.keep_alive) argv.push_back("-k");
  if (spec.method == "HEAD") {
    argv.push_back("-i");
  } else if (spec.method != "GET" &&
             !((spec.method == "POST" || spec.method == "PUT") && !spec.body.empty())) {
    argv.insert(argv.end(), {"-m", spec.method});
  }
  for (const auto& header : spec.headers) {
    if (!spec.body.empty() && header_value(header, "content-type")) continue;  // -T says it
    argv.insert(argv.end(), {"-H", header});
  }
  if (!spec.body.empty()) {
    argv.insert(argv.end(), {spec.method == "PUT" ? "-u" : "-p", file_path("body"), "-T",
                             content_type(spec).value_or("text/plain")});
  }
  argv.push_back(url_with_path(spec.url));
  return argv;
}

std::vector<std::string> h2load_argv(const LoaderSpec& spec, std::string& error) {
  const bool post = spec.method == "POST" && !spec.body.empty();
  if (spec.method != "GET" && !post) {
    error = "h2load: method " + spec.method +
            " is not possible: h2load sends GET, or POST when there is a body";
  } else if (spec.method == "GET" && !spec.body.empty()) {
    error = "h2load: a body makes h2load send POST: set method = \"POST\"";
  } else if (spec.pipeline > 1 && !spec.body.empty()) {
    error = "h2load: no pipelining with a body (h2load sends one at a time then)";
  } else if (spec.pipeline > 1 && !spec.keep_alive) {
    error = "h2load: pipelining needs keep-alive";
  } else if (spec.threads > spec.connections) {
    error = "h2load: loader_threads (" + std::to_string(spec.threads) +
            ") must not exceed connections (" + std::to_string(spec.connections) + ")";
  } else if (spec.duration_s <= 0 && spec.requests < spec.connections) {
    error = "h2load: requests (" + std::to_string(spec.requests) +
            ") must be at least connections (" + std::to_string(spec.connections) + ")";
  }
  if (!error.empty()) return {};
  std::vector<std::string> argv = {"h2load", "--h1", "-t", std::to_string(spec.threads), "-c",
                                   std::to_string(spec.connections)};
  if (spec.duration_s > 0) {
    // -D takes units; milliseconds keep a fraction of a second, which "1.5" would not.
    argv.insert(argv.end(),
                {"-D", format_number(std::round(spec.duration_s * 1000)) + "ms"});
  } else {
    argv.insert(argv.end(), {"-n", std::to_string(spec.requests)});
  }
  // --rps is per client (connection), and paces each one: not corrected for coordinated omission.
  if (spec.rate > 0) argv.push_back("--rps=" + format_number(spec.rate / spec.connections));
  if (spec.pipeline > 1) argv.insert(argv.end(), {"-m", std::to_string(spec.pipeline)});
  for (const auto& header : spec.headers) argv.insert(argv.end(), {"-H", header});
  if (!spec.keep_alive) argv.insert(argv.end(), {"-H", "Connection: close"});
  if (post) argv.insert(argv.end(), {"-d", file_path("body")});
  argv.push_back(url_with_path(spec.url));
  return argv;
}

std::vector<std::string> hey_argv(const LoaderSpec& spec, std::string& error) {
  static constexpr std::string_view kMethods[] = {"GET", "POST", "PUT", "DELETE", "HEAD",
                                                  "OPTIONS"};
  if (std::find(std::begin(kMethods), std::end(kMethods), spec.method) == std::end(kMethods)) {
    error = "hey: method " + spec.method +
            " is not possible: hey sends GET, POST, PUT, DELETE, HEAD or OPTIONS";
  } else if (spec.pipeline > 1) {
    error = "hey: no pipelining: Go's HTTP client sends one request at a time per connection";
  } else if (spec.duration_s <= 0 && spec.requests % spec.connections != 0) {
    error = "hey: requests (" + std::to_string(spec.requests) +
            ") must be a multiple of connections (" + std::to_string(spec.connections) +
            "): hey gives each worker requests/connections and drops the rest";
  } else if (spec.duration_s <= 0 && spec.requests < spec.connections) {
    error = "hey: requests must be at least connections";
  }
  if (!error.empty()) return {};
  std::vector<std::string> argv = {"hey", "-c", std::to_string(spec.connections), "-cpus",
                                   std::to_string(spec.threads)};
  if (spec.duration_s > 0) {
    argv.insert(argv.end(),
                {"-z", format_number(std::round(spec.duration_s * 1000)) + "ms"});
  } else {
    argv.insert(argv.end(), {"-n", std::to_string(spec.requests)});
  }
  // -q is per worker (connection), a pacer: not corrected for coordinated omission.
  if (spec.rate > 0) argv.insert(argv.end(), {"-q", format_number(spec.rate / spec.connections)});
  argv.insert(argv.end(), {"-m", spec.method});
  for (const auto& header : spec.headers) {
    if (header_value(header, "content-type")) continue;  // -T, or hey adds text/html of its own
    argv.insert(argv.end(), {"-H", header});
  }
  if (auto type = content_type(spec)) argv.insert(argv.end(), {"-T", *type});
  if (!spec.body.empty()) argv.insert(argv.end(), {"-d", spec.body});
  if (!spec.keep_alive) argv.push_back("-disable-keepalive");
  argv.push_back(url_with_path(spec.url));
  return argv;
}

}  // namespace

std::string_view loader_program(LoaderKind kind) {
  return kind == LoaderKind::kRingside ? std::string_view() : loader_name(kind);
}

std::vector<std::string> loader_argv(const LoaderSpec& spec, std::string& error) {
  error.clear();
  if (spec.kind == LoaderKind::kRingside) {
    error = "ringside: runs in-process (ringside::load), not as a command";
    return {};
  }
  error = check_common(spec);
  if (!error.empty()) return {};
  switch (spec.kind) {
    case LoaderKind::kWrk: return wrk_argv(spec, error);
    case LoaderKind::kAb: return ab_argv(spec, error);
    case LoaderKind::kH2load: return h2load_argv(spec, error);
    case LoaderKind::kHey: return hey_argv(spec, error);
    case LoaderKind::kRingside: break;
  }
  return {};
}

std::vector<LoaderFile> loader_files(const LoaderSpec& spec) {
  std::vector<LoaderFile> files;
  switch (spec.kind) {
    case LoaderKind::kWrk:
      if (wrk_needs_script(spec)) files.push_back({"request.lua", wrk_script(spec)});
      break;
    case LoaderKind::kAb:
    case LoaderKind::kH2load:
      if (!spec.body.empty()) files.push_back({"body", spec.body});
      break;
    case LoaderKind::kHey:
    case LoaderKind::kRingside: break;
  }
  return files;
}

// ---------------------------------------------------------------------------------------------
// running (the parsers are in loader_output.cpp)

namespace {

bool on_path(std::string_view program) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "/usr/bin:/bin";
  while (true) {
    const std::size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + std::string(program);
    if (access(candidate.c_str(), X_OK) == 0) return true;
    if (colon == std::string_view::npos) return false;
    dirs.remove_prefix(colon + 1);
  }
}

// "0", "1-3", "0,2-3" -> CPU numbers; nothing and an error for anything else.
std::vector<int> parse_cpu_list(std::string_view text, std::string& error) {
  const std::string whole(text);
  std::vector<int> cpus;
  auto number = [](std::string_view digits, int& value) {
    const auto [end, problem] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    return problem == std::errc() && end == digits.data() + digits.size() && value >= 0 &&
           value < CPU_SETSIZE;
  };
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view part = text.substr(0, comma);
    const std::size_t dash = part.find('-');
    int first = 0;
    int last = 0;
    const bool ok = number(part.substr(0, dash), first) &&
                    number(dash == std::string_view::npos ? part.substr(0, dash)
                                                          : part.substr(dash + 1),
                           last) &&
                    first <= last;
    if (!ok) {
      cpus.clear();
      error = "load CPUs '" + whole + "' are not a list like 1 or 0-3 or 1,3";
      return cpus;
    }
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  return cpus;
}

unsigned allowed_cpus(const std::vector<int>& pinned) {
  if (!pinned.empty()) return static_cast<unsigned>(pinned.size());
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<unsigned>(CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

std::string make_temp_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/ringside-loader-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a temporary directory like " + pattern + ": " +
                             std::strerror(errno));
  }
  return pattern;
}

void write_file(const std::string& path, const std::string& contents) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << contents;
  if (!file) throw std::runtime_error("cannot write " + path);
}

struct Reaped {
  int status = 0;
  double cpu_s = kUnmeasured;
  bool timed_out = false;
  bool interrupted = false;
};

double seconds_of(const timeval& time) {
  return double(time.tv_sec) + double(time.tv_usec) / 1e6;
}

// Waits for the leader without reaping it (WNOWAIT), so that wait4 below reaps it and gets its
// rusage, which ChildProcess's own waitpid would throw away.
Reaped wait_for(ChildProcess& child, double timeout_s, const std::atomic<bool>* stop) {
  Reaped reaped;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (true) {
    siginfo_t info{};
    const int waited = waitid(P_PID, static_cast<id_t>(child.pid()), &info,
                              WEXITED | WNOHANG | WNOWAIT);
    if (waited == 0 && info.si_pid == child.pid()) break;
    if (waited != 0 && errno != EINTR) break;  // not ours to wait for: nothing to measure
    if (std::chrono::steady_clock::now() >= deadline) {
      reaped.timed_out = true;
      break;
    }
    if (stop != nullptr && stop->load()) {
      reaped.interrupted = true;
      break;
    }
    std::this_thread::sleep_for(kPoll);
  }
  if (reaped.timed_out || reaped.interrupted) killpg(child.pid(), SIGKILL);
  rusage usage{};
  pid_t done;
  do {
    done = wait4(child.pid(), &reaped.status, 0, &usage);
  } while (done < 0 && errno == EINTR);
  if (done == child.pid()) reaped.cpu_s = seconds_of(usage.ru_utime) + seconds_of(usage.ru_stime);
  return reaped;
}

std::string read_output(const std::string& path) {
  std::string text = read_tail(path, kMaxOutput);
  return text;
}

// The loader's command line and the CPUs to pin it to; an error for a spec it cannot run, a tool
// not on PATH or a CPU list that does not parse.
ProcessSpec plan_process(const LoaderSpec& spec, std::string& error) {
  ProcessSpec process;
  process.argv = loader_argv(spec, error);
  if (!error.empty()) return process;
  if (!on_path(loader_program(spec.kind))) {
    error = std::string(loader_name(spec.kind)) + " is not installed: run scripts/setup";
    return process;
  }
  process.cpus = parse_cpu_list(spec.cpus, error);
  return process;
}

// A fresh temporary directory holding the files the loader reads; "" and an error if not.
std::string write_loader_files(const LoaderSpec& spec, std::string& error) {
  std::string dir;
  try {
    dir = make_temp_dir();
    for (const auto& file : loader_files(spec)) write_file(dir + "/" + file.name, file.contents);
  } catch (const std::exception& problem) {
    if (!dir.empty()) std::filesystem::remove_all(dir);
    error = std::string(loader_name(spec.kind)) + ": " + problem.what();
    return {};
  }
  return dir;
}

// Points the command line's file arguments into dir, and the output into dir/output.txt.
void place_in_dir(ProcessSpec& process, const std::string& dir) {
  for (auto& argument : process.argv) {
    if (argument.starts_with(kLoaderFilesDir)) {
      argument = dir + argument.substr(kLoaderFilesDir.size());
    }
  }
  process.output_path = dir + "/output.txt";
}

// The spec's timeout, else the duration plus slack (count mode: slack plus 10 ms a request).
double timeout_of(const LoaderSpec& spec) {
  return spec.timeout_s > 0    ? spec.timeout_s
         : spec.duration_s > 0 ? spec.duration_s + kTimeoutSlackS
                               : kTimeoutSlackS + double(spec.requests) * kCountModeSPerRequest;
}

// Starts the loader, waits for it and reaps it; nothing and an error when it cannot be started.
std::optional<Reaped> start_and_reap(const ProcessSpec& process, std::string_view name,
                                     double timeout_s, const std::atomic<bool>* stop,
                                     std::string& error) {
  try {
    ChildProcess child(process);
    const Reaped reaped = wait_for(child, timeout_s, stop);
    // The leader is reaped; this sweeps anything it left in its group.
    (void)child.stop(SIGKILL, 0);
    return reaped;
  } catch (const std::exception& problem) {
    error = std::string(name) + ": " + problem.what();
    return std::nullopt;
  }
}

// The figures in the tool's report; parse_error says so when the output is not one.
RoundFigures parse_output(const LoaderSpec& spec, std::string_view output,
                          std::string& parse_error) {
  switch (spec.kind) {
    case LoaderKind::kWrk: return parse_wrk_output(output, parse_error);
    case LoaderKind::kAb: return parse_ab_output(output, parse_error);
    case LoaderKind::kH2load: return parse_h2load_output(output, parse_error);
    case LoaderKind::kHey: return parse_hey_output(output, parse_error);
    case LoaderKind::kRingside: break;
  }
  return {};
}

// The loader's own CPU time from wait4, and its share of the CPUs it was allowed.
void add_loader_cpu(RoundFigures& figures, double cpu_s, const std::vector<int>& cpus) {
  figures.loader_cpu_s = cpu_s;
  if (figures.duration_s > 0 && !std::isnan(cpu_s)) {
    figures.loader_cpu_share = cpu_s / (figures.duration_s * allowed_cpus(cpus));
  }
}

// "" when the loader ran to its end and its report parsed; else one line saying what went wrong.
std::string run_error(std::string_view name, const Reaped& reaped, const std::string& parse_error,
                      double timeout_s, const std::string& output) {
  if (reaped.interrupted) return std::string(name) + " was stopped before it finished";
  if (reaped.timed_out) {
    return std::string(name) + " did not finish within " + format_seconds(timeout_s) + ": killed";
  }
  if (!parse_error.empty()) return parse_error + " (" + describe_wait_status(reaped.status) + ")";
  if (!WIFEXITED(reaped.status) || WEXITSTATUS(reaped.status) != 0) {
    return std::string(name) + " failed (" + describe_wait_status(reaped.status) +
           "): " + tail_lines(output, 2);
  }
  return {};
}

}  // namespace

LoaderOutcome run_external_loader(const LoaderSpec& spec, const std::atomic<bool>* stop) {
  LoaderOutcome outcome;
  ProcessSpec process = plan_process(spec, outcome.error);
  if (!outcome.error.empty()) return outcome;
  const std::string dir = write_loader_files(spec, outcome.error);
  if (!outcome.error.empty()) return outcome;
  place_in_dir(process, dir);

  const double timeout_s = timeout_of(spec);
  const std::string_view name = loader_name(spec.kind);
  const std::optional<Reaped> reaped =
      start_and_reap(process, name, timeout_s, stop, outcome.error);
  if (!reaped) {
    std::filesystem::remove_all(dir);
    return outcome;
  }
  outcome.output = read_output(process.output_path);
  std::filesystem::remove_all(dir);

  std::string parse_error;
  outcome.figures = parse_output(spec, outcome.output, parse_error);
  add_loader_cpu(outcome.figures, reaped->cpu_s, process.cpus);
  if (spec.rate > 0) outcome.figures.target_rate = spec.rate;
  outcome.error = run_error(name, *reaped, parse_error, timeout_s, outcome.output);
  return outcome;
}

}  // namespace ringside::harness
