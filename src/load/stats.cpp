#include "load/stats.hpp"

#include <algorithm>
#include <cerrno>

namespace ringside::load {

ErrorClass connect_error_class(int error) {
  if (error == ECONNREFUSED) return ErrorClass::kConnectRefused;
  if (error == ETIMEDOUT) return ErrorClass::kConnectTimeout;
  return ErrorClass::kConnectError;
}

ErrorClass io_error_class(int error, ErrorClass otherwise) {
  if (error == EPROTO) return ErrorClass::kTls;
  return (error == ECONNRESET || error == EPIPE) ? ErrorClass::kReset : otherwise;
}

void TlsSummary::merge(const TlsSummary& other) {
  used = used || other.used;
  if (version.empty() && !other.version.empty()) {
    version = other.version;
    cipher = other.cipher;
    group = other.group;
    alpn = other.alpn;
  }
  handshakes += other.handshakes;
  resumed += other.resumed;
}

void Stats::merge(const Stats& other) {
  latency.merge(other.latency);
  latency_uncorrected.merge(other.latency_uncorrected);
  connect.merge(other.connect);
  tls_handshake.merge(other.tls_handshake);
  tls.merge(other.tls);
  waiting.merge(other.waiting);
  latency_seconds.merge(other.latency_seconds);
  started += other.started;
  completed += other.completed;
  errored += other.errored;
  in_flight += other.in_flight;
  warmup_requests += other.warmup_requests;
  warmup_completed += other.warmup_completed;
  slow_connects += other.slow_connects;
  outstanding_s += other.outstanding_s;
  connections_opened += other.connections_opened;
  connect_failures += other.connect_failures;
  bytes_read += other.bytes_read;
  bytes_written += other.bytes_written;
  writes += other.writes;
  for (std::size_t i = 0; i < errors.size(); ++i) errors[i] += other.errors[i];
  for (std::size_t i = 0; i < status.size(); ++i) status[i] += other.status[i];
  if (other.per_second.size() > per_second.size()) per_second.resize(other.per_second.size(), 0);
  for (std::size_t i = 0; i < other.per_second.size(); ++i) per_second[i] += other.per_second[i];
}

std::uint64_t Stats::status_class(int hundreds) const {
  std::uint64_t sum = 0;
  for (int code = hundreds * 100; code < hundreds * 100 + 100 && code < 600; ++code) sum += status[code];
  return sum;
}

}  // namespace ringside::load
