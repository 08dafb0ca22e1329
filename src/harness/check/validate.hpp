// Correctness before speed: the checks a started contestant must pass before it is ever timed.
// For every route it claims, the status, body (JSON compared as JSON), Content-Type, a Date
// header and correct framing (Content-Length or chunked, read by ringside's own response
// parser); then, on one connection each, keep-alive across 100 requests, 16 pipelined requests
// answered in order, and a request written a byte at a time; and, when it was told to listen on
// another address than 127.0.0.1, that 127.0.0.1 refuses (it listens on {host} only). For an
// https start, first a TLS handshake verified against the run's CA, whose version, cipher and
// ALPN protocol are kept; then every check above over TLS. docs/harness.md says why each.
//
//   std::vector<Check> checks = validate_server(port, contestant.manifest.routes);
//   for (const Check& check : checks) if (!check.passed) ... check.name, check.reason
//
// Blocking sockets with timeouts: this is a checker, not a hot path.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/config/contestant.hpp"
#include "harness/process/http_client.hpp"
#include "harness/process/tls_client.hpp"

namespace ringside::harness {

struct Check {
  std::string name;    // "GET /json", "keep-alive x100", "pipelined x16", "split request"
  bool passed = false;
  std::string reason;  // one line, when failed
};

struct ValidateOptions {
  double timeout_s = 10;                      // per connect, write or response
  std::chrono::milliseconds split_pause{2};   // between the bytes of the split request
  int keep_alive_requests = 100;
  int pipelined_requests = 16;
  bool pipelining = true;                     // false: the pipelining check is left out
  const std::atomic<bool>* stop = nullptr;    // checks not yet begun are skipped when set
  std::string host = "127.0.0.1";             // where the server listens ({host}): checks go there
  std::shared_ptr<const TlsClientContext> tls;  // https: every connection over TLS; null: plain
};

// What a GET of `path` must answer, for the paths the checks send: "/", "/json", "/users/N", "/db".
struct Expectation {
  int status = 200;
  std::string_view content_type;  // media type; "" when any (error answers)
  std::string body;               // exact body when !json; empty and !json: any body
  bool json = false;              // body compared as JSON
  bool json_error = false;        // body must be a JSON object with an "error" member
  bool world_row = false;         // body must be one World row: {"id": 1..10000, "randomNumber": 1..10000}
};

Expectation expectation_for(std::string_view path);

// "" when the response meets the expectation and carries a Date header and proper framing; else
// one phrase saying what is wrong.
std::string judge_response(const HttpResponse& response, const Expectation& expected);

// With options.tls, the handshake comes first ("TLS handshake"), and what it agreed on goes to
// *handshake when given; when it fails, no other check runs (each would fail the same way).
std::vector<Check> validate_server(int port, const std::vector<Route>& routes,
                                   const ValidateOptions& options = {},
                                   TlsFacts* handshake = nullptr);

// The checks that ran, in order, for a PASS line: "GET /, GET /json, GET /users/:id x11,
// keep-alive x100, pipelined x16, split request" (the ids of /users/:id counted, not listed).
std::string describe_checks(const std::vector<Check>& checks);

}  // namespace ringside::harness
