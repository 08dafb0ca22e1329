// Settings of `ringside serve`, with the defaults the CLI shows and the ranges it enforces
// (README's flag table lists both).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>

namespace ringside::server {

struct ServerConfig {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8080;  // 0: any free port (the start-up line says which)
  unsigned threads = std::thread::hardware_concurrency() == 0 ? 1 : std::thread::hardware_concurrency();
  std::size_t max_connections = 16384;
  double header_timeout_s = 10;  // a request head must arrive within this (slowloris)
  double idle_timeout_s = 60;    // a keep-alive connection may wait this long for its next request
  double drain_timeout_s = 5;    // graceful shutdown gives in-flight requests this long
  std::uint64_t max_body = 1024 * 1024;
  // Listen on --port even when another server (of the same user) already does, sharing its
  // SO_REUSEPORT group: the kernel spreads new connections over both. For rolling restarts.
  bool share_port = false;
  // TLS (`--tls-port`): a second listener beside --port's plain one, on the same host, serving
  // the same routes over TLS 1.2/1.3 with this certificate and key (PEM files), or with an ECDSA
  // P-256 certificate made at start (tls_self_signed).
  bool tls = false;
  std::uint16_t tls_port = 8443;  // 0: any free port (the start-up line says which)
  std::string tls_cert;
  std::string tls_key;
  bool tls_self_signed = false;
  // Kernel TLS (`--ktls`): TLS 1.3 connections hand their sending to the kernel after the
  // handshake, where the kernel has the TLS ULP; otherwise TLS stays in userspace (said at start).
  bool ktls = false;
  // HTTP/2 (`--no-http2` turns it off): h2c on --port for a client that opens with the preface
  // (prior knowledge), h2 by ALPN on --tls-port; the limits each connection advertises and
  // enforces.
  bool http2 = true;
  std::uint32_t h2_max_streams = 100;        // concurrent streams per connection
  std::uint32_t h2_max_header_list = 16384;  // bytes of a request's fields
  std::uint32_t h2_initial_window = 65535;   // bytes a stream may send before its window update
  std::uint32_t h2_reset_burst = 1000;       // streams a client may reset at once...
  std::uint32_t h2_reset_rate = 33;          // ...and then per second; beyond: GOAWAY
  // `--h2-codec`: the framing, ours (server/h2_server_codec.hpp) or libnghttp2's
  // (server/nghttp2_codec.hpp), kept to compare against.
  bool h2_nghttp2_codec = false;
};

// Ranges of the settings above. Timeouts are bounded so that seconds convert to nanoseconds and
// add to a deadline without overflow, and so that a typo (1e10) is an error rather than a server
// that drops every connection.
inline constexpr unsigned kMaxThreads = 1024;
inline constexpr std::size_t kMaxConnections = 10'000'000;
inline constexpr double kMinTimeoutS = 0.001;
inline constexpr double kMaxHeaderTimeoutS = 3600;
inline constexpr double kMaxIdleTimeoutS = 24 * 3600;
inline constexpr double kMaxDrainTimeoutS = 3600;  // from 0: close everything at once
inline constexpr std::uint32_t kMaxH2Streams = 10000;
inline constexpr std::uint32_t kMinH2HeaderList = 1024;
inline constexpr std::uint32_t kMaxH2HeaderList = 65535;   // a field's length is kept in 16 bits
inline constexpr std::uint32_t kMaxH2Window = 2147483647;  // 2^31 - 1, RFC 9113 section 6.9.1
inline constexpr std::uint64_t kMaxBodyLimit = std::uint64_t{1} << 40;  // 1 TiB

// Checks every setting against its range (NaN included); returns one line naming the field, or
// "". Server's constructor throws std::invalid_argument with it, so an embedder that skips the
// CLI cannot start a server that drops every connection.
std::string validate(const ServerConfig& config);

}  // namespace ringside::server
