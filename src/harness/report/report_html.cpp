#include "harness/report/report_html.hpp"

#include "harness/report/page_template.hpp"
#include "harness/report/report_format.hpp"
#include "harness/report/report_model.hpp"
#include "harness/report/report_web_files.hpp"

namespace ringside::harness {
namespace {

std::string table_html(const ReportTable& table, const std::string& css_class) {
  std::string out =
      "<table class=\"" + css_class + "\" id=\"" + escape_html(table.id) + "\">\n<thead><tr>";
  for (std::size_t i = 0; i < table.columns.size(); ++i) {
    out += table.numeric[i] ? "<th class=\"n\">" : "<th>";
    out += escape_html(table.columns[i]) + "</th>";
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const std::vector<std::string>& row : table.rows) {
    out += "<tr>";
    for (std::size_t i = 0; i < row.size(); ++i) {
      out += i < table.numeric.size() && table.numeric[i] ? "<td class=\"n\">" : "<td>";
      out += escape_html(row[i]) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

std::string list_html(const std::vector<std::string>& items, const std::string& id) {
  if (items.empty()) return "";
  std::string out = "<ul id=\"" + id + "\">\n";
  for (const std::string& item : items) out += "<li>" + escape_html(item) + "</li>\n";
  return out + "</ul>\n";
}

std::string workloads_html(const ReportModel& model, bool charts) {
  std::string out;
  for (std::size_t i = 0; i < model.workloads.size(); ++i) {
    const WorkloadSection& section = model.workloads[i];
    const std::string name = escape_html(section.name);
    out += "<section class=\"workload\" data-workload=\"" + name + "\">\n<h2>" +
           escape_html(section.heading) + "</h2>\n";
    if (charts) out += "<div class=\"charts\" data-workload=\"" + name + "\"></div>\n";
    for (const ReportTable& table : section.tables) {
      out += "<h3>" + escape_html(table.heading) + "</h3>\n" + table_html(table, "summary");
    }
    out += "</section>\n";
  }
  return out;
}

std::string notes_html(const ReportModel& model) {
  std::string out = "<section id=\"notes-section\">\n<h2>Notes on the flags</h2>\n";
  if (model.notes.empty()) return out + "<p>No point was flagged.</p>\n</section>\n";
  out += "<ol id=\"notes\">\n";
  for (const ReportNote& note : model.notes) {
    out += "<li value=\"" + std::to_string(note.number) + "\">" + escape_html(note.where) +
           ": <strong>" + escape_html(note.flag) + "</strong>: " + escape_html(note.text) +
           "</li>\n";
  }
  out += "</ol>\n<p>What the flags mean:</p>\n" + list_html(model.flag_meanings, "flag-meanings");
  return out + "</section>\n";
}

// The answer first: per workload, its rankings, the baseline's name in bold.
std::string verdict_html(const ReportModel& model) {
  if (model.verdict.empty()) return "";
  std::string out = "<section id=\"verdict\">\n<h2>Verdict</h2>\n<p>" +
                    escape_html(model.verdict_rule) + "</p>\n";
  for (const VerdictBlock& block : model.verdict) {
    out += "<h3>" + escape_html(block.workload) + " <small>(" + escape_html(block.levels) +
           ")</small></h3>\n<ul class=\"verdict\" data-workload=\"" +
           escape_html(block.workload) + "\">\n";
    for (const VerdictLine& line : block.lines) {
      out += "<li><span class=\"what\">" + escape_html(line.label) + ":</span> ";
      for (const VerdictPiece& piece : line.pieces) {
        const std::string text = escape_html(piece.text);
        out += piece.baseline ? "<strong>" + text + "</strong>" : text;
      }
      out += "</li>\n";
    }
    out += "</ul>\n";
  }
  return out + "</section>\n";
}

// Right after the verdict: what the check before timing found, contestant by contestant.
std::string fairness_html(const ReportModel& model) {
  if (model.fairness.empty()) return "";
  return "<section id=\"fairness\">\n<h2>Fairness warnings</h2>\n<p>The check before timing "
         "found these: each says what it measured and the fix.</p>\n" +
         list_html(model.fairness, "fairness") + "</section>\n";
}

std::string errors_html(const ReportModel& model) {
  std::string out = table_html(model.errors, "facts");
  if (model.errors.rows.empty()) out += "<p>No errors, and the kernel dropped nothing.</p>\n";
  return out;
}

std::string machine_html(const ReportModel& model) {
  std::string out = table_html(model.machine, "facts");
  if (!model.load_hosts.rows.empty()) {
    out += "<h3>" + escape_html(model.load_hosts.heading) + "</h3>\n" +
           table_html(model.load_hosts, "facts");
  }
  if (!model.warnings.empty()) out += "<p>Warnings:</p>\n" + list_html(model.warnings, "warnings");
  return out;
}

std::string paragraphs_html(const std::vector<std::string>& sentences, const char* open) {
  std::string out;
  for (const std::string& sentence : sentences) out += open + escape_html(sentence) + "</p>\n";
  return out;
}

constexpr std::string_view kChartsMissing =
    "<p class=\"alert\" id=\"charts-missing\">The charts are missing: uPlot was not found "
    "when this report was written. Run scripts/setup (it runs npm ci in web/), then "
    "<code>ringside compare --report DIR</code> on this results folder.</p>\n";

}  // namespace

// The page is web/report/report.html (report_web_files.hpp); here only what goes in its slots.
std::string render_html(const RunResults& results, std::string_view uplot_js,
                        std::string_view uplot_css) {
  const ReportModel model = build_report_model(results);
  const bool charts = !uplot_js.empty();
  return fill_template(
      report_page_template(),
      {{"title", escape_html(model.title)},
       {"uplot_css", escape_inline_code(uplot_css, "style")},
       {"report_css", escape_inline_code(report_css(), "style")},
       {"error_hooks_js", escape_inline_code(report_error_hooks_js(), "script")},
       {"alerts", paragraphs_html(model.alerts, "<p class=\"alert\">")},
       {"verdict", verdict_html(model)},
       {"fairness", fairness_html(model)},
       {"preamble", paragraphs_html(model.preamble, "<p>")},
       {"charts_missing", charts ? "" : std::string(kChartsMissing)},
       {"workloads", workloads_html(model, charts)},
       {"notes", notes_html(model)},
       {"errors_heading", escape_html(model.errors.heading)},
       {"errors", errors_html(model)},
       {"contestants", table_html(model.contestants, "facts") +
                           list_html(model.contestant_details, "contestant-details")},
       {"machine", machine_html(model)},
       {"scenario", table_html(model.workload_list, "facts")},
       {"command", escape_html(model.command)},
       {"results_json", escape_json_for_script(to_json_text(results))},
       {"uplot_js", escape_inline_code(uplot_js, "script")},
       {"charts_js", escape_inline_code(report_charts_js(), "script")}});
}

}  // namespace ringside::harness
