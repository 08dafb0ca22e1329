// The report files of a results folder: report.md and report.html written next to results.json,
// at the end of a run or again later (`ringside compare --report DIR`), and the files they need.
//
//   write_reports(results, dir);   // dir/report.md, dir/report.html; ReportError when unwritable
//
// report.html inlines uPlot from web/node_modules (scripts/setup runs `npm ci --prefix web`),
// found beside the source tree this binary was built in, or in the folder given. Without it the
// Markdown is written all the same, the HTML says its charts are missing and what to run, and
// WrittenReports::charts_missing says so to the caller. The page's own template, style and
// scripts need no folder: they are built into the binary (report_web_files.hpp).
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

#include "harness/results/results.hpp"

namespace ringside::harness {

struct ReportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct WebAssets {
  std::string uplot_js;
  std::string uplot_css;
  std::string missing;  // "" when found; else what is missing and what to run
};

// web/ of the source tree this binary was built in (build/<flavour>/apps/ringside/ringside);
// empty when there is none.
std::filesystem::path default_web_dir();
WebAssets load_web_assets(const std::filesystem::path& web_dir);

// A results.json named directly, or the one in a results folder; ReportError naming the path and
// what is wrong otherwise.
std::filesystem::path results_file_in(const std::filesystem::path& file_or_folder);

struct WrittenReports {
  std::filesystem::path markdown;
  std::filesystem::path html;
  std::string charts_missing;  // as WebAssets::missing
};

WrittenReports write_reports(const RunResults& results, const std::filesystem::path& dir);
WrittenReports write_reports(const RunResults& results, const std::filesystem::path& dir,
                             const WebAssets& web);

}  // namespace ringside::harness
