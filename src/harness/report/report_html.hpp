// report.html of `ringside compare`: one self-contained file that opens offline. The page is
// web/report/report.html with its slots filled (report_web_files.hpp): the results embedded as
// JSON, uPlot's JS and CSS and our own (web/report/) inlined; our charts.js draws requests/s
// against connections, latency percentile spectra, CPU per request and memory bars; the tables
// (the same as report.md's, plus errors and the kernel's counters) are plain HTML written here,
// so they read without JavaScript.
//
//   const std::string page = render_html(results, uplot_js, uplot_css);
//
// With an empty uplot_js the page says the charts are missing and what to run (scripts/setup).
// Every text from the results is escaped for where it lands: a description holding "</script>"
// stays text. After drawing, document.body.dataset.chartsDrawn holds the number of charts drawn
// and document.body.dataset.errors any error the page met (for the headless-browser test).
#pragma once

#include <string>
#include <string_view>

#include "harness/results/results.hpp"

namespace ringside::harness {

std::string render_html(const RunResults& results, std::string_view uplot_js,
                        std::string_view uplot_css);

}  // namespace ringside::harness
