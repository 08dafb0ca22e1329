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
#include "harness/process/tls_client.hpp"
#include "harness/process/tls_material.hpp"
#include "harness/measure/sampler.hpp"
#include "harness/measure/server_cpu_watch.hpp"
#include "harness/check/validation_pass.hpp"
#include "harness/run/point_loader.hpp"
#include "harness/run/point_plan.hpp"
#include "harness/run/point_watch.hpp"
#include "load/merge.hpp"

namespace ringside::harness {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr double kStartOverheadS = 2;  // start, ready, idle sample and stop, for the estimate
constexpr double kProbeTimeoutS = 5;   // a contestant that answered nothing in a point, asked again

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
  bool runs_route(const Contestant& contestant, const Workload& workload) const {
    if (!runs_workload(contestant, workload)) return false;
    if (scenario_.database != DatabaseKind::kNone || contestant.manifest.db_pool == 0) return true;
    const auto route = route_of_path(workload.path);
    return !route || !is_database_route(*route);
  }
  // runs_route, over a protocol it serves (a workload of another is skipped, and results say why).
  bool runs(const Contestant& contestant, const Workload& workload) const {
    return runs_route(contestant, workload) && contestant.serves(workload.protocol);
  }
  // The workloads it would run but for their protocol, recorded in its result; skipped when that
  // leaves it none.
  void record_protocol_skips(const Contestant& contestant, ContestantResult& result) const;
  // The run's throwaway certificates, when a contestant to be timed runs an https workload.
  void prepare_tls();
  StartOptions start_options(Protocol protocol) const;
  // Every contestant still to be timed, validated once (check/validation_pass.hpp); one that
  // does not pass is never timed.
  void validate_all();
  void record_validation(ContestantState& state, const ContestantReport& report);
  void run_round(unsigned round, Pass pass);
  // A contestant's part of a round: started, its points, settled, stopped.
  void run_contestant(ContestantState& state, unsigned round, Pass pass);
  std::unique_ptr<RunningContestant> start_contestant(ContestantState& state, unsigned round,
                                                      Protocol protocol);
  // Its plans of one protocol, on one start: false when the run stops or it failed.
  bool run_start(ContestantState& state, const std::vector<PointPlan>& plans, unsigned round,
                 Pass pass, bool sample_memory);
  std::string point_title(const ContestantState& state, const PointPlan& plan, unsigned round,
                          Pass pass) const;
  bool run_point(RunningContestant& server, ContestantState& state, const PointPlan& plan,
                 unsigned round, Pass pass);  // false: no more points for it this round
  void settle_and_sample(RunningContestant& server, ContestantState& state);
  void stop_contestant(RunningContestant& server, ContestantState& state);
  std::vector<PointPlan> plan_for(const Contestant& contestant, Pass pass) const;
  // The rounds past the first ones (rounds = "auto"), while points are unsettled and the time
  // budget lasts.
  void run_extra_rounds();
  double plan_seconds_for(Pass pass) const;  // every timed contestant's plans, in seconds
  StoppingRule stopping_rule() const { return {scenario_.target, scenario_.confidence}; }
  // One point of one round, in named steps: the loader chosen, the load run against the
  // server's watch, the figures gathered and judged. False when the contestant failed.
  bool measure(RunningContestant& server, ContestantState& state, const PointPlan& plan,
               unsigned round, RoundFigures& figures, std::string& failure);
  std::unique_ptr<PointLoader> loader_for(const Workload& workload);
  WatchSetup watch_setup() const;
  double loader_cores(const Workload& workload) const {
    return std::max(1.0, std::min<double>(workload.loader_threads, static_cast<double>(load_cpus_.size())));
  }
  void keep_histogram_log(const PointLoader& loader, const std::string& contestant,
                          const PointPlan& plan, unsigned round, RoundFigures& figures) const;
  PointContext judging_context(const PointPlan& plan, const LoaderRun& run,
                               const PointWatch& watch) const;
  // Whose fault a point's trouble was: "" and true when none; the loader's (true: the point
  // carries it); the server's (false: it died or stopped answering).
  bool point_verdict(RunningContestant& server, const ContestantState& state,
                     const PointPlan& plan, const LoaderRun& run, const RoundFigures& figures,
                     std::string& failure);
  bool prepare_load_hosts();
  PointResult& point_for(const std::string& contestant, const PointPlan& plan);
  const PointResult* find_point(const std::string& contestant, const PointPlan& plan) const;
  std::size_t point_index(const std::string& contestant, const PointPlan& plan) const;  // or size()
  void fail_contestant(ContestantState& state, const std::string& reason, const std::string& output,
                       unsigned round);
  void compute_equal_loads();
  double planned_seconds(const std::vector<PointPlan>& plans) const;
  void report_progress(const std::string& what, double point_s);
  void finish_results();
  // The steps of run(), in order.
  void describe_run();         // results.json's head: scenario, policy, workloads, machine
  void pin_to_load_cpus();     // and unpin(), back to the CPUs the harness had
  void unpin();
  // Contestants still to be timed that `which` picks are not timed after all: status, reason.
  void give_up_on(bool (*which)(const ContestantState&), ContestantStatus status,
                  const std::string& reason);
  void plan_pass(Pass pass, unsigned rounds);  // adds a pass to the progress estimate
  void run_rounds();           // the fixed or minimum rounds, equal load, then auto's extra rounds
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
  std::unique_ptr<TlsMaterial> tls_;                  // https workloads: the run's certificates
  std::shared_ptr<const TlsClientContext> tls_client_;  // trusts tls_'s CA
  std::string load_hosts_problem_;                    // why they could not be used
  // Non-empty once the cluster died: every later point would measure the outage, so the run ends.
  std::string database_lost_;
  std::string db_url_;
  std::vector<int> server_cpus_, load_cpus_;
  std::optional<cpu_set_t> previous_cpus_;  // the harness's own, before it pinned itself
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
      result.reason = skip_reason(runnable);
    } else if (scenario_.load.server_address != "127.0.0.1" && !contestant.takes_host()) {
      result.status = ContestantStatus::kSkipped;
      result.reason =
          no_host_reason("the scenario's server_address " + scenario_.load.server_address);
    } else if (contestant.manifest.db_pool > 0 && !contestant.manifest.database_optional &&
               scenario_.database == DatabaseKind::kNone) {
      result.status = ContestantStatus::kSkipped;
      result.reason = "it needs a database, and the scenario has database = \"none\"";
    }
    if (result.status == ContestantStatus::kRan) record_protocol_skips(contestant, result);
    ContestantState& state = states_.emplace_back();
    state.contestant = &contestant;
    state.result = results_.contestants.size();
    state.timed = result.status == ContestantStatus::kRan;
    if (result.status == ContestantStatus::kSkipped) say(result.name + ": skipped: " + result.reason);
    results_.contestants.push_back(std::move(result));
  }
}

void Engine::record_protocol_skips(const Contestant& contestant, ContestantResult& result) const {
  bool runs_any = false;
  std::string unserved;
  for (const Workload& workload : scenario_.workloads) {
    if (!runs_route(contestant, workload)) continue;
    runs_any = runs_any || contestant.serves(workload.protocol);
    const std::string why = unserved_protocol(contestant, workload.protocol);
    if (why.empty()) continue;
    result.skipped_workloads.push_back({workload.name, why});
    say(result.name + ": " + workload.name + " skipped: " + why);
    unserved = why;
  }
  if (runs_any || unserved.empty()) return;
  result.status = ContestantStatus::kSkipped;
  result.reason = unserved + ": every workload of the scenario it answers is over a protocol it "
                             "does not serve";
}

void Engine::prepare_tls() {
  const bool wanted =
      std::any_of(states_.begin(), states_.end(), [&](const ContestantState& state) {
        return state.timed && std::any_of(scenario_.workloads.begin(), scenario_.workloads.end(),
                                          [&](const Workload& w) {
                                            return over_tls(w.protocol) &&
                                                   runs(*state.contestant, w);
                                          });
      });
  if (!wanted) return;
  tls_ = TlsMaterial::make(scenario_.tls_key, {scenario_.load.server_address});
  tls_client_ = std::make_shared<const TlsClientContext>(tls_->files().ca);
  say("https: a throwaway CA and " + std::string(tls_key_name(scenario_.tls_key)) +
      " server certificate for this run, in " + tls_->directory().string());
}

StartOptions Engine::start_options(Protocol protocol) const {
  StartOptions start;
  start.threads = static_cast<int>(scenario_.threads);
  start.db_url = db_url_;
  start.cpus = server_cpus_;
  start.host = scenario_.load.server_address;
  start.protocol = transport_of(protocol);
  if (over_tls(protocol) && tls_) {
    start.tls_files = tls_->files();
    start.tls_client = tls_client_;
  }
  return start;
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
  cluster_ = start_throwaway_database([this](const std::string& line) { say(line); });
  if (!cluster_) return false;
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
  // Checked where it will be timed: on server_address, and (when that is not 127.0.0.1) not
  // answering on 127.0.0.1 too; over each protocol it will be timed over.
  options.start = start_options(Protocol::kHttp);
  options.start.cpus.clear();
  if (tls_) {
    options.start.tls_files = tls_->files();
    options.start.tls_client = tls_client_;
  }
  options.ready_timeout_s = options_.ready_timeout_s;
  options.stop_grace_s = options_.stop_grace_s;
  options.stop = options_.stop;
  options.progress = [this](const std::string& line) { say(line); };
  options.fairness = fairness_options_for(scenario_, "the scenario's largest level");
  std::vector<ContestantState*> checked;
  std::vector<ValidationTarget> targets;
  for (ContestantState& state : states_) {
    if (!state.timed) continue;
    const std::vector<Protocol> protocols = protocols_to_validate(
        scenario_, [&](const Workload& workload) { return runs(*state.contestant, workload); });
    checked.insert(checked.end(), add_targets(targets, *state.contestant, protocols), &state);
  }
  validate_each(targets, options, [&](std::size_t i, const ContestantReport& report) {
    record_validation(*checked[i], report);
  });
}

// Called once per protocol it is validated over: one that fails over either is never timed.
void Engine::record_validation(ContestantState& state, const ContestantReport& report) {
  ContestantResult& result = results_.contestants[state.result];
  if (result.version.empty()) result.version = report.version;
  if (report.tls) say(result.name + ": over https: " + report.tls->text());
  for (const FairnessWarning& warning : report.warnings) {
    result.warnings.push_back({std::string(fairness_check_name(warning.check)), warning.message});
  }
  for (const std::string& line : report.warning_lines()) say(line);
  if (report.verdict == CheckVerdict::kPass) return;
  const bool already = !state.timed && result.status != ContestantStatus::kRan;
  state.timed = false;
  if (report.verdict == CheckVerdict::kInterrupted) return;
  const bool skipped = report.verdict == CheckVerdict::kSkip;
  const std::string over = report.protocol == Protocol::kHttp
                               ? std::string()
                               : " over " + std::string(protocol_name(report.protocol));
  const std::string reason = (skipped ? "" : "validation failed" + over + ": ") + report.problem_text();
  if (already) {
    result.reason += "; " + reason;
    return;
  }
  result.status = skipped ? ContestantStatus::kSkipped : ContestantStatus::kFailed;
  result.reason = reason;
  result.last_output = report.last_output;
  say(result.name + ": " + std::string(status_name(result.status)) + ", never timed: " + result.reason);
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
  // A start per protocol among the plans (run_contestant), the settle once.
  const bool https = std::any_of(plans.begin(), plans.end(), [](const PointPlan& plan) {
    return over_tls(plan.workload->protocol);
  });
  const bool http = std::any_of(plans.begin(), plans.end(), [](const PointPlan& plan) {
    return !over_tls(plan.workload->protocol);
  });
  double seconds = kStartOverheadS * ((http ? 1 : 0) + (https ? 1 : 0)) + scenario_.settle_s;
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

std::unique_ptr<PointLoader> Engine::loader_for(const Workload& workload) {
  return make_point_loader(workload, {.scenario = &scenario_,
                                      .load_hosts = load_hosts_.get(),
                                      .say = [this](const std::string& line) { say(line); }});
}

WatchSetup Engine::watch_setup() const {
  return {.server_cpus = server_cpus_,
          .database_pid = cluster_ ? cluster_->postmaster_pid() : -1,
          .statements = statements_.get()};
}

bool Engine::measure(RunningContestant& server, ContestantState& state, const PointPlan& plan,
                     unsigned round, RoundFigures& figures, std::string& failure) {
  const PointLoad load = point_load(plan, scenario_, server.port());
  const std::unique_ptr<PointLoader> loader = loader_for(*plan.workload);
  PointWatch watch(server, *loader, watch_setup(), [this] { return stopping(); });
  if (loader->counts_answers() && load.requests > 0) watch.read_database_before_load();
  LoaderRun run = loader->run(load, watch);
  watch.finish();
  if (stopping()) return false;
  figures = std::move(run.figures);
  figures.round = round;
  figures.target_rate = plan.target_rate();
  watch.fill(figures, load.requests > 0);
  loader->account_cpu(figures, watch.loader_cpu(loader_cores(*plan.workload)));
  keep_histogram_log(*loader, results_.contestants[state.result].name, plan, round, figures);
  judge_round(figures, judging_context(plan, run, watch));
  return point_verdict(server, state, plan, run, figures, failure);
}

void Engine::keep_histogram_log(const PointLoader& loader, const std::string& contestant,
                                const PointPlan& plan, unsigned round, RoundFigures& figures) const {
  const std::string& workload = plan.workload->name;
  const std::string relative =
      histogram_log_name(workload, contestant, plan.mode, plan.connections, plan.rate, round);
  const std::string comment = "ringside compare: " + contestant + ", " + workload + ", " +
                              std::string(mode_name(plan.mode)) + ", " +
                              std::to_string(plan.connections) + " connections, round " +
                              std::to_string(round);
  if (loader.write_histogram_log(options_.out_dir, relative, comment)) figures.histogram_log = relative;
}

PointContext Engine::judging_context(const PointPlan& plan, const LoaderRun& run,
                                     const PointWatch& watch) const {
  const Workload& workload = *plan.workload;
  return {.mode = plan.mode,
          .connections = plan.connections,
          .pipeline = workload.pipeline,
          .loader_cores = loader_cores(workload),
          // Without keep-alive each connection lives for one request: fewer are ever open at
          // once than the loader's concurrency, by design.
          .connections_counted = watch.connections_counted() && workload.keep_alive,
          .listen_drops_per_port = watch.listen_drops_per_port(),
          .in_flight_at_end = run.in_flight_at_end,
          .slow_connects = run.slow_connects,
          .loader_resets = run.resets,
          .mean_outstanding = run.mean_outstanding,
          .latency_resolution_s = workload.loader == LoaderKind::kAb ? 1e-3 : 0,
          .server_cpus = server_cpus_};
}

bool Engine::point_verdict(RunningContestant& server, const ContestantState& state,
                           const PointPlan& plan, const LoaderRun& run,
                           const RoundFigures& figures, std::string& failure) {
  const std::string at = plan.workload->name + " at " + std::to_string(plan.connections) + " connections";
  if (!run.error.empty()) {
    failure = std::string(loader_name(plan.workload->loader)) + ": " + run.error;
    return true;  // the loader failed, not the contestant
  }
  if (!run.server_alive || !server.process().running()) {
    const auto& status = server.process().status();
    failure = "exited (" + (status ? describe_wait_status(*status) : std::string("gone")) +
              ") during " + at;
    return false;
  }
  if (figures.completed > 0) return true;
  // Nothing answered: a slow server in a short point, or one that stopped answering. Ask it.
  HttpResponse response;
  std::string error;
  const std::string& ready_path = state.contestant->manifest.ready_path;
  if (fetch(server.host(), server.port(), server.tls_client(), ready_path, kProbeTimeoutS, response,
            error) &&
      response.status == 200) {
    return true;
  }
  failure = "stopped answering during " + at + " (" + with_commas(figures.failed) + " errors; GET " +
            ready_path + ": " + (error.empty() ? "status " + std::to_string(response.status) : error) + ")";
  return false;
}

// A start per protocol its plans use (plain first): a server is started either plain or with TLS
// on {port}. Its memory is sampled around the round's first start only, so each round adds one
// idle and one after figure whatever the protocols.
void Engine::run_contestant(ContestantState& state, unsigned round, Pass pass) {
  const std::vector<PointPlan> plans = plan_for(*state.contestant, pass);
  if (plans.empty()) return;
  const double planned = planned_seconds(plans);
  const double planned_before = planned_done_s_;
  bool first = true;
  for (Protocol protocol : {Protocol::kHttp, Protocol::kHttps}) {
    std::vector<PointPlan> group;
    std::copy_if(plans.begin(), plans.end(), std::back_inserter(group), [&](const PointPlan& plan) {
      // One start serves HTTP/1.1 and HTTP/2 alike: grouped by the port's transport.
      return transport_of(plan.workload->protocol) == protocol;
    });
    if (group.empty()) continue;
    if (!run_start(state, group, round, pass, first)) break;
    first = false;
  }
  planned_done_s_ = planned_before + planned;
}

bool Engine::run_start(ContestantState& state, const std::vector<PointPlan>& plans, unsigned round,
                       Pass pass, bool sample_memory) {
  const std::unique_ptr<RunningContestant> server =
      start_contestant(state, round, plans.front().workload->protocol);
  if (!server) return false;
  planned_done_s_ += kStartOverheadS / 2;
  const bool sample = sample_memory && pass != Pass::kEqualLoad;
  if (sample) state.idle_kib.push_back(measure_tree(server->process().pid(), /*with_cpu=*/false).rss_kib);
  for (const PointPlan& plan : plans) {
    if (stopping() || database_died() || !run_point(*server, state, plan, round, pass)) break;
  }
  if (!state.failed && !stopping() && sample) settle_and_sample(*server, state);
  stop_contestant(*server, state);
  return !state.failed && !stopping();
}

std::unique_ptr<RunningContestant> Engine::start_contestant(ContestantState& state, unsigned round,
                                                            Protocol protocol) {
  std::unique_ptr<RunningContestant> server;
  shield_pass();
  try {
    server = std::make_unique<RunningContestant>(*state.contestant, start_options(protocol));
  } catch (const std::exception& error) {
    fail_contestant(state, std::string("cannot start: ") + error.what(), "", round);
    return nullptr;
  }
  const ReadyResult ready = server->wait_ready(options_.ready_timeout_s, options_.stop);
  if (ready.ok) return server;
  if (!ready.interrupted) fail_contestant(state, ready.reason, server->last_output(5), round);
  server->stop(options_.stop_grace_s);
  return nullptr;
}

std::string Engine::point_title(const ContestantState& state, const PointPlan& plan, unsigned round,
                                Pass pass) const {
  const std::string when = pass == Pass::kEqualLoad ? std::string("equal load")
                           : pass == Pass::kUnsettled
                               ? "round " + std::to_string(round) + " (more, until known)"
                               : "round " + std::to_string(round) + "/" + std::to_string(scenario_.rounds);
  return when + ": " + results_.contestants[state.result].name + " " + plan.workload->name +
         " c=" + std::to_string(plan.connections) +
         (plan.mode == LoadMode::kOpen ? " open at " + std::to_string(std::llround(plan.rate)) + " req/s" : "");
}

bool Engine::run_point(RunningContestant& server, ContestantState& state, const PointPlan& plan,
                       unsigned round, Pass pass) {
  const double point_s = scenario_.warmup_s + (plan.workload->requests > 0 ? 1 : plan.duration_s);
  report_progress(point_title(state, plan, round, pass), point_s);
  RoundFigures figures;
  std::string failure;
  bool ok = false;
  try {
    ok = measure(server, state, plan, round, figures, failure);
  } catch (const std::exception& error) {
    failure = error.what();
  }
  planned_done_s_ += point_s;
  ++points_done_;
  if (stopping()) return false;
  PointResult& point = point_for(results_.contestants[state.result].name, plan);
  if (database_died()) {
    // Its figures are kept, for what they show of the outage, and marked: they are not the
    // server's. The contestant did not fail; the run did.
    point.failure = "round " + std::to_string(round) + ": " + database_lost_ +
                    " during this point: its figures measure the outage, not the server";
    point.rounds.push_back(std::move(figures));
    return false;
  }
  if (!ok) {
    fail_contestant(state, failure, server.last_output(5), round);
    return false;
  }
  if (!failure.empty() && point.failure.empty()) point.failure = failure;
  point.rounds.push_back(std::move(figures));
  return true;
}

void Engine::settle_and_sample(RunningContestant& server, ContestantState& state) {
  const auto settle_until = Clock::now() + std::chrono::duration<double>(scenario_.settle_s);
  while (Clock::now() < settle_until && !stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (!stopping()) state.after_kib.push_back(measure_tree(server.process().pid(), /*with_cpu=*/false).rss_kib);
}

void Engine::stop_contestant(RunningContestant& server, ContestantState& state) {
  const StopResult stopped = server.stop(options_.stop_grace_s);
  if (stopped.problem().empty() || state.failed || stopping()) return;
  ContestantResult& result = results_.contestants[state.result];
  result.status = ContestantStatus::kFailed;
  result.reason = "stop: " + stopped.problem();
  say(result.name + ": " + result.reason);
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

void Engine::describe_run() {
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
    results_.workloads.push_back({workload.name, workload.method, workload.path, workload.mode,
                                  workload.loader, workload.protocol, workload.tls_resume,
                                  workload.streams});
  }
  server_cpus_ = parse_cpu_list(scenario_.server_cpus).value_or(std::vector<int>{});
  load_cpus_ = parse_cpu_list(scenario_.load_cpus).value_or(std::vector<int>{});
  results_.machine = gather_machine_facts(scenario_.server_cpus, scenario_.load_cpus);
  for (const std::string& warning : results_.machine.warnings) say("warning: " + warning);
}

void Engine::pin_to_load_cpus() {
  // Everything the harness does from here (its load threads, samplers, the database it starts
  // before re-pinning it) runs on the load CPUs, away from the servers.
  cpu_set_t previous;
  if (sched_getaffinity(0, sizeof previous, &previous) == 0) previous_cpus_ = previous;
  const cpu_set_t load_set = cpu_set_of(load_cpus_);
  if (sched_setaffinity(0, sizeof load_set, &load_set) != 0) {
    say("warning: cannot pin the loader to CPUs " + scenario_.load_cpus + ": " + std::strerror(errno));
  }
}

void Engine::unpin() {
  if (previous_cpus_) sched_setaffinity(0, sizeof *previous_cpus_, &*previous_cpus_);
}

void Engine::give_up_on(bool (*which)(const ContestantState&), ContestantStatus status,
                        const std::string& reason) {
  for (ContestantState& state : states_) {
    if (!state.timed || !which(state)) continue;
    state.timed = false;
    results_.contestants[state.result].status = status;
    results_.contestants[state.result].reason = reason;
  }
}

void Engine::plan_pass(Pass pass, unsigned rounds) {
  for (const ContestantState& state : states_) {
    if (!state.timed || state.failed) continue;
    const std::vector<PointPlan> plans = plan_for(*state.contestant, pass);
    planned_total_s_ += planned_seconds(plans) * rounds;
    points_total_ += static_cast<unsigned>(plans.size()) * rounds;
  }
}

void Engine::run_rounds() {
  plan_pass(Pass::kEvery, scenario_.rounds);
  rounds_started_ = Clock::now();
  for (unsigned round = 1; round <= scenario_.rounds && !stopping(); ++round) {
    run_round(round, Pass::kEvery);
  }
  // The equal-load points, at a rate chosen from the medians the contestants sustained.
  if (!stopping()) compute_equal_loads();
  if (!equal_loads_.empty() && !stopping()) {
    plan_pass(Pass::kEqualLoad, 1);
    run_round(1, Pass::kEqualLoad);
  }
  if (scenario_.auto_rounds) run_extra_rounds();
}

RunResults Engine::run() {
  describe_run();
  pin_to_load_cpus();
  start_shield();
  prepare_contestants();
  if (!prepare_load_hosts()) {
    give_up_on([](const ContestantState&) { return true; }, ContestantStatus::kSkipped,
               "the load hosts were not ready");
    unpin();
    stop_shield();
    results_.partial = true;
    results_.stopped_by = load_hosts_problem_;
    finish_results();
    return std::move(results_);
  }
  if (!provision_database()) {
    give_up_on([](const ContestantState& state) { return state.contestant->manifest.db_pool > 0; },
               ContestantStatus::kFailed, "the throwaway PostgreSQL did not start");
  }
  prepare_tls();
  validate_all();
  run_rounds();
  if (cluster_) cluster_->stop();
  unpin();
  stop_shield();
  results_.partial = stopping();
  results_.stopped_by = database_lost_;
  finish_results();
  return std::move(results_);
}

}  // namespace

std::vector<Contestant> select_for_scenario(const Scenario& scenario, const std::vector<Contestant>& all,
                                            const std::vector<std::string>& only,
                                            const std::vector<std::string>& skip,
                                            const std::string& unknown_hint) {
  auto known = [&](const std::string& name, const std::string& where) {
    const bool found = std::any_of(all.begin(), all.end(), [&](const Contestant& c) { return c.name() == name; });
    if (!found) {
      std::string names;
      for (const Contestant& c : all) names += (names.empty() ? "" : ", ") + c.name();
      throw ScenarioError(where + ": unknown contestant '" + name + "' (known: " +
                          (names.empty() ? "none" : names) + ")" +
                          (unknown_hint.empty() ? "" : "; " + unknown_hint));
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
