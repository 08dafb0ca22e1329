#include "harness/measure/sampler.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <sstream>
#include <string>

#include "harness/measure/kernel_counters.hpp"
#include "harness/process/proc_table.hpp"
#include "harness/process/proc_text.hpp"

namespace ringside::harness {
namespace {

std::optional<std::uint64_t> number_at(std::string_view text, std::size_t& at) {
  while (at < text.size() && text[at] == ' ') ++at;
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data() + at, text.data() + text.size(), value);
  if (error != std::errc()) return std::nullopt;
  at = static_cast<std::size_t>(end - text.data());
  return value;
}

// The time on a CPU of every live thread of a process, from /proc/PID/task/*/schedstat.
std::optional<double> threads_run_s(const std::string& process_dir) {
  DIR* tasks = opendir((process_dir + "/task").c_str());
  if (tasks == nullptr) return std::nullopt;
  double total = 0;
  bool any = false;
  while (const dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    const auto times = parse_schedstat(read_text(process_dir + "/task/" + entry->d_name + "/schedstat"));
    if (!times) continue;
    total += times->run_s;
    any = true;
  }
  closedir(tasks);
  return any ? std::optional(total) : std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> parse_stat_cpu_ticks(std::string_view stat) {
  const auto cpu = parse_stat_cpu(stat);
  if (!cpu) return std::nullopt;
  return cpu->own + cpu->children;
}

std::optional<StatCpuTicks> parse_stat_cpu(std::string_view stat) {
  // The command (field 2) may hold spaces and ')'; the fields after its last ')' do not.
  const std::size_t paren = stat.rfind(')');
  if (paren == std::string_view::npos) return std::nullopt;
  std::string_view rest = stat.substr(paren + 1);
  // After ')': state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
  // utime(14) stime cutime cstime(17).
  std::size_t at = 0;
  for (int field = 3; field < 14; ++field) {
    while (at < rest.size() && rest[at] == ' ') ++at;
    const std::size_t space = rest.find(' ', at);
    if (space == std::string_view::npos) return std::nullopt;
    at = space;
  }
  StatCpuTicks ticks;
  for (int field = 14; field <= 17; ++field) {
    // cutime and cstime are signed in the kernel's format, yet never negative in practice.
    const auto value = number_at(rest, at);
    if (!value) return std::nullopt;
    (field <= 15 ? ticks.own : ticks.children) += *value;
  }
  return ticks;
}

std::uint64_t parse_status_kib(std::string_view status, std::string_view key) {
  std::size_t at = 0;
  while (at < status.size()) {
    const std::size_t newline = status.find('\n', at);
    const std::string_view line = status.substr(at, newline == std::string_view::npos ? std::string_view::npos : newline - at);
    at = newline == std::string_view::npos ? status.size() : newline + 1;
    if (line.size() > key.size() && line.starts_with(key) && line[key.size()] == ':') {
      std::size_t position = key.size() + 1;
      while (position < line.size() && (line[position] == ' ' || line[position] == '\t')) ++position;
      return number_at(line, position).value_or(0);
    }
  }
  return 0;
}

TreeUsage measure_tree(pid_t root, bool with_cpu) {
  static const double kTicksPerSecond = static_cast<double>(sysconf(_SC_CLK_TCK));
  TreeUsage usage;
  const std::vector<ProcEntry> table = scan_processes();
  std::vector<pid_t> pids = descendants_of(table, root);
  pids.insert(pids.begin(), root);
  for (pid_t pid : pids) {
    const std::string base = "/proc/" + std::to_string(pid);
    const auto ticks = parse_stat_cpu(read_text(base + "/stat"));
    if (!ticks) continue;  // gone meanwhile
    ++usage.processes;
    // /proc/PID/stat counts in 10 ms ticks, coarse against a short point's few milliseconds of
    // database work; its threads' schedstat counts nanoseconds. The ticks still win when larger:
    // they include threads that have exited.
    if (with_cpu) {
      const double ticked = static_cast<double>(ticks->own) / kTicksPerSecond;
      usage.cpu_s += std::max(ticked, threads_run_s(base).value_or(0)) +
                     static_cast<double>(ticks->children) / kTicksPerSecond;
    }
    const std::string status = read_text(base + "/status");
    usage.rss_kib += static_cast<double>(parse_status_kib(status, "VmRSS"));
    usage.hwm_kib += static_cast<double>(parse_status_kib(status, "VmHWM"));
  }
  return usage;
}

std::vector<std::string> cgroup_cpu_stat_paths(std::string_view text) {
  std::vector<std::string> v1, v2;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    const std::size_t first = line.find(':');
    const std::size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    const std::string controllers(line.substr(first + 1, second - first - 1));
    std::string path(line.substr(second + 1));
    if (path == "/") path.clear();
    if (controllers.empty()) {
      v2.push_back("/sys/fs/cgroup" + path + "/cpu.stat");
      v2.push_back("/sys/fs/cgroup/unified" + path + "/cpu.stat");
      continue;
    }
    std::string_view rest = controllers;
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      if (rest.substr(0, comma) == "cpu") {
        v1.push_back("/sys/fs/cgroup/" + controllers + path + "/cpu.stat");
        if (controllers != "cpu") v1.push_back("/sys/fs/cgroup/cpu" + path + "/cpu.stat");
        break;
      }
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
  }
  v1.insert(v1.end(), v2.begin(), v2.end());
  return v1;
}

std::optional<double> parse_throttled_s(std::string_view text) {
  for (const auto& [key, scale] : {std::pair<std::string_view, double>{"throttled_time ", 1e-9},
                                   std::pair<std::string_view, double>{"throttled_usec ", 1e-6}}) {
    std::size_t at = 0;
    while ((at = text.find(key, at)) != std::string_view::npos) {
      if (at == 0 || text[at - 1] == '\n') {
        std::size_t position = at + key.size();
        if (auto value = number_at(text, position)) return static_cast<double>(*value) * scale;
      }
      at += key.size();
    }
  }
  return std::nullopt;
}

double cgroup_throttled_s() {
  for (const std::string& path : cgroup_cpu_stat_paths(read_text("/proc/self/cgroup"))) {
    if (auto seconds = parse_throttled_s(read_text(path))) return *seconds;
  }
  return 0;
}

std::vector<pid_t> own_threads() {
  std::vector<pid_t> tids;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return tids;
  while (const dirent* entry = readdir(dir)) {
    pid_t tid = 0;
    const std::string_view name = entry->d_name;
    const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), tid);
    if (error == std::errc() && end == name.data() + name.size()) tids.push_back(tid);
  }
  closedir(dir);
  std::sort(tids.begin(), tids.end());
  return tids;
}

SchedTimes thread_sched_times(const std::vector<pid_t>& tids) {
  SchedTimes total;
  for (pid_t tid : tids) {
    if (auto times = parse_schedstat(read_text("/proc/self/task/" + std::to_string(tid) + "/schedstat"))) {
      total.run_s += times->run_s;
      total.wait_s += times->wait_s;
    }
  }
  return total;
}

PointSampler::PointSampler(pid_t root, int port, std::vector<pid_t> loader_tids)
    : root_(root), port_(port), loader_tids_(std::move(loader_tids)) {}

PointSampler::~PointSampler() {
  done_ = true;
  if (thread_.joinable()) thread_.join();
}

void PointSampler::start() {
  sample(port_ > 0);
  thread_ = std::thread([this] {
    unsigned tick = 0;
    while (!done_) {
      // Sleeping in small steps keeps finish() prompt; the sampling period stays 100 ms.
      for (int slept = 0; slept < kSampleIntervalMs && !done_; slept += 10) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      if (done_) break;
      sample(port_ > 0 && ++tick % kEstablishedEveryNthSample == 0);
    }
  });
}

void PointSampler::sample(bool count_connections) {
  const TreeUsage usage = measure_tree(root_, /*with_cpu=*/false);
  const std::uint64_t established = count_connections ? count_established(port_) : 0;
  std::lock_guard lock(mutex_);
  if (usage.processes > 0) {
    figures_.rss_peak_kib = std::max(figures_.rss_peak_kib, usage.rss_kib);
    rss_sum_ += usage.rss_kib;
    ++figures_.samples;
  }
  figures_.established_peak = std::max(figures_.established_peak, established);
  for (pid_t tid : loader_tids_) {
    if (auto times = parse_schedstat(read_text("/proc/self/task/" + std::to_string(tid) + "/schedstat"))) {
      first_sched_.try_emplace(tid, *times);
      last_sched_[tid] = *times;
    }
  }
}

SamplerFigures PointSampler::finish() {
  done_ = true;
  if (thread_.joinable()) thread_.join();
  sample(port_ > 0);
  std::lock_guard lock(mutex_);
  figures_.rss_mean_kib = figures_.samples > 0 ? rss_sum_ / figures_.samples : 0;
  figures_.loader = {};
  for (const auto& [tid, times] : last_sched_) {
    const SchedTimes& first = first_sched_[tid];
    figures_.loader.run_s += times.run_s - first.run_s;
    figures_.loader.wait_s += times.wait_s - first.wait_s;
  }
  return figures_;
}

}  // namespace ringside::harness
