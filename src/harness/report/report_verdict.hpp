// The verdict (harness/report/verdict.hpp) as the reports print it, decided once for report.md and
// report.html: per workload a line per ranking, in pieces so each renderer can mark the baseline
// its own way (bold in Markdown and HTML); and the cells every report shares: a figure with its
// interval, and a ratio against the baseline that reads "1.02×, tie" when the intervals overlap.
//
//   for (const VerdictBlock& block : verdict_blocks(decide_verdict(results))) ...
//   format_ratio_call(call_ratio(...))   -> "1.52×" · "1.02×, tie" · "–"
#pragma once

#include <string>
#include <vector>

#include "harness/report/verdict.hpp"

namespace ringside::harness {

struct VerdictPiece {
  std::string text;
  bool baseline = false;  // the baseline's name: bold where the format has bold
};

struct VerdictLine {
  std::string label;  // "requests/s", "CPU per request", "not ranked", "noisy"
  std::vector<VerdictPiece> pieces;
  std::string plain() const;  // the pieces as one text, " (baseline)" after the baseline's name
};

struct VerdictBlock {
  std::string workload;
  std::string levels;  // "10, 100 and 1,000 connections"
  std::vector<VerdictLine> lines;
};

// One sentence on how the verdict is decided, for the top of a report.
std::string verdict_rule_text();
std::vector<VerdictBlock> verdict_blocks(const Verdict& verdict);

// "[96,100–99,000]" with format_rate; "[7.70–8.10]" for CPU µs; "" when the span is unknown.
std::string format_rate_span(const Span& span);
std::string format_cpu_span(const Span& span);
// "1.52×", "1.02×, tie"; "–" when the ratio is unknown.
std::string format_ratio_call(const RatioCall& call);

}  // namespace ringside::harness
