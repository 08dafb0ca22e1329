#include "harness/process/thread_times.hpp"

#include <dirent.h>

#include "harness/process/proc_table.hpp"
#include "harness/process/proc_text.hpp"

namespace ringside::harness {
namespace {

// The threads of one process, appended to `out`.
void read_threads(pid_t pid, std::vector<ThreadTimes>& out) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* tasks = opendir(dir.c_str());
  if (tasks == nullptr) return;
  while (const dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    const std::string task = dir + "/" + entry->d_name;
    const std::optional<SchedTimes> times = parse_schedstat(read_text(task + "/schedstat"));
    const std::optional<TaskStat> stat = parse_task_stat(read_text(task + "/stat"));
    if (!times || !stat) continue;
    out.push_back({pid, stat->tid, stat->name, *times});
  }
  closedir(tasks);
}

}  // namespace

std::optional<SchedTimes> parse_schedstat(std::string_view text) {
  const std::vector<std::string_view> fields = split_fields(text);
  std::uint64_t run = 0, wait = 0;
  if (fields.size() < 2 || !parse_field(fields[0], run) || !parse_field(fields[1], wait)) {
    return std::nullopt;
  }
  return SchedTimes{static_cast<double>(run) / 1e9, static_cast<double>(wait) / 1e9};
}

std::vector<ThreadTimes> tree_thread_times(pid_t root) {
  std::vector<ThreadTimes> threads;
  ProcEntry entry;
  if (!read_process(root, entry) || entry.zombie()) return threads;
  std::vector<pid_t> pids = descendants_of(scan_processes(), root);
  pids.insert(pids.begin(), root);
  for (const pid_t pid : pids) read_threads(pid, threads);
  return threads;
}

}  // namespace ringside::harness
