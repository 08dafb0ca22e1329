#include "harness/report/report_html.hpp"

#include "harness/report/report_format.hpp"
#include "harness/report/report_model.hpp"
#include "harness/report/report_script.hpp"

namespace ringside::harness {
namespace {

constexpr std::string_view kStyle = R"css(
body { font: 14px/1.45 system-ui, sans-serif; color: #222;
       margin: 1.5em auto; max-width: 1200px; padding: 0 1em; }
h1 { font-size: 1.6em; }
h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05em; margin-top: 1.4em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { padding: 0.25em 0.6em; border-bottom: 1px solid #e4e4e4; text-align: left;
         vertical-align: top; }
th { background: #f4f4f4; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.alert { background: #fff3cd; border: 1px solid #e0c36c; padding: 0.6em 0.9em; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; }
figure.chart { margin: 0; }
#verdict { background: #f7f9fc; border: 1px solid #d5deea; padding: 0.2em 1em 0.6em; }
#verdict h2 { margin-top: 0.6em; }
ul.verdict { padding-left: 1.2em; }
ul.verdict li { margin: 0.2em 0; }
ul.verdict .what { font-weight: 600; }
)css";

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

std::string sections_html(const ReportModel& model) {
  std::string out = notes_html(model);
  out += "<section>\n<h2>" + escape_html(model.errors.heading) + "</h2>\n" +
         table_html(model.errors, "facts");
  if (model.errors.rows.empty()) out += "<p>No errors, and the kernel dropped nothing.</p>\n";
  out += "</section>\n<section>\n<h2>Contestants</h2>\n" + table_html(model.contestants, "facts");
  out += list_html(model.contestant_details, "contestant-details");
  out += "</section>\n<section>\n<h2>Machine</h2>\n" + table_html(model.machine, "facts");
  if (!model.load_hosts.rows.empty()) {
    out += "<h3>" + escape_html(model.load_hosts.heading) + "</h3>\n" + table_html(model.load_hosts, "facts");
  }
  if (!model.warnings.empty()) out += "<p>Warnings:</p>\n" + list_html(model.warnings, "warnings");
  out += "</section>\n<section>\n<h2>Scenario</h2>\n" + table_html(model.workload_list, "facts");
  out += "<p>Run it again with <code>" + escape_html(model.command) + "</code>.</p>\n</section>\n";
  return out;
}

}  // namespace

std::string render_html(const RunResults& results, std::string_view uplot_js,
                        std::string_view uplot_css) {
  const ReportModel model = build_report_model(results);
  const bool charts = !uplot_js.empty();
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>" + escape_html(model.title) + "</title>\n";
  if (charts) out += "<style>\n" + escape_inline_code(uplot_css, "style") + "\n</style>\n";
  out += "<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  out += "<script>" + std::string(report_error_hooks_script()) + "</script>\n";
  out += "<h1>" + escape_html(model.title) + "</h1>\n";
  for (const std::string& alert : model.alerts)
    out += "<p class=\"alert\">" + escape_html(alert) + "</p>\n";
  out += verdict_html(model);
  for (const std::string& sentence : model.preamble)
    out += "<p>" + escape_html(sentence) + "</p>\n";
  if (!charts) {
    out +=
        "<p class=\"alert\" id=\"charts-missing\">The charts are missing: uPlot was not found "
        "when this report was written. Run scripts/setup (it runs npm ci in web/), then "
        "<code>ringside compare --report DIR</code> on this results folder.</p>\n";
  }
  out += workloads_html(model, charts);
  out += sections_html(model);
  out += "<script type=\"application/json\" id=\"ringside-data\">" +
         escape_json_for_script(to_json_text(results)) + "</script>\n";
  if (charts) {
    out += "<script>\n" + escape_inline_code(uplot_js, "script") + "\n</script>\n";
  }
  out += "<script>" + std::string(report_charts_script()) + "</script>\n";
  return out + "</body>\n</html>\n";
}

}  // namespace ringside::harness
