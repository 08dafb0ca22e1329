#include "harness/measure/point_figures.hpp"

#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>

#include "load/hdr_log.hpp"

namespace ringside::harness {

void fill_from_merge(const load::MergedRun& merged, RoundFigures& figures, bool per_generator) {
  const load::Stats& stats = merged.total.stats;
  const double window = merged.window_s();
  figures.duration_s = window > 0 ? window : merged.total.elapsed_s;
  figures.completed = stats.completed;
  figures.failed = stats.errored;
  figures.requests_per_s = window > 0 ? merged.requests_per_s : kUnmeasured;
  if (stats.latency.count() > 0) {
    const load::Histogram& h = stats.latency;
    figures.latency.p50 = static_cast<double>(h.value_at_percentile(50));
    figures.latency.p90 = static_cast<double>(h.value_at_percentile(90));
    figures.latency.p99 = static_cast<double>(h.value_at_percentile(99));
    figures.latency.p999 = static_cast<double>(h.value_at_percentile(99.9));
    figures.latency.p9999 = static_cast<double>(h.value_at_percentile(99.99));
    figures.latency.max = static_cast<double>(h.max());
    figures.latency.mean = h.mean();
  }
  for (std::size_t code = 0; code < stats.status.size(); ++code) {
    if (stats.status[code] > 0) {
      figures.statuses[code == 0 ? "other" : std::to_string(code)] = stats.status[code];
    }
  }
  for (std::size_t error = 0; error < load::kErrorClasses; ++error) {
    if (stats.errors[error] > 0) {
      const auto key = load::error_key(static_cast<load::ErrorClass>(error));
      figures.errors[std::string(key)] = stats.errors[error];
    }
  }
  if (!per_generator) return;
  figures.generators.clear();
  for (const load::GeneratorResult& g : merged.generators) {
    const load::LoadResult& r = g.result;
    GeneratorFigures one;
    one.name = g.tag.empty() ? g.file : g.tag;
    one.completed = r.stats.completed;
    one.failed = r.stats.errored;
    if (r.elapsed_s > 0) one.requests_per_s = static_cast<double>(r.stats.completed) / r.elapsed_s;
    if (r.start_late_s) one.start_late_s = *r.start_late_s;
    if (r.threads > 0) {
      one.cpu_s = r.cpu_s;
      one.threads = r.threads;
      if (r.elapsed_s > 0) one.cpu_share = r.cpu_s / (r.elapsed_s * r.threads);
    }
    figures.generators.push_back(std::move(one));
  }
}

void fill_from_load(const load::LoadResult& result, RoundFigures& figures) {
  std::vector<load::GeneratorResult> one(1);
  one.front().file = "local";
  one.front().tag = result.config.tag;
  one.front().result = result;
  fill_from_merge(load::merge_generators(std::move(one)), figures, false);
}

std::string histogram_log_name(const std::string& workload, const std::string& contestant,
                               LoadMode mode, unsigned connections, double rate, unsigned round) {
  std::string name = workload + "-" + contestant + "-" + std::string(mode_name(mode)) + "-c" +
                     std::to_string(connections);
  if (mode == LoadMode::kOpen) name += "-r" + std::to_string(std::llround(rate));
  return "histograms/" + name + "-round" + std::to_string(round) + ".hlog";
}

namespace {

bool write_log(const std::filesystem::path& dir, const std::string& relative,
               const std::function<void(load::HdrLogWriter&)>& body) {
  const std::filesystem::path path = dir / relative;
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) return false;
  load::HdrLogWriter log(file);
  bool ok = true;
  try {
    body(log);
  } catch (const std::exception&) {
    ok = false;
  }
  return std::fclose(file) == 0 && ok && log.ok();
}

}  // namespace

bool write_histogram_log(const std::filesystem::path& dir, const std::string& relative,
                         const std::string& comment, const load::LoadResult& result) {
  return write_log(dir, relative, [&](load::HdrLogWriter& log) {
    log.write_comment(comment);
    log.write_header(result.start_epoch_s);
    if (result.stats.latency_seconds.enabled()) {
      load::write_intervals_per_second(log, result.stats.latency_seconds, result.elapsed_s,
                                       result.config.tag);
    } else {
      log.write_interval(0, result.elapsed_s, result.stats.latency);
    }
  });
}

bool write_histogram_log(const std::filesystem::path& dir, const std::string& relative,
                         const std::string& comment, const load::MergedRun& merged,
                         const std::vector<std::string>& logs) {
  return write_log(dir, relative, [&](load::HdrLogWriter& log) {
    log.write_comment(comment);
    const double start = merged.total.start_epoch_s;
    log.write_header(start);
    for (std::size_t i = 0; i < merged.generators.size(); ++i) {
      const load::GeneratorResult& g = merged.generators[i];
      const double shift = g.result.start_epoch_s - start;
      if (i >= logs.size() || logs[i].empty()) {
        // No log came back: the generator's whole phase as one interval.
        log.write_interval(shift, g.result.elapsed_s, g.result.stats.latency, g.tag);
        continue;
      }
      std::istringstream in(logs[i]);
      const load::HdrLog read = load::read_hdr_log(in);
      const double base = read.start_epoch_s ? *read.start_epoch_s - start : shift;
      for (const load::HdrLogInterval& interval : read.intervals) {
        log.write_interval(base + interval.start_s, interval.length_s, interval.histogram,
                           interval.tag.empty() ? g.tag : interval.tag);
      }
    }
  });
}

void fill_database_figures(const TreeUsage& before, const TreeUsage& after,
                           std::optional<std::uint64_t> queries_before,
                           std::optional<std::uint64_t> queries_after, double requests,
                           DatabaseFigures& out) {
  out = {};
  const bool per_request = std::isfinite(requests) && requests > 0;
  if (before.processes > 0 && after.processes > 0 && after.cpu_s >= before.cpu_s) {
    out.cpu_s = after.cpu_s - before.cpu_s;
    if (per_request) out.cpu_us_per_request = out.cpu_s * 1e6 / requests;
  }
  if (queries_before && queries_after && *queries_after >= *queries_before) {
    out.queries = static_cast<double>(*queries_after - *queries_before);
    if (per_request) out.queries_per_request = out.queries / requests;
    if (std::isfinite(out.cpu_s) && out.queries > 0) out.cpu_us_per_query = out.cpu_s * 1e6 / out.queries;
  }
}

}  // namespace ringside::harness
