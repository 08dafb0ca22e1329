#include "harness/measure/server_cpu_watch.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <fstream>
#include <sstream>

#include "harness/process/proc_table.hpp"
#include "harness/process/proc_text.hpp"

namespace ringside::harness {
namespace {

std::vector<pid_t> task_ids(pid_t pid) {
  std::vector<pid_t> tids;
  DIR* tasks = opendir(("/proc/" + std::to_string(pid) + "/task").c_str());
  if (tasks == nullptr) return tids;
  while (const dirent* entry = readdir(tasks)) {
    pid_t tid = 0;
    if (parse_field(std::string_view(entry->d_name), tid)) tids.push_back(tid);
  }
  closedir(tasks);
  return tids;
}

std::set<pid_t> tree_of(const std::vector<ProcEntry>& table, pid_t root) {
  std::set<pid_t> pids;
  if (root <= 0) return pids;
  pids.insert(root);
  for (pid_t pid : descendants_of(table, root)) pids.insert(pid);
  return pids;
}

// Run and wait times summed over threads, between two readings; a thread born between them
// counts from zero, one that ended is lost (its time is in no reading).
SchedTimes sched_delta(const std::map<pid_t, SchedTimes>& before, const std::map<pid_t, SchedTimes>& after) {
  SchedTimes delta;
  for (const auto& [tid, times] : after) {
    const auto was = before.find(tid);
    const SchedTimes earlier = was == before.end() ? SchedTimes{} : was->second;
    delta.run_s += std::max(0.0, times.run_s - earlier.run_s);
    delta.wait_s += std::max(0.0, times.wait_s - earlier.wait_s);
  }
  return delta;
}

}  // namespace

std::map<int, CpuTicks> parse_proc_stat_cpus(std::string_view text) {
  std::map<int, CpuTicks> cpus;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t newline = text.find('\n', at);
    const std::string_view line =
        text.substr(at, newline == std::string_view::npos ? std::string_view::npos : newline - at);
    at = newline == std::string_view::npos ? text.size() : newline + 1;
    if (!line.starts_with("cpu") || line.size() < 4 || line[3] < '0' || line[3] > '9') continue;
    const std::vector<std::string_view> fields = split_fields(line);
    int cpu = 0;
    if (fields.size() < 9 || !parse_field(fields[0].substr(3), cpu)) continue;
    std::uint64_t values[8] = {};
    bool ok = true;
    for (int i = 0; i < 8; ++i) ok = ok && parse_field(fields[static_cast<std::size_t>(i) + 1], values[i]);
    if (!ok) continue;
    cpus[cpu] = {values[0], values[1], values[2], values[3], values[4], values[5], values[6], values[7]};
  }
  return cpus;
}

ServerCpuFigures server_cpu_figures(const CpuWatchSnapshot& before, const CpuWatchSnapshot& after,
                                    const CpuWatchInputs& inputs) {
  ServerCpuFigures figures;
  if (inputs.server_cpus.empty() || !(inputs.ticks_per_s > 0)) return figures;
  // /proc/stat counts whole ticks: over a window of a few, one tick more or less is most of the
  // share (a point that failed at once read "194951% of CPU 0"), so such a window says nothing.
  if (!(inputs.duration_s * inputs.ticks_per_s >= kShortestWatchTicks)) return figures;
  std::uint64_t tasks = 0, steal = 0;
  for (int cpu : inputs.server_cpus) {
    const auto was = before.cpus.find(cpu);
    const auto now = after.cpus.find(cpu);
    if (was == before.cpus.end() || now == after.cpus.end()) return figures;  // unreadable
    if (now->second.tasks() >= was->second.tasks()) tasks += now->second.tasks() - was->second.tasks();
    if (now->second.steal >= was->second.steal) steal += now->second.steal - was->second.steal;
  }
  const double busy_s = static_cast<double>(tasks) / inputs.ticks_per_s;
  const SchedTimes server = sched_delta(before.server_threads, after.server_threads);
  const SchedTimes database = sched_delta(before.database_threads, after.database_threads);
  figures.steal_s = static_cast<double>(steal) / inputs.ticks_per_s;
  figures.others_s = std::max(0.0, busy_s - server.run_s - database.run_s) + figures.steal_s;
  figures.others_share =
      figures.others_s / (inputs.duration_s * static_cast<double>(inputs.server_cpus.size()));
  figures.wait_s = server.wait_s;
  std::map<std::string, std::uint64_t> by_name;
  for (const auto& [tid, task] : after.tasks) {
    if (std::find(inputs.server_cpus.begin(), inputs.server_cpus.end(), task.processor) ==
        inputs.server_cpus.end()) {
      continue;
    }
    // ksoftirqd's time is the kernel's network work, accounted as softirq, not in `tasks`.
    if (task.name.starts_with("ksoftirqd/")) continue;
    const auto was = before.tasks.find(tid);
    const std::uint64_t earlier = was == before.tasks.end() ? 0 : was->second.ticks;
    if (task.ticks > earlier) by_name[task.name] += task.ticks - earlier;
  }
  std::vector<std::pair<std::string, std::uint64_t>> named(by_name.begin(), by_name.end());
  std::stable_sort(named.begin(), named.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  // A task is placed by the CPU it was on at the end, so a task that moved between CPUs during
  // the point is over-counted: the names share out at most what the CPUs' own counters saw.
  double named_s = 0;
  for (const auto& [name, ticks] : named) named_s += static_cast<double>(ticks) / inputs.ticks_per_s;
  const double others_tasks_s = figures.others_s - figures.steal_s;
  const double scale = named_s > others_tasks_s && named_s > 0 ? others_tasks_s / named_s : 1;
  if (named.size() > inputs.most_named) named.resize(inputs.most_named);
  for (const auto& [name, ticks] : named) {
    const double cpu_s = static_cast<double>(ticks) / inputs.ticks_per_s * scale;
    if (cpu_s > 0) figures.others.push_back({name, cpu_s});
  }
  return figures;
}

std::string cpus_phrase(const std::vector<int>& cpus) {
  std::string text = cpus.size() == 1 ? "CPU " : "CPUs ";
  for (std::size_t i = 0; i < cpus.size(); ++i) text += (i ? ", " : "") + std::to_string(cpus[i]);
  return text;
}

ServerCpuWatch::ServerCpuWatch(std::vector<int> server_cpus, pid_t server_root, pid_t database_root)
    : server_cpus_(std::move(server_cpus)), server_root_(server_root), database_root_(database_root) {}

CpuWatchSnapshot ServerCpuWatch::snapshot() const {
  CpuWatchSnapshot snapshot;
  for (const auto& [cpu, ticks] : parse_proc_stat_cpus(read_text("/proc/stat"))) {
    if (std::find(server_cpus_.begin(), server_cpus_.end(), cpu) != server_cpus_.end()) {
      snapshot.cpus[cpu] = ticks;
    }
  }
  const std::vector<ProcEntry> table = scan_processes();
  const std::set<pid_t> server = tree_of(table, server_root_);
  const std::set<pid_t> database = tree_of(table, database_root_);
  const pid_t harness = getpid();
  for (const ProcEntry& process : table) {
    if (process.pid == harness) continue;
    std::map<pid_t, SchedTimes>* sched = server.count(process.pid) ? &snapshot.server_threads
                                         : database.count(process.pid) ? &snapshot.database_threads
                                                                        : nullptr;
    const std::string base = "/proc/" + std::to_string(process.pid) + "/task/";
    for (pid_t tid : task_ids(process.pid)) {
      const std::string dir = base + std::to_string(tid);
      if (sched != nullptr) {
        if (auto times = parse_schedstat(read_text(dir + "/schedstat"))) (*sched)[tid] = *times;
      } else if (auto task = parse_task_stat(read_text(dir + "/stat"))) {
        snapshot.tasks[tid] = std::move(*task);
      }
    }
  }
  return snapshot;
}

static double steady_now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void ServerCpuWatch::begin() {
  before_ = snapshot();
  begun_s_ = steady_now_s();
}

void ServerCpuWatch::end() {
  ended_s_ = steady_now_s();
  after_ = snapshot();
}

ServerCpuFigures ServerCpuWatch::figures() const {
  static const double kTicksPerSecond = static_cast<double>(sysconf(_SC_CLK_TCK));
  return server_cpu_figures(before_, after_,
                            {.server_cpus = server_cpus_,
                             .duration_s = ended_s_ - begun_s_,
                             .ticks_per_s = kTicksPerSecond});
}

}  // namespace ringside::harness
