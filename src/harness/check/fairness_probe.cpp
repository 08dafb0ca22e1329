#include "harness/check/fairness_probe.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <string_view>

#include "core/clock.hpp"
#include "harness/process/http_client.hpp"
#include "harness/process/listen_sockets.hpp"
#include "harness/process/thread_times.hpp"
#include "load/load_run.hpp"
#include "load/target.hpp"

namespace ringside::harness {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kCannedResponse =
    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 12\r\n\r\nHello World!";

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

bool send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t sent = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(sent));
  }
  return true;
}

}  // namespace

FairnessOptions fairness_options_for(const Scenario& scenario, std::string source) {
  FairnessOptions options;
  unsigned largest = 0;
  for (const Workload& workload : scenario.workloads) {
    for (const unsigned level : workload.connections) largest = std::max(largest, level);
  }
  if (largest > 0) {
    options.connections = largest;
    options.connections_source = std::move(source);
  }
  return options;
}

CannedResponder::CannedResponder() {
  listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (listener_ < 0 ||
      bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      listen(listener_, 1) != 0 ||
      getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    if (listener_ >= 0) close(listener_);
    listener_ = -1;
    return;
  }
  port_ = ntohs(address.sin_port);
  thread_ = std::thread([this] { serve(); });
}

CannedResponder::~CannedResponder() {
  // Shutting the sockets down wakes the thread from accept or recv; it then returns.
  if (listener_ >= 0) shutdown(listener_, SHUT_RDWR);
  const int connection = connection_.exchange(-2);
  if (connection >= 0) shutdown(connection, SHUT_RDWR);
  if (thread_.joinable()) thread_.join();
  if (listener_ >= 0) close(listener_);
}

// One connection: a canned answer, in one write, for every request head (the probe sends GETs
// without bodies), until the client closes or the destructor shuts it down.
void CannedResponder::serve() {
  const int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) return;
  int expected = -1;
  if (!connection_.compare_exchange_strong(expected, fd)) {  // destroyed meanwhile
    close(fd);
    return;
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  std::string pending;
  char chunk[4096];
  while (true) {
    const ssize_t got = recv(fd, chunk, sizeof chunk, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    pending.append(chunk, static_cast<std::size_t>(got));
    for (std::size_t end; (end = pending.find("\r\n\r\n")) != std::string::npos;) {
      pending.erase(0, end + 4);
      if (!send_all(fd, kCannedResponse)) break;
    }
  }
  expected = fd;
  connection_.compare_exchange_strong(expected, -1);
  close(fd);
}

namespace {

// One request on `connection` and its response, timed; false when it failed.
bool timed_exchange(HttpConnection& connection, const std::string& request, double timeout_s,
                    Exchange& exchange) {
  std::string error;
  HttpResponse response;
  const Clock::time_point sent = Clock::now();
  if (!connection.send(request, timeout_s, error) ||
      !connection.read_response(response, timeout_s, error)) {
    return false;
  }
  const HttpConnection::Arrival& arrival = connection.arrival();
  exchange.total_s = seconds_between(sent, arrival.last_byte);
  exchange.spread_s = seconds_between(arrival.first_byte, arrival.last_byte);
  exchange.pieces = arrival.pieces;
  return true;
}

}  // namespace

LatencyProbe probe_latency(const std::string& host, int port, const std::string& path,
                           const FairnessOptions& options) {
  LatencyProbe probe;
  probe.path = path;
  CannedResponder responder;
  HttpConnection floor, server;
  std::string error;
  if (responder.port() == 0 || !floor.connect(responder.port(), options.timeout_s, error) ||
      !server.connect(host, port, options.timeout_s, error)) {
    return probe;
  }
  const std::string request = get_request(path);
  const Clock::time_point started = Clock::now();
  const auto more = [&] {
    return probe.server.size() < options.exchanges &&
           (probe.server.empty() ||
            seconds_between(started, Clock::now()) < options.exchanges_budget_s);
  };
  while (more()) {
    Exchange at_floor, at_server;
    if (!timed_exchange(floor, request, options.timeout_s, at_floor) ||
        !timed_exchange(server, request, options.timeout_s, at_server)) {
      return LatencyProbe{path, {}, {}};
    }
    probe.floor.push_back(at_floor);
    probe.server.push_back(at_server);
  }
  return probe;
}

namespace {

// A burst's two readings of the tree's threads, taken while the load's connections are open (a
// server with a thread per connection ends that thread when its connection closes, and its CPU
// with it): after the warm-up, and burst_s later. The load is then stopped. False when the load
// could not run, or a stop came.
bool read_during_burst(const load::LoadConfig& config, pid_t root, double burst_s,
                       const std::atomic<bool>* stop, std::vector<ThreadTimes>& before,
                       std::vector<ThreadTimes>& after, double& wall_s) {
  const auto stopped = [&] { return stop != nullptr && stop->load(); };
  try {
    load::LoadRun run(config);
    run.start();
    bool finished = false;
    while (!finished && !stopped() && run.progress().warming_up) {
      finished = run.wait_for(std::chrono::milliseconds(10));
    }
    before = tree_thread_times(root);
    const Clock::time_point started = Clock::now();
    if (!finished && !stopped()) finished = run.wait_for(core::seconds_to_duration(burst_s));
    after = tree_thread_times(root);
    wall_s = seconds_between(started, Clock::now());
    run.stop();
    run.finish();
    return !finished && !stopped();
  } catch (const std::exception&) {
    return false;
  }
}

std::optional<load::LoadConfig> burst_config(const std::string& host, int port,
                                             const std::string& path, unsigned connections,
                                             double timeout_s) {
  const bool ipv6 = host.find(':') != std::string::npos;
  load::Url url;
  std::string error;
  const std::string text =
      "http://" + (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port) + path;
  if (!load::parse_url(text, url, error)) return std::nullopt;
  load::LoadConfig config;
  config.targets.push_back(load::make_target(url, load::RequestSpec{}));
  config.connections = connections;
  config.threads = 1;
  config.timeout_s = timeout_s;
  return config;
}

}  // namespace

ThreadProbe probe_threads(pid_t root, const std::string& host, int port, const std::string& path,
                          unsigned given, bool param, const FairnessOptions& options,
                          const std::atomic<bool>* stop) {
  ThreadProbe probe;
  probe.given = given;
  probe.param = param;
  probe.connections = std::clamp(options.burst_connections_per_thread * std::max(1u, given), 1u,
                                 options.max_burst_connections);
  std::optional<load::LoadConfig> config =
      burst_config(host, port, path, probe.connections, options.timeout_s);
  if (!config) return probe;
  config->warmup_s = options.burst_warmup_s;  // JIT, connections, pools
  // Stopped once the burst is read; the second bounds a server too slow to let it be read.
  config->duration_s = options.burst_s + 1;
  // Its answers in flight are awaited when it stops: a reset of the server's last answers would
  // put tracebacks the checker caused into the contestant's output.
  config->drain_s = 1;
  std::vector<ThreadTimes> before, after;
  double wall_s = 0;
  if (!read_during_burst(*config, root, options.burst_s, stop, before, after, wall_s)) return probe;
  probe.wall_s = wall_s;
  probe.threads = thread_work(before, after);
  return probe;
}

FairnessResult check_fairness(const Contestant& contestant, RunningContestant& server, int threads,
                              const FairnessOptions& options, const std::atomic<bool>* stop) {
  FairnessResult result;
  if (!options.enabled) return result;
  const Manifest& manifest = contestant.manifest;
  result.warnings = judge_production_settings(manifest);
  const std::string path = contestant.claims(Route::kHello) ? "/" : manifest.ready_path;
  // Over TLS only what does not speak HTTP: the sequential exchanges and the burst are plain
  // HTTP (the floor's canned responder, ringside load), so an https start leaves them out.
  const bool plain = server.protocol() == Protocol::kHttp;
  const LatencyProbe latency =
      plain ? probe_latency(server.host(), server.port(), path, options) : LatencyProbe{path, {}, {}};
  BacklogProbe backlog;
  backlog.port = server.port();
  backlog.somaxconn = read_somaxconn();
  backlog.connections = options.connections;
  backlog.connections_source = options.connections_source;
  backlog.declared = manifest.listen_backlog;
  if (const auto sockets = listen_sockets(server.port())) {
    for (const ListenSocket& socket : *sockets) backlog.backlogs.push_back(socket.backlog);
  }
  ThreadProbe burst;
  if (plain && (stop == nullptr || !stop->load())) {
    const auto given =
        static_cast<unsigned>(manifest.threads_param ? threads : manifest.fixed_threads);
    burst = probe_threads(server.process().pid(), server.host(), server.port(), path, given,
                          manifest.threads_param, options, stop);
  }
  for (auto found : {judge_latency(latency), judge_backlog(backlog), judge_threads(burst)}) {
    if (found) result.warnings.push_back(std::move(*found));
  }
  result.measured = describe_measurements(latency, backlog, burst);
  if (!plain) {
    result.measured += std::string(result.measured.empty() ? "" : "; ") +
                       "over https: latency and threads not probed (their probes speak plain HTTP)";
  }
  return result;
}

}  // namespace ringside::harness
