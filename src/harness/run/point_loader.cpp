#include "harness/run/point_loader.hpp"

namespace ringside::harness {

std::unique_ptr<PointLoader> make_point_loader(const Workload& workload, const LoaderSetup& setup) {
  // The scenario lets only ringside load run on the load hosts (scenario.cpp).
  if (setup.scenario->load.remote()) return make_remote_loader(*setup.load_hosts, setup.say);
  if (workload.loader == LoaderKind::kRingside) return make_in_process_loader(/*measured=*/true);
  return make_external_loader(setup.scenario->load_cpus);
}

}  // namespace ringside::harness
