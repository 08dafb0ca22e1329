#include "harness/proc_table.hpp"

#include <dirent.h>
#include <sys/prctl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace ringside::harness {

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
