#include "harness/check/validation_pass.hpp"

#include <algorithm>
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

std::vector<Protocol> protocols_to_validate(const Scenario& scenario,
                                            const std::function<bool(const Workload&)>& runs) {
  std::vector<Protocol> protocols;
  for (Protocol protocol : {Protocol::kHttp, Protocol::kHttps, Protocol::kH2c, Protocol::kH2}) {
    const bool used = std::any_of(scenario.workloads.begin(), scenario.workloads.end(),
                                  [&](const Workload& workload) {
                                    return workload.protocol == protocol && runs(workload);
                                  });
    if (used) protocols.push_back(protocol);
  }
  if (protocols.empty()) protocols.push_back(Protocol::kHttp);
  return protocols;
}

std::size_t add_targets(std::vector<ValidationTarget>& targets, const Contestant& contestant,
                        const std::vector<Protocol>& protocols) {
  std::size_t added = 0;
  for (Protocol transport : {Protocol::kHttp, Protocol::kHttps}) {
    bool used = false, http2 = false;
    for (Protocol protocol : protocols) {
      if (transport_of(protocol) != transport) continue;
      used = true;
      http2 = http2 || (is_http2(protocol) && contestant.serves(protocol));
    }
    if (!used) continue;
    targets.push_back({&contestant, transport, added == 0, http2});
    ++added;
  }
  return added;
}

ValidationTally validate_each(
    const std::vector<ValidationTarget>& targets, const ValidationRunOptions& options,
    const std::function<void(std::size_t, const ContestantReport&)>& on_report) {
  ValidationTally tally;
  for (std::size_t i = 0; i < targets.size() && !tally.interrupted; ++i) {
    if (options.stop != nullptr && options.stop->load()) {
      tally.interrupted = true;
      break;
    }
    ValidationRunOptions target = options;
    target.start.protocol = targets[i].protocol;
    target.prove_http2 = targets[i].http2;
    target.fairness.enabled = options.fairness.enabled && targets[i].fairness;
    const ContestantReport report = validate_contestant(*targets[i].contestant, target);
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
