// `ringside load`: flags, live progress, Ctrl-C (or SIGTERM, SIGHUP) and the reports around
// load::LoadRun.
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "core/socket.hpp"
#include "duration_flag.hpp"
#include "load/hdr_log.hpp"
#include "load/load_run.hpp"
#include "load/report.hpp"
#include "load/resolve_url.hpp"
#include "load/target.hpp"
#include "load/worker_context.hpp"
#include "number_flag.hpp"
#include "share_flag.hpp"
#include "start_at_flag.hpp"

namespace ringside::apps {
namespace {

struct LoadFlags {
  load::LoadConfig config;
  load::RequestSpec spec;
  std::vector<std::string> urls;
  std::string urls_file;
  std::vector<std::size_t> url_lines;  // each URL's line in --urls-file, for messages
  std::string duration;
  std::string timeout = "10s";
  std::string warmup = "0s";
  std::string body_file;
  std::string hlog;
  std::string start_at;
  std::optional<std::string> share;  // set even when given empty, which is refused
  bool no_keepalive = false;
  bool json = false;
};

CLI::Validator flag_check(std::string (*check)(std::string_view)) {
  return CLI::Validator([check](std::string& text) { return check(text); }, "TEXT");
}

void define_flags(CLI::App& app, LoadFlags& f) {
  app.description(
      "Load-test an HTTP/1.1 or HTTP/2 server, over plain TCP or TLS: fixed count (-n), duration "
      "(-d) or constant rate (-R, latency corrected for coordinated omission). Prints a report, "
      "or one JSON document with --json.");
  app.footer(
      "Exit codes: 0 when at least one request completed (whatever its status), 1 when none did "
      "(e.g. the server is down; the report is still printed) or --hlog could not be written, 2 "
      "for "
      "a bad flag or value (one line naming it).");
  app.add_option("url", f.urls,
                 "http://HOST[:PORT]/path or https://HOST[:PORT]/path (HOST: an IP address, or a "
                 "name resolved once at start and sent as TLS SNI)");
  app.add_option("--urls-file", f.urls_file, "File with one URL per line, used round-robin")
      ->check(CLI::ExistingFile);
  app.add_option("-n,--requests", f.config.requests, "Stop after this many requests")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (parse_count(text) == 0u) {
              return "0 requests measure nothing: give at least 1, or drop -n and use -d";
            }
            return check_count(text, 1, ~std::uint64_t{0});
          },
          "INT >= 1"));
  app.add_option("-d,--duration", f.duration, "Stop after this long (default 10s without -n)")
      ->check(duration_in(load::kMinTimeoutS, load::kMaxDurationS));
  app.add_option("-R,--rate", f.config.rate, "Constant rate in requests/s over all connections")
      ->check(number_in(load::kMinRate, load::kMaxRate));
  app.add_option("-c,--connections", f.config.connections, "Concurrent connections")
      ->capture_default_str()
      ->check(count_in(1, load::kMaxConnections));
  app.add_option("-t,--threads", f.config.threads, "Threads, one event loop each")
      ->capture_default_str()
      ->check(count_in(1, load::kMaxThreads));
  app.add_flag("--no-keepalive", f.no_keepalive, "A new connection per request (like ab without -k)");
  app.add_option("--pipeline", f.config.pipeline, "Requests in flight per connection")
      ->capture_default_str()
      ->check(count_in(1, load::kMaxPipeline));
  app.add_flag("--http2", f.config.http2,
               "HTTP/2: h2 by ALPN on https:// URLs, h2c with prior knowledge on http:// ones (as "
               "h2load)");
  app.add_option("--streams", f.config.streams,
                 "With --http2: concurrent streams per connection (h2load's -m), fewer if the "
                 "server allows fewer")
      ->capture_default_str()
      ->check(count_in(1, load::kMaxStreams));
  app.add_option("-m,--method", f.spec.method, "Request method (a token: GET, POST, ...)")
      ->capture_default_str()
      ->check(flag_check(load::check_method));
  // One value per -H: a vector option would otherwise take the URL after it as a header too.
  app.add_option("-H,--header", f.spec.headers, "Request header 'Name: value' (repeatable)")
      ->allow_extra_args(false)
      ->check(flag_check(load::check_header));
  auto* body = app.add_option("-b,--body", f.spec.body, "Request body");
  app.add_option("--body-file", f.body_file, "Request body from a file")
      ->check(CLI::ExistingFile)
      ->excludes(body);
  app.add_option("--timeout", f.timeout, "Per request and per connect")
      ->capture_default_str()
      ->check(duration_in(load::kMinTimeoutS, load::kMaxTimeoutS));
  app.add_option("--warmup", f.warmup, "Load before measuring, excluded from every number")
      ->capture_default_str()
      ->check(duration_in(0, load::kMaxWarmupS));
  app.add_option("--cacert", f.config.ca_file,
                 "https: verify the server's certificate against these CA certificates (PEM); "
                 "without it nothing is verified, as wrk and h2load")
      ->check(CLI::ExistingFile);
  app.add_option("--tls-resume", f.config.tls_resume,
                 "https: share of new connections that offer to resume the thread's last TLS "
                 "session (0 to 1; 0: every connection a full handshake)")
      ->capture_default_str()
      ->check(number_in(0, 1));
  app.add_flag("--json", f.json, "Print one JSON document (schema: docs/load-json.md)");
  app.add_option("--hlog", f.hlog,
                 "Also write the latency as an HdrHistogram log, one interval per second");
  app.add_option("--start-at", f.start_at,
                 "Begin measuring at this wall-clock instant: epoch seconds, or +S from now "
                 "(+5, +500ms); connects and warms up first, so generators on several machines "
                 "begin together");
  app.add_option("--tag", f.config.tag,
                 "Name this generator in the JSON and the histogram log (1-64 of A-Z a-z 0-9 . _ -)")
      ->check(flag_check(load::check_tag));
  app.add_option("--share", f.share,
                 "Run part K (0 to N-1) of a load split N ways: -R/N, -c/N and -n/N, the "
                 "remainders to the lowest K; the tag defaults to share-K-of-N");
}

// Turns flags into a config; returns one line naming the flag at fault, or "".
std::string build_config(LoadFlags& f) {
  load::LoadConfig& c = f.config;
  // The flags' validators have checked every duration and its range.
  if (!f.duration.empty()) c.duration_s = *parse_duration_seconds(f.duration);
  c.timeout_s = *parse_duration_seconds(f.timeout);
  c.warmup_s = *parse_duration_seconds(f.warmup);
  c.keep_alive = !f.no_keepalive;
  c.latency_per_second = !f.hlog.empty();
  if (!f.start_at.empty()) {
    // Resolved once, now: "+5" means five seconds after this line, whatever follows.
    const double now = std::chrono::duration<double>(
                           std::chrono::system_clock::now().time_since_epoch()).count();
    std::string error;
    c.start_at_epoch_s = parse_start_at(f.start_at, now, error);
    if (!c.start_at_epoch_s) return "--start-at " + error;
  }
  if (f.share) {
    std::string error;
    const std::optional<load::LoadShare> share = parse_share(*f.share, error);
    if (!share) return "--share " + error;
    if (error = apply_share(c, *share); !error.empty()) return error;
  }
  f.spec.keep_alive = c.keep_alive;
  if (!f.body_file.empty()) {
    std::ifstream in(f.body_file, std::ios::binary);
    std::ostringstream body;
    body << in.rdbuf();
    f.spec.body = body.str();
  }
  if (!f.urls_file.empty()) {
    std::ifstream in(f.urls_file);
    std::size_t line_number = 0;
    for (std::string line; std::getline(in, line);) {
      ++line_number;
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
      if (!line.empty() && line.front() != '#') {
        f.urls.push_back(line);
        f.url_lines.push_back(line_number);
      }
    }
    if (f.urls.empty()) return "--urls-file " + f.urls_file + " holds no URL";
  }
  if (f.urls.empty()) return "url: give a URL to load, e.g. http://127.0.0.1:8080/";
  if (std::string error = load::check_request_spec(f.spec); !error.empty()) return error;
  for (const std::string& text : f.urls) {
    load::Url url;
    std::string error;
    if (!load::parse_url(text, url, error)) {
      return (f.urls_file.empty() ? "url: " : "--urls-file: ") + error;
    }
    c.targets.push_back(load::make_target(url, f.spec));
  }
  if (std::string error = load::validate(c); !error.empty()) return error;
  std::string tls_error;
  if (c.tls() && !load::make_tls_client(c, tls_error)) return tls_error;
  std::size_t failed = 0;
  if (std::string error = load::resolve_targets(c.targets, c.timeout_s, failed); !error.empty()) {
    return (f.urls_file.empty() ? "url " + f.urls[failed]
                                : "--urls-file " + f.urls_file + " line " +
                                      std::to_string(f.url_lines[failed])) +
           ": " + error;
  }
  std::uint64_t files = core::raise_open_file_limit();
  if (files != 0 && c.connections + 64 > files) {
    return "-c/--connections " + std::to_string(c.connections) + " needs more open files than the limit " +
           std::to_string(files) + ": raise it with 'ulimit -n'";
  }
  return "";
}

void show_progress(const load::LoadConfig& c, const load::LoadProgress& p, double rate) {
  if (p.elapsed_s < 0 && c.start_at_epoch_s) {
    std::fprintf(stderr, "\r  %sstarting in %.1f s          ", p.warming_up ? "warming up, " : "",
                 -p.elapsed_s);
  } else if (p.elapsed_s < 0) {
    std::fprintf(stderr, "\r  warming up: %.1fs left          ", -p.elapsed_s);
  } else if (c.requests > 0) {
    std::fprintf(stderr, "\r  %llu/%llu requests  %.0f req/s  %llu errors   ",
                 static_cast<unsigned long long>(p.completed + p.errored),
                 static_cast<unsigned long long>(c.requests), rate,
                 static_cast<unsigned long long>(p.errored));
  } else {
    std::fprintf(stderr, "\r  %.1fs/%.0fs  %llu requests  %.0f req/s  %llu errors   ", p.elapsed_s,
                 c.effective_duration_s(), static_cast<unsigned long long>(p.completed), rate,
                 static_cast<unsigned long long>(p.errored));
  }
  std::fflush(stderr);
}

// Writes the log into a file opened before the run, so an unwritable path fails at once, not
// after a long run; closes the file.
bool write_hlog(std::FILE* file, const load::LoadResult& result) {
  load::HdrLogWriter log(file);
  log.write_comment("ringside load latency, microseconds, corrected when -R is given");
  log.write_header(result.start_epoch_s);
  load::write_intervals_per_second(log, result.stats.latency_seconds, result.elapsed_s,
                                   result.config.tag);
  bool ok = log.ok();
  return std::fclose(file) == 0 && ok;
}

}  // namespace

int run_load(int argc, char** argv) {
  LoadFlags flags;
  CLI::App app("ringside load", "ringside load");
  define_flags(app, flags);
  if (auto exit_code = parse_flags(app, argc, argv)) return *exit_code;
  if (std::string error = build_config(flags); !error.empty()) {
    std::fprintf(stderr, "ringside load: %s\n", error.c_str());
    return 2;
  }
  if (std::string resolved = load::describe_resolution(flags.config.targets.front().url);
      !resolved.empty()) {
    std::fprintf(stderr, "ringside load: %s\n", resolved.c_str());
  }

  std::FILE* hlog = nullptr;
  if (!flags.hlog.empty()) {
    hlog = std::fopen(flags.hlog.c_str(), "w");
    if (hlog == nullptr) {
      std::fprintf(stderr, "ringside load: --hlog: cannot open %s for writing: %s\n",
                   flags.hlog.c_str(), std::strerror(errno));
      return 2;
    }
  }

  const sigset_t signals = take_shutdown_signals();

  load::LoadRun run(flags.config);
  run.start();
  if (run.late_at_start_s() > 0) {
    std::fprintf(stderr,
                 "ringside load: --start-at: the instant was %.3f s past when this generator was "
                 "ready, so it measures from now; pick a later start (e.g. +5)\n",
                 run.late_at_start_s());
  }
  const bool progress = !flags.json && isatty(STDERR_FILENO);
  std::uint64_t last_done = 0;
  double last_elapsed = 0;
  bool interrupted = false;
  while (!run.wait_for(std::chrono::milliseconds(250))) {
    timespec none{0, 0};
    if (!interrupted && sigtimedwait(&signals, nullptr, &none) > 0) {
      interrupted = true;
      run.stop();
    }
    if (progress) {
      load::LoadProgress p = run.progress();
      double rate = p.elapsed_s > last_elapsed ? (p.completed - last_done) / (p.elapsed_s - last_elapsed) : 0;
      show_progress(flags.config, p, rate);
      last_done = p.completed;
      last_elapsed = p.elapsed_s;
    }
  }
  if (progress) std::fputs("\r\033[K", stderr);
  load::LoadResult result = run.finish();
  if (flags.json) {
    std::puts(load::to_json(result).dump(2).c_str());
  } else {
    std::fputs(load::format_text(result).c_str(), stdout);
  }
  if (hlog != nullptr && !write_hlog(hlog, result)) {
    std::fprintf(stderr, "ringside load: cannot write --hlog %s: %s\n", flags.hlog.c_str(), std::strerror(errno));
    return 1;
  }
  if (result.stats.completed == 0) {
    // Scripts check the exit code, not the report: a run where nothing completed is a failure.
    std::fprintf(stderr, "ringside load: no request completed (%llu failed)\n",
                 static_cast<unsigned long long>(result.stats.errored));
    return 1;
  }
  return 0;
}

}  // namespace ringside::apps
