#include "harness/point_figures.hpp"

#include <cmath>
#include <cstdio>

#include "load/hdr_log.hpp"

namespace ringside::harness {

void fill_from_load(const load::LoadResult& result, RoundFigures& figures) {
  const load::Stats& stats = result.stats;
  figures.duration_s = result.elapsed_s;
  figures.completed = stats.completed;
  figures.failed = stats.errored;
  figures.requests_per_s = result.elapsed_s > 0
                               ? static_cast<double>(stats.completed) / result.elapsed_s
                               : kUnmeasured;
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
}

std::string histogram_log_name(const std::string& workload, const std::string& contestant,
                               const std::string& mode, unsigned connections, double rate,
                               unsigned round) {
  std::string name = workload + "-" + contestant + "-" + mode + "-c" + std::to_string(connections);
  if (mode == "open") name += "-r" + std::to_string(std::llround(rate));
  return "histograms/" + name + "-round" + std::to_string(round) + ".hlog";
}

bool write_histogram_log(const std::filesystem::path& dir, const std::string& relative,
                         const std::string& comment, const load::LoadResult& result) {
  const std::filesystem::path path = dir / relative;
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) return false;
  load::HdrLogWriter log(file);
  log.write_comment(comment);
  log.write_header(result.start_epoch_s);
  log.write_interval(0, result.elapsed_s, result.stats.latency);
  return std::fclose(file) == 0 && log.ok();
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
