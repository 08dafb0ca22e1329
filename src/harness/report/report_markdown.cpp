#include "harness/report/report_markdown.hpp"

#include "harness/report/report_format.hpp"
#include "harness/report/report_model.hpp"

namespace ringside::harness {
namespace {

void append_table(std::string& out, const ReportTable& table) {
  out += "|";
  for (const std::string& column : table.columns) out += " " + escape_markdown(column) + " |";
  out += "\n|";
  for (std::size_t i = 0; i < table.columns.size(); ++i) out += table.numeric[i] ? "--:|" : "---|";
  out += "\n";
  for (const std::vector<std::string>& row : table.rows) {
    out += "|";
    for (const std::string& cell : row) out += " " + escape_markdown(cell) + " |";
    out += "\n";
  }
  out += "\n";
}

void append_list(std::string& out, const std::vector<std::string>& items) {
  for (const std::string& item : items) out += "- " + escape_markdown(item) + "\n";
  if (!items.empty()) out += "\n";
}

// The answer first: per workload, its rankings, the baseline's name in bold.
void append_verdict(std::string& out, const ReportModel& model) {
  if (model.verdict.empty()) return;
  out += "## Verdict\n\n" + escape_markdown(model.verdict_rule) + "\n\n";
  for (const VerdictBlock& block : model.verdict) {
    out += "**" + escape_markdown(block.workload) + "** (" + escape_markdown(block.levels) +
           ")\n\n";
    for (const VerdictLine& line : block.lines) {
      out += "- " + escape_markdown(line.label) + ": ";
      for (const VerdictPiece& piece : line.pieces) {
        const std::string text = escape_markdown(piece.text);
        out += piece.baseline ? "**" + text + "**" : text;
      }
      out += "\n";
    }
    out += "\n";
  }
}

}  // namespace

std::string render_markdown(const RunResults& results) {
  const ReportModel model = build_report_model(results);
  std::string out = "# " + escape_markdown(model.title) + "\n\n";
  for (const std::string& alert : model.alerts) out += "> **" + escape_markdown(alert) + "**\n\n";
  append_verdict(out, model);
  if (!model.fairness.empty()) {
    out += "## Fairness warnings\n\nThe check before timing found these: each says what it "
           "measured and the fix (docs/harness.md, \"Fairness\").\n\n";
    append_list(out, model.fairness);
  }
  for (const std::string& sentence : model.preamble) out += escape_markdown(sentence) + "\n";
  out += "\n";
  for (const WorkloadSection& section : model.workloads) {
    out += "## " + escape_markdown(section.heading) + "\n\n";
    for (const ReportTable& table : section.tables) {
      out += "### " + escape_markdown(table.heading) + "\n\n";
      append_table(out, table);
    }
  }
  if (!model.notes.empty()) {
    out += "## Notes\n\n";
    for (const ReportNote& note : model.notes) {
      out += std::to_string(note.number) + ". " + escape_markdown(note.where) + ": **" +
             escape_markdown(note.flag) + "**: " + escape_markdown(note.text) + "\n";
    }
    out += "\nWhat the flags mean:\n\n";
    append_list(out, model.flag_meanings);
  }
  if (!model.errors.rows.empty()) {
    out += "## " + escape_markdown(model.errors.heading) + "\n\n";
    append_table(out, model.errors);
  }
  out += "## Contestants\n\n";
  append_table(out, model.contestants);
  append_list(out, model.contestant_details);
  out += "## Machine\n\n";
  append_table(out, model.machine);
  if (!model.load_hosts.rows.empty()) {
    out += "### " + escape_markdown(model.load_hosts.heading) + "\n\n";
    append_table(out, model.load_hosts);
  }
  if (!model.warnings.empty()) {
    out += "Warnings:\n\n";
    append_list(out, model.warnings);
  }
  out += "## Scenario\n\n";
  append_table(out, model.workload_list);
  std::string command = model.command;  // a code span cannot hold its own delimiter
  for (char& c : command) c = c == '`' ? '\'' : c;
  out += "Run it again with `" + command + "`.\n";
  return out;
}

}  // namespace ringside::harness
