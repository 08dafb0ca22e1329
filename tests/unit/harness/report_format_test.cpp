#include "harness/report/report_format.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "harness/results/results.hpp"

namespace ringside::harness {
namespace {

TEST(ReportFormat, AWorkloadSaysWhatItGoesOver) {
  EXPECT_EQ(over_text(Protocol::kHttp, 1), "");
  EXPECT_EQ(over_text(Protocol::kHttps, 1), " over https");
  EXPECT_EQ(over_text(Protocol::kH2c, 1), " over h2c, 1 stream a connection");
  EXPECT_EQ(over_text(Protocol::kH2, 100), " over h2, 100 streams a connection");
}

TEST(ReportFormat, CountsAndRatesAreGroupedForHumans) {
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(999), "999");
  EXPECT_EQ(format_count(1000), "1,000");
  EXPECT_EQ(format_count(12345678), "12,345,678");
  EXPECT_EQ(format_rate(118566.4), "118,566");
  EXPECT_EQ(format_rate(12345.5), "12,346");
  EXPECT_EQ(format_rate(100), "100");
  EXPECT_EQ(format_rate(85.34), "85.3");
  EXPECT_EQ(format_rate(4.254), "4.25");
  EXPECT_EQ(format_rate(kUnmeasured), "–");
}

TEST(ReportFormat, LatencyPicksTheUnitThatReads) {
  EXPECT_EQ(format_latency(45), "45 µs");
  EXPECT_EQ(format_latency(812), "0.81 ms");
  EXPECT_EQ(format_latency(3420), "3.42 ms");
  EXPECT_EQ(format_latency(27'340), "27.3 ms");
  EXPECT_EQ(format_latency(812'000), "812 ms");
  EXPECT_EQ(format_latency(2'734'000), "2.73 s");
  EXPECT_EQ(format_latency(kUnmeasured), "–");
}

// One unit, MiB, from the KiB results keep, whatever the size; the unit goes in the heading.
TEST(ReportFormat, MemoryIsMebibytesFromKibibytes) {
  EXPECT_EQ(format_memory(830), "0.81");
  EXPECT_EQ(format_memory(1856), "1.8");
  EXPECT_EQ(format_memory(21'197), "20.7");  // the seed's figure: 20.7 MiB, not "21.7 MB"
  EXPECT_EQ(format_memory(44800), "43.8");
  EXPECT_EQ(format_memory(120'000), "117");
  EXPECT_EQ(format_memory(8'148'216), "7,957");
  EXPECT_EQ(format_memory(kUnmeasured), "–");
  EXPECT_EQ(format_memory_with_unit(21'197), "20.7 MiB");
  EXPECT_EQ(format_memory_with_unit(kUnmeasured), "–");
  EXPECT_EQ(memory_heading("peak RSS"), "peak RSS (MiB)");
}

TEST(ReportFormat, CpuRatiosAndChanges) {
  EXPECT_EQ(format_cpu_per_request(7.9), "7.90 µs");
  EXPECT_EQ(format_cpu_per_request(66), "66.0 µs");
  EXPECT_EQ(format_cpu_per_request(1040.4), "1,040 µs");
  EXPECT_EQ(format_ratio(1), "1.00×");
  EXPECT_EQ(format_ratio(0.119), "0.12×");
  EXPECT_EQ(format_ratio(12.46), "12.5×");
  EXPECT_EQ(format_ratio(0.0101), "0.01×");
  EXPECT_EQ(format_ratio(1.0, "x"), "1.00x");  // the terminal's plain-ASCII sign
  EXPECT_EQ(format_ratio(kUnmeasured), "–");
  EXPECT_EQ(format_change(0.15), "+15.0%");
  EXPECT_EQ(format_change(-0.032), "-3.2%");
  EXPECT_EQ(format_share(0.02), "2%");
}

// A ratio far below 1 keeps two significant digits: never 0.00×, which reads as nothing.
TEST(ReportFormat, TinyRatiosKeepTheirDigits) {
  EXPECT_EQ(format_ratio(0.00314), "0.0031×");
  EXPECT_EQ(format_ratio(0.0031, "x"), "0.0031x");
  EXPECT_EQ(format_ratio(0.0094), "0.0094×");
  EXPECT_EQ(format_ratio(0.000042), "0.000042×");
  EXPECT_EQ(format_ratio(0), "0×");
  for (double ratio : {0.009, 0.001, 0.0005, 0.00001}) {
    EXPECT_NE(format_ratio(ratio).rfind("0.00×", 0), 0u) << ratio;
    EXPECT_GT(std::stod(format_ratio(ratio)), 0) << ratio;
  }
}

TEST(ReportFormat, MarkdownEscapingKeepsTablesAndMarkupInert) {
  EXPECT_EQ(escape_markdown("a|b"), "a\\|b");
  EXPECT_EQ(escape_markdown("*x* _y_ `z` [l](u)"), "\\*x\\* \\_y\\_ \\`z\\` \\[l\\](u)");
  EXPECT_EQ(escape_markdown("<script>&"), "&lt;script&gt;&amp;");
  EXPECT_EQ(escape_markdown("two\nlines"), "two lines");
}

TEST(ReportFormat, HtmlEscaping) {
  EXPECT_EQ(escape_html("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

TEST(ReportFormat, JsonInAScriptElementCannotCloseIt) {
  const std::string json = R"({"d": "</script><script>alert(1)</script> & <!-- \u2028"})";
  const std::string escaped = escape_json_for_script(json + "\xE2\x80\xA8");
  EXPECT_EQ(escaped.find('<'), std::string::npos);
  EXPECT_EQ(escaped.find('>'), std::string::npos);
  EXPECT_EQ(escaped.find('&'), std::string::npos);
  EXPECT_NE(escaped.find("\\u003c/script\\u003e"), std::string::npos);
  EXPECT_EQ(escaped.find("\xE2\x80\xA8"), std::string::npos);
  EXPECT_NE(escaped.find("\\u2028"), std::string::npos);
}

TEST(ReportFormat, InlineCodeCannotCloseItsElement) {
  EXPECT_EQ(escape_inline_code("var s = '</script>'; // </SCRIPT", "script"),
            "var s = '<\\/script>'; // <\\/SCRIPT");
  EXPECT_EQ(escape_inline_code("a{content:'</style>'}", "style"), "a{content:'<\\/style>'}");
  EXPECT_EQ(escape_inline_code("x = '<!--'", "script"), "x = '<\\!--'");
  EXPECT_EQ(escape_inline_code("a < b && c </ d", "script"), "a < b && c </ d");
}

}  // namespace
}  // namespace ringside::harness
