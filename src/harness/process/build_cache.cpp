#include "harness/process/build_cache.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "core/fnv1a.hpp"
#include "harness/config/cache_folder.hpp"
#include "harness/config/placeholders.hpp"
#include "harness/process/process.hpp"

namespace ringside::harness {
namespace {

namespace fs = std::filesystem;

class Fnv1a {
 public:
  void add(std::string_view bytes) { hash_ = core::fnv1a64(bytes, hash_); }
  // Length-prefixed, so ("ab", "c") and ("a", "bc") differ.
  void add_field(std::string_view bytes) {
    add(std::to_string(bytes.size()));
    add(":");
    add(bytes);
  }
  [[nodiscard]] std::string hex() const {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash_));
    return text;
  }

 private:
  std::uint64_t hash_ = core::kFnv1a64Offset;
};

void add_file(Fnv1a& hash, const fs::path& path, const std::string& name) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("build input '" + name + "' cannot be read");
  hash.add_field(name);
  char block[64 * 1024];
  while (file.read(block, sizeof block) || file.gcount() > 0) {
    hash.add(std::string_view(block, static_cast<std::size_t>(file.gcount())));
  }
  hash.add("\n");
}

void add_entry(Fnv1a& hash, const fs::path& path, const std::string& name) {
  std::error_code error;
  const auto status = fs::symlink_status(path, error);
  if (error || !fs::exists(status)) {
    throw std::runtime_error("build input '" + name + "' does not exist");
  }
  if (fs::is_symlink(status)) {
    hash.add_field("link " + name + " -> " + fs::read_symlink(path, error).string());
    return;
  }
  if (fs::is_regular_file(status)) {
    add_file(hash, path, name);
    return;
  }
  if (fs::is_directory(status)) {
    hash.add_field("dir " + name);
    std::vector<fs::path> entries;
    for (const auto& entry : fs::directory_iterator(path, error)) entries.push_back(entry.path());
    std::sort(entries.begin(), entries.end());
    for (const auto& entry : entries) {
      add_entry(hash, entry, name + "/" + entry.filename().string());
    }
  }
  // Sockets, fifos and devices carry no source.
}

}  // namespace

std::string_view describe(BuildState state) {
  switch (state) {
    case BuildState::kNone: return "none";
    case BuildState::kBuilt: return "built";
    case BuildState::kNeedsBuild: return "needs build";
  }
  return "?";
}

BuildCache::BuildCache(fs::path dir) : dir_(std::move(dir)) {}

fs::path BuildCache::default_dir() { return cache_folder() / "builds"; }

std::string BuildCache::fingerprint(const Contestant& contestant) {
  Fnv1a hash;
  for (const std::string& argument : contestant.manifest.build) hash.add_field(argument);
  hash.add("|");
  for (const std::string& input : contestant.manifest.build_inputs) {
    add_entry(hash, contestant.dir / input, input);
  }
  return hash.hex();
}

fs::path BuildCache::stamp_path(const Contestant& contestant) const {
  Fnv1a folder;
  folder.add(contestant.dir.string());
  return dir_ / (contestant.name() + "-" + folder.hex() + ".stamp");
}

BuildState BuildCache::state(const Contestant& contestant) const {
  if (contestant.manifest.build.empty()) return BuildState::kNone;
  std::string current;
  try {
    current = fingerprint(contestant);
  } catch (const std::runtime_error&) {
    return BuildState::kNeedsBuild;  // the build may create a missing input; it will say
  }
  std::ifstream stamp(stamp_path(contestant));
  std::string recorded;
  std::getline(stamp, recorded);
  if (recorded != current) return BuildState::kNeedsBuild;
  // The stamp lives outside the source tree, so a folder cloned afresh where an old one was has a
  // stamp but not the build's output: a program the build makes inside the folder ("build/floor",
  // "target/release/rust-hyper") must still be there.
  const std::string& program = contestant.manifest.start.empty() ? std::string() :
                               contestant.manifest.start.front();
  if (program.find('/') != std::string::npos && program.front() != '/' &&
      program.find('{') == std::string::npos && !fs::exists(contestant.dir / program)) {
    return BuildState::kNeedsBuild;
  }
  return BuildState::kBuilt;
}

void BuildCache::record(const Contestant& contestant, const std::string& fingerprint) const {
  std::error_code error;
  fs::create_directories(dir_, error);
  const fs::path path = stamp_path(contestant);
  const fs::path temporary = path.string() + ".tmp";
  {
    std::ofstream stamp(temporary, std::ios::trunc);
    stamp << fingerprint << "\n";
    if (!stamp) throw std::runtime_error("cannot write the build stamp " + temporary.string());
  }
  fs::rename(temporary, path, error);
  if (error) throw std::runtime_error("cannot write the build stamp " + path.string());
}

BuildOutcome build_if_needed(const Contestant& contestant, const BuildCache& cache,
                             double timeout_s, const std::atomic<bool>* stop) {
  if (cache.state(contestant) != BuildState::kNeedsBuild) return {};
  BuildOutcome outcome;
  outcome.ran = true;
  const PlaceholderValues values = fixed_placeholders(contestant);
  ProcessSpec spec;
  for (const auto& argument : contestant.manifest.build) {
    spec.argv.push_back(expand_placeholders(argument, values));
  }
  spec.cwd = contestant.dir.string();
  CommandResult result;
  try {
    result = run_command(spec, timeout_s, stop);
  } catch (const std::exception& error) {
    return {false, true, std::string("build: ") + error.what()};
  }
  auto tail = [&] { return tail_lines(result.output, 3); };
  if (result.interrupted) return {false, true, "build interrupted"};
  if (result.timed_out) {
    return {false, true, "build ran over " + format_seconds(timeout_s) + ": " + tail()};
  }
  if (!WIFEXITED(result.status) || WEXITSTATUS(result.status) != 0) {
    return {false, true, "build failed (" + describe_wait_status(result.status) + "): " + tail()};
  }
  try {
    // Fingerprint after the build: a build that rewrites its own inputs is then not rebuilt
    // forever.
    cache.record(contestant, BuildCache::fingerprint(contestant));
  } catch (const std::runtime_error& error) {
    return {false, true, error.what()};
  }
  return outcome;
}

}  // namespace ringside::harness
