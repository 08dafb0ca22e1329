// The report's own front end: the files of web/report/, which report.html is made of around the
// results. Edit them there, as HTML, CSS and JavaScript (the web.lint test runs ESLint over them);
// the build embeds them (cmake/embed_text_files.cmake writes these functions' definitions).
//
// Embedded when the binary is built, not read when a report is written, because they are part of
// the program: the page must match the binary that fills it, and the static release binary writes
// complete reports wherever it is installed, with no web/ folder beside it. uPlot is the one part
// read at run time (report_files.hpp): a library npm installs, whose absence the page reports.
#pragma once

#include <string_view>

namespace ringside::harness {

// web/report/report.html: the page, with {{slots}} for page_template.hpp's fill_template.
std::string_view report_page_template();
// web/report/report.css: the page's style.
std::string_view report_css();
// web/report/error_hooks.js: records every error into document.body.dataset.errors
// (window.onerror, unhandled rejections, console.error), so a headless browser's dumped DOM shows
// them. It runs first.
std::string_view report_error_hooks_js();
// web/report/charts.js: draws the charts into each `.charts[data-workload]` from
// <script id="ringside-data">, then sets document.body.dataset.chartsDrawn to how many it drew.
std::string_view report_charts_js();

}  // namespace ringside::harness
