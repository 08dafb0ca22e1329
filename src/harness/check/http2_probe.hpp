// Whether a contestant really speaks HTTP/2 where its manifest says it does (protocols "h2c",
// "h2"), before HTTP/2 workloads time it: some servers take an http2 flag and ignore it, or serve
// HTTP/1.1 over TLS with no ALPN at all. The probe sends HTTP/2's client preface and an empty
// SETTINGS, and wants the server's SETTINGS back (RFC 9113 section 3.4); over TLS it first offers
// ALPN "h2" alone and wants it agreed.
//
//   std::string problem = prove_http2("127.0.0.1", port, "", 5.0);             // h2c
//   std::string problem = prove_http2("127.0.0.1", port, files.ca, 5.0);       // h2
//   if (!problem.empty()) ... "answered HTTP/2's preface with \"HTTP/1.1 400 Bad Request\""
#pragma once

#include <string>

namespace ringside::harness {

// "" when the server at host:port speaks HTTP/2 (over TLS when `ca_file`, the run's CA, is not
// empty), else one line saying what it did instead.
std::string prove_http2(const std::string& host, int port, const std::string& ca_file,
                        double timeout_s);

}  // namespace ringside::harness
