#include "harness/process/process.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "core/child_signals.hpp"
#include "harness/process/proc_table.hpp"

extern char** environ;

namespace ringside::harness {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPoll = std::chrono::milliseconds(20);
constexpr double kKillWaitS = 5;  // for SIGKILLed processes to vanish
constexpr int kLeftoverPasses = 4;  // scans for leftovers: a daemon is at most a few forks deep
constexpr std::size_t kMaxOutput = 64 * 1024;

// What failed in the child before exec, sent up a close-on-exec pipe: nothing arrives when exec
// worked.
enum class Stage : int { kGroup, kDeathSignal, kAffinity, kDirectory, kOutput, kExec };

struct ChildError {
  Stage stage;
  int error;
};

const char* describe_stage(Stage stage) {
  switch (stage) {
    case Stage::kGroup: return "setting its process group";
    case Stage::kDeathSignal: return "arming its parent-death signal";
    case Stage::kAffinity: return "pinning it to its CPUs";
    case Stage::kDirectory: return "entering its directory";
    case Stage::kOutput: return "opening its output file";
    case Stage::kExec: return "running it";
  }
  return "starting it";
}

std::vector<std::string> merged_environment(const ProcessSpec& spec) {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    const bool overridden = std::any_of(spec.env.begin(), spec.env.end(),
                                        [&](const auto& pair) { return pair.first == name; });
    if (!overridden) env.emplace_back(text);
  }
  for (const auto& [name, value] : spec.env) env.push_back(name + "=" + value);
  return env;
}

[[noreturn]] void child_fail(int pipe_fd, Stage stage) {
  const ChildError report{stage, errno};
  (void)!write(pipe_fd, &report, sizeof report);
  _exit(127);
}

// Between fork and exec only async-signal-safe calls: the harness may have threads. Everything
// allocated (argv, envp, the CPU set) was prepared by the parent.
[[noreturn]] void exec_child(const ProcessSpec& spec, char* const* argv, char* const* envp,
                             const cpu_set_t* cpus, pid_t parent, int pipe_fd) {
  if (setpgid(0, 0) != 0) child_fail(pipe_fd, Stage::kGroup);
  // The harness blocks its shutdown signals and ignores SIGPIPE; a server expects neither.
  core::restore_default_signals();
  // A parent gone before prctl would never send the signal: check after arming it.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) {
    child_fail(pipe_fd, Stage::kDeathSignal);
  }
  if (cpus != nullptr && sched_setaffinity(0, sizeof *cpus, cpus) != 0) {
    child_fail(pipe_fd, Stage::kAffinity);
  }
  if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) child_fail(pipe_fd, Stage::kDirectory);
  const char* output = spec.output_path.empty() ? "/dev/null" : spec.output_path.c_str();
  const int out = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (out < 0 || in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0) {
    child_fail(pipe_fd, Stage::kOutput);
  }
  // Nothing of the harness (sockets, the database's pipes) may be inherited; the error pipe is
  // close-on-exec already.
  if (pipe_fd > 3) syscall(SYS_close_range, 3u, static_cast<unsigned>(pipe_fd - 1), 0u);
  syscall(SYS_close_range, static_cast<unsigned>(pipe_fd + 1), ~0u, 0u);
  execvpe(argv[0], argv, envp);
  child_fail(pipe_fd, Stage::kExec);
}

std::vector<pid_t> children_of_self(const std::vector<ProcEntry>& table) {
  std::vector<pid_t> children;
  const pid_t self = getpid();
  for (const auto& entry : table) {
    if (entry.ppid == self) children.push_back(entry.pid);
  }
  return children;
}

bool group_alive(pid_t group) {
  for (const auto& entry : scan_processes()) {
    if (entry.pgrp == group && !entry.zombie()) return true;
  }
  return false;
}

// Reaps pid if it is our child and has exited; harmless otherwise.
void reap_if_ours(pid_t pid) {
  int status = 0;
  (void)waitpid(pid, &status, WNOHANG);
}

bool same_process(pid_t pid, std::uint64_t start_time) {
  ProcEntry now;
  return read_process(pid, now) && now.start_time == start_time && !now.zombie();
}

}  // namespace

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("killed by ") + strsignal(WTERMSIG(status));
  return "wait status " + std::to_string(status);
}

std::string format_seconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}

std::string tail_lines(std::string_view text, std::size_t count) {
  std::vector<std::string_view> lines;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (!line.empty()) lines.push_back(line.substr(0, 200));
    begin = end + 1;
  }
  std::string joined;
  const std::size_t first = lines.size() > count ? lines.size() - count : 0;
  for (std::size_t i = first; i < lines.size(); ++i) {
    if (!joined.empty()) joined += " | ";
    joined += lines[i];
  }
  return joined;
}

std::string read_tail(const std::string& path, std::size_t bytes) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return {};
  file.seekg(0, std::ios::end);
  const std::streamoff size = file.tellg();
  const std::streamoff start = std::max<std::streamoff>(0, size - std::streamoff(bytes));
  file.seekg(start);
  std::string tail(static_cast<std::size_t>(std::max<std::streamoff>(0, size - start)), '\0');
  file.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  return tail;
}

std::string last_lines(const std::string& path, std::size_t count) {
  return count == 0 ? std::string() : tail_lines(read_tail(path, 16 * 1024), count);
}

std::string StopResult::problem() const {
  std::string text;
  if (!signal_sufficed) {
    text = "did not exit within " + format_seconds(grace_s) + " of " + signal_name +
           ": killed with SIGKILL";
  }
  if (!leftovers.empty()) {
    if (!text.empty()) text += "; ";
    text += "left " + std::to_string(leftovers.size()) +
            (leftovers.size() == 1 ? " process" : " processes") + " running after the stop: ";
    for (std::size_t i = 0; i < leftovers.size(); ++i) {
      if (i > 0) text += ", ";
      text += std::to_string(leftovers[i].pid) + " " + leftovers[i].command + " (" +
              leftovers[i].how + ")";
    }
    text += "; killed";
  }
  return text;
}

ChildProcess::ChildProcess(const ProcessSpec& spec) {
  if (spec.argv.empty()) throw std::runtime_error("no command to run");
  std::vector<std::string> env = merged_environment(spec);
  std::vector<char*> argv;
  for (const auto& argument : spec.argv) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& entry : env) envp.push_back(const_cast<char*>(entry.c_str()));
  envp.push_back(nullptr);
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (int cpu : spec.cpus) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) {
      throw std::runtime_error("CPU " + std::to_string(cpu) + " is out of range");
    }
    CPU_SET(cpu, &cpus);
  }
  earlier_children_ = children_of_self(scan_processes());

  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const int error = errno;
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(error));
  }
  if (pid == 0) {
    close(pipe_fds[0]);
    exec_child(spec, argv.data(), envp.data(), spec.cpus.empty() ? nullptr : &cpus, parent,
               pipe_fds[1]);
  }
  // Also here, so a signal to the group cannot miss a child that has not run setpgid yet.
  setpgid(pid, pid);
  close(pipe_fds[1]);
  ChildError report{};
  ssize_t got;
  do {
    got = read(pipe_fds[0], &report, sizeof report);
  } while (got < 0 && errno == EINTR);
  close(pipe_fds[0]);
  if (got == static_cast<ssize_t>(sizeof report)) {
    int status = 0;
    waitpid(pid, &status, 0);
    throw std::runtime_error("cannot start '" + spec.argv[0] + "': " +
                             describe_stage(report.stage) + " failed: " +
                             std::strerror(report.error));
  }
  pid_ = pid;
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !stopped_) kill_now();
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept { *this = std::move(other); }

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    if (pid_ > 0 && !stopped_) kill_now();
    pid_ = std::exchange(other.pid_, -1);
    status_ = std::exchange(other.status_, std::nullopt);
    stopped_ = std::exchange(other.stopped_, false);
    earlier_children_ = std::move(other.earlier_children_);
  }
  return *this;
}

bool ChildProcess::running() {
  if (pid_ <= 0 || status_) return false;
  int status = 0;
  const pid_t done = waitpid(pid_, &status, WNOHANG);
  if (done == pid_) {
    status_ = status;
    return false;
  }
  return done == 0;
}

void ChildProcess::kill_now() {
  for (pid_t pid : descendants_of(scan_processes(), pid_)) kill(pid, SIGKILL);
  killpg(pid_, SIGKILL);
  if (!status_) {
    int status = 0;
    if (waitpid(pid_, &status, 0) == pid_) status_ = status;
  }
  stopped_ = true;
}

namespace {

using ProcessIdentity = std::pair<pid_t, std::uint64_t>;  // a pid and its start time: one process

// Who belongs to a child before a signal scatters it: its group and its whole tree.
std::unordered_map<pid_t, std::uint64_t> group_and_tree(pid_t leader) {
  std::unordered_map<pid_t, std::uint64_t> tracked;
  const auto table = scan_processes();
  for (const auto& entry : table) {
    if (entry.pgrp == leader) tracked.emplace(entry.pid, entry.start_time);
  }
  for (pid_t pid : descendants_of(table, leader)) {
    for (const auto& entry : table) {
      if (entry.pid == pid) tracked.emplace(pid, entry.start_time);
    }
  }
  return tracked;
}

// What is left of a stopped child in one scan of the process table: live processes of its group,
// of its tree as it was, or orphans that came to us (not killed in an earlier pass), and their
// own children born since.
struct LeftoverScan {
  pid_t leader;
  const std::vector<pid_t>& earlier_children;  // ours before the child started: not its orphans
  const std::unordered_map<pid_t, std::uint64_t>& tracked;
  const std::vector<ProcessIdentity>& killed;

  std::vector<Leftover> find(const std::vector<ProcEntry>& table) const {
    const pid_t self = getpid();
    std::vector<Leftover> found;
    for (const auto& entry : table) {
      if (entry.pid == self || entry.pid == leader) continue;
      const bool ours = entry.ppid == self &&
                        std::find(earlier_children.begin(), earlier_children.end(), entry.pid) ==
                            earlier_children.end();
      if (entry.zombie()) {
        if (ours) reap_if_ours(entry.pid);
        continue;
      }
      const bool already = std::any_of(killed.begin(), killed.end(), [&](const auto& k) {
        return k.first == entry.pid && k.second == entry.start_time;
      });
      if (already) continue;  // killed in an earlier pass, not yet gone
      const std::string how = why_left(entry, ours);
      if (!how.empty()) found.push_back({entry.pid, entry.command, how});
    }
    add_their_children(table, found);
    return found;
  }

  std::string why_left(const ProcEntry& entry, bool ours) const {
    auto known = tracked.find(entry.pid);
    if (entry.pgrp == leader) return "still in its process group";
    if (known != tracked.end() && known->second == entry.start_time) return "escaped its process group";
    if (ours) return "orphan of it, reparented to the harness";
    return "";
  }

  static void add_their_children(const std::vector<ProcEntry>& table, std::vector<Leftover>& found) {
    std::vector<Leftover> extra;
    for (const auto& leftover : found) {
      for (pid_t pid : descendants_of(table, leftover.pid)) {
        const bool listed = std::any_of(found.begin(), found.end(),
                                        [&](const Leftover& l) { return l.pid == pid; });
        if (listed) continue;
        ProcEntry entry;
        if (read_process(pid, entry) && !entry.zombie()) {
          extra.push_back({pid, entry.command, "child of a leftover"});
        }
      }
    }
    found.insert(found.end(), extra.begin(), extra.end());
  }
};

// SIGKILLs each leftover still there and waits (bounded) for each to vanish; returns who got it.
std::vector<ProcessIdentity> kill_and_wait(const std::vector<Leftover>& leftovers) {
  std::vector<ProcessIdentity> killed;
  for (const auto& leftover : leftovers) {
    ProcEntry entry;
    if (read_process(leftover.pid, entry)) {
      kill(leftover.pid, SIGKILL);
      killed.emplace_back(leftover.pid, entry.start_time);
    }
  }
  const auto deadline = Clock::now() + std::chrono::duration<double>(kKillWaitS);
  for (const auto& [pid, start_time] : killed) {
    while (true) {
      reap_if_ours(pid);
      if (!same_process(pid, start_time) || Clock::now() >= deadline) break;
      std::this_thread::sleep_for(kPoll);
    }
  }
  return killed;
}

}  // namespace

bool ChildProcess::signal_and_wait(int signal, double grace_s) {
  killpg(pid_, signal);
  bool sufficed = true;
  const auto deadline = Clock::now() + std::chrono::duration<double>(grace_s);
  while (running() || group_alive(pid_)) {
    if (Clock::now() >= deadline) {
      sufficed = false;
      killpg(pid_, SIGKILL);
      break;
    }
    std::this_thread::sleep_for(kPoll);
  }
  const auto kill_deadline = Clock::now() + std::chrono::duration<double>(kKillWaitS);
  while ((running() || group_alive(pid_)) && Clock::now() < kill_deadline) {
    std::this_thread::sleep_for(kPoll);
  }
  return sufficed;
}

StopResult ChildProcess::stop(int signal, double grace_s) {
  StopResult result;
  result.signal_name = sigabbrev_np(signal) != nullptr
                           ? std::string("SIG") + sigabbrev_np(signal)
                           : std::to_string(signal);
  result.grace_s = grace_s;
  if (pid_ <= 0 || stopped_) {
    result.status = status_;
    return result;
  }
  stopped_ = true;
  const auto tracked = group_and_tree(pid_);
  result.signal_sufficed = signal_and_wait(signal, grace_s);
  result.status = status_;

  // Killing a leftover may orphan a child it forked after the scan (a daemon's middle process
  // caught between its fork and its exit): that child comes to us, so scan again until none is left.
  std::vector<ProcessIdentity> killed;
  const LeftoverScan scan{pid_, earlier_children_, tracked, killed};
  for (int pass = 0; pass < kLeftoverPasses; ++pass) {
    const std::vector<Leftover> found = scan.find(scan_processes());
    if (found.empty()) break;
    const std::vector<ProcessIdentity> now_killed = kill_and_wait(found);
    result.leftovers.insert(result.leftovers.end(), found.begin(), found.end());
    killed.insert(killed.end(), now_killed.begin(), now_killed.end());
  }
  // An orphan killed above that was ours is a zombie by now, or soon: reap what has ended.
  for (const auto& [pid, start_time] : killed) reap_if_ours(pid);
  return result;
}

CommandResult run_command(ProcessSpec spec, double timeout_s, const std::atomic<bool>* stop) {
  std::string temporary;
  if (spec.output_path.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/ringside-cmd-XXXXXX";
    const int fd = mkstemp(pattern.data());
    if (fd < 0) throw std::runtime_error("cannot create a temporary file like " + pattern);
    close(fd);
    temporary = pattern;
    spec.output_path = pattern;
  }
  CommandResult result;
  try {
    ChildProcess child(spec);
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
    while (child.running()) {
      if (Clock::now() >= deadline) {
        result.timed_out = true;
        break;
      }
      if (stop != nullptr && stop->load()) {
        result.interrupted = true;
        break;
      }
      std::this_thread::sleep_for(kPoll);
    }
    // After a normal exit this only sweeps up stragglers the command left in its group.
    StopResult stopped = child.stop(SIGKILL, 0);
    result.status = stopped.status.value_or(0);
  } catch (...) {
    if (!temporary.empty()) unlink(temporary.c_str());
    throw;
  }
  result.output = read_tail(spec.output_path, kMaxOutput);
  if (!temporary.empty()) unlink(temporary.c_str());
  return result;
}

}  // namespace ringside::harness
