#include "harness/check/validation_pass.hpp"

#include <exception>

#include "db/temp_cluster.hpp"

namespace ringside::harness {

std::unique_ptr<db::TempCluster> start_throwaway_database(
    const std::function<void(const std::string&)>& say) {
  auto tell = [&](const std::string& line) {
    if (say) say(line);
  };
  tell("starting a throwaway PostgreSQL for {db_url}");
  auto cluster = std::make_unique<db::TempCluster>();
  try {
    cluster->start();
  } catch (const std::exception& error) {
    tell(std::string("PostgreSQL did not start: ") + error.what());
    return nullptr;
  }
  return cluster;
}

ValidationTally validate_each(
    const std::vector<const Contestant*>& contestants, const ValidationRunOptions& options,
    const std::function<void(std::size_t, const ContestantReport&)>& on_report) {
  ValidationTally tally;
  for (std::size_t i = 0; i < contestants.size() && !tally.interrupted; ++i) {
    if (options.stop != nullptr && options.stop->load()) {
      tally.interrupted = true;
      break;
    }
    const ContestantReport report = validate_contestant(*contestants[i], options);
    on_report(i, report);
    tally.warnings += static_cast<unsigned>(report.warnings.size());
    switch (report.verdict) {
      case CheckVerdict::kPass: ++tally.passed; break;
      case CheckVerdict::kFail: ++tally.failed; break;
      case CheckVerdict::kSkip: ++tally.skipped; break;
      case CheckVerdict::kInterrupted: tally.interrupted = true; break;
    }
  }
  return tally;
}

}  // namespace ringside::harness
