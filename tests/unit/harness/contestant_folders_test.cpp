#include "harness/config/contestant_folders.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

namespace ringside::harness {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string pattern = fs::temp_directory_path().string() + "/contestant-folders-test-XXXXXX";
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void add_contestant(const fs::path& root, const std::string& name) {
  fs::create_directories(root / name);
  std::ofstream(root / name / "contestant.toml")
      << "name = \"" << name << "\"\nruntime = \"sh\"\nstart = [\"srv\", \"{port}\"]\n"
      << "ready_path = \"/\"\n"
      << "routes = [\"/\"]\nthreads = 1\n";
}

std::string message_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::exception& error) {
    return error.what();
  }
  return "";
}

// A source tree's bundled folder, a user's ./contestants, their config folder and one given.
struct Layout {
  TempDir root;
  fs::path bundled = root.path() / "src/contestants";
  fs::path work = root.path() / "work";
  fs::path config = root.path() / "config/ringside/contestants";
  fs::path given = root.path() / "mine";
  Layout() {
    add_contestant(bundled, "nginx");
    add_contestant(bundled, "ringside");
    add_contestant(work / "contestants", "local-app");
    add_contestant(config, "my-config-app");
    add_contestant(given, "my-app");
  }
  FolderSearch search() const { return {true, bundled, {given}, work, config}; }
};

std::vector<std::string> names_of(const std::vector<Contestant>& contestants) {
  std::vector<std::string> names;
  for (const Contestant& contestant : contestants) names.push_back(contestant.name());
  return names;
}

TEST(ContestantFolders, BundledFirstThenGivenThenCurrentThenUserFolder) {
  const Layout layout;
  const auto folders = contestant_folders(layout.search());
  ASSERT_EQ(folders.size(), 4u);
  EXPECT_EQ(folders[0].path, layout.bundled);
  EXPECT_EQ(folders[0].origin, FolderOrigin::kBundled);
  EXPECT_EQ(folders[1].path, layout.given);
  EXPECT_EQ(folders[1].origin, FolderOrigin::kGiven);
  EXPECT_EQ(folders[2].path, layout.work / "contestants");
  EXPECT_EQ(folders[2].origin, FolderOrigin::kWorkingDir);
  EXPECT_EQ(folders[3].path, layout.config);
  EXPECT_EQ(folders[3].origin, FolderOrigin::kUserConfig);

  const auto all = discover_in(folders);
  EXPECT_EQ(names_of(all), (std::vector<std::string>{"local-app", "my-app", "my-config-app",
                                                     "nginx", "ringside"}));
  EXPECT_EQ(all[1].found_in, layout.given);
  EXPECT_FALSE(all[1].bundled);
  EXPECT_EQ(all[3].found_in, layout.bundled);
  EXPECT_TRUE(all[3].bundled);
}

TEST(ContestantFolders, MissingImplicitFoldersAreSkippedAndNoBundledLeavesItOut) {
  const Layout layout;
  FolderSearch search = layout.search();
  search.with_bundled = false;
  search.working_dir = layout.root.path() / "elsewhere";  // no ./contestants there
  search.user_config = layout.root.path() / "no-such-config";
  const auto folders = contestant_folders(search);
  ASSERT_EQ(folders.size(), 1u);
  EXPECT_EQ(folders[0].path, layout.given);
  EXPECT_EQ(names_of(discover_in(folders)), std::vector<std::string>{"my-app"});
}

// Run from the source tree, ./contestants is the bundled folder: searched once, and not at all
// with --no-bundled. A folder given twice (or through a symlink, or the bundled one) is one.
TEST(ContestantFolders, AFolderReachedTwiceIsSearchedOnce) {
  const Layout layout;
  fs::create_symlink(layout.given, layout.root.path() / "link");
  FolderSearch search{true, layout.bundled,
                      {layout.given, layout.root.path() / "link", layout.given / "", layout.bundled},
                      layout.root.path() / "src", ""};
  auto folders = contestant_folders(search);
  ASSERT_EQ(folders.size(), 2u);
  EXPECT_EQ(folders[0].origin, FolderOrigin::kBundled);
  EXPECT_EQ(folders[1].path, layout.given);
  search.with_bundled = false;
  search.given = {layout.given};
  folders = contestant_folders(search);
  ASSERT_EQ(folders.size(), 1u);
  EXPECT_EQ(folders[0].path, layout.given);
}

TEST(ContestantFolders, AGivenFolderMustExistAndHoldContestants) {
  const Layout layout;
  FolderSearch search = layout.search();
  search.given = {layout.root.path() / "nope"};
  EXPECT_EQ(message_of([&] { contestant_folders(search); }),
            "--contestants: contestants folder '" + (layout.root.path() / "nope").string() +
                "' does not exist; pass a folder holding NAME/contestant.toml folders");
  search.given = {layout.given / "my-app"};
  EXPECT_EQ(message_of([&] { contestant_folders(search); }),
            "--contestants " + (layout.given / "my-app").string() +
                ": this is one contestant's folder (it holds contestant.toml); pass the folder "
                "that holds it: " + layout.given.string());
}

TEST(ContestantFolders, ANameInTwoFoldersNamesBoth) {
  const Layout layout;
  add_contestant(layout.config, "my-app");
  EXPECT_EQ(message_of([&] { discover_in(contestant_folders(layout.search())); }),
            "contestant 'my-app' is in two folders: " + (layout.given / "my-app").string() +
                " and " + (layout.config / "my-app").string() +
                "; rename one (its folder and the name in its contestant.toml)");
  add_contestant(layout.given, "nginx");
  EXPECT_EQ(message_of([&] { discover_in(contestant_folders(layout.search())); }),
            "contestant 'nginx' is in two folders: " + (layout.bundled / "nginx").string() +
                " (bundled) and " + (layout.given / "nginx").string() +
                "; rename one (its folder and the name in its contestant.toml), or leave the "
                "bundled set out with --no-bundled");
}

TEST(ContestantFolders, TheHintSaysWhereItLookedAndHowToAddOne) {
  const Layout layout;
  const auto folders = contestant_folders(layout.search());
  EXPECT_EQ(unknown_contestant_hint(folders),
            "looked in " + layout.bundled.string() + " (bundled), " + layout.given.string() +
                " (--contestants), " + (layout.work / "contestants").string() +
                " (current folder), " + layout.config.string() +
                " (user folder); to add one, write NAME/contestant.toml in ./contestants or in a "
                "folder given with --contestants DIR, or begin one with `ringside contestants new NAME` "
                "(docs/contestants.md)");
  EXPECT_EQ(unknown_contestant_hint({}).rfind("looked in no folder; ", 0), 0u);
}

// The variables are put back after, whatever they were.
class SavedVariable {
 public:
  explicit SavedVariable(const char* name) : name_(name) {
    const char* value = std::getenv(name);
    if (value != nullptr) value_ = value;
    had_ = value != nullptr;
  }
  ~SavedVariable() { had_ ? setenv(name_, value_.c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::string value_;
  bool had_ = false;
};

TEST(ContestantFolders, TheUserFolderFollowsXdgConfigHome) {
  const SavedVariable config("XDG_CONFIG_HOME"), home("HOME");
  setenv("XDG_CONFIG_HOME", "/cfg", 1);
  EXPECT_EQ(user_contestants_dir(), fs::path("/cfg/ringside/contestants"));
  setenv("XDG_CONFIG_HOME", "relative/ignored", 1);  // the XDG spec: only absolute paths count
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(user_contestants_dir(), fs::path("/home/u/.config/ringside/contestants"));
  unsetenv("XDG_CONFIG_HOME");
  EXPECT_EQ(user_contestants_dir(), fs::path("/home/u/.config/ringside/contestants"));
  unsetenv("HOME");
  EXPECT_EQ(user_contestants_dir(), fs::path());
}

}  // namespace
}  // namespace ringside::harness
