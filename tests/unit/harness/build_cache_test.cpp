#include "harness/process/build_cache.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ringside::harness {
namespace {

namespace fs = std::filesystem;

class BuildCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = fs::temp_directory_path().string() + "/build-cache-test-XXXXXX";
    root_ = mkdtemp(pattern.data());
    fs::create_directories(root_ / "x/src/deep");
    write("x/Cargo.toml", "[package]\n");
    write("x/src/main.rs", "fn main() {}\n");
    write("x/src/deep/lib.rs", "// lib\n");
    contestant_.manifest.name = "x";
    contestant_.manifest.build = {"sh", "-c", "echo built >> ../builds.log"};
    contestant_.manifest.build_inputs = {"Cargo.toml", "src"};
    contestant_.dir = root_ / "x";
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string& relative, const std::string& text) {
    std::ofstream(root_ / relative, std::ios::trunc) << text;
  }
  int builds() {
    std::ifstream log(root_ / "builds.log");
    int count = 0;
    for (std::string line; std::getline(log, line);) ++count;
    return count;
  }

  fs::path root_;
  Contestant contestant_;
};

TEST_F(BuildCacheTest, NoBuildCommandMeansNothingToBuild) {
  contestant_.manifest.build.clear();
  BuildCache cache(root_ / "cache");
  EXPECT_EQ(cache.state(contestant_), BuildState::kNone);
  BuildOutcome outcome = build_if_needed(contestant_, cache);
  EXPECT_TRUE(outcome.ok);
  EXPECT_FALSE(outcome.ran);
}

TEST_F(BuildCacheTest, BuildsOnceThenOnlyWhenAnInputChanges) {
  BuildCache cache(root_ / "cache");
  EXPECT_EQ(cache.state(contestant_), BuildState::kNeedsBuild);
  EXPECT_TRUE(build_if_needed(contestant_, cache).ran);
  EXPECT_EQ(builds(), 1);
  EXPECT_EQ(cache.state(contestant_), BuildState::kBuilt);
  EXPECT_FALSE(build_if_needed(contestant_, cache).ran);
  EXPECT_EQ(builds(), 1);

  write("x/src/deep/lib.rs", "// lib, edited\n");  // a file deep in an input folder
  EXPECT_EQ(cache.state(contestant_), BuildState::kNeedsBuild);
  EXPECT_TRUE(build_if_needed(contestant_, cache).ran);
  EXPECT_EQ(builds(), 2);

  write("x/src/new.rs", "");  // a new, empty file
  EXPECT_EQ(cache.state(contestant_), BuildState::kNeedsBuild);
  build_if_needed(contestant_, cache);

  fs::rename(root_ / "x/src/new.rs", root_ / "x/src/renamed.rs");  // same bytes, other name
  EXPECT_EQ(cache.state(contestant_), BuildState::kNeedsBuild);
  build_if_needed(contestant_, cache);

  write("x/untracked.txt", "not an input");
  EXPECT_EQ(cache.state(contestant_), BuildState::kBuilt);

  contestant_.manifest.build.push_back("--release");  // another build command
  EXPECT_EQ(cache.state(contestant_), BuildState::kNeedsBuild);
}

// A folder cloned afresh where an old one was finds the old stamp, but not the build's output.
TEST_F(BuildCacheTest, AStampWithoutTheBuiltProgramNeedsABuild) {
  contestant_.manifest.build = {"sh", "-c", "mkdir -p out && echo built >> ../builds.log && touch out/server"};
  contestant_.manifest.start = {"out/server", "{port}"};
  BuildCache cache(root_ / "cache");
  EXPECT_TRUE(build_if_needed(contestant_, cache).ran);
  EXPECT_EQ(cache.state(contestant_), BuildState::kBuilt);
  fs::remove_all(root_ / "x/out");
  EXPECT_EQ(cache.state(contestant_), BuildState::kNeedsBuild);
  EXPECT_TRUE(build_if_needed(contestant_, cache).ran);
  EXPECT_EQ(builds(), 2);
  EXPECT_TRUE(fs::exists(root_ / "x/out/server"));
}

TEST_F(BuildCacheTest, TheStampLivesInTheCacheNotTheSourceTree) {
  BuildCache cache(root_ / "cache");
  build_if_needed(contestant_, cache);
  EXPECT_TRUE(fs::exists(cache.stamp_path(contestant_)));
  EXPECT_EQ(cache.stamp_path(contestant_).parent_path(), root_ / "cache");
  for (const auto& entry : fs::recursive_directory_iterator(root_ / "x")) {
    EXPECT_NE(entry.path().extension(), ".stamp") << entry.path();
  }
  // Another cache folder knows nothing of it.
  EXPECT_EQ(BuildCache(root_ / "other").state(contestant_), BuildState::kNeedsBuild);
}

TEST_F(BuildCacheTest, AFailedBuildIsNotRecordedAndSaysWhy) {
  contestant_.manifest.build = {"sh", "-c", "echo compiling; echo 'error: no' >&2; exit 2"};
  BuildCache cache(root_ / "cache");
  BuildOutcome outcome = build_if_needed(contestant_, cache);
  EXPECT_FALSE(outcome.ok);
  EXPECT_EQ(outcome.reason, "build failed (exit 2): compiling | error: no");
  EXPECT_EQ(cache.state(contestant_), BuildState::kNeedsBuild);
}

TEST_F(BuildCacheTest, ABuildThatRunsOverItsTimeIsKilled) {
  contestant_.manifest.build = {"sleep", "30"};
  BuildCache cache(root_ / "cache");
  BuildOutcome outcome = build_if_needed(contestant_, cache, 0.3);
  EXPECT_FALSE(outcome.ok);
  EXPECT_EQ(outcome.reason.rfind("build ran over 0.3 s", 0), 0u) << outcome.reason;
  EXPECT_EQ(cache.state(contestant_), BuildState::kNeedsBuild);
}

TEST_F(BuildCacheTest, AMissingInputNeedsABuildThatMayCreateIt) {
  contestant_.manifest.build_inputs.push_back("generated.txt");
  contestant_.manifest.build = {"sh", "-c", "echo made > generated.txt"};
  BuildCache cache(root_ / "cache");
  EXPECT_THROW(BuildCache::fingerprint(contestant_), std::runtime_error);
  EXPECT_EQ(cache.state(contestant_), BuildState::kNeedsBuild);
  EXPECT_TRUE(build_if_needed(contestant_, cache).ok);
  EXPECT_EQ(cache.state(contestant_), BuildState::kBuilt);
}

TEST(BuildCacheDir, FollowsXdgCacheHome) {
  const char* saved = std::getenv("XDG_CACHE_HOME");
  const std::string restore = saved != nullptr ? saved : "";
  setenv("XDG_CACHE_HOME", "/somewhere/cache", 1);
  EXPECT_EQ(BuildCache::default_dir(), fs::path("/somewhere/cache/ringside/builds"));
  if (saved != nullptr) setenv("XDG_CACHE_HOME", restore.c_str(), 1);
  else unsetenv("XDG_CACHE_HOME");
}

}  // namespace
}  // namespace ringside::harness
