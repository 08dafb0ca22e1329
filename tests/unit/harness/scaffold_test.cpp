#include "harness/config/scaffold.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/config/contestant.hpp"

namespace ringside::harness {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

class ScratchFolder {
 public:
  ScratchFolder() {
    std::string pattern = (fs::temp_directory_path() / "ringside-scaffold-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~ScratchFolder() {
    std::error_code error;
    fs::remove_all(path_, error);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

TEST(Scaffold, FillReplacesTheNameAndTheContestantsFlagOnly) {
  EXPECT_EQ(fill_scaffold("name = \"@NAME@\" # --validate @NAME@@CONTESTANTS@ a@b @", "my-app",
                          " --contestants mine"),
            "name = \"my-app\" # --validate my-app --contestants mine a@b @");
  EXPECT_EQ(fill_scaffold("@CONTESTANTS@@NAME", "x", ""), "@NAME");
}

TEST(Scaffold, NamesAContestantMayHave) {
  EXPECT_EQ(contestant_name_problem("my-app"), "");
  EXPECT_EQ(contestant_name_problem("app_2.v1"), "");
  EXPECT_NE(contestant_name_problem(""), "");
  EXPECT_NE(contestant_name_problem("My-App"), "");
  EXPECT_NE(contestant_name_problem("-app"), "");
  EXPECT_NE(contestant_name_problem("../app"), "");
  EXPECT_NE(contestant_name_problem("a b"), "");
  EXPECT_NE(contestant_name_problem(std::string(65, 'a')), "");
}

TEST(Scaffold, KindsAreFoundByNameAndListedWithTheDefaultFirst) {
  ASSERT_FALSE(scaffold_kinds().empty());
  EXPECT_EQ(scaffold_kinds().front().name, "python");
  ASSERT_NE(find_scaffold_kind("node-http"), nullptr);
  EXPECT_EQ(find_scaffold_kind("cobol"), nullptr);
  EXPECT_EQ(scaffold_kind_names(), "python, node-http");
}

// Every template's manifest is one the harness accepts, for the hello routes without a database.
TEST(Scaffold, EveryTemplateManifestParses) {
  for (const ScaffoldKind& kind : scaffold_kinds()) {
    SCOPED_TRACE(std::string(kind.name));
    ASSERT_EQ(kind.files.front().name, "contestant.toml");
    const std::string text = fill_scaffold(kind.files.front().text(), "my-app", "");
    const Manifest manifest = parse_manifest(text, "contestant.toml", "my-app");
    EXPECT_EQ(manifest.name, "my-app");
    EXPECT_EQ(manifest.routes, (std::vector<Route>{Route::kHello, Route::kJson}));
    EXPECT_EQ(manifest.db_pool, 0);
    EXPECT_TRUE(manifest.database_optional);
    EXPECT_FALSE(manifest.start.empty());
    EXPECT_EQ(text.find('@'), std::string::npos);
  }
}

TEST(Scaffold, WritesTheFolderAndRefusesToOverwriteIt) {
  ScratchFolder scratch;
  const fs::path folder = scratch.path() / "contestants";  // created when missing
  const auto written = write_scaffold(folder, "my-app", *find_scaffold_kind("python"), "");
  ASSERT_EQ(written.size(), 2u);
  EXPECT_EQ(written[0], folder / "my-app" / "contestant.toml");
  EXPECT_EQ(written[1], folder / "my-app" / "server.py");
  EXPECT_NE(read_file(written[0]).find("name = \"my-app\""), std::string::npos);
  EXPECT_NE(read_file(written[1]).find("my-app: a contestant"), std::string::npos);
  const Contestant loaded = load_contestant(folder / "my-app");
  EXPECT_EQ(loaded.manifest.name, "my-app");

  std::ofstream(written[1]) << "edited";
  EXPECT_THROW(write_scaffold(folder, "my-app", *find_scaffold_kind("node-http"), ""),
               ScaffoldError);
  EXPECT_EQ(read_file(written[1]), "edited");
  EXPECT_THROW(write_scaffold(folder, "Bad Name", *find_scaffold_kind("python"), ""),
               ScaffoldError);
  EXPECT_FALSE(fs::exists(folder / "Bad Name"));
}

}  // namespace
}  // namespace ringside::harness
