#include "harness/run/compare_run.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>
#include <tuple>

#include "db/statement_counter.hpp"
#include "db/temp_cluster.hpp"
#include "harness/process/cpu_shield.hpp"
#include "harness/loaders/external_loader.hpp"
#include "harness/process/http_client.hpp"
#include "harness/measure/kernel_counters.hpp"
#include "harness/loaders/load_hosts.hpp"
#include "harness/process/lifecycle.hpp"
#include "harness/measure/machine_facts.hpp"
#include "harness/measure/point_figures.hpp"
#include "harness/measure/point_summary.hpp"
#include "harness/report/report_model.hpp"
#include "harness/process/proc_table.hpp"
#include "harness/measure/sampler.hpp"
#include "harness/measure/server_cpu_watch.hpp"
#include "harness/check/validation_run.hpp"
#include "load/load_run.hpp"
#include "load/merge.hpp"

namespace ringside::harness {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr double kRequestTimeoutS = 10;
constexpr double kStartOverheadS = 2;  // start, ready, idle sample and stop, for the estimate
constexpr double kPollS = 0.02;
constexpr double kProbeTimeoutS = 5;   // a contestant that answered nothing in a point, asked again        // how often the run is looked at while the loader works

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string duration_text(double seconds) {
  char text[32];
  const long whole = std::lround(seconds);
  if (seconds < 10) {
    std::snprintf(text, sizeof text, "%.1fs", seconds);
  } else if (whole >= 60) {
    std::snprintf(text, sizeof text, "%ldm%02lds", whole / 60, whole % 60);
  } else {
    std::snprintf(text, sizeof text, "%lds", whole);
  }
  return text;
}

cpu_set_t cpu_set_of(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) CPU_SET(cpu, &set);
  return set;
}

double process_cpu_s() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : separator) + part;
  return text;
}

// What one point asks for: a workload at a connection level, closed or open at a rate, for a
// measured phase of duration_s (the scenario's, or an equal-load point's own).
struct PointPlan {
  const Workload* workload = nullptr;
  LoadMode mode = LoadMode::kClosed;
  unsigned connections = 0;
  double rate = 0;
  double duration_s = 0;
};

// The passes of a run: every point min_rounds times (or the fixed rounds), then the equal-load
// points once the medians are known, then (rounds = "auto") more rounds of the points whose
// median is not yet known to within the target.
enum class Pass { kEvery, kEqualLoad, kUnsettled };

// An equal-load point runs until its p99 rests on this many requests (the slowest 1%: 200),
// within kEqualLoadMaxS.
constexpr double kEqualLoadRequests = 20'000;
constexpr double kEqualLoadMaxS = 3;

constexpr const char* kIntervalMethod =
    "distribution-free order-statistic interval for the median (binomial coverage; no assumption "
    "about the rounds' spread, which on a shared machine is one-sided and heavy-tailed)";

double wall_now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

struct ContestantState {
  const Contestant* contestant = nullptr;
  std::size_t result = 0;  // index into RunResults::contestants
  bool timed = false;      // passed validation: it may be timed
  bool failed = false;
  std::vector<double> idle_kib, after_kib;
};

class Engine {
 public:
  Engine(const Scenario& scenario, const std::vector<Contestant>& contestants,
         const CompareOptions& options)
      : scenario_(scenario), contestants_(contestants), options_(options) {}

  RunResults run();

 private:
  bool stopping() const {
    return (options_.stop != nullptr && options_.stop->load()) || !database_lost_.empty();
  }
  // True once the throwaway PostgreSQL has died (killed, crashed); says so once.
  bool database_died();
  void say(const std::string& line) const {
    if (options_.progress) options_.progress(line);
  }
  void prepare_contestants();
  bool provision_database();
  // runs_workload, and without a database no database route for a server that would need one.
  bool runs(const Contestant& contestant, const Workload& workload) const {
    if (!runs_workload(contestant, workload)) return false;
    if (scenario_.database != DatabaseKind::kNone || contestant.manifest.db_pool == 0) return true;
    const auto route = route_of_path(workload.path);
    return !route || !is_database_route(*route);
  }
  void validate_all();
  void run_round(unsigned round, Pass pass);
  void run_contestant(ContestantState& state, unsigned round, Pass pass);
  std::vector<PointPlan> plan_for(const Contestant& contestant, Pass pass) const;
  // The rounds past the first ones (rounds = "auto"), while points are unsettled and the time
  // budget lasts.
  void run_extra_rounds();
  double plan_seconds_for(Pass pass) const;  // every timed contestant's plans, in seconds
  StoppingRule stopping_rule() const { return {scenario_.target, scenario_.confidence}; }
  bool measure(RunningContestant& server, ContestantState& state, const PointPlan& plan,
               unsigned round, RoundFigures& figures, std::string& failure);
  // The point on the load hosts (ssh engine): their results merged into `merged`, their logs in
  // `logs`; false when the server died. A host that gave no result sets `error`.
  bool drive_remote(const PointPlan& plan, int port, const std::function<bool()>& server_alive,
                    const std::function<void()>& on_measure_start,
                    const std::function<void()>& on_measure_end, load::MergedRun& merged,
                    std::vector<std::string>& logs, std::string& error);
  bool prepare_load_hosts();
  // "http://127.0.0.1:PORT", or the scenario's server_address ("http://[fd00::10]:PORT").
  std::string url_base(int port) const {
    const std::string& host = scenario_.load.server_address;
    return "http://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
           std::to_string(port);
  }
  bool drive_in_process(const PointPlan& plan, int port, const std::function<bool()>& server_alive,
                        bool measured,
                        RoundFigures& figures, std::vector<pid_t>& loader_tids,
                        const std::function<void()>& on_measure_start,
                        const std::function<void()>& on_measure_end, load::LoadResult& result);
  PointResult& point_for(const std::string& contestant, const PointPlan& plan);
  const PointResult* find_point(const std::string& contestant, const PointPlan& plan) const;
  std::size_t point_index(const std::string& contestant, const PointPlan& plan) const;  // or size()
  void fail_contestant(ContestantState& state, const std::string& reason, const std::string& output,
                       unsigned round);
  void compute_equal_loads();
  double planned_seconds(const std::vector<PointPlan>& plans) const;
  void report_progress(const std::string& what, double point_s);
  void finish_results();
  // The CPU shield's life: up after the harness pins itself, a pass before each contestant
  // starts (newcomers), down at every end of run() (and in the destructor, on an exception).
  void start_shield();
  void shield_pass();
  void stop_shield();

  const Scenario& scenario_;
  const std::vector<Contestant>& contestants_;
  const CompareOptions& options_;
  RunResults results_;
  std::vector<ContestantState> states_;
  std::unique_ptr<db::TempCluster> cluster_;
  std::unique_ptr<db::StatementCounter> statements_;  // the cluster's pg_stat_statements
  std::unique_ptr<LoadHosts> load_hosts_;             // ssh engine
  std::unique_ptr<CpuShield> shield_;                 // while other tasks are kept off server_cpus
  std::string load_hosts_problem_;                    // why they could not be used
  // Non-empty once the cluster died: every later point would measure the outage, so the run ends.
  std::string database_lost_;
  // While the in-process loader runs: the responses it has had so far, warm-up included.
  std::function<std::uint64_t()> answered_so_far_;
  std::string db_url_;
  std::vector<int> server_cpus_, load_cpus_;
  std::map<std::string, EqualLoad> equal_loads_;  // by workload
  Clock::time_point started_, rounds_started_;
  double planned_total_s_ = 0, planned_done_s_ = 0;
  unsigned points_total_ = 0, points_done_ = 0;
};

void Engine::prepare_contestants() {
  for (const Contestant& contestant : contestants_) {
    ContestantResult result;
    result.name = contestant.name();
    result.description = contestant.manifest.description;
    result.runtime = contestant.manifest.runtime;
    result.threads = contestant.manifest.threads_param
                         ? scenario_.threads
                         : static_cast<unsigned>(contestant.manifest.fixed_threads);
    const Runnability runnable = check_runnable(contestant);
    if (!runnable.runnable) {
      result.status = ContestantStatus::kSkipped;
      result.reason = runnable.reason + (runnable.install.empty() ? "" : "; install: " + runnable.install);
    } else if (scenario_.load.server_address != "127.0.0.1" && !contestant.takes_host()) {
      result.status = ContestantStatus::kSkipped;
      result.reason =
          no_host_reason("the scenario's server_address " + scenario_.load.server_address);
    } else if (contestant.manifest.db_pool > 0 && !contestant.manifest.database_optional &&
               scenario_.database == DatabaseKind::kNone) {
      result.status = ContestantStatus::kSkipped;
      result.reason = "it needs a database, and the scenario has database = \"none\"";
    }
    ContestantState& state = states_.emplace_back();
    state.contestant = &contestant;
    state.result = results_.contestants.size();
    state.timed = result.status == ContestantStatus::kRan;
    if (result.status == ContestantStatus::kSkipped) say(result.name + ": skipped: " + result.reason);
    results_.contestants.push_back(std::move(result));
  }
}

bool Engine::database_died() {
  if (!database_lost_.empty()) return true;
  if (!cluster_) return false;
  const pid_t postmaster = cluster_->postmaster_pid();
  if (cluster_->running()) return false;
  database_lost_ = "the throwaway PostgreSQL (postmaster " + std::to_string(postmaster) + ") died";
  say(database_lost_ + ": stopping the run; the points measured before it are kept, the run marked "
      "partial");
  return true;
}

bool Engine::provision_database() {
  if (scenario_.database == DatabaseKind::kUrl) {
    db_url_ = scenario_.database_url;
    return true;
  }
  if (scenario_.database == DatabaseKind::kNone) {
    db_url_ = "none";  // what a database_optional contestant starts with
    return true;
  }
  std::vector<Contestant> runnable;
  for (const ContestantState& state : states_) {
    if (state.timed) runnable.push_back(*state.contestant);
  }
  if (!needs_database(runnable)) return true;
  say("starting a throwaway PostgreSQL for {db_url}");
  cluster_ = std::make_unique<db::TempCluster>();
  try {
    cluster_->start();
  } catch (const std::exception& error) {
    say(std::string("PostgreSQL did not start: ") + error.what());
    cluster_.reset();
    return false;
  }
  db_url_ = cluster_->url();
  // Its processes inherited the harness's (load) CPUs; they serve the contestants, so they go
  // with them. Backends forked later inherit the postmaster's set.
  const cpu_set_t set = cpu_set_of(server_cpus_);
  const std::vector<ProcEntry> table = scan_processes();
  std::vector<pid_t> pids = descendants_of(table, cluster_->postmaster_pid());
  pids.push_back(cluster_->postmaster_pid());
  for (pid_t pid : pids) sched_setaffinity(pid, sizeof set, &set);
  statements_ = std::make_unique<db::StatementCounter>(db_url_);
  if (!statements_->calls()) {
    say("warning: queries per request will not be counted: " + statements_->problem());
  }
  return true;
}

void Engine::validate_all() {
  ValidationRunOptions options;
  options.start.threads = static_cast<int>(scenario_.threads);
  options.start.db_url = db_url_;
  // Checked where it will be timed: on server_address, and (when that is not 127.0.0.1) not
  // answering on 127.0.0.1 too.
  options.start.host = scenario_.load.server_address;
  options.ready_timeout_s = options_.ready_timeout_s;
  options.stop_grace_s = options_.stop_grace_s;
  options.stop = options_.stop;
  options.progress = [this](const std::string& line) { say(line); };
  for (ContestantState& state : states_) {
    if (!state.timed || stopping()) continue;
    const ContestantReport report = validate_contestant(*state.contestant, options);
    ContestantResult& result = results_.contestants[state.result];
    result.version = report.version;
    if (report.verdict == CheckVerdict::kPass) continue;
    state.timed = false;
    if (report.verdict == CheckVerdict::kInterrupted) break;
    result.status =
        report.verdict == CheckVerdict::kSkip ? ContestantStatus::kSkipped : ContestantStatus::kFailed;
    result.reason = (report.verdict == CheckVerdict::kSkip ? "" : "validation failed: ") +
                    join(report.problems, "; ");
    result.last_output = report.last_output;
    say(result.name + ": " + std::string(status_name(result.status)) + ", never timed: " + result.reason);
  }
}

std::vector<PointPlan> Engine::plan_for(const Contestant& contestant, Pass pass) const {
  std::vector<PointPlan> plans;
  for (const Workload& workload : scenario_.workloads) {
    if (!runs(contestant, workload)) continue;
    if (pass == Pass::kEqualLoad) {
      auto equal = equal_loads_.find(workload.name);
      if (equal != equal_loads_.end() && equal->second.rate > 0) {
        plans.push_back({&workload, LoadMode::kOpen, equal->second.connections, equal->second.rate,
                         equal->second.duration_s});
      }
      continue;
    }
    for (unsigned connections : workload.connections) {
      const PointPlan plan{&workload, workload.mode, connections,
                           workload.mode == LoadMode::kOpen ? workload.rate : 0, scenario_.duration_s};
      if (pass == Pass::kUnsettled) {
        const PointResult* point = find_point(contestant.name(), plan);
        if (point == nullptr || !point->failure.empty() || point_converged(*point, stopping_rule())) continue;
      }
      plans.push_back(plan);
    }
  }
  return plans;
}

double Engine::planned_seconds(const std::vector<PointPlan>& plans) const {
  double seconds = kStartOverheadS + scenario_.settle_s;
  for (const PointPlan& plan : plans) {
    seconds += scenario_.warmup_s + (plan.workload->requests > 0 ? 1 : plan.duration_s);
  }
  return seconds;
}

double Engine::plan_seconds_for(Pass pass) const {
  double seconds = 0;
  for (const ContestantState& state : states_) {
    if (!state.timed || state.failed) continue;
    const std::vector<PointPlan> plans = plan_for(*state.contestant, pass);
    if (!plans.empty()) seconds += planned_seconds(plans);
  }
  return seconds;
}

void Engine::report_progress(const std::string& what, double point_s) {
  // The plan's seconds scaled by how fast the plan has gone so far (starts and stops are slower
  // on a loaded machine than planned).
  const double elapsed = seconds_since(rounds_started_);
  const double pace = points_done_ > 0 && planned_done_s_ > 0 ? elapsed / planned_done_s_ : 1;
  const double left = std::max(0.0, planned_total_s_ - planned_done_s_) * pace;
  say("[" + std::to_string(points_done_ + 1) + "/" + std::to_string(points_total_) + "] " + what +
      " (" + duration_text(point_s) + "), about " + duration_text(left) + " left");
}

std::size_t Engine::point_index(const std::string& contestant, const PointPlan& plan) const {
  for (std::size_t i = 0; i < results_.points.size(); ++i) {
    const PointResult& point = results_.points[i];
    if (point.contestant == contestant && point.workload == plan.workload->name &&
        point.mode == plan.mode && point.connections == plan.connections &&
        (plan.mode == LoadMode::kClosed || point.rate == plan.rate)) {
      return i;
    }
  }
  return results_.points.size();
}

const PointResult* Engine::find_point(const std::string& contestant, const PointPlan& plan) const {
  const std::size_t at = point_index(contestant, plan);
  return at < results_.points.size() ? &results_.points[at] : nullptr;
}

PointResult& Engine::point_for(const std::string& contestant, const PointPlan& plan) {
  if (const std::size_t at = point_index(contestant, plan); at < results_.points.size()) {
    return results_.points[at];
  }
  PointResult& point = results_.points.emplace_back();
  point.workload = plan.workload->name;
  point.contestant = contestant;
  point.mode = plan.mode;
  point.connections = plan.connections;
  point.rate = plan.mode == LoadMode::kOpen ? plan.rate : kUnmeasured;
  point.loader = plan.workload->loader;
  return point;
}

void Engine::fail_contestant(ContestantState& state, const std::string& reason,
                             const std::string& output, unsigned round) {
  ContestantResult& result = results_.contestants[state.result];
  state.failed = true;
  result.status = ContestantStatus::kFailed;
  result.reason = reason;
  if (!output.empty()) result.last_output = output;
  say(result.name + ": failed: " + reason + (output.empty() ? "" : "; last output: " + output));
  // Every point it has not finished in this or a later pass carries the reason.
  for (Pass pass : {Pass::kEvery, Pass::kEqualLoad}) {
    for (const PointPlan& plan : plan_for(*state.contestant, pass)) {
      PointResult& point = point_for(result.name, plan);
      if (point.failure.empty()) point.failure = "round " + std::to_string(round) + ": " + reason;
    }
  }
}

bool Engine::prepare_load_hosts() {
  results_.load_engine = scenario_.load.engine;
  if (!scenario_.load.remote()) return true;
  results_.server_address = scenario_.load.server_address;
  load_hosts_ = std::make_unique<LoadHosts>(scenario_.load, options_.stop);
  load_hosts_problem_ = load_hosts_->prepare([this](const std::string& line) { say(line); });
  results_.load_hosts = load_hosts_->facts();
  for (const LoadHostFacts& host : results_.load_hosts) {
    if (std::fabs(host.clock_offset_s) > load::kMaxStartSpreadS) {
      say("warning: load host " + host.name + "'s clock is " +
          std::to_string(std::llround(host.clock_offset_s * 1e3)) +
          " ms off this machine's: its load starts that far from the others'; sync clocks with "
          "chrony or PTP");
    }
  }
  // The problem is the run's one error line: `compare` prints it as why the run stopped.
  return load_hosts_problem_.empty();
}

bool Engine::drive_remote(const PointPlan& plan, int port, const std::function<bool()>& server_alive,
                          const std::function<void()>& on_measure_start,
                          const std::function<void()>& on_measure_end, load::MergedRun& merged,
                          std::vector<std::string>& logs, std::string& error) {
  const Workload& workload = *plan.workload;
  RemotePoint point;
  point.urls = {url_base(port) + workload.path};
  point.method = workload.method;
  point.headers = workload.headers;
  point.body = workload.body;
  point.connections = plan.connections;
  point.threads = workload.loader_threads;
  point.pipeline = workload.pipeline;
  point.keep_alive = workload.keep_alive;
  point.rate = plan.mode == LoadMode::kOpen ? plan.rate : 0;
  point.requests = workload.requests;
  point.duration_s = workload.requests > 0 ? 0 : plan.duration_s;
  point.warmup_s = scenario_.warmup_s;
  point.timeout_s = kRequestTimeoutS;
  bool started = false, ended = false, alive = true;
  // The server's side is measured over the hosts' window: from the instant, for the duration.
  RemoteOutcome outcome = load_hosts_->run(point, [&](double start_at) {
    const double now = wall_now_s();
    if (!started && now >= start_at) {
      started = true;
      on_measure_start();
    }
    if (started && !ended && point.duration_s > 0 && now >= start_at + point.duration_s) {
      ended = true;
      on_measure_end();
    }
    if (alive && !server_alive()) alive = false;
    return alive;
  });
  if (!started) on_measure_start();
  if (!ended) on_measure_end();
  if (!outcome.error.empty()) {
    error = outcome.error;
    return alive;
  }
  merged = load::merge_generators(std::move(outcome.generators));
  for (const std::string& warning : merged.warnings) say("warning: " + warning);
  logs = std::move(outcome.logs);
  return alive;
}

bool Engine::drive_in_process(const PointPlan& plan, int port,
                              const std::function<bool()>& server_alive, bool measured,
                              RoundFigures& figures, std::vector<pid_t>& loader_tids,
                              const std::function<void()>& on_measure_start,
                              const std::function<void()>& on_measure_end,
                              load::LoadResult& result) {
  const Workload& workload = *plan.workload;
  load::LoadConfig config;
  load::RequestSpec spec;
  spec.method = workload.method;
  spec.headers = workload.headers;
  spec.body = workload.body;
  spec.keep_alive = workload.keep_alive;
  for (const std::string& path : expand_path(workload.path)) {
    load::Url url;
    std::string error;
    if (!load::parse_url(url_base(port) + path, url, error)) {
      throw std::invalid_argument("workload '" + workload.name + "': " + error);
    }
    config.targets.push_back(load::make_target(url, spec));
  }
  config.connections = plan.connections;
  config.threads = workload.loader_threads;
  config.pipeline = workload.pipeline;
  config.keep_alive = workload.keep_alive;
  config.timeout_s = kRequestTimeoutS;
  config.warmup_s = scenario_.warmup_s;
  config.rate = plan.mode == LoadMode::kOpen ? plan.rate : 0;
  config.latency_per_second = measured;  // the point's log: one interval per second
  if (measured && workload.requests > 0) {
    config.requests = workload.requests;
  } else {
    config.duration_s = measured ? plan.duration_s : 0.001;
  }
  figures.target_rate = plan.mode == LoadMode::kOpen ? plan.rate : kUnmeasured;
  const std::vector<pid_t> before = own_threads();
  load::LoadRun run(config);
  run.start();
  answered_so_far_ = [&run] { return run.progress().answered; };
  for (pid_t tid : own_threads()) {
    if (!std::binary_search(before.begin(), before.end(), tid)) loader_tids.push_back(tid);
  }
  bool started = false, ended = false;
  bool alive = true;
  // The end is taken just before the loader closes its connections: closing with requests in
  // flight makes the kernel send resets, which are the loader's doing, not the server's.
  const double end_at = config.duration_s > 0 ? config.duration_s - 2 * kPollS : -1;
  while (!run.wait_for(std::chrono::milliseconds(started ? static_cast<int>(kPollS * 1000) / 2 : 5))) {
    if (stopping()) run.stop();
    const double elapsed = run.progress().elapsed_s;
    if (!started && elapsed >= 0) {
      started = true;
      on_measure_start();
    }
    if (started && !ended && end_at > 0 && elapsed >= end_at) {
      ended = true;
      on_measure_end();
    }
    if (alive && !server_alive()) {
      alive = false;
      run.stop();
    }
  }
  if (!started) on_measure_start();  // a count-mode point can finish inside one poll
  if (!ended) on_measure_end();
  answered_so_far_ = nullptr;
  result = run.finish();
  return alive;
}

bool Engine::measure(RunningContestant& server, ContestantState& state, const PointPlan& plan,
                     unsigned round, RoundFigures& figures, std::string& failure) {
  const pid_t pid = server.process().pid();
  const int port = server.port();
  const Workload& workload = *plan.workload;
  TreeUsage tree_before;
  KernelCounters kernel_before;
  double cpu_before = 0;
  Clock::time_point measure_start;
  std::vector<pid_t> loader_tids;
  KernelCounters kernel_after;
  bool ended = false;
  std::unique_ptr<PointSampler> sampler;
  double throttled_before = 0, throttled = 0;
  std::optional<std::uint64_t> drops_before, drops_after;
  // The database's share of the work: its process tree and the statements it ran.
  const pid_t database_pid = cluster_ ? cluster_->postmaster_pid() : -1;
  TreeUsage database_before, database_after;
  std::optional<std::uint64_t> queries_before, queries_after;
  // Each reading notes the time and the responses the loader had so far, so the requests
  // answered between the two readings are known exactly, not only those of the measured phase.
  struct DatabaseReading {
    Clock::time_point at;
    std::optional<std::uint64_t> answered;
  };
  DatabaseReading database_read_start, database_read_end;
  auto read_database = [&](TreeUsage& tree, std::optional<std::uint64_t>& queries) {
    DatabaseReading reading;
    const std::optional<std::uint64_t> answered_before =
        answered_so_far_ ? std::optional(answered_so_far_()) : std::nullopt;
    if (statements_) queries = statements_->calls();
    if (database_pid > 0) tree = measure_tree(database_pid);
    reading.at = Clock::now();
    if (answered_before) reading.answered = (*answered_before + answered_so_far_()) / 2;
    return reading;
  };
  // What else ran on the server's CPUs, and how long the server's threads waited for them.
  ServerCpuWatch cpu_watch(server_cpus_, pid, database_pid);
  auto end = [&] {
    cpu_watch.end();
    database_read_end = read_database(database_after, queries_after);
    kernel_after = read_kernel_counters();
    drops_after = listener_drops(port);
    throttled = std::max(0.0, cgroup_throttled_s() - throttled_before);
    if (sampler) sampler->sample_now();
    ended = true;
  };
  // What the kernel does to a point's connections starts with the warm-up, which opens them.
  kernel_before = read_kernel_counters();
  drops_before = listener_drops(port);
  // A counted point's database window is the in-process loader's whole run, warm-up included:
  // read before it starts and after its last answer, the only moments with nothing in flight,
  // so the statements counted are exactly those of the requests answered (a reading taken while
  // requests are in flight counts queries of requests not yet answered, or the reverse).
  const bool whole_run_window = !scenario_.load.remote() &&
                                workload.loader == LoaderKind::kRingside && workload.requests > 0;
  if (whole_run_window) {
    database_read_start = read_database(database_before, queries_before);
    database_read_start.answered = 0;
  }
  auto begin = [&] {
    if (!whole_run_window) database_read_start = read_database(database_before, queries_before);
    tree_before = measure_tree(pid);
    throttled_before = cgroup_throttled_s();
    cpu_before = process_cpu_s();
    measure_start = Clock::now();
    sampler = std::make_unique<PointSampler>(pid, port, loader_tids);
    sampler->start();
    cpu_watch.begin();
  };
  bool alive = true;
  const std::function<bool()> server_alive = [&server] { return server.process().running(); };
  load::LoadResult load_result;
  std::string loader_error;
  const bool remote = scenario_.load.remote();
  load::MergedRun merged;
  std::vector<std::string> remote_logs;
  if (remote) {
    figures.target_rate = plan.mode == LoadMode::kOpen ? plan.rate : kUnmeasured;
    alive = drive_remote(plan, port, server_alive, begin, end, merged, remote_logs, loader_error);
    if (loader_error.empty()) {
      fill_from_merge(merged, figures, /*per_generator=*/true);
      load_result = merged.total;
      load_result.elapsed_s = figures.duration_s;
    }
  } else if (workload.loader == LoaderKind::kRingside) {
    alive = drive_in_process(plan, port, server_alive, true, figures, loader_tids, begin, end,
                             load_result);
    fill_from_load(load_result, figures);
  } else {
    if (scenario_.warmup_s > 0) {
      std::vector<pid_t> ignored;
      load::LoadResult warmup;
      alive = drive_in_process(plan, port, server_alive, false, figures, ignored, [] {}, [] {},
                             warmup);
    }
    if (alive && !stopping()) {
      LoaderSpec spec;
      spec.kind = workload.loader;
      spec.url = url_base(port) + workload.path;
      spec.method = workload.method;
      spec.headers = workload.headers;
      spec.body = workload.body;
      spec.connections = plan.connections;
      spec.threads = workload.loader_threads;
      spec.duration_s = workload.requests > 0 ? 0 : plan.duration_s;
      spec.requests = workload.requests;
      spec.rate = plan.mode == LoadMode::kOpen ? plan.rate : 0;
      spec.keep_alive = workload.keep_alive;
      spec.cpus = scenario_.load_cpus;
      begin();
      LoaderOutcome outcome = run_external_loader(spec);
      end();
      figures = outcome.figures;
      figures.target_rate = plan.mode == LoadMode::kOpen ? plan.rate : kUnmeasured;
      loader_error = outcome.error;
      alive = server_alive();
    }
  }
  if (!sampler) begin();
  if (!ended) end();
  const SamplerFigures sampled = sampler->finish();
  const TreeUsage tree_after = measure_tree(pid);
  const KernelCounters kernel = kernel_after - kernel_before;
  const double wall = seconds_since(measure_start);
  if (stopping()) return false;
  figures.round = round;
  if (!std::isfinite(figures.duration_s) || figures.duration_s <= 0) figures.duration_s = wall;
  if (tree_after.processes > 0) {
    figures.server_cpu_s = std::max(0.0, tree_after.cpu_s - tree_before.cpu_s);
    if (figures.completed > 0) {
      figures.server_cpu_us_per_request = figures.server_cpu_s * 1e6 / static_cast<double>(figures.completed);
    }
  }
  // The requests answered between the database's two readings: counted by the in-process
  // loader; for an external one, all of a counted point's, or the rate over the readings'
  // window (they are a few milliseconds off the loader's, which would skew short points).
  double answered_between = kUnmeasured;
  if (database_read_start.answered && database_read_end.answered) {
    answered_between = static_cast<double>(*database_read_end.answered - *database_read_start.answered);
  } else if (workload.requests > 0) {
    answered_between = static_cast<double>(figures.completed);
  } else {
    answered_between = figures.requests_per_s *
                       std::chrono::duration<double>(database_read_end.at - database_read_start.at).count();
  }
  fill_database_figures(database_before, database_after, queries_before, queries_after,
                        answered_between, figures.database);
  figures.server_cpus = cpu_watch.figures();
  const double loader_cores =
      std::max(1.0, std::min<double>(workload.loader_threads, static_cast<double>(load_cpus_.size())));
  if (remote) {
    // Each host's own CPU: the saturation check runs per generator (point_summary.hpp).
    if (!figures.generators.empty()) figures.loader_cpu_s = merged.total.cpu_s;
    for (const GeneratorFigures& g : figures.generators) {
      if (std::isfinite(g.cpu_share) &&
          !(figures.loader_cpu_share >= g.cpu_share)) {
        figures.loader_cpu_share = g.cpu_share;
      }
    }
  } else if (workload.loader == LoaderKind::kRingside) {
    figures.loader_cpu_s = loader_tids.empty() ? process_cpu_s() - cpu_before : sampled.loader.run_s;
    // Waiting for a CPU: on a run queue (schedstat), or throttled by the cgroup's CPU quota
    // (cpu.stat; a wait schedstat only counts once the thread runs again).
    figures.loader_wait_s = loader_tids.empty() ? kUnmeasured : std::max(sampled.loader.wait_s, throttled);
  }
  if (!remote && std::isfinite(figures.loader_cpu_s) && figures.duration_s > 0) {
    figures.loader_cpu_share = figures.loader_cpu_s / (figures.duration_s * loader_cores);
  }
  double peak = sampled.rss_peak_kib;
  // A high-water mark that rose during the point was reached during it.
  if (tree_after.hwm_kib > tree_before.hwm_kib) peak = std::max(peak, tree_after.hwm_kib);
  if (peak > 0) figures.rss_peak_kib = peak;
  if (sampled.samples > 0) figures.rss_mean_kib = sampled.rss_mean_kib;
  figures.kernel.listen_overflows = kernel.listen_overflows;
  figures.kernel.listen_drops = kernel.listen_drops;
  figures.kernel.syn_retransmits = kernel.syn_retransmits;
  figures.kernel.resets_sent = kernel.resets_sent;
  figures.kernel.established_peak = sampled.established_peak;
  const bool per_port = drops_before && drops_after;
  if (per_port) figures.kernel.listen_drops = *drops_after >= *drops_before ? *drops_after - *drops_before : 0;
  if (remote && loader_error.empty() && merged.total.stats.latency.count() > 0) {
    const std::string& name = results_.contestants[state.result].name;
    const std::string relative = histogram_log_name(plan.workload->name, name, plan.mode,
                                                    plan.connections, plan.rate, round);
    const std::string comment = "ringside compare: " + name + ", " + plan.workload->name + ", " +
                                std::string(mode_name(plan.mode)) + ", " + std::to_string(plan.connections) +
                                " connections, round " + std::to_string(round) + ", load hosts " +
                                std::to_string(merged.generators.size());
    if (write_histogram_log(options_.out_dir, relative, comment, merged, remote_logs)) {
      figures.histogram_log = relative;
    }
  } else if (!remote && workload.loader == LoaderKind::kRingside && load_result.stats.latency.count() > 0) {
    const std::string& name = results_.contestants[state.result].name;
    const std::string relative = histogram_log_name(plan.workload->name, name, plan.mode,
                                                    plan.connections, plan.rate, round);
    const std::string comment = "ringside compare: " + name + ", " + plan.workload->name + ", " +
                                std::string(mode_name(plan.mode)) + ", " + std::to_string(plan.connections) +
                                " connections, round " + std::to_string(round);
    if (write_histogram_log(options_.out_dir, relative, comment, load_result)) {
      figures.histogram_log = relative;
    }
  }
  judge_round(figures, {.mode = plan.mode,
                        .connections = plan.connections,
                        .pipeline = workload.pipeline,
                        .loader_cores = loader_cores,
                        // Without keep-alive each connection lives for one request: fewer are
                        // ever open at once than the loader's concurrency, by design.
                        .connections_counted = kernel.readable && workload.keep_alive,
                        .listen_drops_per_port = per_port,
                        .in_flight_at_end = workload.loader == LoaderKind::kRingside
                                                ? static_cast<long long>(load_result.stats.in_flight)
                                                : -1,
                        .slow_connects = workload.loader == LoaderKind::kRingside && !remote
                                             ? static_cast<long long>(load_result.stats.slow_connects)
                                             : -1,
                        .loader_resets = workload.loader == LoaderKind::kRingside
                                             ? static_cast<long long>(load_result.stats.errors[
                                                   static_cast<std::size_t>(load::ErrorClass::kReset)])
                                             : -1,
                        .mean_outstanding = workload.loader == LoaderKind::kRingside && !remote &&
                                                    load_result.elapsed_s > 0
                                                ? load_result.stats.outstanding_s / load_result.elapsed_s
                                                : -1,
                        .latency_resolution_s = workload.loader == LoaderKind::kAb ? 1e-3 : 0,
                        .server_cpus = server_cpus_});
  if (!loader_error.empty()) {
    failure = std::string(loader_name(workload.loader)) + ": " + loader_error;
    return true;  // the loader failed, not the contestant
  }
  if (!alive || !server.process().running()) {
    const auto& status = server.process().status();
    failure = "exited (" + (status ? describe_wait_status(*status) : std::string("gone")) +
              ") during " + plan.workload->name + " at " + std::to_string(plan.connections) +
              " connections";
    return false;
  }
  if (figures.completed == 0) {
    // Nothing answered: a slow server in a short point, or one that stopped answering. Ask it.
    HttpResponse response;
    std::string error;
    const std::string& ready_path = state.contestant->manifest.ready_path;
    if (!fetch(server.host(), port, ready_path, kProbeTimeoutS, response, error) ||
        response.status != 200) {
      failure = "stopped answering during " + plan.workload->name + " at " +
                std::to_string(plan.connections) + " connections (" + with_commas(figures.failed) +
                " errors; GET " + ready_path + ": " +
                (error.empty() ? "status " + std::to_string(response.status) : error) + ")";
      return false;
    }
  }
  return true;
}

void Engine::run_contestant(ContestantState& state, unsigned round, Pass pass) {
  const Contestant& contestant = *state.contestant;
  ContestantResult& result = results_.contestants[state.result];
  const bool equal_load_only = pass == Pass::kEqualLoad;
  const std::vector<PointPlan> plans = plan_for(contestant, pass);
  if (plans.empty()) return;
  const double planned = planned_seconds(plans);
  const double planned_before = planned_done_s_;
  std::unique_ptr<RunningContestant> server;
  shield_pass();
  try {
    server = std::make_unique<RunningContestant>(
        contestant, StartOptions{static_cast<int>(scenario_.threads), db_url_, server_cpus_,
                                 scenario_.load.server_address});
  } catch (const std::exception& error) {
    fail_contestant(state, std::string("cannot start: ") + error.what(), "", round);
    planned_done_s_ = planned_before + planned;
    return;
  }
  const ReadyResult ready = server->wait_ready(options_.ready_timeout_s, options_.stop);
  if (!ready.ok) {
    if (!ready.interrupted) fail_contestant(state, ready.reason, server->last_output(5), round);
    server->stop(options_.stop_grace_s);
    planned_done_s_ = planned_before + planned;
    return;
  }
  planned_done_s_ += kStartOverheadS / 2;
  if (!equal_load_only) state.idle_kib.push_back(measure_tree(server->process().pid(), /*with_cpu=*/false).rss_kib);
  for (const PointPlan& plan : plans) {
    if (stopping() || database_died()) break;
    const double point_s = scenario_.warmup_s + (plan.workload->requests > 0 ? 1 : plan.duration_s);
    std::string what = (equal_load_only ? std::string("equal load")
                        : pass == Pass::kUnsettled
                            ? "round " + std::to_string(round) + " (more, until known)"
                            : "round " + std::to_string(round) + "/" + std::to_string(scenario_.rounds)) +
                       ": " + result.name + " " + plan.workload->name + " c=" +
                       std::to_string(plan.connections) +
                       (plan.mode == LoadMode::kOpen ? " open at " + std::to_string(std::llround(plan.rate)) + " req/s" : "");
    report_progress(what, point_s);
    RoundFigures figures;
    std::string failure;
    bool ok = false;
    try {
      ok = measure(*server, state, plan, round, figures, failure);
    } catch (const std::exception& error) {
      failure = error.what();
    }
    planned_done_s_ += point_s;
    ++points_done_;
    if (stopping()) break;
    PointResult& point = point_for(result.name, plan);
    if (database_died()) {
      // Its figures are kept, for what they show of the outage, and marked: they are not the
      // server's. The contestant did not fail; the run did.
      point.failure = "round " + std::to_string(round) + ": " + database_lost_ +
                      " during this point: its figures measure the outage, not the server";
      point.rounds.push_back(std::move(figures));
      break;
    }
    if (!ok) {
      fail_contestant(state, failure, server->last_output(5), round);
      break;
    }
    if (!failure.empty() && point.failure.empty()) point.failure = failure;
    point.rounds.push_back(std::move(figures));
  }
  if (!state.failed && !stopping() && !equal_load_only) {
    const auto settle_until = Clock::now() + std::chrono::duration<double>(scenario_.settle_s);
    while (Clock::now() < settle_until && !stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!stopping()) state.after_kib.push_back(measure_tree(server->process().pid(), /*with_cpu=*/false).rss_kib);
  }
  const StopResult stopped = server->stop(options_.stop_grace_s);
  planned_done_s_ = planned_before + planned;
  if (!stopped.problem().empty() && !state.failed && !stopping()) {
    result.status = ContestantStatus::kFailed;
    result.reason = "stop: " + stopped.problem();
    say(result.name + ": " + result.reason);
  }
}

void Engine::run_round(unsigned round, Pass pass) {
  std::vector<ContestantState*> order;
  for (ContestantState& state : states_) {
    if (state.timed) order.push_back(&state);
  }
  if (!order.empty()) {
    std::rotate(order.begin(), order.begin() + static_cast<long>((round - 1) % order.size()), order.end());
  }
  for (ContestantState* state : order) {
    if (stopping()) return;
    if (state->failed) continue;
    run_contestant(*state, round, pass);
  }
}

void Engine::compute_equal_loads() {
  if (!scenario_.equal_load) return;
  for (const Workload& workload : scenario_.workloads) {
    if (workload.mode != LoadMode::kClosed) continue;
    const EqualLoad equal =
        equal_load_for(results_.points, workload.name, scenario_.equal_load_fraction,
                       kEqualLoadRequests, scenario_.duration_s, kEqualLoadMaxS);
    if (equal.rate <= 0) continue;
    say("equal load for " + workload.name + ": " + std::to_string(std::llround(equal.rate)) +
        " requests/s (" + std::to_string(std::llround(scenario_.equal_load_fraction * 100)) +
        "% of " + equal.reference + "'s, the median of " + std::to_string(equal.contestants) +
        " contestants' sustained requests/s), " + std::to_string(equal.connections) +
        " connections, " + duration_text(equal.duration_s) + " points");
    equal_loads_[workload.name] = equal;
  }
}

void Engine::run_extra_rounds() {
  for (unsigned round = scenario_.rounds + 1; round <= scenario_.max_rounds && !stopping(); ++round) {
    std::size_t unsettled = 0;
    for (const ContestantState& state : states_) {
      if (state.timed && !state.failed) unsettled += plan_for(*state.contestant, Pass::kUnsettled).size();
    }
    if (unsettled == 0) return;
    // The plan's seconds at the pace the run has kept so far (starts and stops are slower on a
    // loaded machine than planned).
    const double pace = planned_done_s_ > 0 ? seconds_since(rounds_started_) / planned_done_s_ : 1;
    const double needed = plan_seconds_for(Pass::kUnsettled) * pace;
    const double spent = seconds_since(started_);
    if (spent + needed > scenario_.time_budget_s) {
      say("time budget: " + std::to_string(unsettled) + " point(s) not yet known to within +-" +
          std::to_string(std::lround(scenario_.target * 100)) + "%, but round " +
          std::to_string(round) + " would take about " + duration_text(needed) + " and the run has " +
          duration_text(std::max(0.0, scenario_.time_budget_s - spent)) + " of its " +
          duration_text(scenario_.time_budget_s) + " left: they are marked noisy (raise time_budget to "
          "let them settle)");
      return;
    }
    say("round " + std::to_string(round) + ": " + std::to_string(unsettled) + " point(s) not yet known "
        "to within +-" + std::to_string(std::lround(scenario_.target * 100)) + "%, about " +
        duration_text(needed));
    planned_total_s_ += needed / pace;
    points_total_ += static_cast<unsigned>(unsettled);
    run_round(round, Pass::kUnsettled);
    results_.rounds = round;
  }
}

void Engine::finish_results() {
  for (PointResult& point : results_.points) summarize_point(point, stopping_rule());
  // Points in the order a reader compares them: by workload, closed before open, by level, then
  // the contestants in their order.
  auto workload_index = [&](const std::string& name) {
    for (std::size_t i = 0; i < scenario_.workloads.size(); ++i) {
      if (scenario_.workloads[i].name == name) return i;
    }
    return scenario_.workloads.size();
  };
  auto contestant_index = [&](const std::string& name) {
    for (std::size_t i = 0; i < results_.contestants.size(); ++i) {
      if (results_.contestants[i].name == name) return i;
    }
    return results_.contestants.size();
  };
  std::stable_sort(results_.points.begin(), results_.points.end(),
                   [&](const PointResult& a, const PointResult& b) {
                     const auto key = [&](const PointResult& p) {
                       return std::make_tuple(workload_index(p.workload), p.mode != LoadMode::kClosed,
                                              p.connections, std::isfinite(p.rate) ? p.rate : 0.0,
                                              contestant_index(p.contestant));
                     };
                     return key(a) < key(b);
                   });
  for (ContestantState& state : states_) {
    ContestantResult& result = results_.contestants[state.result];
    result.rss_idle_kib = median_of(state.idle_kib);
    result.rss_after_kib = median_of(state.after_kib);
  }
  results_.finished_at = utc_now();
}

void Engine::start_shield() {
  results_.shield.requested = options_.shield;
  if (!options_.shield) {
    say(shield_summary(results_.shield, scenario_.server_cpus));
    return;
  }
  try {
    shield_ = std::make_unique<CpuShield>(server_cpus_, shield_state_dir(), shield_scope_from_env());
  } catch (const ShieldError& error) {
    results_.shield.problem = error.what();
    say(shield_summary(results_.shield, scenario_.server_cpus));
    return;
  }
  if (!shield_->begin([this](const std::string& line) { say(line); })) {
    results_.shield = shield_->facts();
    shield_.reset();
    say(shield_summary(results_.shield, scenario_.server_cpus));
    return;
  }
  shield_pass();
  say(shield_summary(results_.shield, scenario_.server_cpus));
}

void Engine::shield_pass() {
  if (!shield_) return;
  // The harness's tree (the contestants, and the database when it is its child) and the
  // database's: the harness pins those to the server CPUs itself.
  std::vector<pid_t> exempt{getpid()};
  if (cluster_ && cluster_->postmaster_pid() > 0) exempt.push_back(cluster_->postmaster_pid());
  const unsigned moved = shield_->pass(exempt);
  const unsigned before = results_.shield.moved;
  results_.shield = shield_->facts();
  if (before > 0 && moved > 0) {
    say("CPU shield: moved " + std::to_string(moved) + " more task(s) that started since");
  }
}

void Engine::stop_shield() {
  if (!shield_) return;
  shield_->restore([this](const std::string& line) { say(line); });
  results_.shield = shield_->facts();
  shield_.reset();
}

RunResults Engine::run() {
  started_ = Clock::now();
  results_.ringside_version = options_.ringside_version;
  results_.scenario_name = scenario_.name;
  results_.scenario_file = scenario_.file;
  results_.started_at = utc_now();
  results_.rounds = scenario_.rounds;
  results_.rounds_policy = {.automatic = scenario_.auto_rounds,
                            .min = scenario_.rounds,
                            .max = scenario_.auto_rounds ? scenario_.max_rounds : scenario_.rounds,
                            .target = scenario_.target,
                            .confidence = scenario_.confidence,
                            .time_budget_s = scenario_.auto_rounds ? scenario_.time_budget_s : kUnmeasured,
                            .method = kIntervalMethod};
  results_.baseline = scenario_.baseline;
  for (const Workload& workload : scenario_.workloads) {
    results_.workloads.push_back({workload.name, workload.method, workload.path, workload.mode, workload.loader});
  }
  server_cpus_ = parse_cpu_list(scenario_.server_cpus).value_or(std::vector<int>{});
  load_cpus_ = parse_cpu_list(scenario_.load_cpus).value_or(std::vector<int>{});
  results_.machine = gather_machine_facts(scenario_.server_cpus, scenario_.load_cpus);
  for (const std::string& warning : results_.machine.warnings) say("warning: " + warning);
  // Everything the harness does from here (its load threads, samplers, the database it starts
  // before re-pinning it) runs on the load CPUs, away from the servers.
  cpu_set_t previous;
  const bool pinned = sched_getaffinity(0, sizeof previous, &previous) == 0;
  const cpu_set_t load_set = cpu_set_of(load_cpus_);
  if (sched_setaffinity(0, sizeof load_set, &load_set) != 0) {
    say("warning: cannot pin the loader to CPUs " + scenario_.load_cpus + ": " + std::strerror(errno));
  }
  start_shield();
  prepare_contestants();
  if (!prepare_load_hosts()) {
    for (ContestantState& state : states_) {
      if (!state.timed) continue;
      state.timed = false;
      results_.contestants[state.result].status = ContestantStatus::kSkipped;
      results_.contestants[state.result].reason = "the load hosts were not ready";
    }
    if (pinned) sched_setaffinity(0, sizeof previous, &previous);
    stop_shield();
    results_.partial = true;
    results_.stopped_by = load_hosts_problem_;
    finish_results();
    return std::move(results_);
  }
  if (!provision_database()) {
    for (ContestantState& state : states_) {
      if (!state.timed || state.contestant->manifest.db_pool == 0) continue;
      state.timed = false;
      results_.contestants[state.result].status = ContestantStatus::kFailed;
      results_.contestants[state.result].reason = "the throwaway PostgreSQL did not start";
    }
  }
  validate_all();
  for (const ContestantState& state : states_) {
    if (!state.timed) continue;
    const std::vector<PointPlan> plans = plan_for(*state.contestant, Pass::kEvery);
    planned_total_s_ += planned_seconds(plans) * scenario_.rounds;
    points_total_ += static_cast<unsigned>(plans.size()) * scenario_.rounds;
  }
  rounds_started_ = Clock::now();
  for (unsigned round = 1; round <= scenario_.rounds && !stopping(); ++round) {
    run_round(round, Pass::kEvery);
  }
  // The equal-load points, at a rate chosen from the medians the contestants sustained.
  if (!stopping()) compute_equal_loads();
  if (!equal_loads_.empty() && !stopping()) {
    for (const ContestantState& state : states_) {
      if (!state.timed || state.failed) continue;
      const std::vector<PointPlan> plans = plan_for(*state.contestant, Pass::kEqualLoad);
      planned_total_s_ += planned_seconds(plans);
      points_total_ += static_cast<unsigned>(plans.size());
    }
    run_round(1, Pass::kEqualLoad);
  }
  if (scenario_.auto_rounds) run_extra_rounds();
  if (cluster_) cluster_->stop();
  if (pinned) sched_setaffinity(0, sizeof previous, &previous);
  stop_shield();
  results_.partial = stopping();
  results_.stopped_by = database_lost_;
  finish_results();
  return std::move(results_);
}

}  // namespace

std::vector<Contestant> select_for_scenario(const Scenario& scenario, const std::vector<Contestant>& all,
                                            const std::vector<std::string>& only,
                                            const std::vector<std::string>& skip) {
  auto known = [&](const std::string& name, const std::string& where) {
    const bool found = std::any_of(all.begin(), all.end(), [&](const Contestant& c) { return c.name() == name; });
    if (!found) {
      std::string names;
      for (const Contestant& c : all) names += (names.empty() ? "" : ", ") + c.name();
      throw ScenarioError(where + ": unknown contestant '" + name + "' (known: " + names + ")");
    }
  };
  for (const std::string& name : scenario.contestants) known(name, scenario.file + ": field 'contestants'");
  for (const std::string& name : only) known(name, "--only");
  for (const std::string& name : skip) known(name, "--skip");
  std::vector<Contestant> chosen;
  for (const Contestant& contestant : all) {
    const std::string& name = contestant.name();
    auto listed = [&](const std::vector<std::string>& names) {
      return std::find(names.begin(), names.end(), name) != names.end();
    };
    if (!scenario.contestants.empty() && !listed(scenario.contestants)) continue;
    if (!only.empty() && !listed(only)) continue;
    if (listed(skip)) continue;
    chosen.push_back(contestant);
  }
  return chosen;
}

EqualLoad equal_load_for(const std::vector<PointResult>& points, const std::string& workload,
                         double fraction, double requests, double min_s, double max_s) {
  std::map<std::string, double> best;  // contestant -> its best level's median requests/s
  unsigned connections = 0;
  for (const PointResult& point : points) {
    if (point.workload != workload || point.mode != LoadMode::kClosed || point.rounds.empty() ||
        !point.failure.empty()) {
      continue;
    }
    std::vector<double> rates;
    for (const RoundFigures& round : point.rounds) rates.push_back(round.requests_per_s);
    const double median = median_of(rates);
    if (!std::isfinite(median) || median <= 0) continue;
    best[point.contestant] = std::max(best[point.contestant], median);
    connections = std::max(connections, point.connections);
  }
  EqualLoad equal;
  if (best.empty()) return equal;
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto& [contestant, rate] : best) ranked.emplace_back(rate, contestant);
  std::sort(ranked.begin(), ranked.end());
  const auto& middle = ranked[(ranked.size() - 1) / 2];
  equal.rate = middle.first * fraction;
  equal.reference = middle.second;
  equal.contestants = static_cast<unsigned>(ranked.size());
  equal.connections = connections;
  equal.duration_s = std::clamp(requests / equal.rate, min_s, std::max(min_s, max_s));
  return equal;
}

RunResults run_compare(const Scenario& scenario, const std::vector<Contestant>& contestants,
                       const CompareOptions& options) {
  Engine engine(scenario, contestants, options);
  return engine.run();
}

}  // namespace ringside::harness
