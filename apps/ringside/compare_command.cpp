// `ringside compare --validate` and `--list`: flags, signals, the database and output around
// harness::validate_contestant and harness::list_entry. The benchmark run itself comes with
// issue 9.
#include <signal.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "compare_reports.hpp"
#include "db/temp_cluster.hpp"
#include "harness/contestant.hpp"
#include "harness/proc_table.hpp"
#include "harness/validation_run.hpp"

namespace ringside::apps {
namespace {

constexpr const char* kName = "ringside compare";

struct CompareFlags {
  bool validate = false;
  bool list = false;
  std::vector<std::string> names;
  std::string contestants_dir;
  std::string postgres_url;
  int threads = 1;
  double ready_timeout_s = 30;
};

void parse_compare_flags(CLI::App& app, CompareFlags& flags) {
  app.description(
      "Check the contestants (--validate) or list them (--list). The benchmark run itself lands\n"
      "with issue 9.");
  app.add_flag("--validate", flags.validate,
               "Start each contestant (all, or NAMES), check its routes, stop it; exit 0 when "
               "every runnable one passed");
  app.add_flag("--list", flags.list,
               "One line per contestant: runtime version, build state, runnable or why not");
  app.add_option("names", flags.names, "Contestants to take (default: all)");
  app.add_option("--contestants", flags.contestants_dir,
                 "Folder of contestants (default: contestants/ of the source tree this binary "
                 "was built in)");
  app.add_option("--postgres", flags.postgres_url,
                 "PostgreSQL URL for {db_url}; default: a throwaway seeded cluster, started only "
                 "when a contestant to check has db_pool > 0");
  app.add_option("--threads", flags.threads, "{threads}: cores a contestant may use")
      ->capture_default_str()
      ->check(count_in(1, 1024));
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
        std::fprintf(stderr, "%s: %s, stopping the current contestant\n", kName,
                     strsignal(number));
      }
    }
  }

  sigset_t signals_;
  std::atomic<bool> interrupted_{false};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// Every contestant in the folder, or the ones named; nothing (after one line on stderr) when a
// name is unknown or a manifest is bad.
bool select_contestants(const CompareFlags& flags, std::vector<harness::Contestant>& selected) {
  std::filesystem::path root = flags.contestants_dir;
  if (root.empty()) {
    root = harness::default_contestants_dir();
    if (root.empty()) {
      std::fprintf(stderr,
                   "%s: no contestants/ folder in the source tree of %s; pass --contestants DIR\n",
                   kName, harness::self_executable().c_str());
      return false;
    }
  }
  std::vector<harness::Contestant> all;
  try {
    all = harness::discover_contestants(root);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: %s\n", kName, error.what());
    return false;
  }
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
      std::fprintf(stderr, "%s: unknown contestant '%s' in %s (known: %s)\n", kName, name.c_str(),
                   root.c_str(), known.empty() ? "none" : known.c_str());
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
  return 0;
}

int run_validate(const CompareFlags& flags, const std::vector<harness::Contestant>& contestants) {
  const sigset_t signals = take_shutdown_signals();
  SignalWatcher watcher(signals);
  // Orphans of a contestant (a daemon that double-forked) become our children, to be found.
  harness::become_subreaper();

  harness::ValidationRunOptions options;
  options.start.threads = flags.threads;
  options.ready_timeout_s = flags.ready_timeout_s;
  options.stop = &watcher.interrupted();
  options.progress = [](const std::string& line) {
    std::fprintf(stderr, "%s: %s\n", kName, line.c_str());
  };

  std::unique_ptr<db::TempCluster> cluster;
  if (!flags.postgres_url.empty()) {
    options.start.db_url = flags.postgres_url;
  } else if (harness::needs_database(contestants)) {
    std::fprintf(stderr, "%s: starting a throwaway PostgreSQL for {db_url}\n", kName);
    cluster = std::make_unique<db::TempCluster>();
    try {
      cluster->start();
    } catch (const std::exception& error) {
      std::fprintf(stderr, "%s: PostgreSQL did not start: %s\n", kName, error.what());
      return 1;
    }
    options.start.db_url = cluster->url();
  }

  int passed = 0, failed = 0, skipped = 0;
  bool stopped = false;
  for (const auto& contestant : contestants) {
    if (watcher.interrupted()) {
      stopped = true;
      break;
    }
    const harness::ContestantReport report = harness::validate_contestant(contestant, options);
    std::printf("%s\n", report.line().c_str());
    std::fflush(stdout);
    if (!report.last_output.empty()) {
      std::fprintf(stderr, "%s: %s: last output: %s\n", kName, report.name.c_str(),
                   report.last_output.c_str());
    }
    switch (report.verdict) {
      case harness::Verdict::kPass: ++passed; break;
      case harness::Verdict::kFail: ++failed; break;
      case harness::Verdict::kSkip: ++skipped; break;
      case harness::Verdict::kInterrupted: stopped = true; break;
    }
    if (stopped) break;
  }
  if (cluster) cluster->stop();
  std::printf("validated %zu contestants: %d passed, %d failed, %d skipped%s\n",
              contestants.size(), passed, failed, skipped,
              stopped ? " (interrupted)" : "");
  if (stopped) return 130;
  return failed == 0 ? 0 : 1;
}

}  // namespace

int run_compare(int argc, char** argv) {
  CompareFlags flags;
  CLI::App app(kName, kName);
  parse_compare_flags(app, flags);
  ReportFlags report_flags;
  add_report_flags(app, report_flags);
  if (auto exit_code = parse_flags(app, argc, argv)) return *exit_code;
  if (auto exit_code = run_report_flags(report_flags)) return *exit_code;
  if (flags.validate && flags.list) {
    std::fprintf(stderr, "%s: --validate and --list go alone: pass one of them\n", kName);
    return 2;
  }
  if (!flags.validate && !flags.list) {
    std::fprintf(stderr,
                 "%s: not yet: the benchmark run lands with issue 9; use --validate or --list\n",
                 kName);
    return 2;
  }
  std::vector<harness::Contestant> contestants;
  if (!select_contestants(flags, contestants)) return 2;
  return flags.list ? run_list(contestants) : run_validate(flags, contestants);
}

}  // namespace ringside::apps
