// The report options of `ringside compare`, kept apart from the run's own flags:
//   --report DIR   render report.md and report.html again from DIR/results.json
//   --diff A B     compare two runs point by point (results.json files or results folders)
//   --web DIR      where uPlot was installed (default: web/ of the source tree)
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ringside::apps {

// How the command names itself in its error lines.
inline constexpr const char* kCompareCommand = "ringside compare";

struct ReportFlags {
  std::vector<std::string> diff;
  std::string report_dir;
  std::string web_dir;
};

void add_report_flags(CLI::App& app, ReportFlags& flags);
// When --report or --diff was given: does it and returns the exit code (0; 2 for bad input, after
// one line on stderr). Otherwise nothing, and the command goes on.
std::optional<int> run_report_flags(const ReportFlags& flags);

}  // namespace ringside::apps
