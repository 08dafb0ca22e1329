#include "compare_reports.hpp"

#include <cstdio>
#include <exception>

#include "harness/report/report_diff.hpp"
#include "harness/report/report_files.hpp"
#include "harness/results/results.hpp"

namespace ringside::apps {
namespace {

harness::RunResults read_run(const std::string& file_or_folder) {
  return harness::read_results_file(harness::results_file_in(file_or_folder));
}

int run_diff(const ReportFlags& flags) {
  harness::RunResults a, b;
  try {
    a = read_run(flags.diff[0]);
    b = read_run(flags.diff[1]);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s --diff: %s\n", kCompareCommand, error.what());
    return 2;
  }
  const harness::RunDiff diff = harness::diff_runs(a, b);
  std::fputs(harness::render_diff(diff, flags.diff[0], flags.diff[1]).c_str(), stdout);
  return 0;
}

int run_report(const ReportFlags& flags) {
  harness::WebAssets web;
  if (!flags.web_dir.empty()) {
    web = harness::load_web_assets(flags.web_dir);
    if (!web.missing.empty()) {
      std::fprintf(stderr, "%s: --web %s: %s\n", kCompareCommand, flags.web_dir.c_str(),
                   web.missing.c_str());
      return 2;
    }
  } else {
    web = harness::load_web_assets(harness::default_web_dir());
  }
  try {
    const std::filesystem::path file = harness::results_file_in(flags.report_dir);
    const harness::RunResults results = harness::read_results_file(file);
    const harness::WrittenReports written =
        harness::write_reports(results, file.parent_path(), web);
    std::printf("report: %s\nreport: %s\n", written.markdown.c_str(), written.html.c_str());
    if (!written.charts_missing.empty()) {
      std::fprintf(stderr, "%s: report.html has no charts: %s\n", kCompareCommand,
                   written.charts_missing.c_str());
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s --report: %s\n", kCompareCommand, error.what());
    return 2;
  }
  return 0;
}

}  // namespace

void add_report_flags(CLI::App& app, ReportFlags& flags) {
  app.add_option("--report", flags.report_dir,
                 "Write report.md and report.html again from DIR/results.json (a results folder)");
  app.add_option("--diff", flags.diff,
                 "Compare two runs point by point (A B: results.json files or results folders); "
                 "changes beyond the noise of both runs are marked")
      ->expected(2);
  app.add_option("--web", flags.web_dir,
                 "Folder where `npm ci` installed uplot for report.html (default: web/ of the "
                 "data folder: an install, $RINGSIDE_DATA or the source tree)");
}

std::optional<int> run_report_flags(const ReportFlags& flags) {
  if (flags.diff.empty() && flags.report_dir.empty()) return std::nullopt;
  if (!flags.diff.empty() && !flags.report_dir.empty()) {
    std::fprintf(stderr, "%s: --diff and --report go alone: pass one of them\n", kCompareCommand);
    return 2;
  }
  return flags.diff.empty() ? run_report(flags) : run_diff(flags);
}

}  // namespace ringside::apps
