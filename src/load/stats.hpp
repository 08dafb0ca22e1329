// What one worker measured; merged after join. Nothing here is shared while a run is going.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "load/histogram.hpp"
#include "load/second_histograms.hpp"

namespace ringside::load {

// Every way a request can fail, each counted on its own.
// TCP's first SYN retransmission comes one second after the SYN (RFC 6298's initial RTO); a
// connect that took this long or more was retried.
inline constexpr std::chrono::milliseconds kSlowConnect{900};

enum class ErrorClass : std::uint8_t {
  kConnectRefused,  // nothing listens (ECONNREFUSED)
  kConnectTimeout,  // no handshake within --timeout
  kConnectError,    // any other connect failure (unreachable, out of ports or files)
  kReset,           // the server reset the connection (ECONNRESET, EPIPE)
  kRead,            // another read error
  kWrite,           // another write error
  kTimeout,         // no response within --timeout
  kMalformed,       // a response we could not parse
  kClosed,          // the server closed the connection with the request unanswered
  // https://: the TLS handshake failed after the TCP connect (an alert, a certificate that did
  // not verify, a reset or close before it finished, no finish within --timeout), or a record
  // that did not decrypt later.
  kTls,
  // --http2: the server broke the protocol (a frame we could not accept, a header block that did
  // not decode, no h2 agreed by ALPN on https://, bytes that were not HTTP/2 at all), or its
  // control frames outran our answers; every stream of the connection fails with it.
  kProtocol,
  // --http2: the server reset the stream (RST_STREAM: refused, cancelled, ...); the connection
  // goes on.
  kStreamReset,
  kCount,
};
inline constexpr std::size_t kErrorClasses = static_cast<std::size_t>(ErrorClass::kCount);

// Stable keys (the JSON schema uses them) and what each means to a reader.
constexpr std::string_view error_key(ErrorClass error) {
  constexpr std::string_view kKeys[] = {
      "connect_refused", "connect_timeout", "connect_error", "reset", "read",     "write",
      "timeout",         "malformed",       "closed",        "tls",   "protocol", "stream_reset"};
  return kKeys[static_cast<std::size_t>(error)];
}

// A failed connect's class, from its errno.
ErrorClass connect_error_class(int error);
// A failed read or write's: a reset, TLS (EPROTO: a record that did not decrypt, an alert), or
// `otherwise`.
ErrorClass io_error_class(int error, ErrorClass otherwise);

// https://: what the handshakes negotiated and how many there were. The strings are the first
// completed handshake's (read once per worker, so no request pays for them); a merge keeps the
// first it has.
struct TlsSummary {
  bool used = false;  // the run's URLs were https://
  std::string version;  // "TLSv1.3"; empty until a handshake completed
  std::string cipher;
  std::string group;
  std::string alpn;
  std::uint64_t handshakes = 0;  // completed during the measured phase
  std::uint64_t resumed = 0;     // of them, the ones that resumed a session

  void merge(const TlsSummary& other);
};

struct Stats {
  Stats() = default;

  Histogram latency;              // from the intended send time (corrected in -R mode)
  Histogram latency_uncorrected;  // from the moment the request was written
  Histogram connect;              // TCP handshake time, per connection opened
  Histogram tls_handshake;        // https://: TCP connected to TLS handshake done
  Histogram waiting;              // write to first response byte (ab's "waiting")
  std::uint64_t started = 0;
  std::uint64_t completed = 0;
  std::uint64_t errored = 0;
  std::uint64_t in_flight = 0;  // started but neither completed nor errored at the stop
  std::uint64_t warmup_requests = 0;
  std::uint64_t warmup_completed = 0;  // answers to warm-up requests (in no other figure)
  // Connects that took kSlowConnect or longer, warm-up included: their first SYN went unanswered
  // (a full listen queue drops it) and TCP sent it again after one second.
  std::uint64_t slow_connects = 0;
  // Requests outstanding integrated over the measured phase (request-seconds): divided by its
  // length, the mean number in flight, which a closed loop that keeps every connection busy
  // holds at connections x pipeline (Little's law's L, measured rather than inferred).
  double outstanding_s = 0;
  std::uint64_t connections_opened = 0;
  std::uint64_t connect_failures = 0;  // failed connects with no request waiting on them (-R)
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;
  std::uint64_t writes = 0;  // handed to the transport: a pipelined run batches requests in them
  TlsSummary tls;
  std::array<std::uint64_t, kErrorClasses> errors{};
  std::array<std::uint64_t, 600> status{};  // by code; index 0 collects anything out of range
  std::vector<std::uint64_t> per_second;    // completions in each second after the warm-up
  // With LoadConfig::latency_per_second: `latency` split by the second of the completion.
  SecondHistograms latency_seconds;

  void count_error(ErrorClass error, std::uint64_t requests) {
    errors[static_cast<std::size_t>(error)] += requests;
    errored += requests;
  }
  void count_completion(std::size_t second) {
    ++completed;
    if (second >= per_second.size()) per_second.resize(second + 1, 0);
    ++per_second[second];
  }
  void merge(const Stats& other);
  [[nodiscard]] std::uint64_t status_class(int hundreds) const;  // 1..5 -> 1xx..5xx
};

}  // namespace ringside::load
