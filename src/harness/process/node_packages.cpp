#include "harness/process/node_packages.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <system_error>

#include "core/fnv1a.hpp"
#include "harness/config/data_folder.hpp"
#include "harness/process/process.hpp"

namespace ringside::harness {
namespace fs = std::filesystem;
namespace {

constexpr const char* kLockfile = "package-lock.json";
constexpr const char* kStamp = "node_modules/.ringside-npm-ci";

// The lockfile's fingerprint, "" when it cannot be read.
std::string lockfile_fingerprint(const fs::path& bundled) {
  std::ifstream in(bundled / kLockfile, std::ios::binary);
  if (!in) return {};
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(core::fnv1a64(bytes)));
  return hex;
}

}  // namespace

bool needs_node_packages(const Contestant& contestant) {
  for (const std::string& entry : contestant.manifest.required) {
    if (entry.starts_with("{bundled}/node_modules/")) return true;
  }
  return false;
}

bool node_packages_current(const fs::path& bundled) {
  const std::string current = lockfile_fingerprint(bundled);
  std::ifstream stamp(bundled / kStamp);
  std::string recorded;
  std::getline(stamp, recorded);
  return !current.empty() && recorded == current;
}

NodePackagesOutcome install_node_packages(const fs::path& bundled, double timeout_s,
                                          const std::atomic<bool>* stop) {
  if (node_packages_current(bundled)) return {};
  const std::string fingerprint = lockfile_fingerprint(bundled);
  if (fingerprint.empty()) {
    return {false, false, "no " + (bundled / kLockfile).string() + " to install the Node packages from"};
  }
  ProcessSpec spec;
  spec.argv = {"npm", "ci", "--prefix", bundled.string(), "--no-audit", "--no-fund",
               "--loglevel=error"};
  CommandResult result;
  try {
    result = run_command(spec, timeout_s, stop);
  } catch (const std::exception& error) {
    return {false, true, std::string("npm ci: ") + error.what() +
                             "; install npm (apt-get install npm) and run again"};
  }
  if (result.interrupted) return {false, true, "npm ci interrupted"};
  if (result.timed_out) {
    return {false, true, "npm ci ran over " + format_seconds(timeout_s) + ": " +
                             tail_lines(result.output, 3)};
  }
  if (!WIFEXITED(result.status) || WEXITSTATUS(result.status) != 0) {
    const bool no_npm = WIFEXITED(result.status) && WEXITSTATUS(result.status) == 127;
    return {false, true, no_npm ? "npm is not on PATH: apt-get install npm, then run again"
                                : "npm ci failed (" + describe_wait_status(result.status) + "): " +
                                      tail_lines(result.output, 3)};
  }
  std::ofstream stamp(bundled / kStamp, std::ios::trunc);
  stamp << fingerprint << "\n";
  if (!stamp) return {false, true, "cannot write " + (bundled / kStamp).string()};
  return {true, true, {}};
}

NodePackagesOutcome ensure_node_packages(const std::vector<Contestant>& contestants,
                                         const std::function<void(const std::string&)>& progress,
                                         const std::atomic<bool>* stop, std::string_view occasion) {
  if (std::none_of(contestants.begin(), contestants.end(), needs_node_packages)) return {};
  const fs::path bundled = default_contestants_dir();
  if (bundled.empty() || node_packages_current(bundled)) return {};
  progress(std::string(occasion) + "npm ci in " + bundled.string() +
           " (the Node packages and the deno and bun runtimes, about 380 MB; once, and again only "
           "when the lockfile changes)...");
  const auto start = std::chrono::steady_clock::now();
  NodePackagesOutcome outcome = install_node_packages(bundled, 1800, stop);
  if (outcome.ok) {
    progress("npm ci done in " +
             format_seconds(std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                                .count()));
  }
  return outcome;
}

void install_node_packages_on_first_use(const std::vector<Contestant>& contestants,
                                        const std::function<void(const std::string&)>& progress,
                                        const std::atomic<bool>* stop) {
  const DataFolder& data = data_folder();
  if (data.origin == DataOrigin::kSourceTree || data.origin == DataOrigin::kNone) return;
  const NodePackagesOutcome outcome = ensure_node_packages(contestants, progress, stop, "first use: ");
  if (!outcome.ok) {
    progress("npm ci: " + outcome.reason +
             " (the Node contestants are left out; `ringside contestants install` retries)");
  }
}

}  // namespace ringside::harness
