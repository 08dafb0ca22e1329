// Where contestants are found: the bundled folder (contestants/ of the source tree) first, then
// the folders a user adds: each `--contestants DIR` in order, `./contestants` of the current
// folder and `$XDG_CONFIG_HOME/ringside/contestants` (default ~/.config/ringside/contestants),
// these two only when they exist. A folder reached twice is searched once, and ./contestants is
// left out when it is the bundled folder itself. A name found in two folders is an error naming
// both: which one a run meant cannot be guessed.
//
//   FolderSearch search = folder_search_here();   // bundled, current folder, user config
//   search.given = {"/tmp/mine"};
//   std::vector<ContestantFolder> folders = contestant_folders(search);  // std::runtime_error
//   std::vector<Contestant> all = discover_in(folders);  // ManifestError, std::runtime_error
//   unknown_contestant_hint(folders)  // where it looked, and how to add one, for messages
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "harness/config/contestant.hpp"

namespace ringside::harness {

enum class FolderOrigin : std::uint8_t { kBundled, kGiven, kWorkingDir, kUserConfig };

struct ContestantFolder {
  std::filesystem::path path;  // absolute, for messages
  FolderOrigin origin = FolderOrigin::kGiven;
};

struct FolderSearch {
  bool with_bundled = true;                  // false: --no-bundled
  std::filesystem::path bundled;             // default_contestants_dir(); empty: none
  std::vector<std::filesystem::path> given;  // --contestants, in order; each must exist
  std::filesystem::path working_dir;         // where ./contestants is looked for; empty: nowhere
  std::filesystem::path user_config;         // the user's folder; empty: none
};

// $XDG_CONFIG_HOME/ringside/contestants, else $HOME/.config/ringside/contestants; empty when
// neither variable is set.
std::filesystem::path user_contestants_dir();

// The bundled folder, the current folder and the user's folder, with nothing given.
FolderSearch folder_search_here();

// The folders to search, in order. Throws std::runtime_error for a given folder that does not
// exist or is itself one contestant's folder (then its parent is what was meant).
std::vector<ContestantFolder> contestant_folders(const FolderSearch& search);

// Every contestant of every folder, sorted by name, each with `found_in` and `bundled` set.
// Throws ManifestError for a bad manifest, std::runtime_error for a name in two folders.
std::vector<Contestant> discover_in(const std::vector<ContestantFolder>& folders);

// "/src/contestants (bundled), /tmp/mine (--contestants)": the folders in order.
std::string describe_folders(const std::vector<ContestantFolder>& folders);

// Appended to "unknown contestant 'x' (known: ...)": "looked in ...; to add one, ...".
std::string unknown_contestant_hint(const std::vector<ContestantFolder>& folders);

}  // namespace ringside::harness
