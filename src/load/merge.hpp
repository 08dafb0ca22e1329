// Merges the results of several load generators (`ringside load --json` documents, schemas 2 and
// 3, and `--hlog` histogram logs) into one: `ringside merge` prints it, and `ringside compare` can
// call the same code for a run spread over machines.
//
//   std::vector<GeneratorResult> inputs;
//   inputs.push_back(read_generator_file("gen1.json"));     // throws MergeError
//   inputs.push_back(read_generator_file("gen2.hlog"));
//   MergedRun merged = merge_generators(std::move(inputs)); // throws MergeError
//   for (auto& line : merged.warnings) ...;                 // start times more than 5 ms apart
//   std::cout << format_merge_text(merged);                 // or merge_to_json(merged)
//
// Histograms are merged bucket by bucket: HDR buckets of one layout line up, so the merge has
// exactly the counts one histogram fed every generator's values would have, and its percentiles
// are the same. Inputs with a different layout are refused, never rebinned. Counts, statuses and
// errors are summed. The rate is summed over the common window, the span every generator was
// measuring ([latest start, earliest end]): each generator's completions inside it, from its
// per-second counts (a second that straddles an edge counts in proportion to its overlap: the
// resolution is one second's completions at each edge), divided by the window's length.
#pragma once

#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "load/load_run.hpp"

namespace ringside::load {

// A bad input: one line naming the file (or both files) and what to do.
class MergeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr double kMaxStartSpreadS = 0.005;

struct GeneratorResult {
  std::string file;
  std::string tag;  // "" when the generator had none
  // Read from a histogram log: latency and completions per second only, no counts of failures,
  // statuses or bytes.
  bool latency_only = false;
  LoadResult result;
  nlohmann::ordered_json config;  // the JSON document's "config" (null for a log)
};

// A `ringside load --json` document, schema 2 or 3 (2 has no TLS: read as plain http://). Schema 1
// carries no histograms (`hdr`) and is refused.
GeneratorResult read_generator_json(const nlohmann::json& document, const std::string& file);
// An HdrHistogram log: its intervals are summed, interval i's count is second i's completions.
GeneratorResult read_generator_log(std::istream& in, const std::string& file);
// Either, told apart by the first character ('{': JSON).
GeneratorResult read_generator_file(const std::string& path);

struct MergedRun {
  std::vector<GeneratorResult> generators;
  LoadResult total;  // summed; start_epoch_s the earliest start, elapsed_s to the latest end
  double window_start_epoch_s = 0;  // latest start
  double window_end_epoch_s = 0;    // earliest end; <= start when the runs did not overlap
  double window_completed = 0;      // completions inside the window, summed
  double requests_per_s = 0;        // window_completed / window length (0 without a window)
  double start_spread_s = 0;        // latest start - earliest start
  std::vector<std::string> warnings;  // one line each, for stderr
  [[nodiscard]] bool any_latency_only() const;
  [[nodiscard]] double window_s() const { return window_end_epoch_s - window_start_epoch_s; }
};

// Completions of `result` between two wall-clock instants, by the rule above.
double completed_within(const LoadResult& result, double from_epoch_s, double to_epoch_s);

// Throws MergeError when there is no input or two inputs' histogram layouts differ.
MergedRun merge_generators(std::vector<GeneratorResult> generators);

std::string format_merge_text(const MergedRun& merged);
// The load schema (docs/load-json.md), with `merged_from`, `common_window`, `start_spread_s`.
nlohmann::ordered_json merge_to_json(const MergedRun& merged);

}  // namespace ringside::load
