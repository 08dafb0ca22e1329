// The Node packages the bundled Node contestants, deno and bun share: `npm ci` of the bundled
// folder's committed package-lock.json into its node_modules (scripts/setup does it in the source
// tree; `ringside contestants install` in the cache's working copy of an install). It runs again
// only when the lockfile changed since the last successful one: a stamp in node_modules holds the
// lockfile's fingerprint.
//
//   if (any_of(selected, needs_node_packages)) {
//     NodePackagesOutcome done = install_node_packages(default_contestants_dir(), 1800, &stop);
//   }
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/config/contestant.hpp"

namespace ringside::harness {

// It requires something under {bundled}/node_modules.
[[nodiscard]] bool needs_node_packages(const Contestant& contestant);

// node_modules is there and was installed from the lockfile as it is now.
[[nodiscard]] bool node_packages_current(const std::filesystem::path& bundled);

struct NodePackagesOutcome {
  bool ok = true;
  bool ran = false;    // npm ci ran (they were missing or stale)
  std::string reason;  // when !ok: what failed and what to do
};

// `npm ci --prefix BUNDLED` unless node_packages_current(bundled); npm's output captured, its last
// lines in the reason on failure.
NodePackagesOutcome install_node_packages(const std::filesystem::path& bundled, double timeout_s,
                                          const std::atomic<bool>* stop = nullptr);

// When any of `contestants` needs the Node packages and the bundled folder's are missing or
// stale: npm ci there, said through `progress` before ("<occasion>npm ci in DIR ...") and after a
// success. Nothing to do is ok and !ran; a failure is returned for the caller to report.
NodePackagesOutcome ensure_node_packages(const std::vector<Contestant>& contestants,
                                         const std::function<void(const std::string&)>& progress,
                                         const std::atomic<bool>* stop = nullptr,
                                         std::string_view occasion = "");

// A run's first use from an install (or $RINGSIDE_DATA; in the source tree scripts/setup owns
// node_modules): when any of `contestants` needs the Node packages and the working copy has none
// or stale ones, install them, saying so through `progress` before and after. A failure is said
// and left at that: those contestants are then not runnable, with the command that fixes it.
void install_node_packages_on_first_use(const std::vector<Contestant>& contestants,
                                        const std::function<void(const std::string&)>& progress,
                                        const std::atomic<bool>* stop = nullptr);

}  // namespace ringside::harness
