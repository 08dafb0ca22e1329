#include "harness/report/report_html.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "report_sample.hpp"

namespace ringside::harness {
namespace {

using testing::fixture_results;
using testing::small_run;

constexpr std::string_view kFakeUplot =
    "window.uPlot = function () {}; /* </script> in a comment */";
constexpr std::string_view kFakeCss = ".uplot { color: red } /* </style> */";

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ReportHtml, TextFromTheResultsCannotEscapeItsElement) {
  RunResults results = small_run();
  results.contestants[1].description =
      "</script><script>document.body.dataset.injected = 1</script>";
  results.contestants[1].last_output = "<img src=x onerror=alert(1)>";
  results.contestants[1].status = ContestantStatus::kFailed;
  results.points[1].median.notes = {"</style><b>bold</b>"};
  const std::string page = render_html(results, kFakeUplot, kFakeCss);
  // Our own scripts plus uPlot's plus the data: the description added no element.
  EXPECT_EQ(count(page, "<script"), 4u);
  EXPECT_EQ(count(page, "</script>"), 4u);
  EXPECT_EQ(count(page, "</style>"), 2u);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<b>bold"), std::string::npos);
  EXPECT_NE(page.find("&lt;/script&gt;&lt;script&gt;document.body.dataset.injected"),
            std::string::npos)
      << "shown as text in the contestants table";
  EXPECT_NE(page.find("\\u003c/script\\u003e\\u003cscript\\u003edocument.body"), std::string::npos)
      << "kept, escaped, in the embedded JSON";
  EXPECT_NE(page.find("/* <\\/script> in a comment */"), std::string::npos);
}

TEST(ReportHtml, SelfContainedNothingFetched) {
  const std::string page =
      render_html(read_results_file(fixture_results("run-a")), kFakeUplot, kFakeCss);
  std::string lower = page;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* fetched : {" src=", " href=", "url(", "@import", "http://", "https://"}) {
    EXPECT_EQ(lower.find(fetched), std::string::npos) << fetched;
  }
}

TEST(ReportHtml, TablesAndChartPlacesForEveryWorkload) {
  const std::string page =
      render_html(read_results_file(fixture_results("run-a")), kFakeUplot, kFakeCss);
  EXPECT_EQ(count(page, "<div class=\"charts\" data-workload="), 2u);
  EXPECT_EQ(count(page, "<table class=\"summary\""), 8u);  // 2 workloads x (3 levels + equal load)
  for (const char* id : {"id=\"errors\"", "id=\"contestants\"", "id=\"machine\"", "id=\"notes\"",
                         "id=\"workloads\"", "id=\"ringside-data\""}) {
    EXPECT_NE(page.find(id), std::string::npos) << id;
  }
  EXPECT_NE(page.find("chartsDrawn"), std::string::npos);
  EXPECT_NE(page.find("dataset.errors"), std::string::npos);
  EXPECT_EQ(page.find("id=\"charts-missing\""), std::string::npos);
}

TEST(ReportHtml, TheVerdictComesFirstWithTheBaselineInBold) {
  const std::string page = render_html(small_run(), kFakeUplot, kFakeCss);
  const auto verdict = page.find("<section id=\"verdict\">");
  ASSERT_NE(verdict, std::string::npos);
  EXPECT_LT(verdict, page.find("<section class=\"workload\""));
  EXPECT_LT(verdict, page.find("<table"));
  EXPECT_NE(page.find("<li><span class=\"what\">requests/s:</span> 1. <strong>ringside</strong> "
                      "100,000 [99,000–101,000] (baseline) · 2. node-http 12,345"),
            std::string::npos)
      << page.substr(verdict, 2000);
}

TEST(ReportHtml, FairnessWarningsFollowTheVerdictEscaped) {
  RunResults run = small_run();
  run.contestants[1].warnings = {{"tcp-nodelay", "GET / took 43.9 ms a request <b>"}};
  const std::string page = render_html(run, kFakeUplot, kFakeCss);
  const auto verdict = page.find("<section id=\"verdict\">");
  const auto fairness = page.find("<section id=\"fairness\">");
  ASSERT_NE(fairness, std::string::npos);
  EXPECT_LT(verdict, fairness);
  EXPECT_LT(fairness, page.find("<section class=\"workload\""));
  EXPECT_NE(page.find("<span class=\"what\">fairness warnings:</span> node-http (tcp-nodelay)"),
            std::string::npos);
  EXPECT_NE(page.find("node-http: tcp-nodelay: GET / took 43.9 ms a request &lt;b&gt;"),
            std::string::npos);
  EXPECT_EQ(render_html(small_run(), kFakeUplot, kFakeCss).find("id=\"fairness\""),
            std::string::npos) << "no section without warnings";
}

TEST(ReportHtml, WithoutUplotItSaysWhatToRun) {
  const std::string page = render_html(small_run(), "", "");
  EXPECT_NE(page.find("id=\"charts-missing\""), std::string::npos);
  EXPECT_NE(page.find("Run scripts/setup"), std::string::npos);
  EXPECT_EQ(page.find("class=\"charts\""), std::string::npos);
  EXPECT_NE(page.find("<table class=\"summary\""), std::string::npos) << "the tables stay";
}

TEST(ReportHtml, EmbeddedDataIsTheResultsJson) {
  const RunResults results = read_results_file(fixture_results("run-b"));
  const std::string page = render_html(results, kFakeUplot, kFakeCss);
  const std::string open = "<script type=\"application/json\" id=\"ringside-data\">";
  const auto from = page.find(open) + open.size();
  const std::string embedded = page.substr(from, page.find("</script>", from) - from);
  EXPECT_EQ(to_json_text(from_json_text(embedded)), to_json_text(results));
}

}  // namespace
}  // namespace ringside::harness
