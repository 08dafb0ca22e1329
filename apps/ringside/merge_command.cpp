// `ringside merge FILES... [--json]`: one report from the results of several load generators
// (load::merge does the work; this is flags and printing).
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli_support.hpp"
#include "commands.hpp"
#include "load/merge.hpp"

namespace ringside::apps {

int run_merge(int argc, char** argv) {
  std::vector<std::string> files;
  bool json = false;
  CLI::App app("ringside merge", "ringside merge");
  app.description(
      "Merge the results of several `ringside load` generators (their --json output and/or "
      "--hlog logs) into one report: histograms merged bucket by bucket (exact), counts and "
      "errors summed, requests/s summed over the window every generator was measuring.");
  app.footer(
      "Exit codes: 0 merged, 2 for a bad flag or an input that cannot be merged (one line naming "
      "it: schema 1 results, different histogram settings). Start times more than 5 ms apart are "
      "a warning on stderr.");
  app.add_option("files", files, "load --json results (.json) or --hlog histogram logs")
      ->required();
  app.add_flag("--json", json, "Print one JSON document in the load schema (docs/load-json.md)");
  if (auto exit_code = parse_flags(app, argc, argv)) return *exit_code;

  load::MergedRun merged;
  try {
    std::vector<load::GeneratorResult> inputs;
    for (const std::string& file : files) inputs.push_back(load::read_generator_file(file));
    merged = load::merge_generators(std::move(inputs));
  } catch (const load::MergeError& e) {
    std::fprintf(stderr, "ringside merge: %s\n", e.what());
    return 2;
  }
  for (const std::string& warning : merged.warnings) {
    std::fprintf(stderr, "ringside merge: warning: %s\n", warning.c_str());
  }
  if (json) {
    std::puts(load::merge_to_json(merged).dump(2).c_str());
  } else {
    std::fputs(load::format_merge_text(merged).c_str(), stdout);
  }
  return 0;
}

}  // namespace ringside::apps
