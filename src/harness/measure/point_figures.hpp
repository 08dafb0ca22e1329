// A point's figures from its load generators: requests/s, latency percentiles, statuses and
// error classes out of their merge (load/merge.hpp, the code `ringside merge` runs: the local
// loader is a merge of one, load hosts a merge of several), each generator's own figures, and the
// point's latency histogram kept as an HdrHistogram interval log in the results folder (one
// interval per second, per generator with its tag), so runs can be re-aggregated and plotted
// later with HdrHistogram's own tools.
//
//   fill_from_merge(load::merge_generators(std::move(inputs)), figures, /*per_generator=*/true);
//   fill_from_load(result, figures);                              // one local generator
//   std::string log = histogram_log_name("hello", "nginx", LoadMode::kClosed, 100, 0, 1);
//   if (write_histogram_log(out_dir, log, "comment", result)) figures.histogram_log = log;
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/results/results.hpp"
#include "harness/measure/sampler.hpp"
#include "load/load_run.hpp"
#include "load/merge.hpp"

namespace ringside::harness {

// The merged figures; with per_generator, also figures.generators (one per input, its tag's name).
void fill_from_merge(const load::MergedRun& merged, RoundFigures& figures, bool per_generator);
// A merge of this one result.
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
                               LoadMode mode, unsigned connections, double rate, unsigned round);

// Writes dir/relative; false when it could not. One interval per second when the run kept its
// seconds (LoadConfig::latency_per_second), else one for the measured phase.
bool write_histogram_log(const std::filesystem::path& dir, const std::string& relative,
                         const std::string& comment, const load::LoadResult& result);
// The same from the generators' own logs (`ringside load --hlog` text), their intervals moved
// onto the earliest generator's start and tagged with the generator's tag.
bool write_histogram_log(const std::filesystem::path& dir, const std::string& relative,
                         const std::string& comment, const load::MergedRun& merged,
                         const std::vector<std::string>& logs);

}  // namespace ringside::harness
