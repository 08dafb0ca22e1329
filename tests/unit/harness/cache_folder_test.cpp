// The cache folder's lookup ($RINGSIDE_CACHE, then $XDG_CACHE_HOME/ringside, then ~/.cache), the
// working copy's mirroring (a file written only when its bytes differ, its mode kept, what a build
// made beside it kept), and the Node packages' stamp (npm ci again only after the lockfile
// changed).
#include "harness/config/cache_folder.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "harness/process/node_packages.hpp"

namespace ringside::harness {
namespace {
namespace fs = std::filesystem;

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) saved_ = old;
    if (value != nullptr) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (saved_) setenv(name_, saved_->c_str(), 1);
    else unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::trunc) << text;
}

std::string read(const fs::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class CacheFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("ringside-cache-test-" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root);
  }
  void TearDown() override { fs::remove_all(root); }
  fs::path root;
};

TEST_F(CacheFolderTest, RingsideCacheThenXdgThenHome) {
  ScopedEnv home("HOME", "/home/someone");
  {
    ScopedEnv given("RINGSIDE_CACHE", "/given/cache");
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(cache_folder(), fs::path("/given/cache"));
  }
  ScopedEnv unset("RINGSIDE_CACHE", nullptr);
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(cache_folder(), fs::path("/xdg/ringside"));
  }
  ScopedEnv no_xdg("XDG_CACHE_HOME", nullptr);
  EXPECT_EQ(cache_folder(), fs::path("/home/someone/.cache/ringside"));
}

TEST_F(CacheFolderTest, MirrorWritesWhatDiffersKeepsModesAndWhatWasMadeBeside) {
  const fs::path from = root / "installed", to = root / "copy";
  write(from / "package-lock.json", "{}");
  write(from / "floor" / "floor.c", "int main(void) { return 0; }\n");
  write(from / "ringside" / "start.sh", "#!/bin/sh\n");
  fs::permissions(from / "ringside" / "start.sh", fs::perms::owner_all | fs::perms::group_read);
  EXPECT_EQ(mirror_tree(from, to), 3u);
  EXPECT_EQ(read(to / "floor" / "floor.c"), "int main(void) { return 0; }\n");
  EXPECT_EQ(fs::status(to / "ringside" / "start.sh").permissions(),
            fs::perms::owner_all | fs::perms::group_read);
  write(to / "floor" / "build" / "floor", "binary");  // what a build made
  EXPECT_EQ(mirror_tree(from, to), 0u);
  write(from / "floor" / "floor.c", "int main(void) { return 1; }\n");  // an upgrade
  write(to / "package-lock.json", "{\"edited\": true}");                // a stray edit
  EXPECT_EQ(mirror_tree(from, to), 2u);
  EXPECT_EQ(read(to / "floor" / "floor.c"), "int main(void) { return 1; }\n");
  EXPECT_EQ(read(to / "package-lock.json"), "{}");
  EXPECT_EQ(read(to / "floor" / "build" / "floor"), "binary");
}

TEST_F(CacheFolderTest, MirrorOfAMissingFolderSaysWhich) {
  try {
    mirror_tree(root / "nowhere", root / "copy");
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("nowhere"), std::string::npos) << error.what();
  }
}

TEST_F(CacheFolderTest, NodePackagesAreCurrentOnlyForTheLockfileTheyWereInstalledFrom) {
  write(root / "package-lock.json", "{\"lockfileVersion\": 3}");
  EXPECT_FALSE(node_packages_current(root));
  // npm ci stands in: a program that makes node_modules/, first on PATH.
  const fs::path tools = root / "tools";
  write(tools / "npm", "#!/bin/sh\nmkdir -p \"$3/node_modules\"\necho \"$*\" >> \"$3/calls\"\n");
  fs::permissions(tools / "npm", fs::perms::owner_all);
  ScopedEnv path("PATH", (tools.string() + ":/usr/bin:/bin").c_str());
  NodePackagesOutcome first = install_node_packages(root, 60);
  EXPECT_TRUE(first.ok) << first.reason;
  EXPECT_TRUE(first.ran);
  EXPECT_TRUE(node_packages_current(root));
  NodePackagesOutcome second = install_node_packages(root, 60);
  EXPECT_TRUE(second.ok);
  EXPECT_FALSE(second.ran);
  write(root / "package-lock.json", "{\"lockfileVersion\": 3, \"changed\": true}");
  EXPECT_FALSE(node_packages_current(root));
  EXPECT_TRUE(install_node_packages(root, 60).ran);
  EXPECT_EQ(read(root / "calls"), "ci --prefix " + root.string() +
                                      " --no-audit --no-fund --loglevel=error\n"
                                      "ci --prefix " + root.string() +
                                      " --no-audit --no-fund --loglevel=error\n");
}

TEST_F(CacheFolderTest, AFailingNpmCiIsNotRecordedAndSaysWhy) {
  write(root / "package-lock.json", "{}");
  const fs::path tools = root / "tools";
  write(tools / "npm", "#!/bin/sh\necho 'npm ERR! network unreachable' >&2\nexit 1\n");
  fs::permissions(tools / "npm", fs::perms::owner_all);
  ScopedEnv path("PATH", (tools.string() + ":/usr/bin:/bin").c_str());
  NodePackagesOutcome outcome = install_node_packages(root, 60);
  EXPECT_FALSE(outcome.ok);
  EXPECT_NE(outcome.reason.find("network unreachable"), std::string::npos) << outcome.reason;
  EXPECT_FALSE(node_packages_current(root));
}

}  // namespace
}  // namespace ringside::harness
