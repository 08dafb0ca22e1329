// Settings of one load run (what `ringside load` flags produce, what the harness builds).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "load/target.hpp"

namespace ringside::load {

// --share K/N: this generator is part `index` (0 to of - 1) of a load split `of` ways.
struct LoadShare {
  unsigned index = 0;
  unsigned of = 1;
};

// Part `share.index` of `total` split `share.of` ways: the quotient, one more for the first
// total % of parts, so the parts add up to total (--share, and compare's load hosts).
inline std::uint64_t share_of(std::uint64_t total, LoadShare share) {
  return total / share.of + (share.index < total % share.of ? 1 : 0);
}

struct LoadConfig {
  std::vector<Target> targets;  // requests go round-robin over these, per connection
  unsigned connections = 50;
  unsigned threads = std::thread::hardware_concurrency() == 0 ? 1 : std::thread::hardware_concurrency();
  std::uint64_t requests = 0;     // -n: stop after this many measured requests (0: not set)
  double duration_s = 0;          // -d: stop after this long (0: not set; neither set: 10 s)
  double rate = 0;                // -R: requests/s in total, open model (0: as fast as possible)
  unsigned pipeline = 1;          // requests in flight per connection (HTTP/1.1)
  // --http2: HTTP/2, by ALPN h2 on https:// URLs and with prior knowledge (h2c) on http:// ones,
  // as h2load does; `streams` requests in flight per connection (h2load's -m), fewer when the
  // server's SETTINGS_MAX_CONCURRENT_STREAMS says so.
  bool http2 = false;
  unsigned streams = 1;
  double timeout_s = 10;          // per request, and per connect
  double warmup_s = 0;            // traffic before measuring, excluded from every number
  bool keep_alive = true;
  // https:// only. --cacert: verify servers against the CA certificates in this PEM file (""
  // verifies nothing, as wrk and h2load). --tls-resume: the share of new connections that offer
  // the worker's last session, decided by an accumulator per worker (0: every connection a full
  // handshake; 1: every connection once the worker holds a session).
  std::string ca_file;
  double tls_resume = 0;
  // --start-at: the measured phase begins at this wall-clock instant (seconds since the epoch),
  // after the connections are open and the warm-up (cut at the instant) is done, so generators
  // on several machines begin together. Unset: it begins right after the warm-up.
  std::optional<double> start_at_epoch_s;
  std::string tag;  // --tag: names this generator in the JSON and the histogram log ("": none)
  // --share: the part of a split load this is; connections, requests and rate above are the
  // part's already (apps/ringside/share_flag.hpp). Unset: the whole load.
  std::optional<LoadShare> share;
  // --hlog: also keep the corrected latency of each second (Stats::latency_seconds).
  bool latency_per_second = false;
  // At the end (or a stop), wait up to this long for the answers still in flight before closing
  // the connections, sending nothing new: a server still answering then sees its peer close, not
  // a reset. 0 (the CLI's): close at once, as wrk does. The harness's fairness burst drains, so
  // a contestant's output holds no tracebacks its checker caused.
  double drain_s = 0;

  // The URLs' scheme (they all share one, load_run's validate).
  [[nodiscard]] bool tls() const { return !targets.empty() && targets.front().url.tls; }
  // "h2", "h2c" or "http/1.1": what the JSON and the report call the protocol.
  [[nodiscard]] const char* protocol() const {
    return !http2 ? "http/1.1" : (tls() ? "h2" : "h2c");
  }
  [[nodiscard]] double effective_duration_s() const {
    return duration_s > 0 ? duration_s : (requests > 0 ? 0 : 10.0);
  }
};

// Ranges of the settings above, enforced by validate() (load_run.hpp) and by the CLI. Time limits
// keep seconds -> nanoseconds and deadline arithmetic far from overflow.
inline constexpr unsigned kMaxPipeline = 64;
inline constexpr unsigned kMaxStreams = 1000;
inline constexpr unsigned kMaxConnections = 1'000'000;
inline constexpr unsigned kMaxThreads = 1024;
inline constexpr double kMaxDurationS = 30 * 24 * 3600.0;  // -d: 30 days
inline constexpr double kMinTimeoutS = 0.001;
inline constexpr double kMaxTimeoutS = 3600;
inline constexpr double kMaxWarmupS = 3600;
inline constexpr double kMinRate = 0.01;  // one request per 100 s
inline constexpr double kMaxRate = 100'000'000;
inline constexpr double kMaxStartAheadS = 24 * 3600.0;  // --start-at: at most a day ahead
inline constexpr std::size_t kMaxTagLength = 64;

// "" when `tag` is 1..kMaxTagLength characters of [A-Za-z0-9._-] (safe in a log line, a file
// name and a shell word); otherwise what is wrong with it.
std::string check_tag(std::string_view tag);

}  // namespace ringside::load
