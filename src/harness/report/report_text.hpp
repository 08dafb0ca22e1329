// The terminal table `ringside compare` prints at the end of a run: one table per workload, a row
// per point (requests/s with the rounds' min-max, p50/p99/max, errors, server CPU per request,
// idle and peak memory, flags, and the ratio to the baseline contestant), then the flags' notes
// in words and the contestants that did not run and why.
//
//   std::fputs(render_text_report(results).c_str(), stdout);
#pragma once

#include <string>

#include "harness/results/results.hpp"

namespace ringside::harness {

std::string render_text_report(const RunResults& results);

// "12.3k", "1.23M", "845": requests/s for a narrow column.
std::string short_rate(double value);
// MiB from KiB as every report writes it (format_memory: "20.7", "0.50"), the unit in the
// column's heading; "-" when unmeasured.
std::string memory_text(double kib);

}  // namespace ringside::harness
