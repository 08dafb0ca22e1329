// A point's figures from the in-process loader: requests/s, latency percentiles, statuses and
// error classes out of a load::LoadResult, and the point's latency histogram kept as an
// HdrHistogram interval log in the results folder (one interval: the measured phase), so runs
// can be re-aggregated and plotted later with HdrHistogram's own tools.
//
//   fill_from_load(result, figures);
//   std::string log = histogram_log_name("hello", "nginx", "closed", 100, 0, 1);
//   if (write_histogram_log(out_dir, log, "comment", result)) figures.histogram_log = log;
#pragma once

#include <filesystem>
#include <string>

#include "harness/results.hpp"
#include "load/load_run.hpp"

namespace ringside::harness {

void fill_from_load(const load::LoadResult& result, RoundFigures& figures);

// "histograms/hello-nginx-closed-c100-round1.hlog"; an open point adds its rate: "-r2483".
std::string histogram_log_name(const std::string& workload, const std::string& contestant,
                               const std::string& mode, unsigned connections, double rate,
                               unsigned round);

// Writes dir/relative; false when it could not.
bool write_histogram_log(const std::filesystem::path& dir, const std::string& relative,
                         const std::string& comment, const load::LoadResult& result);

}  // namespace ringside::harness
