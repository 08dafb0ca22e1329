#include "harness/run/point_watch.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>

#include "db/statement_counter.hpp"
#include "harness/measure/point_figures.hpp"

namespace ringside::harness {
namespace {

double process_cpu_s() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

}  // namespace

PointWatch::PointWatch(RunningContestant& server, const PointLoader& loader, WatchSetup setup,
                       std::function<bool()> stopping)
    : server_(server),
      loader_(loader),
      setup_(std::move(setup)),
      stopping_(std::move(stopping)),
      pid_(server.process().pid()),
      port_(server.port()),
      cpu_watch_(setup_.server_cpus, pid_, setup_.database_pid) {
  kernel_before_ = read_kernel_counters();
  drops_before_ = listener_drops(port_);
}

PointWatch::DatabaseReading PointWatch::read_database() const {
  DatabaseReading reading;
  const std::optional<std::uint64_t> answered_before = loader_.answered_so_far();
  if (setup_.statements != nullptr) reading.queries = setup_.statements->calls();
  if (setup_.database_pid > 0) reading.tree = measure_tree(setup_.database_pid);
  reading.at = Clock::now();
  if (answered_before) reading.answered = (*answered_before + loader_.answered_so_far().value_or(0)) / 2;
  return reading;
}

void PointWatch::read_database_before_load() {
  whole_run_ = true;
  database_start_ = read_database();
  database_start_.answered = 0;
}

void PointWatch::measure_start(const std::vector<pid_t>& loader_threads) {
  started_ = true;
  if (!whole_run_) database_start_ = read_database();
  tree_before_ = measure_tree(pid_);
  throttled_before_ = cgroup_throttled_s();
  process_cpu_before_ = process_cpu_s();
  measure_start_ = Clock::now();
  sampler_ = std::make_unique<PointSampler>(pid_, port_, loader_threads);
  sampler_->start();
  cpu_watch_.begin();
}

void PointWatch::measure_end() {
  cpu_watch_.end();
  database_end_ = read_database();
  kernel_after_ = read_kernel_counters();
  drops_after_ = listener_drops(port_);
  throttled_s_ = std::max(0.0, cgroup_throttled_s() - throttled_before_);
  if (sampler_) sampler_->sample_now();
  ended_ = true;
}

void PointWatch::finish() {
  if (!started_) measure_start({});
  if (!ended_) measure_end();
  sampled_ = sampler_->finish();
  tree_after_ = measure_tree(pid_);
  kernel_ = kernel_after_ - kernel_before_;
  wall_s_ = std::chrono::duration<double>(Clock::now() - measure_start_).count();
  process_cpu_s_ = process_cpu_s() - process_cpu_before_;
}

void PointWatch::fill(RoundFigures& figures, bool counted) const {
  if (!std::isfinite(figures.duration_s) || figures.duration_s <= 0) figures.duration_s = wall_s_;
  fill_server(figures);
  fill_database(figures, counted);
  figures.server_cpus = cpu_watch_.figures();
  fill_kernel(figures);
}

void PointWatch::fill_server(RoundFigures& figures) const {
  if (tree_after_.processes > 0) {
    figures.server_cpu_s = std::max(0.0, tree_after_.cpu_s - tree_before_.cpu_s);
    if (figures.completed > 0) {
      figures.server_cpu_us_per_request = figures.server_cpu_s * 1e6 / static_cast<double>(figures.completed);
    }
  }
  double peak = sampled_.rss_peak_kib;
  // A high-water mark that rose during the point was reached during it.
  if (tree_after_.hwm_kib > tree_before_.hwm_kib) peak = std::max(peak, tree_after_.hwm_kib);
  if (peak > 0) figures.rss_peak_kib = peak;
  if (sampled_.samples > 0) figures.rss_mean_kib = sampled_.rss_mean_kib;
}

void PointWatch::fill_database(RoundFigures& figures, bool counted) const {
  // The requests answered between the database's two readings: counted by the in-process
  // loader; for another, all of a counted point's, or the rate over the readings' window (they
  // are a few milliseconds off the loader's, which would skew short points).
  double answered_between = kUnmeasured;
  if (database_start_.answered && database_end_.answered) {
    answered_between = static_cast<double>(*database_end_.answered - *database_start_.answered);
  } else if (counted) {
    answered_between = static_cast<double>(figures.completed);
  } else {
    answered_between = figures.requests_per_s *
                       std::chrono::duration<double>(database_end_.at - database_start_.at).count();
  }
  fill_database_figures(database_start_.tree, database_end_.tree, database_start_.queries,
                        database_end_.queries, answered_between, figures.database);
}

void PointWatch::fill_kernel(RoundFigures& figures) const {
  figures.kernel.listen_overflows = kernel_.listen_overflows;
  figures.kernel.listen_drops = kernel_.listen_drops;
  figures.kernel.syn_retransmits = kernel_.syn_retransmits;
  figures.kernel.resets_sent = kernel_.resets_sent;
  figures.kernel.established_peak = sampled_.established_peak;
  if (listen_drops_per_port()) {
    figures.kernel.listen_drops = *drops_after_ >= *drops_before_ ? *drops_after_ - *drops_before_ : 0;
  }
}

LoaderCpu PointWatch::loader_cpu(double cores) const {
  return {.process_s = process_cpu_s_,
          .threads_run_s = sampled_.loader.run_s,
          .threads_wait_s = sampled_.loader.wait_s,
          .throttled_s = throttled_s_,
          .cores = cores};
}

}  // namespace ringside::harness
