#include "harness/loaders/load_hosts.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/fnv1a.hpp"
#include "harness/config/contestant.hpp"
#include "harness/process/process.hpp"

namespace ringside::harness {
namespace {

using Clock = std::chrono::steady_clock;
using Deadline = std::chrono::time_point<Clock, std::chrono::duration<double>>;  // now + seconds

constexpr double kCopyTimeoutS = 120;
constexpr double kCheckTimeoutS = 30;
constexpr double kClockTimeoutS = 30;
constexpr int kClockSamples = 7;
constexpr double kRunMarginS = 30;      // beyond T + the point's length, before a host counts as hung
constexpr double kCountModeBoundS = 600;
constexpr double kStopGraceS = 3;
constexpr std::size_t kOutputCap = 64 << 20;  // a load JSON is tens of KiB; a log a few MiB
constexpr const char* kLogMarker = "\n#ringside-compare-hlog\n";

double wall_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

// A child with pipes on its standard input, output and error, in a process group of its own (a
// Ctrl-C in the terminal reaches only the harness, which stops it in order), killed should the
// harness die.
class Piped {
 public:
  Piped() = default;
  explicit Piped(const std::vector<std::string>& argv) { start(argv); }
  ~Piped() { kill_now(); }
  Piped(const Piped&) = delete;
  Piped& operator=(const Piped&) = delete;

  [[nodiscard]] bool running() const { return pid_ > 0 && !status_; }
  [[nodiscard]] const std::optional<int>& status() const { return status_; }
  std::string out, err;

  // Reads what is there, waiting at most timeout_s for something; reaps the child once its
  // outputs are closed and it has exited.
  void pump(double timeout_s) {
    pollfd fds[2];
    nfds_t n = 0;
    for (int fd : {out_fd_, err_fd_}) {
      if (fd >= 0) fds[n++] = {fd, POLLIN, 0};
    }
    if (n > 0) poll(fds, n, static_cast<int>(std::max(0.0, timeout_s) * 1000));
    drain(out_fd_, out);
    drain(err_fd_, err);
    if (pid_ > 0 && !status_) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) status_ = status;
    }
    if (n == 0 && !status_ && timeout_s > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double>(std::min(timeout_s, 0.02)));
    }
  }
  [[nodiscard]] bool done() const { return status_.has_value() && out_fd_ < 0 && err_fd_ < 0; }

  bool write_line(const std::string& line) {
    const std::string text = line + "\n";
    return in_fd_ >= 0 && ::write(in_fd_, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  }
  void close_input() {
    if (in_fd_ >= 0) ::close(in_fd_);
    in_fd_ = -1;
  }

  // Closes its input (the remote side's signal to stop), SIGTERM, a grace, SIGKILL, reap.
  void stop(double grace_s) {
    close_input();
    if (pid_ <= 0 || status_) return;
    ::kill(-pid_, SIGTERM);
    const auto deadline = Clock::now() + std::chrono::duration<double>(grace_s);
    while (!status_ && Clock::now() < deadline) pump(0.02);
    kill_now();
  }

 private:
  void start(const std::vector<std::string>& argv) {
    int in[2], outp[2], errp[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(outp, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0) {
      throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid_ == 0) {
      setpgid(0, 0);
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      dup2(in[0], 0);
      dup2(outp[1], 1);
      dup2(errp[1], 2);
      execvp(args[0], args.data());
      const std::string message = std::string(args[0]) + ": " + std::strerror(errno) + "\n";
      (void)!::write(2, message.data(), message.size());
      _exit(127);
    }
    setpgid(pid_, pid_);
    ::close(in[0]);
    ::close(outp[1]);
    ::close(errp[1]);
    in_fd_ = in[1];
    out_fd_ = outp[0];
    err_fd_ = errp[0];
    fcntl(out_fd_, F_SETFL, O_NONBLOCK);
    fcntl(err_fd_, F_SETFL, O_NONBLOCK);
    signal(SIGPIPE, SIG_IGN);  // a host that hung up on our writes is an error value, not a death
  }

  static void drain(int& fd, std::string& into) {
    if (fd < 0) return;
    char buffer[65536];
    while (true) {
      const ssize_t got = ::read(fd, buffer, sizeof buffer);
      if (got > 0) {
        if (into.size() < kOutputCap) into.append(buffer, static_cast<std::size_t>(got));
        continue;
      }
      if (got < 0 && (errno == EAGAIN || errno == EINTR)) return;
      ::close(fd);
      fd = -1;
      return;
    }
  }

  void kill_now() {
    close_input();
    if (pid_ > 0 && !status_) {
      ::kill(-pid_, SIGKILL);
      int status = 0;
      if (waitpid(pid_, &status, 0) == pid_) status_ = status;
    }
    for (int* fd : {&out_fd_, &err_fd_}) {
      if (*fd >= 0) ::close(*fd);
      *fd = -1;
    }
  }

  pid_t pid_ = -1;
  int in_fd_ = -1, out_fd_ = -1, err_fd_ = -1;
  std::optional<int> status_;
};

struct Finished {
  std::optional<int> status;
  bool timed_out = false;
  bool interrupted = false;
  std::string out, err;
};

Finished run_to_end(const std::vector<std::string>& argv, double timeout_s,
                    const std::atomic<bool>* stop) {
  Piped child(argv);
  child.close_input();
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  Finished finished;
  while (!child.done()) {
    if (stop != nullptr && stop->load()) {
      finished.interrupted = true;
      break;
    }
    if (Clock::now() >= deadline) {
      finished.timed_out = true;
      break;
    }
    child.pump(0.05);
  }
  if (!child.done()) child.stop(kStopGraceS);
  finished.status = child.status();
  finished.out = std::move(child.out);
  finished.err = std::move(child.err);
  return finished;
}

// Why a command failed, in a phrase: its exit and the last lines it printed.
std::string failure_of(const Finished& f, double timeout_s) {
  if (f.interrupted) return "interrupted";
  std::string what = f.timed_out ? "no answer within " + format_seconds(timeout_s)
                     : f.status  ? describe_wait_status(*f.status)
                                 : "did not finish";
  const std::string tail = tail_lines(f.err.empty() ? f.out : f.err, 2);
  return tail.empty() ? what : what + ": " + tail;
}

bool succeeded(const Finished& f) {
  return f.status && WIFEXITED(*f.status) && WEXITSTATUS(*f.status) == 0 && !f.timed_out;
}

std::string hex_hash_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::uint64_t hash = core::kFnv1a64Offset;  // a name per binary, not a checksum
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    hash = core::fnv1a64({buffer, static_cast<std::size_t>(in.gcount())}, hash);
  }
  char text[17];
  std::snprintf(text, sizeof text, "%012llx", static_cast<unsigned long long>(hash & 0xffffffffffffull));
  return text;
}

std::string number_text(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

// "load host NAME (DESTINATION)": how every message names a host.
std::string host_label(const LoadHost& host) {
  return "load host " + host.name + " (" + host.destination + ")";
}

// scp reads a bracketed IPv6 host: "user@[fd00::1]:path".
std::string scp_host(const std::string& destination) {
  std::string target = destination;
  if (const std::size_t at = target.rfind('@');
      target.find(':', at == std::string::npos ? 0 : at) != std::string::npos) {
    const std::size_t from = at == std::string::npos ? 0 : at + 1;
    target = target.substr(0, from) + "[" + target.substr(from) + "]";
  }
  return target;
}

// scp's command line copying `self` to `part` on the host, with the scenario's ssh options.
std::vector<std::string> scp_argv(const std::vector<std::string>& ssh_options, const LoadHost& host,
                                  const std::string& self, const std::string& part) {
  // Not -q: it silences ssh too, and the reason a host cannot be reached is the message.
  std::vector<std::string> scp = {"scp"};
  scp.insert(scp.end(), ssh_options.begin(), ssh_options.end());
  for (const char* option : {"BatchMode=yes", "ConnectTimeout=10"}) {
    scp.push_back("-o");
    scp.push_back(option);
  }
  if (!host.port.empty()) {
    scp.push_back("-P");
    scp.push_back(host.port);
  }
  // Our own path, not /proc/self/exe: scp would read its own.
  scp.push_back(self);
  scp.push_back(scp_host(host.destination) + ":" + part);
  return scp;
}

// Asks the clock session for the time once and keeps the sample in facts if its round trip is
// the shortest yet; false when no usable answer came back.
bool take_clock_sample(Piped& session, Deadline deadline, LoadHostFacts& facts) {
  const double sent = wall_now();
  if (!session.write_line("t")) return false;
  std::size_t newline = std::string::npos;
  while ((newline = session.out.find('\n')) == std::string::npos && !session.done() &&
         Clock::now() < deadline) {
    session.pump(0.01);
  }
  const double received = wall_now();
  if (newline == std::string::npos) return false;
  const std::string line = session.out.substr(0, newline);
  session.out.erase(0, newline + 1);
  char* end = nullptr;
  const double remote = std::strtod(line.c_str(), &end);
  if (end == line.c_str() || line.find('N') != std::string::npos) return false;
  const double round_trip = received - sent;
  if (!(round_trip >= facts.round_trip_s)) {  // NaN at first
    facts.round_trip_s = round_trip;
    facts.clock_offset_s = remote - (sent + received) / 2;
  }
  return true;
}

// Measures the host's clock against this one's into facts over ssh (its argv); "" or why not.
std::string measure_clock(std::vector<std::string> ssh, const std::string& where,
                          LoadHostFacts& facts) {
  // The clock: one session answers a line with the time, so each sample's round trip is the
  // network's and a fork's, not a handshake's; the sample with the shortest round trip wins.
  ssh.push_back("while read line; do date +%s.%N; done");
  Piped session(ssh);
  const auto deadline = Clock::now() + std::chrono::duration<double>(kClockTimeoutS);
  for (int sample = 0; sample < kClockSamples; ++sample) {
    if (!take_clock_sample(session, deadline, facts)) break;
  }
  session.stop(kStopGraceS);
  if (!std::isfinite(facts.clock_offset_s)) {
    return where + ": cannot read its clock (`date +%s.%N` over ssh: " +
           tail_lines(session.err.empty() ? session.out : session.err, 2) +
           "): the load hosts need GNU date (coreutils)";
  }
  return {};
}

using Sessions = std::vector<std::unique_ptr<Piped>>;

// Whether every session has exited and closed its outputs.
bool all_done(const Sessions& sessions) {
  for (const auto& s : sessions) {
    if (!s->done()) return false;
  }
  return true;
}

// Pumps the sessions until all are done or the deadline passes (then true). The first time *stop
// is set or tick returns false, closes their inputs, which ends the loads on the hosts.
bool pump_until_done(Sessions& sessions, Deadline deadline, const std::atomic<bool>* stop,
                     const std::function<bool(double)>& tick, double start_epoch_s) {
  bool stopped = false;
  while (!all_done(sessions)) {
    for (auto& s : sessions) s->pump(0.0);
    if (!stopped && ((stop != nullptr && stop->load()) || !tick(start_epoch_s))) {
      stopped = true;
      // Closing their input ends the loads on the hosts (the watcher's SIGTERM): each prints
      // what it measured, which is kept.
      for (auto& s : sessions) s->close_input();
    }
    if (Clock::now() >= deadline) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// One host's result (its JSON, then its per-second log) from its session's output into outcome;
// "" or one line saying why there is none.
std::string read_host_result(const Piped& s, const LoadHost& host, bool timed_out, double bound,
                             RemoteOutcome& outcome) {
  const std::string where = host_label(host);
  const std::size_t marker = s.out.find(kLogMarker);
  const std::string json = s.out.substr(0, marker);
  const nlohmann::json document = nlohmann::json::parse(json, nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    Finished f;
    f.status = s.status();
    f.timed_out = timed_out && !s.status();
    f.out = s.out;
    f.err = s.err;
    return where + ": ringside load gave no result (" + failure_of(f, bound) +
           "): run it there by hand to see why";
  }
  try {
    outcome.generators.push_back(load::read_generator_json(document, host.name));
    outcome.logs.push_back(
        marker == std::string::npos ? "" : s.out.substr(marker + std::strlen(kLogMarker)));
  } catch (const load::MergeError& error) {
    return where + ": " + error.what();
  }
  return {};
}

}  // namespace

std::uint64_t share_of(std::uint64_t total, std::size_t hosts, std::size_t i) {
  if (hosts == 0) return 0;
  return load::share_of(total, {static_cast<unsigned>(i), static_cast<unsigned>(hosts)});
}

std::string shell_quote(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

LoadHosts::LoadHosts(const LoadSetup& setup, const std::atomic<bool>* stop)
    : setup_(setup), stop_(stop) {}

std::vector<std::string> LoadHosts::ssh_argv(const LoadHost& host) const {
  std::vector<std::string> argv = {"ssh"};
  argv.insert(argv.end(), setup_.ssh_options.begin(), setup_.ssh_options.end());
  // After the scenario's options (ssh keeps the first value it is given): never a prompt, and a
  // bounded connect, unless the scenario says otherwise.
  for (const char* option : {"BatchMode=yes", "ConnectTimeout=10", "ServerAliveInterval=5"}) {
    argv.push_back("-o");
    argv.push_back(option);
  }
  argv.push_back("-T");
  if (!host.port.empty()) {
    argv.push_back("-p");
    argv.push_back(host.port);
  }
  argv.push_back(host.destination);
  return argv;
}

std::string LoadHosts::prepare(const std::function<void(const std::string&)>& say) {
  const std::string self = self_executable().string();
  binary_ = setup_.remote_binary.empty() ? "/tmp/ringside-" + hex_hash_of_file(self)
                                         : setup_.remote_binary;
  facts_.clear();
  for (const LoadHost& host : setup_.hosts) {
    if (stop_ != nullptr && stop_->load()) return "interrupted while preparing the load hosts";
    if (std::string problem = prepare_host(host, self, say); !problem.empty()) return problem;
  }
  return {};
}

std::string LoadHosts::prepare_host(const LoadHost& host, const std::string& self,
                                    const std::function<void(const std::string&)>& say) {
  LoadHostFacts facts;
  facts.name = host.name;
  facts.destination = host.destination;
  facts.binary = binary_;
  const std::string where = host_label(host);
  say("copying ringside to " + where + ":" + binary_);
  const std::string part = binary_ + ".part-" + std::to_string(getpid());
  if (std::string problem = copy_binary(host, where, self, part); !problem.empty()) return problem;
  if (std::string problem = install_binary(host, where, part); !problem.empty()) return problem;
  if (std::string problem = measure_clock(ssh_argv(host), where, facts); !problem.empty()) {
    return problem;
  }
  say(where + ": ready; clock " + fixed(facts.clock_offset_s * 1e3, 3) +
      " ms from this one's (round trip " + fixed(facts.round_trip_s * 1e3, 3) + " ms)");
  facts_.push_back(std::move(facts));
  return {};
}

std::string LoadHosts::copy_binary(const LoadHost& host, const std::string& where,
                                   const std::string& self, const std::string& part) const {
  const Finished copied =
      run_to_end(scp_argv(setup_.ssh_options, host, self, part), kCopyTimeoutS, stop_);
  if (!succeeded(copied)) {
    return where + ": cannot copy " + self + " there with scp (" +
           failure_of(copied, kCopyTimeoutS) +
           "): check that `ssh` with the scenario's ssh_options logs in without a password and "
           "that " + binary_ + "'s folder is writable, or set [load] remote_binary";
  }
  return {};
}

std::string LoadHosts::install_binary(const LoadHost& host, const std::string& where,
                                      const std::string& part) const {
  std::vector<std::string> check = ssh_argv(host);
  check.push_back("chmod 755 " + shell_quote(part) + " && mv -f " + shell_quote(part) + " " +
                  shell_quote(binary_) + " && " + shell_quote(binary_) + " --version");
  const Finished version = run_to_end(check, kCheckTimeoutS, stop_);
  if (!succeeded(version) || version.out.find("ringside") == std::string::npos) {
    return where + ": the copied ringside does not run there (" +
           failure_of(version, kCheckTimeoutS) +
           "): the load hosts need the same architecture; copy a static release build "
           "(scripts/build release)";
  }
  return {};
}

namespace {

// What each request is and how it goes: pipelining, keep-alive, HTTP/2, TLS resumption, the
// method, headers and body.
void append_request_args(const RemotePoint& point, std::vector<std::string>& args) {
  if (point.pipeline > 1) {
    args.push_back("--pipeline");
    args.push_back(std::to_string(point.pipeline));
  }
  if (!point.keep_alive) args.push_back("--no-keepalive");
  if (point.http2) {
    args.push_back("--http2");
    args.push_back("--streams");
    args.push_back(std::to_string(point.streams));
  }
  if (point.tls_resume > 0) {
    args.push_back("--tls-resume");
    args.push_back(number_text(point.tls_resume));
  }
  args.push_back("-m");
  args.push_back(point.method);
  for (const std::string& header : point.headers) {
    args.push_back("-H");
    args.push_back(header);
  }
  if (!point.body.empty()) {
    args.push_back("-b");
    args.push_back(point.body);
  }
}

}  // namespace

std::string LoadHosts::command_for(const LoadHost& host, const RemotePoint& point, std::size_t index,
                                   std::size_t hosts, double start_at) const {
  std::vector<std::string> args = {binary_, "load", "--start-at", fixed(start_at, 6), "--tag", host.name,
                                   "--json", "-c"};
  const unsigned connections = static_cast<unsigned>(share_of(point.connections, hosts, index));
  args.push_back(std::to_string(connections));
  args.push_back("-t");
  args.push_back(std::to_string(std::max(1u, std::min(point.threads, connections))));
  if (point.rate > 0) {
    args.push_back("-R");
    args.push_back(number_text(point.rate / static_cast<double>(hosts)));
  }
  if (point.requests > 0) {
    args.push_back("-n");
    args.push_back(std::to_string(share_of(point.requests, hosts, index)));
  } else {
    args.push_back("-d");
    args.push_back(number_text(point.duration_s) + "s");
  }
  if (point.warmup_s > 0) {
    args.push_back("--warmup");
    args.push_back(number_text(point.warmup_s) + "s");
  }
  args.push_back("--timeout");
  args.push_back(number_text(point.timeout_s) + "s");
  append_request_args(point, args);
  const std::string log = "/tmp/ringside-compare-" + host.name + "-" + std::to_string(getpid()) + ".hlog";
  args.push_back("--hlog");
  args.push_back(log);
  args.push_back(point.urls.front());
  std::string load;
  for (const std::string& arg : args) load += (load.empty() ? "" : " ") + shell_quote(arg);
  // The load runs in the background; a watcher holds the session's input and sends the load
  // SIGTERM when it closes (the harness stopped, or died). The JSON, then a marker line, then the
  // per-second log: one stream back.
  return load + " & p=$!; exec 3<&0; (cat <&3 >/dev/null 2>&1; kill -TERM $p 2>/dev/null) "
                ">/dev/null 2>&1 & w=$!; exec 3<&-; wait $p; s=$?; kill $w 2>/dev/null; "
                "printf '\\n%s\\n' " + shell_quote(std::string(kLogMarker).substr(1, std::strlen(kLogMarker) - 2)) +
         "; cat " + shell_quote(log) + " 2>/dev/null; rm -f " + shell_quote(log) + "; exit $s";
}

RemoteOutcome LoadHosts::run(const RemotePoint& point, const std::function<bool(double)>& tick) {
  RemoteOutcome outcome;
  const std::size_t count = std::min<std::size_t>(setup_.hosts.size(), point.connections);
  outcome.start_epoch_s = wall_now() + setup_.start_lead_s + point.warmup_s;
  Sessions sessions;
  for (std::size_t i = 0; i < count; ++i) {
    const LoadHost& host = setup_.hosts[i];
    std::vector<std::string> argv = ssh_argv(host);
    argv.push_back(command_for(host, point, i, count, outcome.start_epoch_s));
    sessions.push_back(std::make_unique<Piped>(argv));
    outcome.hosts.push_back(host.name);
  }
  const double length = point.requests > 0 ? kCountModeBoundS : point.duration_s;
  const double bound = setup_.start_lead_s + point.warmup_s + length + kRunMarginS;
  const auto deadline = Clock::now() + std::chrono::duration<double>(bound);
  const bool timed_out = pump_until_done(sessions, deadline, stop_, tick, outcome.start_epoch_s);
  for (auto& s : sessions) {
    if (!s->done()) s->stop(kStopGraceS);
  }
  for (std::size_t i = 0; i < sessions.size(); ++i) {
    outcome.error = read_host_result(*sessions[i], setup_.hosts[i], timed_out, bound, outcome);
    if (!outcome.error.empty()) {
      outcome.generators.clear();
      return outcome;
    }
  }
  return outcome;
}

}  // namespace ringside::harness
