#include "harness/config/contestant_folders.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <utility>

namespace ringside::harness {
namespace {

namespace fs = std::filesystem;

fs::path absolute_normal(const fs::path& path) {
  std::error_code error;
  fs::path absolute = fs::absolute(path, error);
  if (error) absolute = path;
  absolute = absolute.lexically_normal();
  // "dir/" normalises to "dir/": drop the empty last part, so messages and filename() agree.
  if (!absolute.has_filename() && absolute.has_relative_path()) absolute = absolute.parent_path();
  return absolute;
}

// What decides that two paths are one folder: symlinks resolved where the folder exists.
fs::path identity(const fs::path& path) {
  std::error_code error;
  fs::path canonical = fs::canonical(path, error);
  return error ? absolute_normal(path) : canonical;
}

bool is_folder(const fs::path& path) {
  std::error_code error;
  return fs::is_directory(path, error);
}

std::string_view origin_label(FolderOrigin origin) {
  switch (origin) {
    case FolderOrigin::kBundled: return "bundled";
    case FolderOrigin::kGiven: return "--contestants";
    case FolderOrigin::kWorkingDir: return "current folder";
    case FolderOrigin::kUserConfig: return "user folder";
  }
  return "?";
}

// A --contestants folder must exist, and be a folder of contestants rather than one of them.
void check_given(const fs::path& folder) {
  const fs::path shown = absolute_normal(folder);
  if (!is_folder(folder)) {
    throw std::runtime_error("--contestants: contestants folder '" + folder.string() +
                             "' does not exist; pass a folder holding NAME/contestant.toml folders");
  }
  std::error_code error;
  if (fs::exists(folder / kManifestFile, error)) {
    throw std::runtime_error("--contestants " + folder.string() + ": this is one contestant's "
                             "folder (it holds " + std::string(kManifestFile) +
                             "); pass the folder that holds it: " + shown.parent_path().string());
  }
}

// The searched folders, each once: a folder reached again (a symlink, `--contestants` naming the
// bundled folder) is skipped.
class FolderList {
 public:
  void add(const fs::path& path, FolderOrigin origin) {
    fs::path id = identity(path);
    if (std::find(ids_.begin(), ids_.end(), id) != ids_.end()) return;
    ids_.push_back(std::move(id));
    folders_.push_back({absolute_normal(path), origin});
  }
  std::vector<ContestantFolder> take() { return std::move(folders_); }

 private:
  std::vector<fs::path> ids_;
  std::vector<ContestantFolder> folders_;
};

std::string where(const Contestant& contestant) {
  return contestant.dir.string() + (contestant.bundled ? " (bundled)" : "");
}

void refuse_clash(const std::vector<Contestant>& found, const Contestant& next) {
  auto same = std::find_if(found.begin(), found.end(),
                           [&](const Contestant& c) { return c.name() == next.name(); });
  if (same == found.end()) return;
  std::string message = "contestant '" + next.name() + "' is in two folders: " + where(*same) +
                        " and " + where(next) + "; rename one (its folder and the name in its " +
                        std::string(kManifestFile) + ")";
  if (same->bundled || next.bundled) message += ", or leave the bundled set out with --no-bundled";
  throw std::runtime_error(message);
}

}  // namespace

fs::path user_contestants_dir() {
  // XDG: a relative XDG_CONFIG_HOME is invalid and ignored.
  const char* config = std::getenv("XDG_CONFIG_HOME");
  if (config != nullptr && config[0] == '/') return fs::path(config) / "ringside" / "contestants";
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] != '\0') {
    return fs::path(home) / ".config" / "ringside" / "contestants";
  }
  return {};
}

FolderSearch folder_search_here() {
  FolderSearch search;
  search.bundled = default_contestants_dir();
  std::error_code error;
  search.working_dir = fs::current_path(error);
  if (error) search.working_dir.clear();
  search.user_config = user_contestants_dir();
  return search;
}

std::vector<ContestantFolder> contestant_folders(const FolderSearch& search) {
  FolderList folders;
  if (search.with_bundled && !search.bundled.empty() && is_folder(search.bundled)) {
    folders.add(search.bundled, FolderOrigin::kBundled);
  }
  for (const fs::path& given : search.given) {
    check_given(given);
    folders.add(given, FolderOrigin::kGiven);
  }
  if (!search.working_dir.empty()) {
    // Run from the source tree, ./contestants is the bundled folder: --no-bundled leaves it out.
    const fs::path here = search.working_dir / "contestants";
    const bool bundled = !search.bundled.empty() && identity(here) == identity(search.bundled);
    if (!bundled && is_folder(here)) folders.add(here, FolderOrigin::kWorkingDir);
  }
  if (!search.user_config.empty() && is_folder(search.user_config)) {
    folders.add(search.user_config, FolderOrigin::kUserConfig);
  }
  return folders.take();
}

std::vector<Contestant> discover_in(const std::vector<ContestantFolder>& folders) {
  std::vector<Contestant> all;
  for (const ContestantFolder& folder : folders) {
    for (Contestant& contestant : discover_contestants(folder.path)) {
      contestant.found_in = folder.path;
      contestant.bundled = folder.origin == FolderOrigin::kBundled;
      refuse_clash(all, contestant);
      all.push_back(std::move(contestant));
    }
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const Contestant& a, const Contestant& b) { return a.name() < b.name(); });
  return all;
}

std::string describe_folders(const std::vector<ContestantFolder>& folders) {
  std::string text;
  for (const ContestantFolder& folder : folders) {
    if (!text.empty()) text += ", ";
    text += folder.path.string() + " (" + std::string(origin_label(folder.origin)) + ")";
  }
  return text;
}

std::string unknown_contestant_hint(const std::vector<ContestantFolder>& folders) {
  return "looked in " + (folders.empty() ? std::string("no folder") : describe_folders(folders)) +
         "; to add one, write NAME/" + std::string(kManifestFile) +
         " in ./contestants or in a folder given with --contestants DIR, or begin one with "
         "`ringside contestants new NAME` (docs/contestants.md)";
}

}  // namespace ringside::harness
