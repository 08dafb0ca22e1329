// A point's figures from the in-process loader: requests/s, latency percentiles, statuses and
// error classes out of a load::LoadResult, and the point's latency histogram kept as an
// HdrHistogram interval log in the results folder (one interval: the measured phase), so runs
// can be re-aggregated and plotted later with HdrHistogram's own tools.
//
//   fill_from_load(result, figures);
//   std::string log = histogram_log_name("hello", "nginx", "closed", 100, 0, 1);
//   if (write_histogram_log(out_dir, log, "comment", result)) figures.histogram_log = log;
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "harness/results.hpp"
#include "harness/sampler.hpp"
#include "load/load_run.hpp"

namespace ringside::harness {

void fill_from_load(const load::LoadResult& result, RoundFigures& figures);

// The database's figures from its process tree and statement count read at the start and the
// end of a point (`processes == 0` or nullopt: not measured), and the requests the server
// answered between those two readings: the count when the point ran a fixed number of requests
// (all of them fall between), else requests/s times the readings' distance, so a window a few
// milliseconds off the loader's does not skew the ratios. Counts that went backwards (statistics
// reset, database restarted) leave the figure unmeasured rather than invent one.
void fill_database_figures(const TreeUsage& before, const TreeUsage& after,
                           std::optional<std::uint64_t> queries_before,
                           std::optional<std::uint64_t> queries_after, double requests,
                           DatabaseFigures& out);

// "histograms/hello-nginx-closed-c100-round1.hlog"; an open point adds its rate: "-r2483".
std::string histogram_log_name(const std::string& workload, const std::string& contestant,
                               const std::string& mode, unsigned connections, double rate,
                               unsigned round);

// Writes dir/relative; false when it could not.
bool write_histogram_log(const std::filesystem::path& dir, const std::string& relative,
                         const std::string& comment, const load::LoadResult& result);

}  // namespace ringside::harness
