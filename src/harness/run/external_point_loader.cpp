// Another program as a point's loader (harness/run/point_loader.hpp): wrk, ab, h2load or hey on
// the load CPUs (harness/loaders/external_loader.hpp), after ringside load's own warm-up, since
// not every tool has one; or, for a URL ringside load does not take yet (https), after a run of
// the tool itself.
#include <cmath>

#include "harness/loaders/external_loader.hpp"
#include "harness/run/point_loader.hpp"
#include "load/target.hpp"

namespace ringside::harness {
namespace {

// The workload's pipeline is not passed on: external points have always run unpipelined.
LoaderSpec loader_spec(const PointLoad& load, const std::string& cpus) {
  LoaderSpec spec;
  spec.kind = load.loader;
  spec.url = load.url();
  spec.method = load.method;
  spec.headers = load.headers;
  spec.body = load.body;
  spec.connections = load.connections;
  spec.threads = load.threads;
  spec.duration_s = load.duration_s;
  spec.requests = load.requests;
  spec.rate = load.rate;
  spec.keep_alive = load.keep_alive;
  spec.cpus = cpus;
  return spec;
}

// The warm-up's window: the server's liveness and the run's stop, but no measured phase.
class WarmUpWindow final : public PointWindow {
 public:
  explicit WarmUpWindow(PointWindow& point) : point_(point) {}
  void measure_start(const std::vector<pid_t>&) override {}
  void measure_end() override {}
  [[nodiscard]] bool server_alive() override { return point_.server_alive(); }
  [[nodiscard]] bool stopping() const override { return point_.stopping(); }

 private:
  PointWindow& point_;
};

class ExternalLoader final : public PointLoader {
 public:
  explicit ExternalLoader(std::string cpus) : cpus_(std::move(cpus)) {}

  LoaderRun run(const PointLoad& load, PointWindow& window) override {
    LoaderRun run;
    run.server_alive = warm_up(load, window);
    if (!run.server_alive || window.stopping()) return run;
    window.measure_start({});
    LoaderOutcome outcome = run_external_loader(loader_spec(load, cpus_));
    window.measure_end();
    run.figures = std::move(outcome.figures);
    run.error = std::move(outcome.error);
    run.server_alive = window.server_alive();
    return run;
  }

  void account_cpu(RoundFigures& figures, const LoaderCpu& cpu) const override {
    // loader_cpu_s is the tool's own, from wait4.
    if (std::isfinite(figures.loader_cpu_s) && figures.duration_s > 0) {
      figures.loader_cpu_share = figures.loader_cpu_s / (figures.duration_s * cpu.cores);
    }
  }

  bool write_histogram_log(const std::filesystem::path&, const std::string&,
                           const std::string&) const override {
    return false;  // the tools keep no latency histogram to write
  }

 private:
  bool warm_up(const PointLoad& load, PointWindow& window) const {
    if (load.warmup_s <= 0) return true;
    load::Url url;
    std::string refused;
    if (!load::parse_url(load.url(), url, refused)) return warm_up_with_the_tool(load, window);
    WarmUpWindow warm_up_window(window);
    return make_in_process_loader(/*measured=*/false)->run(load, warm_up_window).server_alive;
  }

  // The tool's own unmeasured run for the warm-up (whole seconds: wrk and ab take no fraction),
  // so its connections and their TLS handshakes are made before the measured phase, as ringside
  // load's warm-up would. Its failure shows in the measured run that follows.
  bool warm_up_with_the_tool(const PointLoad& load, PointWindow& window) const {
    LoaderSpec spec = loader_spec(load, cpus_);
    spec.requests = 0;
    spec.duration_s = std::ceil(load.warmup_s);
    (void)run_external_loader(spec);
    return window.server_alive();
  }

  std::string cpus_;  // the load CPUs, for taskset
};

}  // namespace

std::unique_ptr<PointLoader> make_external_loader(const std::string& cpus) {
  return std::make_unique<ExternalLoader>(cpus);
}

}  // namespace ringside::harness
