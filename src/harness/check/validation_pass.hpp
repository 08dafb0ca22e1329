// The checks before timing, for a set of contestants, in one place: `ringside compare --validate`
// runs them alone, a run (harness/run/compare_run.hpp) before its first round. Both start the
// throwaway PostgreSQL the same way when a contestant needs one, then validate each contestant
// over each protocol it is to be timed over (validation_run.hpp: a start each) until the last or
// a stop, hearing each report as it is made.
//
//   std::unique_ptr<db::TempCluster> cluster = start_throwaway_database(say);   // null: failed
//   std::vector<ValidationTarget> targets = {{&nginx, Protocol::kHttp}, {&nginx, Protocol::kHttps, false}};
//   ValidationTally tally = validate_each(targets, options, [&](std::size_t i, const ContestantReport& r) {
//     puts(r.line().c_str());
//   });
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/check/validation_run.hpp"
#include "harness/config/scenario.hpp"

namespace ringside::db {
class TempCluster;
}

namespace ringside::harness {

// Says "starting a throwaway PostgreSQL for {db_url}" and starts one; on failure says
// "PostgreSQL did not start: why" and returns null.
std::unique_ptr<db::TempCluster> start_throwaway_database(
    const std::function<void(const std::string&)>& say);

// One contestant, checked over one protocol. `fairness`: the fairness check runs after it passes
// (once per contestant is enough: it judges the server's set-up, not the protocol).
struct ValidationTarget {
  const Contestant* contestant = nullptr;
  Protocol protocol = Protocol::kHttp;  // the start's: http or https
  bool fairness = true;
  bool http2 = false;  // also prove it speaks HTTP/2 there (h2c on http, h2 on https)
};

// The protocols a contestant is validated over for a scenario: those of the workloads `runs`
// gives it, in the order http, https, h2c, h2; http alone when it runs none (it is validated all
// the same).
std::vector<Protocol> protocols_to_validate(const Scenario& scenario,
                                            const std::function<bool(const Workload&)>& runs);

// A target per start those protocols need (http: http and h2c, https: https and h2), the
// fairness check on the first, HTTP/2 proved where a protocol of it is used and served. Returns
// how many it added.
std::size_t add_targets(std::vector<ValidationTarget>& targets, const Contestant& contestant,
                        const std::vector<Protocol>& protocols);

struct ValidationTally {
  unsigned passed = 0, failed = 0, skipped = 0;
  unsigned warnings = 0;     // fairness warnings, over every contestant
  bool interrupted = false;  // options.stop came, or a report says it was interrupted
};

// Validates targets[0], [1], ... in order with `options` (its start's protocol and fairness set
// per target), calling on_report(i, report) for each, until the last, options.stop, or an
// interrupted report. An https target needs options.start's TLS files and client.
ValidationTally validate_each(
    const std::vector<ValidationTarget>& targets, const ValidationRunOptions& options,
    const std::function<void(std::size_t, const ContestantReport&)>& on_report);

}  // namespace ringside::harness
