// `ringside contestants install [NAMES]` and `ringside contestants new NAME`: what the bundled
// contestants need, installed from the package managers the user has (the Node packages with
// `npm ci` from the committed lockfile, builds with cargo --offline or cc) into the bundled folder
// — from an install, its working copy in the cache folder — and a user's own contestant begun
// from a template (the same as `compare --new`).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "compare_new.hpp"
#include "harness/config/cache_folder.hpp"
#include "harness/config/contestant.hpp"
#include "harness/config/contestant_folders.hpp"
#include "harness/config/scaffold.hpp"
#include "harness/process/build_cache.hpp"
#include "harness/process/node_packages.hpp"

namespace ringside::apps {
namespace {

constexpr const char* kContestantsCommand = "ringside contestants";
constexpr double kInstallTimeoutS = 1800;

constexpr const char* kUsage =
    "usage: ringside contestants <command> [options]\n"
    "\n"
    "commands:\n"
    "  install   install what contestants need: Node packages (npm ci), builds (cargo, cc) "
    "(ringside contestants install --help)\n"
    "  new       begin a contestant of your own from a template (ringside contestants new --help)\n";

// --cache DIR: RINGSIDE_CACHE for this process and what it starts (cache_folder.hpp), set before
// anything looks the cache folder up.
void use_cache_folder(const std::string& dir) {
  if (!dir.empty()) setenv("RINGSIDE_CACHE", std::filesystem::absolute(dir).c_str(), 1);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The contestants named (all bundled ones when none are), or an error line and nothing.
bool select(const std::vector<std::string>& names, const std::vector<std::string>& dirs,
            std::vector<harness::Contestant>& selected) {
  harness::FolderSearch search = harness::folder_search_here();
  search.given.assign(dirs.begin(), dirs.end());
  std::vector<harness::ContestantFolder> folders;
  std::vector<harness::Contestant> all;
  try {
    folders = harness::contestant_folders(search);
    all = harness::discover_in(folders);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: %s\n", kContestantsCommand, error.what());
    return false;
  }
  for (const std::string& name : names) {
    auto found = std::find_if(all.begin(), all.end(),
                              [&](const harness::Contestant& c) { return c.name() == name; });
    if (found == all.end()) {
      std::fprintf(stderr, "%s: unknown contestant '%s'; %s\n", kContestantsCommand, name.c_str(),
                   harness::unknown_contestant_hint(folders).c_str());
      return false;
    }
    selected.push_back(*found);
  }
  if (names.empty()) {
    std::copy_if(all.begin(), all.end(), std::back_inserter(selected),
                 [](const harness::Contestant& c) { return c.bundled; });
  }
  return true;
}

// npm ci once for every selected contestant that needs the Node packages; false when it failed.
bool install_node_packages_for(const std::vector<harness::Contestant>& selected) {
  const harness::NodePackagesOutcome outcome = harness::ensure_node_packages(
      selected, [](const std::string& line) {
        std::printf("%s\n", line.c_str());
        std::fflush(stdout);
      });
  if (!outcome.ok) std::fprintf(stderr, "%s: %s\n", kContestantsCommand, outcome.reason.c_str());
  return outcome.ok;
}

// One line per contestant: ready (built when it needed a build), or what is missing and the
// command that installs it. False when it cannot run.
bool make_ready(const harness::Contestant& contestant, const harness::BuildCache& cache,
                std::size_t width) {
  const char* name = contestant.name().c_str();
  const harness::Runnability runnable = harness::check_runnable(contestant);
  if (!runnable.runnable) {
    std::printf("%-*s  %s%s%s\n", static_cast<int>(width), name, runnable.reason.c_str(),
                runnable.install.empty() ? "" : "; install: ", runnable.install.c_str());
    return false;
  }
  if (cache.state(contestant) == harness::BuildState::kNeedsBuild) {
    std::printf("%-*s  building...\n", static_cast<int>(width), name);
    std::fflush(stdout);
    const auto start = std::chrono::steady_clock::now();
    const harness::BuildOutcome built = harness::build_if_needed(contestant, cache, kInstallTimeoutS);
    if (!built.ok) {
      std::printf("%-*s  %s\n", static_cast<int>(width), name, built.reason.c_str());
      return false;
    }
    std::printf("%-*s  ready (built in %.0f s, in %s)\n", static_cast<int>(width), name,
                seconds_since(start), contestant.dir.c_str());
    return true;
  }
  std::printf("%-*s  ready\n", static_cast<int>(width), name);
  return true;
}

int run_install(int argc, char** argv) {
  std::vector<std::string> names, dirs;
  std::string cache_dir;
  CLI::App app("Install what contestants need to run: the Node packages (npm ci from the "
               "committed lockfile), their builds (cargo --offline, cc). From an install they go "
               "into a working copy of the contestants in the cache folder, never into the "
               "install. Each contestant gets a line: ready, or what is missing and the command "
               "that installs it; exit 0 when all named are ready, 1 otherwise.",
               "ringside contestants install");
  app.add_option("names", names, "Contestants to install (default: every bundled one)");
  app.add_option("--contestants", dirs,
                 "A folder of your own contestants, searched after the bundled ones; repeatable")
      ->allow_extra_args(false);
  app.add_option("--cache", cache_dir,
                 "The cache folder (default: $RINGSIDE_CACHE, else $XDG_CACHE_HOME/ringside, else "
                 "~/.cache/ringside)");
  if (auto exit_code = parse_flags(app, argc, argv)) return *exit_code;
  use_cache_folder(cache_dir);
  std::vector<harness::Contestant> selected;
  if (!select(names, dirs, selected)) return 2;
  if (!install_node_packages_for(selected)) return 1;
  const harness::BuildCache cache;
  std::size_t width = 4;
  for (const auto& contestant : selected) width = std::max(width, contestant.name().size());
  std::size_t ready = 0, skipped = 0;
  for (const auto& contestant : selected) {
    // Unavailable bundled ones (rocket) are reported but fail only when named.
    if (!contestant.manifest.available && names.empty()) {
      std::printf("%-*s  not available: %s\n", static_cast<int>(width), contestant.name().c_str(),
                  contestant.manifest.reason.c_str());
      ++skipped;
      continue;
    }
    if (make_ready(contestant, cache, width)) ++ready;
  }
  std::printf("%zu of %zu ready (cache: %s)\n", ready, selected.size() - skipped,
              harness::cache_folder().c_str());
  return ready + skipped == selected.size() ? 0 : 1;
}

int run_new(int argc, char** argv) {
  NewFlags flags;
  flags.command = "ringside contestants new";
  flags.kind_flag = "--from";
  std::vector<std::string> dirs;
  CLI::App app("Begin a contestant of your own: NAME/contestant.toml (every field explained) and "
               "a minimal fair server, in ./contestants (or --contestants DIR), then say what to "
               "run next. The same as `ringside compare --new NAME --like KIND`.",
               "ringside contestants new");
  app.add_option("name", flags.name, "The contestant's name (letters, digits, - and _)")->required();
  app.add_option("--from", flags.like,
                 "The server to begin from (" + harness::scaffold_kind_names() + "; default python)");
  app.add_option("--contestants", dirs, "The folder to write it into (default: ./contestants)")
      ->allow_extra_args(false);
  if (auto exit_code = parse_flags(app, argc, argv)) return *exit_code;
  return run_new_flags(flags, dirs.empty() ? "" : dirs.front()).value_or(0);
}

}  // namespace

int run_contestants(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "";
  if (command == "install") return run_install(argc - 1, argv + 1);
  if (command == "new") return run_new(argc - 1, argv + 1);
  if (command == "-h" || command == "--help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  std::fprintf(
      stderr, "%s: %s\n%s", kContestantsCommand,
      command.empty() ? "a command is needed" : ("unknown command '" + command + "'").c_str(),
      kUsage);
  return 2;
}

}  // namespace ringside::apps
