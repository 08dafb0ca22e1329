#include "harness/report/report_files.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "report_sample.hpp"

namespace ringside::harness {
namespace fs = std::filesystem;
namespace {

class ReportFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/ringside-report-files-XXXXXX";
    ASSERT_NE(mkdtemp(name), nullptr);
    dir_ = name;
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string read(const fs::path& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path dir_;
};

TEST_F(ReportFiles, WritesBothReportsNextToTheResults) {
  WebAssets web{"window.uPlot = 1;", ".u{}", ""};
  const WrittenReports written = write_reports(testing::small_run(), dir_, web);
  EXPECT_EQ(written.markdown, dir_ / "report.md");
  EXPECT_EQ(written.html, dir_ / "report.html");
  EXPECT_EQ(read(written.markdown).rfind("# ringside compare: tiny\n", 0), 0u);
  EXPECT_NE(read(written.html).find("window.uPlot = 1;"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "report.md.partial"));
}

TEST_F(ReportFiles, WithoutUplotTheMarkdownIsWrittenAndTheHtmlSaysWhy) {
  const WebAssets web = load_web_assets(dir_);  // an empty folder: no node_modules
  EXPECT_NE(web.missing.find("run scripts/setup"), std::string::npos);
  const WrittenReports written = write_reports(testing::small_run(), dir_, web);
  EXPECT_EQ(written.charts_missing, web.missing);
  EXPECT_TRUE(fs::exists(written.markdown));
  EXPECT_NE(read(written.html).find("id=\"charts-missing\""), std::string::npos);
}

TEST_F(ReportFiles, FindsTheResultsInAFolderOrNamesWhatIsWrong) {
  EXPECT_EQ(results_file_in(testing::fixture_results("run-a").parent_path()),
            testing::fixture_results("run-a"));
  EXPECT_EQ(results_file_in(testing::fixture_results("run-a")), testing::fixture_results("run-a"));
  try {
    results_file_in(dir_);
    FAIL() << "an empty folder has no results";
  } catch (const ReportError& error) {
    EXPECT_EQ(
        std::string(error.what()).rfind(dir_.string() + ": no results.json in this folder", 0), 0u);
  }
  EXPECT_THROW(results_file_in(dir_ / "absent"), ReportError);
}

TEST_F(ReportFiles, AnUnwritableFolderIsAnError) {
  EXPECT_THROW(write_reports(testing::small_run(), dir_ / "absent", WebAssets{}), ReportError);
}

}  // namespace
}  // namespace ringside::harness
