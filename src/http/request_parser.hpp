// The HTTP/1.1 request-head parser (RFC 9112): a pure function over bytes. It does no I/O and
// allocates nothing.
//
//   Request request;
//   ParseResult r = parse_request(bytes, request);
//   kComplete: request is valid, the head took r.consumed bytes; the body (request.framing) follows.
//   kPartial:  need more bytes.  kError: r.error says why (see request_error.hpp).
//
// A head that arrives in pieces is parsed with the resumable form, which keeps a HeadScan between
// calls so that bytes already looked at are not searched again: a head trickled one byte per read
// costs O(n) in all, not O(n^2). Its answers are exactly those of the one-shot form on the same
// bytes (the one-shot form is the resumable one with a fresh HeadScan).
//
// A request line is checked byte by byte as it arrives: one whose bytes so far cannot start a
// request (a TLS ClientHello or other binary sent to the plain port) is refused at once, not when
// its line end comes, which it may never do.
//
// It is strict where leniency lets two parsers disagree about where a request ends (smuggling):
// both Content-Length and Transfer-Encoding, differing lengths, obsolete folding, whitespace before
// a colon, bare LF or CR, and control characters are errors. The target must be origin-form
// ("/path?query") or absolute-form ("http://host[:port]/path?query", RFC 9112 section 3.2.2);
// asterisk-form ("*"), authority-form and anything else get 400 (ringside has no server-wide
// OPTIONS and is no proxy), and an https:// target gets 421 (RFC 9110 section 7.4: this plain-HTTP
// server cannot answer for an https URI). Host must be present in HTTP/1.1 and, when present,
// must be `host[:port]` (RFC 9112 section 3.2); it may be empty, as the RFC allows.
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

// How far the parse of one head in progress has got. Value-initialised ({}) it means "nothing
// looked at yet". All positions are offsets from the head's first byte, so the bytes may move
// in memory between calls (a connection copying a partial head into its own buffer).
struct HeadScan {
  // Which part of the request line ("method SP target SP version") the search has reached: its
  // bytes are checked as they arrive, so a line that cannot become a request is refused at its
  // first wrong byte, not when (if ever) its CRLF comes.
  enum class Part : std::uint8_t { kMethod, kTarget, kVersion };

  std::size_t scanned = 0;       // bytes already searched for the end of their line
  std::size_t line_start = 0;    // where the first line not yet complete begins
  std::size_t header_lines = 0;  // complete, checked header lines before line_start
  std::size_t part_start = 0;    // where the request line's current part begins
  Part part = Part::kMethod;
  bool request_line_done = false;
};

// The one-shot form: parses `input` from its first byte.
// The Method a method token names ("GET" -> kGet), kOther for one without its own value.
[[nodiscard]] Method method_of(std::string_view name);

[[nodiscard]] ParseResult parse_request(std::span<const char> input, Request& request,
                                        const ParserLimits& limits = {});

// The resumable form. Contract, for a caller (a connection) that receives a head in pieces:
//
//   - Keep one HeadScan per connection, next to its input buffer. Set it to {} when the
//     connection opens; the parser sets it back to {} itself whenever it returns kComplete or
//     kError, so after a complete head the next (pipelined) head starts fresh with no caller
//     action.
//   - Every call for one head passes bytes that start at that head's first byte and contain at
//     least the bytes of the previous call, unchanged (more bytes appended). If the caller ever
//     gives up on a head without kComplete or kError, or drops or rewrites bytes it already
//     passed, it must reset the HeadScan to {} before the next call.
//   - Use the same `limits` for every call on one head.
//   - After kPartial the contents of `request` are unspecified (it may be a worker-wide scratch
//     Request shared by connections: nothing in it is relied on between calls); after kComplete
//     it describes the whole head, exactly as the one-shot form would. When the head completes
//     in a later call than its first, the parser fills `request` with one more pass over the head,
//     so each head costs O(its size), however it was split.
//
// An input shorter than `scan` recorded (a broken contract) is handled as a fresh head.
[[nodiscard]] ParseResult parse_request(std::span<const char> input, Request& request,
                                        HeadScan& scan, const ParserLimits& limits = {});

}  // namespace ringside::http
