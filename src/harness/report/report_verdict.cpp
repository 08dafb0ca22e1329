#include "harness/report/report_verdict.hpp"

#include <algorithm>
#include <cmath>

#include "harness/report/report_format.hpp"

namespace ringside::harness {
namespace {

std::string without_unit(std::string text) {
  const std::string unit = " µs";
  if (text.size() > unit.size() && text.compare(text.size() - unit.size(), unit.size(), unit) == 0)
    text.erase(text.size() - unit.size());
  return text;
}

std::string figure_text(const RankedEntry& entry, bool throughput) {
  if (throughput) return format_rate(entry.score) + " " + format_rate_span(entry.span);
  return format_cpu_per_request(entry.score) + " " + format_cpu_span(entry.span);
}

// "1. ringside 98,200 [..] (baseline) · 2.= nginx 71,300 [..], h2o 70,900 [..] (tie) · ..."
VerdictLine ranking_line(const std::string& label, const Ranking& ranking, bool throughput) {
  VerdictLine line{label, {}};
  for (const TieGroup& group : ranking.groups) {
    std::string lead = line.pieces.empty() ? "" : " · ";
    lead += std::to_string(group.place) + (group.tie() ? ".= " : ". ");
    for (std::size_t i = 0; i < group.entries.size(); ++i) {
      const RankedEntry& entry = group.entries[i];
      line.pieces.push_back({lead + (i == 0 ? "" : ", "), false});
      lead.clear();
      line.pieces.push_back({entry.label, entry.baseline});
      line.pieces.push_back(
          {" " + figure_text(entry, throughput) + (entry.baseline ? " (baseline)" : ""), false});
    }
    if (group.tie()) line.pieces.push_back({" (tie)", false});
  }
  return line;
}

std::string names_text(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) text += (i == 0 ? "" : ", ") + names[i];
  return text;
}

std::string levels_text(const std::vector<unsigned>& levels) {
  std::string text;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (i > 0) text += i + 1 == levels.size() ? " and " : ", ";
    text += format_count(levels[i]);
  }
  return text + (levels.size() == 1 && levels[0] == 1 ? " connection" : " connections");
}

VerdictBlock block_of(const WorkloadVerdict& w) {
  VerdictBlock block{w.workload, levels_text(w.levels), {}};
  if (!w.throughput.groups.empty())
    block.lines.push_back(ranking_line("requests/s", w.throughput, true));
  if (!w.cpu.groups.empty())
    block.lines.push_back(ranking_line("CPU per request (lower is better)", w.cpu, false));
  std::vector<std::string> apart, noisy;
  for (const Unranked& u : w.throughput.unranked) apart.push_back(u.label + " (" + u.why + ")");
  for (const Unranked& u : w.cpu.unranked) {
    const bool listed = std::any_of(w.throughput.unranked.begin(), w.throughput.unranked.end(),
                                    [&](const Unranked& t) { return t.label == u.label; });
    if (!listed) apart.push_back(u.label + " by CPU (" + u.why + ")");
  }
  for (const TieGroup& g : w.throughput.groups) {
    for (const RankedEntry& e : g.entries) {
      if (e.noisy) noisy.push_back(e.label);
    }
  }
  if (!apart.empty()) block.lines.push_back({"not ranked", {{names_text(apart), false}}});
  if (!noisy.empty()) {
    block.lines.push_back({"noisy", {{names_text(noisy) + ": a point under the score did not "
                                      "converge (see the flags below)", false}}});
  }
  return block;
}

}  // namespace

std::string VerdictLine::plain() const {
  std::string text;
  for (const VerdictPiece& piece : pieces) text += piece.text;
  return text;
}

std::string verdict_rule_text() {
  return "Each score is the geometric mean of a contestant's medians over the workload's "
         "connection levels (closed model), in brackets its interval; contestants whose "
         "intervals overlap share a place (\"2.=\", a tie).";
}

std::vector<VerdictBlock> verdict_blocks(const Verdict& verdict) {
  std::vector<VerdictBlock> blocks;
  for (const WorkloadVerdict& w : verdict.workloads) blocks.push_back(block_of(w));
  return blocks;
}

std::string format_rate_span(const Span& span) {
  if (!span_known(span)) return "";
  return "[" + format_rate(span.low) + "–" + format_rate(span.high) + "]";
}

std::string format_cpu_span(const Span& span) {
  if (!span_known(span)) return "";
  return "[" + without_unit(format_cpu_per_request(span.low)) + "–" +
         without_unit(format_cpu_per_request(span.high)) + "]";
}

std::string format_ratio_call(const RatioCall& call) {
  const std::string ratio = format_ratio(call.ratio);
  return std::isfinite(call.ratio) && call.tie ? ratio + ", tie" : ratio;
}

}  // namespace ringside::harness
