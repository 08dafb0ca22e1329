#include "harness/process/proc_table.hpp"

#include <dirent.h>
#include <sys/prctl.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "harness/process/proc_text.hpp"

namespace ringside::harness {

std::optional<TaskStat> parse_task_stat(std::string_view stat) {
  // The name (field 2) sits in parentheses and may hold spaces and ')': it ends at the last ')'.
  const std::size_t open = stat.find('(');
  const std::size_t close = stat.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  const std::vector<std::string_view> rest = split_fields(stat.substr(close + 1));
  // rest[0] is field 3 (state): flags is field 9, utime 14, stime 15, starttime 22, processor 39.
  constexpr std::size_t kFlags = 9 - 3, kUtime = 14 - 3, kStime = 15 - 3, kStart = 22 - 3,
                        kProcessor = 39 - 3;
  if (rest.size() <= kProcessor || rest[0].empty()) return std::nullopt;
  TaskStat task;
  task.name = std::string(stat.substr(open + 1, close - open - 1));
  task.state = rest[0][0];
  std::string_view tid = stat.substr(0, open);
  while (!tid.empty() && tid.back() == ' ') tid.remove_suffix(1);
  std::uint64_t utime = 0, stime = 0;
  if (!parse_field(tid, task.tid) || !parse_field(rest[kFlags], task.flags) ||
      !parse_field(rest[kUtime], utime) || !parse_field(rest[kStime], stime) ||
      !parse_field(rest[kStart], task.start_time) || !parse_field(rest[kProcessor], task.processor)) {
    return std::nullopt;
  }
  task.ticks = utime + stime;
  return task;
}


bool read_process(pid_t pid, ProcEntry& entry) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(file, line)) return false;
  // "PID (comm) S PPID PGRP SESSION ...": comm may hold spaces and parentheses, so split at the
  // last ')'.
  const auto open = line.find('(');
  const auto close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  entry.pid = pid;
  entry.command = line.substr(open + 1, close - open - 1);
  std::istringstream rest(line.substr(close + 1));
  std::string skip;
  rest >> entry.state >> entry.ppid >> entry.pgrp >> entry.session;
  // Fields 7..21 lie between the session (6) and the start time (22).
  for (int field = 7; field <= 21; ++field) rest >> skip;
  rest >> entry.start_time;
  return static_cast<bool>(rest);
}

std::vector<ProcEntry> scan_processes() {
  std::vector<ProcEntry> table;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return table;
  while (dirent* item = readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(item->d_name, &end, 10);
    if (end == item->d_name || *end != '\0' || pid <= 0) continue;
    ProcEntry entry;
    if (read_process(static_cast<pid_t>(pid), entry)) table.push_back(std::move(entry));
  }
  closedir(proc);
  return table;
}

std::vector<pid_t> descendants_of(const std::vector<ProcEntry>& table, pid_t root) {
  std::unordered_multimap<pid_t, pid_t> children;
  for (const auto& entry : table) children.emplace(entry.ppid, entry.pid);
  std::vector<pid_t> found;
  std::vector<pid_t> pending{root};
  while (!pending.empty()) {
    const pid_t parent = pending.back();
    pending.pop_back();
    auto [first, last] = children.equal_range(parent);
    for (auto it = first; it != last; ++it) {
      if (it->second == root) continue;  // a cycle cannot happen, but a torn snapshot might
      found.push_back(it->second);
      pending.push_back(it->second);
    }
  }
  return found;
}

void become_subreaper() { prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

}  // namespace ringside::harness
