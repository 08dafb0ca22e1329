// The data folder's lookup order: an install beside the binary, then $RINGSIDE_DATA, then the
// source tree the binary was built in; a candidate counts only when it holds scenarios/.
#include "harness/config/data_folder.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace ringside::harness {
namespace {
namespace fs = std::filesystem;

class DataFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("ringside-data-" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root);
  }
  void TearDown() override { fs::remove_all(root); }

  // A folder that looks like ringside's data.
  fs::path data_at(const fs::path& folder) {
    fs::create_directories(folder / "scenarios");
    return folder;
  }

  fs::path root;
};

TEST_F(DataFolderTest, AnInstallBesideTheBinaryComesFirst) {
  const fs::path binary = root / "usr" / "bin" / "ringside";
  data_at(root / "usr" / "share" / "ringside");
  const fs::path elsewhere = data_at(root / "elsewhere");
  const DataFolder found = find_data_folder(binary, elsewhere.c_str());
  EXPECT_EQ(found.origin, DataOrigin::kInstalled);
  EXPECT_EQ(found.root, root / "usr" / "share" / "ringside");
  EXPECT_NE(describe(found, binary).find("installed beside " + binary.string()), std::string::npos);
}

TEST_F(DataFolderTest, RingsideDataComesBeforeTheSourceTree) {
  const fs::path binary = root / "tree" / "build" / "release" / "apps" / "ringside";
  data_at(root / "tree");
  const fs::path given = data_at(root / "given");
  const DataFolder found = find_data_folder(binary, (given.string() + "/").c_str());
  EXPECT_EQ(found.origin, DataOrigin::kEnvironment);
  EXPECT_EQ(found.root, given);
}

TEST_F(DataFolderTest, TheSourceTreeIsTheLastResort) {
  const fs::path binary = root / "tree" / "build" / "release" / "apps" / "ringside";
  data_at(root / "tree");
  // $RINGSIDE_DATA naming a folder without scenarios/ is passed over.
  const DataFolder found = find_data_folder(binary, (root / "empty").c_str());
  EXPECT_EQ(found.origin, DataOrigin::kSourceTree);
  EXPECT_EQ(found.root, root / "tree");
}

TEST_F(DataFolderTest, NoneFoundSaysWhereItLookedAndWhatToDo) {
  const fs::path binary = root / "bin" / "ringside";
  const DataFolder found = find_data_folder(binary, nullptr);
  EXPECT_EQ(found.origin, DataOrigin::kNone);
  EXPECT_TRUE(found.root.empty());
  const std::string text = describe(found, binary);
  EXPECT_NE(text.find((root / "share" / "ringside").string()), std::string::npos) << text;
  EXPECT_NE(text.find("RINGSIDE_DATA"), std::string::npos) << text;
  EXPECT_NE(text.find("cmake --install"), std::string::npos) << text;
}

}  // namespace
}  // namespace ringside::harness
