// The HTTP/1.1 request-head parser (RFC 9112): a pure function over bytes. It does no I/O and
// allocates nothing; it may be called again with more bytes after a `kPartial`, and re-parses from
// the start (heads almost always arrive whole, so this costs less than keeping state).
//
//   Request request;
//   ParseResult r = parse_request(bytes, request);
//   kComplete: request is valid, the head took r.consumed bytes; the body (request.framing) follows.
//   kPartial:  need more bytes.  kError: r.error says why (see request_error.hpp).
//
// It is strict where leniency lets two parsers disagree about where a request ends (smuggling):
// both Content-Length and Transfer-Encoding, differing lengths, obsolete folding, whitespace before
// a colon, bare LF or CR, and control characters are errors.
#pragma once

#include <cstddef>
#include <span>

#include "http/request.hpp"
#include "http/request_error.hpp"

namespace ringside::http {

enum class ParseStatus : std::uint8_t { kComplete, kPartial, kError };

struct ParseResult {
  ParseStatus status;
  std::size_t consumed = 0;  // bytes of the head, when complete
  RequestError error = RequestError::kNone;
};

struct ParserLimits {
  std::size_t max_head_bytes = kMaxHeadBytes;
  std::size_t max_headers = kMaxHeaders;
};

[[nodiscard]] ParseResult parse_request(std::span<const char> input, Request& request,
                                        const ParserLimits& limits = {});

}  // namespace ringside::http
