#include "harness/process/lifecycle.hpp"

#include "core/socket.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "harness/process/http_client.hpp"
#include "harness/config/placeholders.hpp"

namespace ringside::harness {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr auto kReadyPoll = std::chrono::milliseconds(50);
constexpr double kProbeTimeoutS = 2;
constexpr std::size_t kKeptOutputBytes = 16 * 1024;

std::string make_workdir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/ringside-run-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a work directory like " + pattern + ": " +
                             std::strerror(errno));
  }
  return pattern;
}

// Checked before anything is made: an https start without its files would start a server that
// cannot listen as asked.
Protocol checked_protocol(const StartOptions& options) {
  if (options.protocol == Protocol::kHttps &&
      (options.tls_files.cert.empty() || options.tls_files.key.empty() || !options.tls_client)) {
    throw std::invalid_argument("an https start needs the run's certificate, key and TLS client");
  }
  return options.protocol;
}

}  // namespace

int pick_free_port() { return core::free_loopback_port(); }

RunningContestant::RunningContestant(const Contestant& contestant, const StartOptions& options)
    : contestant_(contestant),
      port_(pick_free_port()),
      host_(options.host),
      protocol_(checked_protocol(options)),
      tls_client_(protocol_ == Protocol::kHttps ? options.tls_client : nullptr),
      workdir_(make_workdir()) {
  output_path_ = workdir_ + "/" + kOutputFile;
  PlaceholderValues values = fixed_placeholders(contestant);
  values.port = std::to_string(port_);
  values.threads = std::to_string(options.threads);
  values.db_url = options.db_url;
  values.workdir = workdir_;
  values.host = host_;
  if (protocol_ == Protocol::kHttps) {
    values.tls_cert = options.tls_files.cert;
    values.tls_key = options.tls_files.key;
    values.tls_ca = options.tls_files.ca;
  }
  ProcessSpec spec;
  for (const auto& argument : contestant.manifest.start) {
    spec.argv.push_back(expand_placeholders(argument, values));
  }
  for (const auto& [name, value] : contestant.manifest.env) {
    spec.env.emplace_back(name, expand_placeholders(value, values));
  }
  spec.cwd = contestant.dir.string();
  spec.output_path = output_path_;
  spec.cpus = options.cpus;
  try {
    process_ = ChildProcess(spec);
  } catch (...) {
    std::error_code error;
    fs::remove_all(workdir_, error);
    throw;
  }
}

RunningContestant::~RunningContestant() {
  try {
    stop();
  } catch (...) {  // a destructor cannot report; stop() throws only on allocation failure
  }
}

namespace {

// One GET of the ready path: "" when it answered 200; else what was found at host and port, for
// a reason that says where the harness looked and whether anything listened there. Over TLS when
// `tls` is not null: a server that accepts but fails the handshake says so.
std::string probe_ready(const std::string& host, int port, const TlsClientContext* tls,
                        const std::string& path) {
  const std::string where = host + " port " + std::to_string(port);
  HttpConnection connection;
  std::string error;
  if (!connection.connect(host, port, kProbeTimeoutS, error)) {
    return "nothing accepted a connection on " + where + " (" + error + "); it must listen on "
           "the {host} and {port} its manifest passes it, or needs a longer --ready-timeout";
  }
  if (tls != nullptr && !connection.connect(host, port, tls, kProbeTimeoutS, error)) {
    return "something listens on " + where + ", but " + error;
  }
  HttpResponse response;
  if (!connection.send(get_request(path), kProbeTimeoutS, error) ||
      !connection.read_response(response, kProbeTimeoutS, error)) {
    return "something listens on " + where + ", but GET " + path + " failed: " + error;
  }
  if (response.status == 200) return {};
  return where + " answers GET " + path + " with status " + std::to_string(response.status);
}

}  // namespace

// The reasons leave out the server's output: callers show last_output() once, beside them.
ReadyResult RunningContestant::wait_ready(double timeout_s, const std::atomic<bool>* stop) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  while (true) {
    if (!process_.running()) {
      return {false, false,
              "exited (" +
                  (process_.status() ? describe_wait_status(*process_.status())
                                     : std::string("status unknown")) +
                  ") before it was ready"};
    }
    if (stop != nullptr && stop->load()) return {false, true, "interrupted before it was ready"};
    const std::string found =
        probe_ready(host_, port_, tls_client_.get(), contestant_.manifest.ready_path);
    if (found.empty()) return {true, false, {}};
    if (Clock::now() >= deadline) {
      return {false, false, "not ready within " + format_seconds(timeout_s) + ": " + found};
    }
    std::this_thread::sleep_for(kReadyPoll);
  }
}

StopResult RunningContestant::stop(double grace_s) {
  if (stopped_) return stop_result_;
  stopped_ = true;
  stop_result_ = process_.stop(contestant_.manifest.stop_signal, grace_s);
  kept_output_ = read_tail(output_path_, kKeptOutputBytes);
  std::error_code error;
  fs::remove_all(workdir_, error);
  return stop_result_;
}

std::string RunningContestant::last_output(std::size_t lines) const {
  return stopped_ ? tail_lines(kept_output_, lines) : last_lines(output_path_, lines);
}

}  // namespace ringside::harness
