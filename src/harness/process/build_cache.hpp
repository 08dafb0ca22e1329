// The build step of a contestant and its cache. `build` runs once in the contestant's folder;
// it runs again only when the fingerprint of what decides it changes: the build argv and the
// contents of every file under `build_inputs` (paths and bytes; folders walked recursively, in
// sorted order; a symlink by its target text). The fingerprint is kept outside the source tree,
// in a stamp file per contestant under the cache folder (builds/ of cache_folder.hpp:
// $RINGSIDE_CACHE, else $XDG_CACHE_HOME/ringside, else ~/.cache/ringside), written only after a
// build succeeded.
//
//   BuildCache cache;                                   // or BuildCache(dir) in tests
//   cache.state(contestant);                            // kNone, kBuilt, kNeedsBuild
//   BuildOutcome built = build_if_needed(contestant, cache, 1200, &stop);
//
// The fingerprint is FNV-1a over 64 bits: it notices edits, not an adversary.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>

#include "harness/config/contestant.hpp"

namespace ringside::harness {

enum class BuildState { kNone, kBuilt, kNeedsBuild };

std::string_view describe(BuildState state);  // "none", "built", "needs build"

class BuildCache {
 public:
  explicit BuildCache(std::filesystem::path dir = default_dir());
  static std::filesystem::path default_dir();

  // 16 hex digits. Throws std::runtime_error naming a build input that does not exist.
  static std::string fingerprint(const Contestant& contestant);
  [[nodiscard]] BuildState state(const Contestant& contestant) const;
  // Remembers a successful build of this fingerprint. Throws std::runtime_error.
  void record(const Contestant& contestant, const std::string& fingerprint) const;
  // DIR/NAME-HASH.stamp, HASH from the folder's absolute path, so two checkouts do not share it.
  [[nodiscard]] std::filesystem::path stamp_path(const Contestant& contestant) const;
  [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

struct BuildOutcome {
  bool ok = true;
  bool ran = false;    // the build command ran (it was needed)
  std::string reason;  // when !ok: "build failed (exit 1): last output lines"
};

inline constexpr double kBuildTimeoutS = 1800;

BuildOutcome build_if_needed(const Contestant& contestant, const BuildCache& cache,
                             double timeout_s = kBuildTimeoutS,
                             const std::atomic<bool>* stop = nullptr);

}  // namespace ringside::harness
