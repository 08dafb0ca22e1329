// The CPU shield of `ringside compare`: every other task on the machine (each thread of each
// process, kernel threads that allow it) moved off the server CPUs for the run, and each put back
// after to its exact previous CPU list, as `cset shield` and `tuna --isolate` do, with
// sched_setaffinity per thread. Left alone: ringside's own process and what it starts for the run
// (the contestants and the throwaway PostgreSQL, which the harness pins to the server CPUs
// itself), kernel threads bound to a CPU (PF_NO_SETAFFINITY, or EINVAL), and tasks allowed only
// on the server CPUs (pinned there on purpose: moving them would break them); those are counted
// and named.
//
// Before anything moves, a state file (JSON: each task's tid, pid, start time and CPU list) is
// written, so a run killed with SIGKILL or a crash can be undone by `ringside compare
// --restore-cpus` or by the next run. A start time that no longer matches means the tid was
// reused by another task: that one is never touched. A lock file beside it says whether a live
// run holds the shield.
//
//   CpuShield shield(server_cpus, shield_state_dir(), shield_scope_from_env());
//   if (shield.begin(say)) shield.pass({getpid()});   // again before each contestant starts
//   ...
//   shield.restore(say);                              // also in the destructor
//   results.shield = shield.facts();
//
// The pure parts (a /proc/TID/stat text, CapEff, the mask arithmetic, the state file's JSON, the
// restore decision) are functions tested on their own.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/process/proc_table.hpp"
#include "harness/results/results.hpp"

namespace ringside::harness {

// The task flag the kernel sets on threads whose CPUs must not change (per-CPU kernel threads).
inline constexpr unsigned long kPfNoSetAffinity = 0x04000000;
// How many unmovable tasks the facts name.
inline constexpr std::size_t kShieldNamesShown = 6;

// Whether a /proc/PID/status text's CapEff holds CAP_SYS_NICE (which lets a process set any
// task's CPUs); false when the line is missing or malformed.
bool has_cap_sys_nice(std::string_view status);

// "0-3,5": a sorted CPU list as the kernel writes one.
std::string cpu_list_text(std::vector<int> cpus);

// What to do with a task whose CPUs are `mask`.
enum class ShieldMove {
  kLeave,       // none of its CPUs is a server CPU
  kMove,        // move it to `to`
  kPinnedThere  // every CPU it may use is a server CPU: moving it would break it
};
struct ShieldPlan {
  ShieldMove move = ShieldMove::kLeave;
  std::vector<int> to;  // mask minus the server CPUs (kMove)
};
ShieldPlan plan_move(const std::vector<int>& mask, const std::vector<int>& server_cpus);

// A task the shield moved, as the state file keeps it.
struct MovedTask {
  pid_t tid = 0;
  pid_t pid = 0;
  std::uint64_t start_time = 0;
  std::vector<int> cpus;  // its CPUs before the shield
  std::string name;
};

struct ShieldState {
  pid_t owner = 0;                // the ringside compare that moved them
  std::vector<int> server_cpus;
  std::string phase = "moving";   // "moving" (written before the moves), "shielded", "restoring"
  std::vector<MovedTask> tasks;
};

struct ShieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string shield_state_json(const ShieldState& state);
// Throws ShieldError naming what is wrong.
ShieldState parse_shield_state(std::string_view text);

// What restoring one task comes to, from what /proc says of its tid now.
enum class RestoreAction {
  kRestore,   // the same task, still where the shield put it
  kGone,      // exited
  kRecycled,  // its tid is another task's now (start time differs): never touched
  kChanged    // the task changed its CPUs itself since: left as it chose
};
RestoreAction decide_restore(const MovedTask& task, const std::optional<TaskStat>& now,
                             const std::vector<int>& current, const std::vector<int>& server_cpus);

// The state folder: $RINGSIDE_SHIELD_STATE_DIR (for tests), /run/ringside as root, else
// $XDG_RUNTIME_DIR/ringside, else /tmp/ringside-UID.
std::filesystem::path shield_state_dir();
inline constexpr const char* kShieldStateFile = "cpu-shield.json";
inline constexpr const char* kShieldLockFile = "cpu-shield.lock";

// For tests only: $RINGSIDE_SHIELD_SCOPE=PID limits the shield to that process's tree;
// "none": to nothing (the shield's bookkeeping runs, no task moves). Unset: the whole machine.
struct ShieldScope {
  bool whole_machine = true;
  pid_t root = 0;  // 0 with !whole_machine: nothing
};
// Throws ShieldError on a value that is neither a pid nor "none".
ShieldScope shield_scope_from_env();

using ShieldSay = std::function<void(const std::string&)>;

// What restoring a state file did.
struct RestoreSummary {
  unsigned restored = 0;
  unsigned gone = 0;      // exited, or their tid recycled
  unsigned changed = 0;   // changed their CPUs themselves since
  unsigned failed = 0;    // sched_setaffinity refused: kept in the state file
  std::string problem;    // the state file could not be read or written, or a live run holds it
  std::string text() const;  // "put 183 tasks back on their CPUs (2 had exited)"
};

// `ringside compare --restore-cpus`: restores a left-over state file in `dir` unless a live run
// holds the lock. `found` says whether there was one.
RestoreSummary restore_left_over(const std::filesystem::path& dir, bool& found);

class CpuShield {
 public:
  CpuShield(std::vector<int> server_cpus, std::filesystem::path dir, ShieldScope scope);
  ~CpuShield();  // restores, when restore() was not called
  CpuShield(const CpuShield&) = delete;
  CpuShield& operator=(const CpuShield&) = delete;

  // Checks it may shield (the permission, a CPU to move to, the lock), and restores a state file
  // a killed run left (saying so). False, with facts().problem, when the shield cannot be had.
  bool begin(const ShieldSay& say);
  // Moves every movable task now on the server CPUs, but for the process trees of `exempt`.
  // Returns the tasks moved by this pass.
  unsigned pass(const std::vector<pid_t>& exempt);
  // Puts every moved task back and removes the state file. Idempotent.
  RestoreSummary restore(const ShieldSay& say);

  const ShieldFacts& facts() const { return facts_; }

 private:
  void note_unmovable(const std::string& name);
  // The tasks of the shield's scope (but exempt's trees) on the server CPUs, not yet seen, that
  // can be moved; the ones that cannot are noted as unmovable.
  std::vector<MovedTask> tasks_to_move(const std::vector<pid_t>& exempt);
  bool write_state(const std::string& phase);

  std::vector<int> server_cpus_;
  std::filesystem::path dir_;
  ShieldScope scope_;
  int lock_fd_ = -1;
  bool active_ = false;
  ShieldFacts facts_;
  std::vector<MovedTask> moved_;
  std::set<std::pair<pid_t, std::uint64_t>> seen_;  // (tid, start time) moved or found unmovable
};

}  // namespace ringside::harness
