// ringside load on the load hosts as a point's loader (harness/run/point_loader.hpp): each host
// its share, started together over ssh (harness/loaders/load_hosts.hpp), their results merged.
#include <chrono>
#include <cmath>

#include "harness/loaders/load_hosts.hpp"
#include "harness/measure/point_figures.hpp"
#include "harness/run/point_loader.hpp"
#include "load/merge.hpp"

namespace ringside::harness {
namespace {

RemotePoint remote_point(const PointLoad& load) {
  RemotePoint point;
  point.urls = {load.url()};
  point.method = load.method;
  point.headers = load.headers;
  point.body = load.body;
  point.connections = load.connections;
  point.threads = load.threads;
  point.pipeline = load.pipeline;
  point.keep_alive = load.keep_alive;
  point.http2 = load.http2;
  point.streams = load.streams;
  point.tls_resume = load.tls_resume;
  point.rate = load.rate;
  point.requests = load.requests;
  point.duration_s = load.duration_s;
  point.warmup_s = load.warmup_s;
  point.timeout_s = load.timeout_s;
  return point;
}

double wall_now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

class RemoteLoader final : public PointLoader {
 public:
  RemoteLoader(LoadHosts& hosts, std::function<void(const std::string&)> say)
      : hosts_(hosts), say_(std::move(say)) {}

  LoaderRun run(const PointLoad& load, PointWindow& window) override {
    const RemotePoint point = remote_point(load);
    bool started = false, ended = false, alive = true;
    // The server's side is measured over the hosts' window: from the instant, for the duration.
    RemoteOutcome outcome = hosts_.run(point, [&](double start_at) {
      const double now = wall_now_s();
      if (!started && now >= start_at) {
        started = true;
        window.measure_start({});
      }
      if (started && !ended && point.duration_s > 0 && now >= start_at + point.duration_s) {
        ended = true;
        window.measure_end();
      }
      if (alive && !window.server_alive()) alive = false;
      return alive;
    });
    if (!started) window.measure_start({});
    if (!ended) window.measure_end();
    return outcome_of(std::move(outcome), alive);
  }

  void account_cpu(RoundFigures& figures, const LoaderCpu&) const override {
    // Each host's own CPU: the saturation check runs per generator (point_summary.hpp), and the
    // busiest one speaks for the point.
    if (!figures.generators.empty()) figures.loader_cpu_s = merged_.total.cpu_s;
    for (const GeneratorFigures& g : figures.generators) {
      if (std::isfinite(g.cpu_share) && !(figures.loader_cpu_share >= g.cpu_share)) {
        figures.loader_cpu_share = g.cpu_share;
      }
    }
  }

  bool write_histogram_log(const std::filesystem::path& dir, const std::string& relative,
                           const std::string& comment) const override {
    return merged_.total.stats.latency.count() > 0 &&
           harness::write_histogram_log(
               dir, relative, comment + ", load hosts " + std::to_string(merged_.generators.size()),
               merged_, logs_);
  }

 private:
  LoaderRun outcome_of(RemoteOutcome outcome, bool alive) {
    LoaderRun run;
    run.server_alive = alive;
    run.error = outcome.error;
    if (run.error.empty()) {
      merged_ = load::merge_generators(std::move(outcome.generators));
      if (say_) {
        for (const std::string& warning : merged_.warnings) say_("warning: " + warning);
      }
      logs_ = std::move(outcome.logs);
      fill_from_merge(merged_, run.figures, /*per_generator=*/true);
    }
    // Of ringside load's own connection accounting, what survives the merge (zero when the
    // hosts gave no result, as before).
    const load::Stats& stats = merged_.total.stats;
    run.in_flight_at_end = static_cast<long long>(stats.in_flight);
    run.resets = static_cast<long long>(stats.errors[static_cast<std::size_t>(load::ErrorClass::kReset)]);
    return run;
  }

  LoadHosts& hosts_;
  std::function<void(const std::string&)> say_;
  load::MergedRun merged_;
  std::vector<std::string> logs_;  // each host's --hlog text
};

}  // namespace

std::unique_ptr<PointLoader> make_remote_loader(LoadHosts& hosts,
                                                const std::function<void(const std::string&)>& say) {
  return std::make_unique<RemoteLoader>(hosts, say);
}

}  // namespace ringside::harness
