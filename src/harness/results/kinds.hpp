// The few closed sets of values a run is described with: the load model of a point, the program
// that generates its load, the protocol a workload speaks and the key its certificate has, and
// what became of a contestant. Parsed once where they enter (a
// scenario file, results.json) and written as names only where they leave (results.json, the
// reports), so a misspelt value is a compile error inside the harness, not a silent default.
//
//   const std::optional<LoadMode> mode = mode_from_name("open");   // nothing when unknown
//   std::string_view text = mode_name(LoadMode::kClosed);          // "closed"
#pragma once

#include <optional>
#include <string_view>

namespace ringside::harness {

// Closed: a fixed number of connections, each sending as fast as it is answered. Open: requests
// at a fixed rate, whether or not the server keeps up.
enum class LoadMode { kClosed, kOpen };

// ringside load (in-process, or on the load hosts), or another tool run as a program.
enum class LoaderKind { kRingside, kWrk, kAb, kH2load, kHey };

// What a workload's requests go over: plain HTTP/1.1, HTTP/1.1 over TLS, HTTP/2 on a plain port
// with prior knowledge (h2c), or HTTP/2 over TLS agreed by ALPN (h2).
enum class Protocol { kHttp, kHttps, kH2c, kH2 };

// Whether it runs over TLS (the contestant is started with the run's certificate), and whether
// it is HTTP/2.
constexpr bool over_tls(Protocol protocol) {
  return protocol == Protocol::kHttps || protocol == Protocol::kH2;
}
constexpr bool is_http2(Protocol protocol) {
  return protocol == Protocol::kH2c || protocol == Protocol::kH2;
}
// The port a contestant serves it on: plain (kHttp) or TLS (kHttps).
constexpr Protocol transport_of(Protocol protocol) {
  return over_tls(protocol) ? Protocol::kHttps : Protocol::kHttp;
}

// The key of a run's throwaway server certificate (harness/process/tls_material.hpp).
enum class TlsKey { kEcdsaP256, kRsa2048 };

// Ran: timed (its points may still carry failures); skipped: could not run here; failed: did not
// pass validation, or broke during the run.
enum class ContestantStatus { kRan, kSkipped, kFailed };

std::string_view mode_name(LoadMode mode);                         // "closed" | "open"
std::optional<LoadMode> mode_from_name(std::string_view name);     // nothing when unknown

std::string_view loader_name(LoaderKind kind);                     // "ringside", "wrk", ...
std::optional<LoaderKind> loader_from_name(std::string_view name);

std::string_view protocol_name(Protocol protocol);  // "http" | "https" | "h2c" | "h2"
std::optional<Protocol> protocol_from_name(std::string_view name);

std::string_view tls_key_name(TlsKey key);                          // "ecdsa-p256" | "rsa2048"
std::optional<TlsKey> tls_key_from_name(std::string_view name);

std::string_view status_name(ContestantStatus status);             // "ran" | "skipped" | "failed"
std::optional<ContestantStatus> status_from_name(std::string_view name);

}  // namespace ringside::harness
