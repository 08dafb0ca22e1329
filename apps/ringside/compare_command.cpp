// `ringside compare`: the benchmark run of a scenario (harness::run_compare), and `--validate` and
// `--list`: flags, signals, the database and output around the harness library.
#include <arpa/inet.h>
#include <signal.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "compare_reports.hpp"
#include "db/temp_cluster.hpp"
#include "harness/run/compare_run.hpp"
#include "harness/config/contestant.hpp"
#include "harness/config/contestant_folders.hpp"
#include "harness/process/cpu_shield.hpp"
#include "harness/process/node_packages.hpp"
#include "harness/process/proc_table.hpp"
#include "harness/process/tls_client.hpp"
#include "harness/process/tls_material.hpp"
#include "harness/report/report_files.hpp"
#include "harness/report/report_text.hpp"
#include "harness/results/results.hpp"
#include "harness/config/scenario.hpp"
#include "harness/check/validation_pass.hpp"
#include "compare_new.hpp"
#include "version.hpp"

namespace ringside::apps {
namespace {

struct CompareFlags {
  bool validate = false;
  bool list = false;
  std::vector<std::string> names;  // --validate/--list: contestants; a run: the scenario file
  std::vector<std::string> contestant_dirs;  // --contestants, searched after the bundled set
  bool no_bundled = false;
  std::string postgres_url;
  int threads = 1;
  std::string host = "127.0.0.1";  // --validate: {host}
  bool threads_given = false;  // a run: --threads overrides the scenario's
  double ready_timeout_s = 30;
  std::vector<std::string> only, skip;
  std::string out_dir;
  unsigned rounds = 0;        // 0: the scenario's
  double duration_s = 0;      // 0: the scenario's
  double time_budget_s = 0;   // 0: the scenario's
  bool quick = false;
  bool no_shield = false;
  bool restore_cpus = false;
  std::string cache_dir;  // --cache: RINGSIDE_CACHE
};

// --quick: every point once and short, to see a scenario run end to end (numbers not to be
// trusted).
constexpr unsigned kQuickRounds = 1;
constexpr double kQuickDurationS = 0.3;
constexpr double kQuickWarmupS = 0.1;

void parse_compare_flags(CLI::App& app, CompareFlags& flags) {
  app.description(
      "Run a scenario (default: scenarios/default.toml): every contestant measured, results in\n"
      "a folder. Or check the contestants (--validate), or list them (--list).");
  app.add_flag("--validate", flags.validate,
               "Start each contestant (all, or NAMES), check its routes, stop it; exit 0 when "
               "every runnable one passed");
  app.add_flag("--list", flags.list,
               "One line per contestant: runtime version, build state, runnable or why not; "
               "then the data folder in use (scenarios/, contestants/, web/: an install, "
               "$RINGSIDE_DATA or the source tree) and the cache folder");
  app.add_option("names", flags.names,
                 "A run: the scenario file (default: scenarios/default.toml of the data folder: "
                 "an install, $RINGSIDE_DATA or the source tree). "
                 "--validate/--list: contestants to take (default: all); --validate also takes a "
                 "scenario file (NAME.toml), whose workloads say the protocols to check over");
  app.add_option("--only", flags.only, "Run (or check) only these contestants (a,b)")->delimiter(',');
  app.add_option("--skip", flags.skip, "Leave these contestants out (a,b)")->delimiter(',');
  app.add_option("--out", flags.out_dir,
                 "Results folder (default: results/<scenario>-<UTC time>/ in the current folder)");
  app.add_option("--rounds", flags.rounds,
                 "Exactly N rounds of every point (default: the scenario's; \"auto\" in the "
                 "default scenario: 3, then more for the points not yet known to within 3%)")
      ->check(count_in(1, 100));
  app.add_option("--time-budget", flags.time_budget_s,
                 "With auto rounds: no extra round starts that would end the run past this "
                 "(default: the scenario's time_budget, 5m)")
      ->transform(duration_to_seconds(1, 24 * 3600));
  app.add_option("--duration", flags.duration_s,
                 "Each measured point's duration (default: the scenario's)")
      ->transform(duration_to_seconds(0.01, 3600));
  app.add_flag("--quick", flags.quick,
               "One round of 0.3 s points after a 0.1 s warm-up: checks a scenario runs end to "
               "end; the numbers are not to be trusted");
  app.add_flag("--no-shield", flags.no_shield,
               "Leave the machine's other tasks where they are (by default, as root, they are "
               "moved off the server CPUs for the run and put back after)");
  app.add_flag("--restore-cpus", flags.restore_cpus,
               "Put back the tasks a killed run left moved off the server CPUs (its state file), "
               "then exit");
  app.add_option("--contestants", flags.contestant_dirs,
                 "A folder of your own contestants (NAME/contestant.toml), searched after the "
                 "bundled ones (contestants/ of the data folder), as are ./contestants and "
                 "~/.config/ringside/contestants when they exist; repeatable")
      ->allow_extra_args(false);
  app.add_flag("--no-bundled", flags.no_bundled,
               "Leave the bundled contestants out: only those of --contestants, ./contestants "
               "and ~/.config/ringside/contestants");
  app.add_option("--cache", flags.cache_dir,
                 "Where contestant builds (and, from an install, the contestants' working copy "
                 "with its Node packages) go (default: $RINGSIDE_CACHE, else "
                 "$XDG_CACHE_HOME/ringside, else ~/.cache/ringside)");
  app.add_option("--postgres", flags.postgres_url,
                 "PostgreSQL URL for {db_url}; default: a throwaway seeded cluster, started only "
                 "when a contestant to check has db_pool > 0");
  app.add_option("--threads", flags.threads, "{threads}: cores a contestant may use")
      ->capture_default_str()
      ->check(count_in(1, 1024));
  app.add_option("--host", flags.host,
                 "--validate: {host}, the address each contestant listens on and the checks "
                 "connect to; another than 127.0.0.1 also checks that 127.0.0.1 refuses (a run "
                 "takes the scenario's [load] server_address)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& host) {
            unsigned char address[16];
            return inet_pton(AF_INET, host.c_str(), address) == 1 ||
                           inet_pton(AF_INET6, host.c_str(), address) == 1
                       ? std::string()
                       : "not an IPv4 or IPv6 address (127.0.0.2, ::1): " + host;
          },
          "IP", "IPv4 or IPv6 address"));
  app.add_option("--ready-timeout", flags.ready_timeout_s,
                 "Seconds (or 500ms, 1m, ...) a contestant has to answer 200 on its ready_path")
      ->capture_default_str()
      ->transform(duration_to_seconds(0.1, 600));
}

// Ctrl-C (or SIGTERM, SIGHUP) sets `interrupted`; the run finishes the current step, stops the
// contestant and the database, and exits 130.
class SignalWatcher {
 public:
  explicit SignalWatcher(sigset_t signals) : signals_(signals) {
    thread_ = std::thread([this] { watch(); });
  }
  ~SignalWatcher() {
    done_ = true;
    thread_.join();
  }
  const std::atomic<bool>& interrupted() const { return interrupted_; }

 private:
  void watch() {
    constexpr timespec kCheck{0, 100'000'000};
    while (!done_) {
      const int number = sigtimedwait(&signals_, nullptr, &kCheck);
      if (number > 0 && !interrupted_.exchange(true)) {
        std::fprintf(stderr, "%s: %s, stopping the current contestant\n", kCompareCommand,
                     strsignal(number));
      }
    }
  }

  sigset_t signals_;
  std::atomic<bool> interrupted_{false};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// Every contestant found (the bundled folder, then the user's: contestant_folders.hpp), and the
// folders searched; nothing (after one line on stderr) when a folder or a manifest is bad or a
// name is in two folders.
bool find_contestants(const CompareFlags& flags, std::vector<harness::Contestant>& all,
                      std::vector<harness::ContestantFolder>& folders) {
  harness::FolderSearch search = harness::folder_search_here();
  search.with_bundled = !flags.no_bundled;
  search.given.assign(flags.contestant_dirs.begin(), flags.contestant_dirs.end());
  try {
    folders = harness::contestant_folders(search);
    all = harness::discover_in(folders);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: %s\n", kCompareCommand, error.what());
    return false;
  }
  if (folders.empty()) {
    const std::string why = flags.no_bundled
                                ? "--no-bundled leaves the bundled set out"
                                : "no bundled contestants in ringside's data folder, " +
                                      harness::describe(harness::data_folder(),
                                                        harness::self_executable());
    std::fprintf(stderr,
                 "%s: no contestants folder: %s, and there is no ./contestants or %s; pass "
                 "--contestants DIR\n",
                 kCompareCommand, why.c_str(), harness::user_contestants_dir().c_str());
    return false;
  }
  return true;
}

// Every contestant found, or the ones named; nothing (after one line on stderr) when a name is
// unknown (saying where it looked and how to add one) or finding them failed.
bool select_contestants(const CompareFlags& flags, std::vector<harness::Contestant>& selected) {
  std::vector<harness::Contestant> all;
  std::vector<harness::ContestantFolder> folders;
  if (!find_contestants(flags, all, folders)) return false;
  if (flags.names.empty()) {
    selected = std::move(all);
    return true;
  }
  for (const std::string& name : flags.names) {
    auto found = std::find_if(all.begin(), all.end(),
                              [&](const harness::Contestant& c) { return c.name() == name; });
    if (found == all.end()) {
      std::string known;
      for (const auto& contestant : all) known += (known.empty() ? "" : ", ") + contestant.name();
      std::fprintf(stderr, "%s: unknown contestant '%s' (known: %s); %s\n", kCompareCommand,
                   name.c_str(), known.empty() ? "none" : known.c_str(),
                   harness::unknown_contestant_hint(folders).c_str());
      return false;
    }
    selected.push_back(*found);
  }
  return true;
}

int run_list(const std::vector<harness::Contestant>& contestants) {
  const harness::BuildCache cache;
  std::vector<harness::ListEntry> entries;
  std::size_t name_width = 4, version_width = 7;
  for (const auto& contestant : contestants) {
    entries.push_back(harness::list_entry(contestant, cache));
    name_width = std::max(name_width, entries.back().name.size());
    version_width = std::max(version_width, entries.back().version.size());
  }
  for (const auto& entry : entries) {
    std::printf("%s\n", entry.line(name_width, version_width).c_str());
  }
  // Where things came from goes to stderr: stdout stays one contestant per line for scripts.
  std::fprintf(stderr, "data:  %s\n",
               harness::describe(harness::data_folder(), harness::self_executable()).c_str());
  std::fprintf(stderr, "cache: %s (contestant builds)\n", cache.dir().c_str());
  return 0;
}

// The fairness check judges listen backlogs against the default scenario's largest level (the
// run most people make), or the documented default when that scenario cannot be read.
harness::FairnessOptions fairness_for_validate() {
  const std::filesystem::path file = harness::default_scenario_path();
  if (file.empty()) return {};
  try {
    return harness::fairness_options_for(harness::load_scenario(file),
                                         "the default scenario's largest level");
  } catch (const harness::ScenarioError&) {
    return {};
  }
}

// Each contestant over http, or, with a scenario, over the protocols of the workloads it answers.
std::vector<harness::ValidationTarget> validation_targets(
    const std::vector<harness::Contestant>& contestants, const harness::Scenario* scenario) {
  std::vector<harness::ValidationTarget> targets;
  for (const auto& contestant : contestants) {
    const std::vector<harness::Protocol> protocols =
        scenario == nullptr ? std::vector<harness::Protocol>{harness::Protocol::kHttp}
                            : harness::protocols_to_validate(*scenario, [&](const harness::Workload& w) {
                                return harness::runs_workload(contestant, w);
                              });
    harness::add_targets(targets, contestant, protocols);
  }
  return targets;
}

// The run's throwaway certificates and a client that trusts them, when a target is an https start
// of a contestant that can run and serves it; false (after one line) when they cannot be made.
bool prepare_validate_tls(const std::vector<harness::ValidationTarget>& targets,
                          const harness::Scenario* scenario, const std::string& host,
                          std::unique_ptr<harness::TlsMaterial>& material,
                          harness::ValidationRunOptions& options) {
  const bool wanted = std::any_of(targets.begin(), targets.end(), [](const harness::ValidationTarget& t) {
    return t.protocol == harness::Protocol::kHttps && t.contestant->serves(t.protocol) &&
           harness::check_runnable(*t.contestant).runnable;
  });
  if (!wanted) return true;
  try {
    const harness::TlsKey key = scenario != nullptr ? scenario->tls_key : harness::TlsKey::kEcdsaP256;
    material = harness::TlsMaterial::make(key, {host});
    options.start.tls_files = material->files();
    options.start.tls_client = std::make_shared<const harness::TlsClientContext>(material->files().ca);
  } catch (const harness::TlsError& error) {
    std::fprintf(stderr, "%s: %s\n", kCompareCommand, error.what());
    return false;
  }
  return true;
}

// "validated 3 contestants", and over which protocols when https was among them.
std::string validated_text(std::size_t contestants, const std::vector<harness::ValidationTarget>& targets) {
  bool http = false, https = false;
  for (const auto& target : targets) (target.protocol == harness::Protocol::kHttps ? https : http) = true;
  std::string text = "validated " + std::to_string(contestants) + " contestants";
  if (!https) return text;
  text += http ? " over http and https" : " over https";
  if (targets.size() != contestants) text += " (" + std::to_string(targets.size()) + " starts)";
  return text;
}

int run_validate(const CompareFlags& flags, const std::vector<harness::Contestant>& contestants,
                 const harness::Scenario* scenario) {
  const sigset_t signals = take_shutdown_signals();
  SignalWatcher watcher(signals);
  // Orphans of a contestant (a daemon that double-forked) become our children, to be found.
  harness::become_subreaper();

  harness::ValidationRunOptions options;
  options.start.threads = flags.threads;
  options.start.host = flags.host;
  options.ready_timeout_s = flags.ready_timeout_s;
  options.stop = &watcher.interrupted();
  options.progress = [](const std::string& line) {
    std::fprintf(stderr, "%s: %s\n", kCompareCommand, line.c_str());
  };
  harness::install_node_packages_on_first_use(contestants, options.progress, options.stop);
  options.fairness = scenario != nullptr
                         ? harness::fairness_options_for(*scenario, "the scenario's largest level")
                         : fairness_for_validate();
  const std::vector<harness::ValidationTarget> targets = validation_targets(contestants, scenario);
  std::unique_ptr<harness::TlsMaterial> tls;
  if (!prepare_validate_tls(targets, scenario, flags.host, tls, options)) return 1;

  std::unique_ptr<db::TempCluster> cluster;
  if (!flags.postgres_url.empty()) {
    options.start.db_url = flags.postgres_url;
  } else if (scenario != nullptr && scenario->database == harness::DatabaseKind::kNone) {
    options.start.db_url = "none";  // as the run starts them: the database routes left out
  } else if (scenario != nullptr && scenario->database == harness::DatabaseKind::kUrl) {
    options.start.db_url = scenario->database_url;
  } else if (harness::needs_database(contestants)) {
    cluster = harness::start_throwaway_database(options.progress);
    if (!cluster) return 1;
    options.start.db_url = cluster->url();
  }
  const harness::ValidationTally tally = harness::validate_each(
      targets, options, [](std::size_t, const harness::ContestantReport& report) {
        std::printf("%s\n", report.line().c_str());
        for (const std::string& line : report.warning_lines()) std::printf("%s\n", line.c_str());
        std::fflush(stdout);
        if (!report.last_output.empty()) {
          std::fprintf(stderr, "%s: %s: last output: %s\n", kCompareCommand, report.name.c_str(),
                       report.last_output.c_str());
        }
      });
  if (cluster) cluster->stop();
  std::printf("%s: %u passed, %u failed, %u skipped; %u fairness warning%s%s\n",
              validated_text(contestants.size(), targets).c_str(), tally.passed, tally.failed,
              tally.skipped, tally.warnings, tally.warnings == 1 ? "" : "s",
              tally.interrupted ? " (interrupted)" : "");
  if (tally.interrupted) return 130;
  return tally.failed == 0 ? 0 : 1;
}

std::string utc_stamp() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &parts);
  return text;
}

// The scenario the flags name (or the default), with --rounds, --duration, --quick and
// --postgres applied; nothing (after one line on stderr) when it cannot be used.
std::optional<harness::Scenario> scenario_from_flags(const CompareFlags& flags) {
  if (flags.names.size() > 1) {
    std::fprintf(stderr,
                 "%s: a run takes one scenario file, got %zu arguments (contestants go in "
                 "--only a,b)\n",
                 kCompareCommand, flags.names.size());
    return std::nullopt;
  }
  std::filesystem::path file = flags.names.empty() ? harness::default_scenario_path()
                                                   : std::filesystem::path(flags.names.front());
  if (file.empty()) {
    std::fprintf(stderr,
                 "%s: no scenarios/default.toml in ringside's data folder, %s; or pass a "
                 "scenario file\n",
                 kCompareCommand,
                 harness::describe(harness::data_folder(), harness::self_executable()).c_str());
    return std::nullopt;
  }
  harness::Scenario scenario;
  try {
    scenario = harness::load_scenario(file);
  } catch (const harness::ScenarioError& error) {
    std::fprintf(stderr, "%s: %s\n", kCompareCommand, error.what());
    return std::nullopt;
  }
  if (flags.quick) {
    scenario.auto_rounds = false;
    scenario.rounds = kQuickRounds;
    scenario.duration_s = kQuickDurationS;
    scenario.warmup_s = std::min(scenario.warmup_s, kQuickWarmupS);
    scenario.settle_s = 0;
  }
  if (flags.rounds > 0) {
    scenario.auto_rounds = false;
    scenario.rounds = flags.rounds;
  }
  if (flags.time_budget_s > 0) scenario.time_budget_s = flags.time_budget_s;
  if (flags.threads_given) scenario.threads = static_cast<unsigned>(flags.threads);
  if (flags.duration_s > 0) scenario.duration_s = flags.duration_s;
  if (!flags.postgres_url.empty()) {
    scenario.database = harness::DatabaseKind::kUrl;
    scenario.database_url = flags.postgres_url;
  }
  return scenario;
}

// --validate [SCENARIO.toml] [NAMES...] [--only a,b] [--skip c]: the contestants named (all when
// none), less --skip, and with a scenario also as its `contestants` list says; checked over the
// protocols its workloads use.
int validate_command(const CompareFlags& flags) {
  CompareFlags names = flags;
  names.names.clear();
  std::vector<std::string> scenario_files;
  for (const std::string& name : flags.names) {
    (name.ends_with(".toml") ? scenario_files : names.names).push_back(name);
  }
  if (scenario_files.size() > 1) {
    std::fprintf(stderr, "%s: --validate takes one scenario file, got %zu\n", kCompareCommand,
                 scenario_files.size());
    return 2;
  }
  std::optional<harness::Scenario> scenario;
  if (!scenario_files.empty()) {
    try {
      scenario = harness::load_scenario(scenario_files.front());
    } catch (const harness::ScenarioError& error) {
      std::fprintf(stderr, "%s: %s\n", kCompareCommand, error.what());
      return 2;
    }
  }
  std::vector<harness::Contestant> named;
  if (!select_contestants(names, named)) return 2;
  std::vector<harness::Contestant> contestants;
  try {
    contestants = harness::select_for_scenario(scenario.value_or(harness::Scenario{}), named,
                                               flags.only, flags.skip);
  } catch (const harness::ScenarioError& error) {
    std::fprintf(stderr, "%s: %s\n", kCompareCommand, error.what());
    return 2;
  }
  return run_validate(flags, contestants, scenario ? &*scenario : nullptr);
}

// --restore-cpus: the state file a killed run left, put back.
int run_restore_cpus() {
  const std::filesystem::path dir = harness::shield_state_dir();
  bool found = false;
  const harness::RestoreSummary summary = harness::restore_left_over(dir, found);
  if (!found) {
    std::printf("no CPU shield left over (%s): nothing to put back\n",
                (dir / harness::kShieldStateFile).c_str());
    return 0;
  }
  if (summary.restored + summary.gone + summary.changed + summary.failed > 0) {
    std::printf("CPU shield: %s\n", summary.text().c_str());
  }
  if (!summary.problem.empty()) {
    std::fprintf(stderr, "%s: --restore-cpus: %s\n", kCompareCommand, summary.problem.c_str());
    return 1;
  }
  return 0;
}

int run_benchmark(const CompareFlags& flags) {
  std::optional<harness::Scenario> scenario = scenario_from_flags(flags);
  if (!scenario) return 2;
  std::vector<harness::Contestant> everyone;
  std::vector<harness::ContestantFolder> folders;
  if (!find_contestants(flags, everyone, folders)) return 2;
  std::vector<harness::Contestant> contestants;
  try {
    contestants = harness::select_for_scenario(*scenario, everyone, flags.only, flags.skip,
                                               harness::unknown_contestant_hint(folders));
  } catch (const harness::ScenarioError& error) {
    std::fprintf(stderr, "%s: %s\n", kCompareCommand, error.what());
    return 2;
  }
  if (contestants.empty()) {
    std::fprintf(stderr,
                 "%s: no contestant left to run (check the scenario's contestants, --only "
                 "and --skip)\n",
                 kCompareCommand);
    return 2;
  }
  const std::filesystem::path out =
      flags.out_dir.empty() ? std::filesystem::path("results") / (scenario->name + "-" + utc_stamp())
                            : std::filesystem::path(flags.out_dir);
  std::error_code error;
  std::filesystem::create_directories(out, error);
  if (error) {
    std::fprintf(stderr, "%s: --out %s: cannot create the folder: %s\n", kCompareCommand,
                 out.c_str(), error.message().c_str());
    return 2;
  }

  const sigset_t signals = take_shutdown_signals();
  SignalWatcher watcher(signals);
  harness::become_subreaper();
  harness::CompareOptions options;
  options.out_dir = out;
  options.ringside_version = kVersion;
  options.ready_timeout_s = flags.ready_timeout_s;
  options.stop = &watcher.interrupted();
  options.shield = !flags.no_shield;
  options.progress = [](const std::string& line) {
    std::fprintf(stderr, "%s: %s\n", kCompareCommand, line.c_str());
  };
  harness::install_node_packages_on_first_use(contestants, options.progress, options.stop);
  harness::RunResults results;
  try {
    results = harness::run_compare(*scenario, contestants, options);
  } catch (const std::exception& failure) {
    // Caught so the engine unwinds: its CPU shield puts the machine's tasks back.
    std::fprintf(stderr, "%s: the run failed: %s\n", kCompareCommand, failure.what());
    return 1;
  }
  std::fputs(harness::render_text_report(results).c_str(), stdout);
  try {
    harness::write_results_file(results, out / "results.json");
  } catch (const std::exception& failure) {
    std::fprintf(stderr, "%s: %s\n", kCompareCommand, failure.what());
    return 1;
  }
  try {
    const harness::WrittenReports written = harness::write_reports(results, out);
    if (!written.charts_missing.empty()) {
      std::fprintf(stderr, "%s: report.html has no charts: %s\n", kCompareCommand,
                   written.charts_missing.c_str());
    }
  } catch (const std::exception& failure) {
    std::fprintf(stderr, "%s: %s\n", kCompareCommand, failure.what());
    return 1;
  }
  std::printf("results in %s (results.json, report.md, report.html)\n", out.c_str());
  std::fflush(stdout);
  // A contestant that failed is a finding of the run, shown in the table: the run itself
  // succeeded (--validate is the command that fails on a failing contestant). A run that had to
  // stop on its own (its database died) failed.
  if (!results.stopped_by.empty()) {
    std::fprintf(stderr, "%s: the run stopped early: %s\n", kCompareCommand,
                 results.stopped_by.c_str());
    return 1;
  }
  return results.partial ? 130 : 0;
}

}  // namespace

int run_compare(int argc, char** argv) {
  CompareFlags flags;
  CLI::App app(kCompareCommand, kCompareCommand);
  parse_compare_flags(app, flags);
  ReportFlags report_flags;
  add_report_flags(app, report_flags);
  NewFlags new_flags;
  add_new_flags(app, new_flags);
  if (auto exit_code = parse_flags(app, argc, argv)) return *exit_code;
  flags.threads_given = app.count("--threads") > 0;
  // Before anything looks the cache folder up (harness/config/cache_folder.hpp).
  if (!flags.cache_dir.empty()) {
    setenv("RINGSIDE_CACHE", std::filesystem::absolute(flags.cache_dir).c_str(), 1);
  }
  if (auto exit_code = run_report_flags(report_flags)) return *exit_code;
  const std::string own_folder = flags.contestant_dirs.empty() ? "" : flags.contestant_dirs.front();
  if (auto exit_code = run_new_flags(new_flags, own_folder)) return *exit_code;
  if (flags.restore_cpus) {
    if (flags.validate || flags.list || !flags.names.empty()) {
      std::fprintf(stderr,
                   "%s: --restore-cpus goes alone: it only puts back what a killed run "
                   "moved\n",
                   kCompareCommand);
      return 2;
    }
    return run_restore_cpus();
  }
  if (flags.validate && flags.list) {
    std::fprintf(stderr, "%s: --validate and --list go alone: pass one of them\n", kCompareCommand);
    return 2;
  }
  if (!flags.validate && app.count("--host") > 0) {
    std::fprintf(stderr,
                 "%s: --host goes with --validate; a run listens on its scenario's [load] "
                 "server_address\n",
                 kCompareCommand);
    return 2;
  }
  if (!flags.validate && !flags.list) return run_benchmark(flags);
  if (flags.list) {
    std::vector<harness::Contestant> contestants;
    if (!select_contestants(flags, contestants)) return 2;
    return run_list(contestants);
  }
  return validate_command(flags);
}

}  // namespace ringside::apps
