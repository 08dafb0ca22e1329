// The checks before timing, for a set of contestants, in one place: `ringside compare --validate`
// runs them alone, a run (harness/run/compare_run.hpp) before its first round. Both start the
// throwaway PostgreSQL the same way when a contestant needs one, then validate each contestant
// in turn (validation_run.hpp) until the last or a stop, hearing each report as it is made.
//
//   std::unique_ptr<db::TempCluster> cluster = start_throwaway_database(say);   // null: failed
//   ValidationTally tally = validate_each(contestants, options, [&](std::size_t i, const ContestantReport& r) {
//     puts(r.line().c_str());
//   });
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/check/validation_run.hpp"

namespace ringside::db {
class TempCluster;
}

namespace ringside::harness {

// Says "starting a throwaway PostgreSQL for {db_url}" and starts one; on failure says
// "PostgreSQL did not start: why" and returns null.
std::unique_ptr<db::TempCluster> start_throwaway_database(
    const std::function<void(const std::string&)>& say);

struct ValidationTally {
  unsigned passed = 0, failed = 0, skipped = 0;
  unsigned warnings = 0;     // fairness warnings, over every contestant
  bool interrupted = false;  // options.stop came, or a report says it was interrupted
};

// Validates contestants[0], [1], ... in order with `options`, calling on_report(i, report) for
// each, until the last, options.stop, or an interrupted report.
ValidationTally validate_each(
    const std::vector<const Contestant*>& contestants, const ValidationRunOptions& options,
    const std::function<void(std::size_t, const ContestantReport&)>& on_report);

}  // namespace ringside::harness
