// A snapshot of the processes in /proc, enough to find what a contestant left behind: its process
// group, the descendants of its first process (a child that called setsid has left the group but
// not the tree), and orphans that the kernel reparented to the harness (a subreaper, see
// become_subreaper). Start times tell a process from a later one that reuses its pid.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ringside::harness {

struct ProcEntry {
  pid_t pid = 0;
  pid_t ppid = 0;
  pid_t pgrp = 0;
  pid_t session = 0;
  char state = '?';               // R, S, D, Z, ...
  std::uint64_t start_time = 0;   // clock ticks since boot (/proc/PID/stat field 22)
  std::string command;            // comm: the executable's name, at most 15 bytes
  [[nodiscard]] bool zombie() const { return state == 'Z' || state == 'X'; }
};

// The fields of a /proc/PID/task/TID/stat (or /proc/PID/stat) text the harness reads: the CPU
// shield (flags, start time) and the server-CPU watch (CPU ticks, the CPU it last ran on).
struct TaskStat {
  pid_t tid = 0;
  std::string name;               // comm
  char state = '?';
  unsigned long flags = 0;        // field 9
  std::uint64_t ticks = 0;        // utime + stime (fields 14, 15), clock ticks
  std::uint64_t start_time = 0;   // field 22: clock ticks since boot
  int processor = -1;             // field 39: the CPU it last ran on
};
// Nothing when malformed or cut short of field 39.
std::optional<TaskStat> parse_task_stat(std::string_view stat);

// Every process readable in /proc now. Processes that vanish while it reads are skipped.
std::vector<ProcEntry> scan_processes();

// One process, if it still exists.
bool read_process(pid_t pid, ProcEntry& entry);

// Pids of root's descendants (root excluded) in `table`, following ppid links.
std::vector<pid_t> descendants_of(const std::vector<ProcEntry>& table, pid_t root);

// Makes this process the reaper of orphans among its descendants (PR_SET_CHILD_SUBREAPER): a
// daemon that double-forks away from a contestant then becomes our child instead of init's, so it
// can be found and killed. Idempotent.
void become_subreaper();

}  // namespace ringside::harness
