// Turns a LoadResult into what people read: a text report (wrk's summary, ab's percentile and
// connection-time tables, bombardier's per-second rates) and one JSON document whose schema is
// documented in docs/load-json.md and versioned by its "schema" field.
#pragma once

#include <array>
#include <string>

#include <nlohmann/json.hpp>

#include "load/load_run.hpp"

namespace ringside::load {

inline constexpr std::array<double, 11> kReportPercentiles = {50,   66,   75,   80,    90, 95,
                                                              98,   99,   99.9, 99.99, 100};
// 3 added the `tls` error class, `tls` and `tls_handshake_us`; merge reads 2 as well.
inline constexpr int kJsonSchemaVersion = 4;
inline constexpr int kOldestMergedSchema = 2;

struct RateSummary {
  double overall = 0;   // completed / elapsed
  double mean = 0;      // of whole seconds
  double stdev = 0;
  double max = 0;
};
RateSummary summarize_rates(const LoadResult& result);

std::string format_text(const LoadResult& result);
// The parts of format_text after the counts: latency, status codes, errors, connection times
// (`ringside merge` prints its own head above them).
std::string format_details(const LoadResult& result);
nlohmann::ordered_json to_json(const LoadResult& result);
// The same with a given "config" object (a merge has no single LoadConfig).
nlohmann::ordered_json to_json(const LoadResult& result, nlohmann::ordered_json config);
nlohmann::ordered_json config_json(const LoadConfig& config);
// One histogram's JSON object: the summary, the percentiles, and since schema 2 `hdr` (base64
// of the compressed V2 encoding, hdr_log.hpp) with the layout, so a JSON result alone can be
// merged exactly.
nlohmann::ordered_json histogram_json(const Histogram& histogram);
// The `tls` object (negotiated parameters, handshakes, resumed), or null for plain http://.
nlohmann::ordered_json tls_json(const TlsSummary& tls);

// "812us", "1.23ms", "2.50s"
std::string format_micros(double micros);

}  // namespace ringside::load
