#include "harness/process/cpu_shield.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/process/proc_table.hpp"
#include "harness/process/proc_text.hpp"
#include "harness/config/scenario.hpp"

namespace ringside::harness {

using nlohmann::json;

namespace {

constexpr int kCapSysNice = 23;

std::optional<std::vector<int>> affinity_of(pid_t tid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(tid, sizeof set, &set) != 0) return std::nullopt;
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

// 0, or the errno of sched_setaffinity.
int set_affinity(pid_t tid, const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) {
    if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
  }
  return sched_setaffinity(tid, sizeof set, &set) == 0 ? 0 : errno;
}

std::vector<pid_t> numbered_entries(const std::filesystem::path& folder) {
  std::vector<pid_t> found;
  DIR* dir = opendir(folder.c_str());
  if (dir == nullptr) return found;
  while (dirent* item = readdir(dir)) {
    char* end = nullptr;
    const long number = std::strtol(item->d_name, &end, 10);
    if (end != item->d_name && *end == '\0' && number > 0) found.push_back(static_cast<pid_t>(number));
  }
  closedir(dir);
  return found;
}

std::optional<TaskStat> task_stat(pid_t pid, pid_t tid) {
  return parse_task_stat(read_text("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat"));
}

// Written whole or not at all: a crash mid-write must not leave half a list of tasks.
bool write_atomically(const std::filesystem::path& file, const std::string& text) {
  const std::filesystem::path temporary = file.string() + ".new";
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  const bool ok = written == text.size() && fsync(fd) == 0;
  close(fd);
  if (!ok || rename(temporary.c_str(), file.c_str()) != 0) {
    unlink(temporary.c_str());
    return false;
  }
  return true;
}

// Opens and takes the lock file in `dir`; -1 with `held` when a live run holds it, -1 with
// `error` when it cannot be opened.
int take_lock(const std::filesystem::path& dir, bool& held, std::string& error) {
  held = false;
  const std::filesystem::path path = dir / kShieldLockFile;
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    error = path.string() + ": " + std::strerror(errno);
    return -1;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    held = errno == EWOULDBLOCK;
    if (!held) error = path.string() + ": " + std::strerror(errno);
    close(fd);
    return -1;
  }
  return fd;
}

std::string owner_of(const std::filesystem::path& dir) {
  try {
    return std::to_string(parse_shield_state(read_text(dir / kShieldStateFile)).owner);
  } catch (const ShieldError&) {
    return "unknown";
  }
}

// Puts `tasks` back; those whose sched_setaffinity failed stay in `tasks`.
RestoreSummary restore_tasks(std::vector<MovedTask>& tasks, const std::vector<int>& server_cpus) {
  RestoreSummary summary;
  std::vector<MovedTask> failed;
  for (MovedTask& task : tasks) {
    const std::optional<TaskStat> now = task_stat(task.pid, task.tid);
    const std::vector<int> current = affinity_of(task.tid).value_or(std::vector<int>{});
    switch (decide_restore(task, now, current, server_cpus)) {
      case RestoreAction::kGone:
      case RestoreAction::kRecycled: ++summary.gone; break;
      case RestoreAction::kChanged: ++summary.changed; break;
      case RestoreAction::kRestore: {
        const int error = set_affinity(task.tid, task.cpus);
        if (error == 0) {
          ++summary.restored;
        } else if (error == ESRCH) {
          ++summary.gone;
        } else {
          ++summary.failed;
          failed.push_back(std::move(task));
        }
        break;
      }
    }
  }
  tasks = std::move(failed);
  return summary;
}

// Restores what the state file `file` lists, then removes it (or keeps the tasks that refused).
RestoreSummary restore_state_file(const std::filesystem::path& file, ShieldState state) {
  state.phase = "restoring";
  write_atomically(file, shield_state_json(state));
  RestoreSummary summary = restore_tasks(state.tasks, state.server_cpus);
  if (state.tasks.empty()) {
    std::error_code ignored;
    std::filesystem::remove(file, ignored);
  } else {
    write_atomically(file, shield_state_json(state));
    summary.problem = std::to_string(state.tasks.size()) + " task(s) refused their CPUs back; "
                      "they stay listed in " + file.string() + " for ringside compare --restore-cpus";
  }
  return summary;
}

std::string plural(unsigned n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

bool has_cap_sys_nice(std::string_view status) {
  constexpr std::string_view kKey = "\nCapEff:";
  const auto at = status.find(kKey);
  if (at == std::string_view::npos) return false;
  std::istringstream value{std::string(status.substr(at + kKey.size(), 32))};
  std::string hex;
  value >> hex;
  char* end = nullptr;
  errno = 0;
  const unsigned long long caps = std::strtoull(hex.c_str(), &end, 16);
  if (hex.empty() || *end != '\0' || errno != 0) return false;
  return (caps >> kCapSysNice) & 1u;
}

std::string cpu_list_text(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string text;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t last = i;
    while (last + 1 < cpus.size() && cpus[last + 1] == cpus[last] + 1) ++last;
    text += (text.empty() ? "" : ",") + std::to_string(cpus[i]);
    if (last > i) text += "-" + std::to_string(cpus[last]);
    i = last + 1;
  }
  return text;
}

ShieldPlan plan_move(const std::vector<int>& mask, const std::vector<int>& server_cpus) {
  ShieldPlan plan;
  bool touches = false;
  for (int cpu : mask) {
    if (std::find(server_cpus.begin(), server_cpus.end(), cpu) != server_cpus.end()) {
      touches = true;
    } else {
      plan.to.push_back(cpu);
    }
  }
  if (!touches) {
    plan.to.clear();
    return plan;
  }
  plan.move = plan.to.empty() ? ShieldMove::kPinnedThere : ShieldMove::kMove;
  return plan;
}

std::string shield_state_json(const ShieldState& state) {
  json tasks = json::array();
  for (const MovedTask& task : state.tasks) {
    tasks.push_back({{"tid", task.tid},
                     {"pid", task.pid},
                     {"start_time", task.start_time},
                     {"cpus", cpu_list_text(task.cpus)},
                     {"name", task.name}});
  }
  const json document = {{"what", "tasks ringside compare moved off the server CPUs; "
                                  "ringside compare --restore-cpus puts them back"},
                         {"owner", state.owner},
                         {"server_cpus", cpu_list_text(state.server_cpus)},
                         {"phase", state.phase},
                         {"tasks", tasks}};
  return document.dump(1) + "\n";
}

ShieldState parse_shield_state(std::string_view text) {
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception& error) {
    throw ShieldError(std::string("not JSON: ") + error.what());
  }
  ShieldState state;
  try {
    state.owner = document.at("owner").get<pid_t>();
    state.phase = document.at("phase").get<std::string>();
    const auto server = parse_cpu_list(document.at("server_cpus").get<std::string>());
    if (!server) throw ShieldError("server_cpus is not a CPU list");
    state.server_cpus = *server;
    for (const json& item : document.at("tasks")) {
      MovedTask task;
      task.tid = item.at("tid").get<pid_t>();
      task.pid = item.at("pid").get<pid_t>();
      task.start_time = item.at("start_time").get<std::uint64_t>();
      const auto cpus = parse_cpu_list(item.at("cpus").get<std::string>());
      if (!cpus || task.tid <= 0 || task.pid <= 0) {
        throw ShieldError("task " + std::to_string(task.tid) + ": bad tid, pid or cpus");
      }
      task.cpus = *cpus;
      task.name = item.value("name", "");
      state.tasks.push_back(std::move(task));
    }
  } catch (const json::exception& error) {
    throw ShieldError(std::string("a field is missing or of the wrong type: ") + error.what());
  }
  return state;
}

RestoreAction decide_restore(const MovedTask& task, const std::optional<TaskStat>& now,
                             const std::vector<int>& current, const std::vector<int>& server_cpus) {
  if (!now || now->state == 'Z' || now->state == 'X') return RestoreAction::kGone;
  if (now->start_time != task.start_time) return RestoreAction::kRecycled;
  if (current != plan_move(task.cpus, server_cpus).to) return RestoreAction::kChanged;
  return RestoreAction::kRestore;
}

std::filesystem::path shield_state_dir() {
  if (const char* dir = std::getenv("RINGSIDE_SHIELD_STATE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  if (geteuid() == 0) return "/run/ringside";
  if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime != nullptr && *runtime != '\0') {
    return std::filesystem::path(runtime) / "ringside";
  }
  return "/tmp/ringside-" + std::to_string(geteuid());
}

ShieldScope shield_scope_from_env() {
  ShieldScope scope;
  const char* value = std::getenv("RINGSIDE_SHIELD_SCOPE");
  if (value == nullptr || *value == '\0') return scope;
  scope.whole_machine = false;
  if (std::string_view(value) == "none") return scope;
  char* end = nullptr;
  const long pid = std::strtol(value, &end, 10);
  if (*end != '\0' || pid <= 0) {
    throw ShieldError(std::string("RINGSIDE_SHIELD_SCOPE=") + value +
                      ": must be a process id or \"none\" (it is for tests; unset it)");
  }
  scope.root = static_cast<pid_t>(pid);
  return scope;
}

std::string RestoreSummary::text() const {
  std::string line = "put " + plural(restored, "task", "tasks") + " back on " +
                     (restored == 1 ? "its" : "their") + " CPUs";
  std::vector<std::string> asides;
  if (gone > 0) asides.push_back(std::to_string(gone) + " had exited");
  if (changed > 0) asides.push_back(std::to_string(changed) + " had changed their CPUs themselves, left so");
  if (failed > 0) asides.push_back(std::to_string(failed) + " refused");
  for (std::size_t i = 0; i < asides.size(); ++i) line += (i == 0 ? " (" : ", ") + asides[i];
  return asides.empty() ? line : line + ")";
}

RestoreSummary restore_left_over(const std::filesystem::path& dir, bool& found) {
  RestoreSummary summary;
  found = std::filesystem::exists(dir / kShieldStateFile);
  if (!found) return summary;
  bool held = false;
  const int lock = take_lock(dir, held, summary.problem);
  if (lock < 0) {
    if (held) {
      summary.problem = "a running ringside compare (pid " + owner_of(dir) +
                        ") holds the CPU shield; it puts the tasks back when it ends (Ctrl-C "
                        "stops it)";
    }
    return summary;
  }
  try {
    summary = restore_state_file(dir / kShieldStateFile,
                                 parse_shield_state(read_text(dir / kShieldStateFile)));
  } catch (const ShieldError& error) {
    summary.problem = (dir / kShieldStateFile).string() + ": " + error.what() +
                      "; the tasks it lists must be put back by hand (taskset -p -c CPUS TID)";
  }
  close(lock);
  return summary;
}

CpuShield::CpuShield(std::vector<int> server_cpus, std::filesystem::path dir, ShieldScope scope)
    : server_cpus_(std::move(server_cpus)), dir_(std::move(dir)), scope_(scope) {
  facts_.requested = true;
}

CpuShield::~CpuShield() { restore({}); }

bool CpuShield::begin(const ShieldSay& say) {
  if (scope_.whole_machine && !has_cap_sys_nice(read_text("/proc/self/status"))) {
    facts_.problem = "ringside compare is not root (no CAP_SYS_NICE to set other processes' CPUs); "
                     "run it as root to keep the server CPUs quiet";
    return false;
  }
  std::string online_text = read_text("/sys/devices/system/cpu/online");
  while (!online_text.empty() && std::isspace(static_cast<unsigned char>(online_text.back()))) {
    online_text.pop_back();
  }
  const auto online = parse_cpu_list(online_text);
  if (!online || plan_move(*online, server_cpus_).move != ShieldMove::kMove) {
    facts_.problem = "the server CPUs (" + cpu_list_text(server_cpus_) +
                     ") are every online CPU: there is nowhere to move the other tasks; leave "
                     "one out of server_cpus";
    return false;
  }
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  if (error) {
    facts_.problem = "cannot create " + dir_.string() + " for its state file: " + error.message();
    return false;
  }
  bool held = false;
  lock_fd_ = take_lock(dir_, held, facts_.problem);
  if (lock_fd_ < 0) {
    if (held) {
      facts_.problem = "another ringside compare (pid " + owner_of(dir_) +
                       ") holds it now; run one at a time";
    }
    return false;
  }
  const std::filesystem::path file = dir_ / kShieldStateFile;
  if (std::filesystem::exists(file)) {
    try {
      const ShieldState left = parse_shield_state(read_text(file));
      const RestoreSummary summary = restore_state_file(file, left);
      if (say) {
        say("CPU shield: a run that was killed (pid " + std::to_string(left.owner) +
            ") left tasks moved off CPU " + cpu_list_text(left.server_cpus) + ": " + summary.text());
      }
      if (!summary.problem.empty()) facts_.problem = summary.problem;
    } catch (const ShieldError& bad) {
      facts_.problem = file.string() + ", left by an earlier run: " + bad.what() +
                       "; put its tasks back by hand (taskset -p -c CPUS TID) and remove it";
    }
    if (!facts_.problem.empty()) {
      close(lock_fd_);
      lock_fd_ = -1;
      return false;
    }
  }
  active_ = true;
  facts_.active = true;
  return true;
}

std::vector<MovedTask> CpuShield::tasks_to_move(const std::vector<pid_t>& exempt) {
  const std::vector<ProcEntry> table = scan_processes();
  std::set<pid_t> skip;
  for (pid_t root : exempt) {
    skip.insert(root);
    for (pid_t pid : descendants_of(table, root)) skip.insert(pid);
  }
  std::vector<pid_t> pids;
  if (scope_.whole_machine) {
    for (const ProcEntry& entry : table) pids.push_back(entry.pid);
  } else if (scope_.root > 0) {
    pids = descendants_of(table, scope_.root);
    pids.push_back(scope_.root);
  }
  std::vector<MovedTask> pending;
  for (pid_t pid : pids) {
    if (skip.count(pid) > 0) continue;
    for (pid_t tid : numbered_entries("/proc/" + std::to_string(pid) + "/task")) {
      const std::optional<TaskStat> stat = task_stat(pid, tid);
      if (!stat || stat->state == 'Z' || stat->state == 'X') continue;
      if (seen_.count({tid, stat->start_time}) > 0) continue;
      const std::optional<std::vector<int>> mask = affinity_of(tid);
      if (!mask) continue;
      const ShieldPlan plan = plan_move(*mask, server_cpus_);
      if (plan.move == ShieldMove::kLeave) continue;
      seen_.insert({tid, stat->start_time});
      if ((stat->flags & kPfNoSetAffinity) != 0) {
        note_unmovable(stat->name);
      } else if (plan.move == ShieldMove::kPinnedThere) {
        note_unmovable(stat->name + " (pid " + std::to_string(pid) + ", pinned to CPU " +
                       cpu_list_text(*mask) + ")");
      } else {
        pending.push_back({tid, pid, stat->start_time, *mask, stat->name});
      }
    }
  }
  return pending;
}

unsigned CpuShield::pass(const std::vector<pid_t>& exempt) {
  if (!active_) return 0;
  std::vector<MovedTask> pending = tasks_to_move(exempt);
  if (pending.empty()) return 0;
  // The state file lists them before any moves: a crash from here on can be undone.
  const std::size_t before = moved_.size();
  moved_.insert(moved_.end(), pending.begin(), pending.end());
  if (!write_state("moving")) {
    moved_.resize(before);
    for (const MovedTask& task : pending) seen_.erase({task.tid, task.start_time});
    facts_.problem = "cannot write " + (dir_ / kShieldStateFile).string() + ": " + std::strerror(errno) +
                     "; moved nothing more";
    return 0;
  }
  moved_.resize(before);
  unsigned moved = 0;
  for (MovedTask& task : pending) {
    const int error = set_affinity(task.tid, plan_move(task.cpus, server_cpus_).to);
    if (error == 0) {
      moved_.push_back(std::move(task));
      ++moved;
    } else if (error != ESRCH) {
      note_unmovable(task.name);  // EINVAL: a kernel thread bound to its CPU
    }
  }
  facts_.moved += moved;
  write_state("shielded");
  return moved;
}

RestoreSummary CpuShield::restore(const ShieldSay& say) {
  RestoreSummary summary;
  if (!active_) return summary;
  active_ = false;
  if (!moved_.empty()) {
    ShieldState state;
    state.owner = getpid();
    state.server_cpus = server_cpus_;
    state.tasks = std::move(moved_);
    summary = restore_state_file(dir_ / kShieldStateFile, std::move(state));
    moved_.clear();
  } else {
    std::error_code ignored;
    std::filesystem::remove(dir_ / kShieldStateFile, ignored);
  }
  if (!summary.problem.empty()) facts_.problem = summary.problem;
  if (say) say("CPU shield: " + summary.text() + (summary.problem.empty() ? "" : "; " + summary.problem));
  close(lock_fd_);
  lock_fd_ = -1;
  return summary;
}

void CpuShield::note_unmovable(const std::string& name) {
  ++facts_.unmovable;
  if (facts_.unmovable_names.size() < kShieldNamesShown) facts_.unmovable_names.push_back(name);
}

bool CpuShield::write_state(const std::string& phase) {
  ShieldState state;
  state.owner = getpid();
  state.server_cpus = server_cpus_;
  state.phase = phase;
  state.tasks = moved_;
  return write_atomically(dir_ / kShieldStateFile, shield_state_json(state));
}

}  // namespace ringside::harness
