// Child processes the harness starts: contestants, their builds and version commands.
//
// Each child leads its own process group (setpgid), so one signal reaches everything it forks and
// a Ctrl-C in the terminal reaches only the harness, which then stops it in order. It gets
// SIGKILL should the harness die (PR_SET_PDEATHSIG), may be pinned to a CPU set
// (sched_setaffinity before exec), and writes stdout and stderr to one file.
//
//   ChildProcess server(spec);                       // throws std::runtime_error: cannot start
//   ... server.running() ...                         // reaps it once it has exited
//   StopResult stopped = server.stop(SIGTERM, 5.0);  // signal, grace, SIGKILL, reap, leftovers
//   if (!stopped.problem().empty()) ...              // ignored the signal, or left processes
//
// stop() then checks that nothing of the child is left: no live process in its group, none of the
// descendants it had when the stop began (a child that called setsid left the group, not the
// tree), and no orphan reparented to the harness since it started (a daemon that double-forked;
// call become_subreaper() first so orphans come to us, not to init). Whatever it finds it kills
// and reports.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ringside::harness {

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH unless it holds a '/'
  std::vector<std::pair<std::string, std::string>> env;  // set over the harness's environment
  std::string cwd;                // empty: the harness's
  std::string output_path;        // stdout and stderr (truncated); empty: /dev/null
  std::vector<int> cpus;          // CPUs to pin to; empty: not pinned
};

struct Leftover {
  pid_t pid = 0;
  std::string command;
  std::string how;  // "still in its process group", "escaped its process group", ...
};

struct StopResult {
  bool signal_sufficed = true;   // everything exited within the grace after the stop signal
  std::string signal_name;
  double grace_s = 0;
  std::optional<int> status;     // the leader's wait status, once reaped
  std::vector<Leftover> leftovers;
  // "" for a clean stop; else one phrase: "ignored SIGTERM: killed after 5 s", "left 1 process
  // running after the stop: 123 python3 (escaped its process group); killed".
  [[nodiscard]] std::string problem() const;
};

class ChildProcess {
 public:
  ChildProcess() = default;
  explicit ChildProcess(const ProcessSpec& spec);
  ~ChildProcess();  // a child still running gets SIGKILL (group and descendants) and is reaped
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  [[nodiscard]] pid_t pid() const { return pid_; }
  [[nodiscard]] bool started() const { return pid_ > 0; }
  // True while the leader has not exited; reaps it (keeping its status) once it has.
  bool running();
  [[nodiscard]] const std::optional<int>& status() const { return status_; }

  // Sends `signal` to the group, waits up to grace_s for the group to be gone, then SIGKILLs it,
  // reaps the leader and hunts leftovers (see the header comment). Idempotent.
  StopResult stop(int signal, double grace_s);

 private:
  void kill_now();
  // killpg(signal), then up to grace_s for the group to be gone, else SIGKILL; false if it took that.
  bool signal_and_wait(int signal, double grace_s);

  pid_t pid_ = -1;
  std::optional<int> status_;
  bool stopped_ = false;
  std::vector<pid_t> earlier_children_;  // our children when this one started: not its orphans
};

struct CommandResult {
  int status = 0;           // wait status
  bool timed_out = false;   // killed after timeout_s
  bool interrupted = false; // killed because *stop became true
  std::string output;       // stdout and stderr, the last 64 KiB
};

// Runs a command to completion with a bound, stdout and stderr captured (to spec.output_path if
// set, else to a temporary file removed after). Throws std::runtime_error when it cannot start.
CommandResult run_command(ProcessSpec spec, double timeout_s,
                          const std::atomic<bool>* stop = nullptr);

// "exit 3", "killed by Terminated".
std::string describe_wait_status(int status);
// "5 s", "0.5 s".
std::string format_seconds(double seconds);
// The last `count` non-empty lines of text, joined by " | ", each cut to 200 bytes; "" if none.
std::string tail_lines(std::string_view text, std::size_t count);
// The last `bytes` bytes of a file; "" when it cannot be read.
std::string read_tail(const std::string& path, std::size_t bytes);
// tail_lines of a file's last 16 KiB.
std::string last_lines(const std::string& path, std::size_t count);

}  // namespace ringside::harness
