// report.md of `ringside compare`: the tables ready to paste into a README (one per workload and
// point group: requests/s with its spread, latency, errors, CPU per request, memory, flags, the
// ratio to the baseline), then the notes behind every flag, the contestants, the machine and the
// command that reproduces the run. docs/compare-report.md shows it and says how to read it.
#pragma once

#include <string>

#include "harness/results/results.hpp"

namespace ringside::harness {

std::string render_markdown(const RunResults& results);

}  // namespace ringside::harness
