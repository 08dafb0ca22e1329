#include "harness/run/point_plan.hpp"

namespace ringside::harness {

PointLoad point_load(const PointPlan& plan, const Scenario& scenario, int port) {
  const Workload& workload = *plan.workload;
  const std::string& host = scenario.load.server_address;
  PointLoad load;
  load.workload = workload.name;
  load.loader = workload.loader;
  // "https://..." for an https or h2 workload: every loader is handed the URL as it is
  // (docs/loaders.md); HTTP/2 is ringside load's --http2 on either scheme.
  load.url_base = std::string(protocol_name(transport_of(workload.protocol))) + "://" +
                  (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
                  std::to_string(port);
  load.path = workload.path;
  load.method = workload.method;
  load.headers = workload.headers;
  load.body = workload.body;
  load.connections = plan.connections;
  load.threads = workload.loader_threads;
  load.pipeline = workload.pipeline;
  load.keep_alive = workload.keep_alive;
  load.http2 = is_http2(workload.protocol);
  load.streams = workload.streams;
  load.tls_resume = workload.tls_resume;
  load.rate = plan.offered_rate();
  load.requests = workload.requests;
  load.duration_s = workload.requests > 0 ? 0 : plan.duration_s;
  load.warmup_s = scenario.warmup_s;
  return load;
}

}  // namespace ringside::harness
