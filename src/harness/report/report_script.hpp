// The JavaScript of report.html (our own, beside the inlined uPlot): the error hooks that go
// first, and the drawing that reads the embedded results and draws every chart with uPlot.
#pragma once

#include <string_view>

namespace ringside::harness {

// Records every error into document.body.dataset.errors (window.onerror, unhandled rejections,
// console.error), so a headless browser's dumped DOM shows them.
std::string_view report_error_hooks_script();
// Draws the charts into each `.charts[data-workload]` from <script id="ringside-data">, then sets
// document.body.dataset.chartsDrawn to how many it drew.
std::string_view report_charts_script();

}  // namespace ringside::harness
