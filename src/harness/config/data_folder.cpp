#include "harness/config/data_folder.hpp"

#include <cstdlib>


namespace ringside::harness {
namespace fs = std::filesystem;
namespace {

bool holds_scenarios(const fs::path& folder) {
  std::error_code error;
  return !folder.empty() && fs::is_directory(folder / "scenarios", error);
}

fs::path installed_candidate(const fs::path& executable) {
  return (executable.parent_path() / ".." / "share" / "ringside").lexically_normal();
}

// Without the trailing separator lexically_normal leaves after "..".
fs::path without_trailing_slash(fs::path folder) {
  return folder.has_filename() ? folder : folder.parent_path();
}

fs::path source_tree_candidate(const fs::path& executable) {
  return without_trailing_slash((executable.parent_path() / ".." / ".." / "..").lexically_normal());
}

}  // namespace

DataFolder find_data_folder(const fs::path& executable, const char* environment) {
  if (!executable.empty()) {
    const fs::path installed = installed_candidate(executable);
    if (holds_scenarios(installed)) return {installed, DataOrigin::kInstalled};
  }
  if (environment != nullptr && *environment != '\0') {
    const fs::path given = without_trailing_slash(fs::absolute(environment).lexically_normal());
    if (holds_scenarios(given)) return {given, DataOrigin::kEnvironment};
  }
  if (!executable.empty()) {
    const fs::path tree = source_tree_candidate(executable);
    if (holds_scenarios(tree)) return {tree, DataOrigin::kSourceTree};
  }
  return {};
}

fs::path self_executable() {
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  return error ? fs::path() : self;
}

const DataFolder& data_folder() {
  static const DataFolder found = find_data_folder(self_executable(), std::getenv("RINGSIDE_DATA"));
  return found;
}

std::string describe(const DataFolder& data, const fs::path& executable) {
  switch (data.origin) {
    case DataOrigin::kInstalled:
      return data.root.string() + " (installed beside " + executable.string() + ")";
    case DataOrigin::kEnvironment:
      return data.root.string() + " (RINGSIDE_DATA)";
    case DataOrigin::kSourceTree:
      return data.root.string() + " (the source tree " + executable.string() + " was built in)";
    case DataOrigin::kNone:
      break;
  }
  return "none: no scenarios/ in " + installed_candidate(executable).string() +
         " (an install), in $RINGSIDE_DATA, nor in " + source_tree_candidate(executable).string() +
         " (a source tree); install ringside (cmake --install) or set RINGSIDE_DATA to the folder "
         "holding scenarios/, contestants/ and web/";
}

}  // namespace ringside::harness
