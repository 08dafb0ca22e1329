// The HTTP/1.1 response parser the load generator uses to find where each response ends, also
// when responses are pipelined back to back in one buffer. Like the request parser it is pure: no
// I/O, no allocation, headers are views into the caller's bytes, and after `kPartial` it is simply
// called again with more bytes (it re-parses from the start).
//
//   Response response;
//   auto head = parse_response_head(bytes, response, {.request_was_head = sent_head});
//   kComplete: the head took head.consumed bytes. If response.is_interim() (100 Continue, 103
//              Early Hints) skip those bytes and parse again for the final response.
//   Otherwise:  ResponseBodyReader body(response);
//               auto r = body.feed(rest);  // r.consumed body bytes; r.done when the response ended
//               at end of stream: body.finish_at_close() says whether the response was whole.
//
// Framing follows RFC 9112 section 6.3. Leniency, where chosen, never changes where a response
// ends: a bare LF ends a head line (RFC 9112 section 2.2 lets a recipient accept it, and servers in
// the wild send it), but a bare CR, obsolete line folding, whitespace before a colon, both
// Content-Length and Transfer-Encoding, and differing lengths are errors, because each is a way for
// two parsers to disagree about the boundary. Chunked bodies are decoded by the same strict
// ChunkedDecoder as requests, so a chunked body must use CRLF.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "http/chunked_decoder.hpp"
#include "http/request.hpp"
#include "http/request_parser.hpp"

namespace ringside::http {

inline constexpr std::size_t kMaxResponseHeadBytes = 64 * 1024;

enum class ResponseError : std::uint8_t {
  kNone,
  kMalformedStatusLine,
  kUnsupportedVersion,
  kInvalidStatusCode,
  kBareCarriageReturn,
  kMalformedHeader,
  kSpaceBeforeColon,
  kObsoleteLineFolding,
  kControlCharacter,
  kTooManyHeaders,
  kHeadTooLarge,
  kInvalidContentLength,
  kConflictingContentLength,
  kLengthAndTransferEncoding,
  kTransferEncodingInHttp10,
  kMalformedChunk,
  kTrailersTooLarge,
  kTruncatedBody,
};

// One line, no trailing newline, naming what the server sent wrong.
constexpr std::string_view describe(ResponseError error) {
  using enum ResponseError;
  switch (error) {
    case kNone:
      return "no error";
    case kMalformedStatusLine:
      return "malformed status line from server: expected 'HTTP/1.1 200 Reason'";
    case kUnsupportedVersion:
      return "server answered with an HTTP version other than 1.0 or 1.1";
    case kInvalidStatusCode:
      return "server sent a status code that is not three digits in 100-599";
    case kBareCarriageReturn:
      return "server sent a CR not followed by LF in the response head";
    case kMalformedHeader:
      return "malformed response header field: expected 'Name: value'";
    case kSpaceBeforeColon:
      return "server sent whitespace between a header name and its colon";
    case kObsoleteLineFolding:
      return "server sent obsolete line folding (a header line starting with whitespace)";
    case kControlCharacter:
      return "control character in the response reason phrase or a header value";
    case kTooManyHeaders:
      return "response has more than 100 header fields";
    case kHeadTooLarge:
      return "response status line and headers exceed the head size limit";
    case kInvalidContentLength:
      return "server sent an invalid Content-Length";
    case kConflictingContentLength:
      return "server sent differing Content-Length values";
    case kLengthAndTransferEncoding:
      return "server sent both Content-Length and Transfer-Encoding, so the body length is "
             "ambiguous";
    case kTransferEncodingInHttp10:
      return "server sent Transfer-Encoding in an HTTP/1.0 response, so its framing is faulty";
    case kMalformedChunk:
      return "malformed chunked response body";
    case kTrailersTooLarge:
      return "chunked response trailers exceed 16 KiB";
    case kTruncatedBody:
      return "connection closed before the response body was complete";
  }
  return "unknown response error";
}

struct Response {
  std::uint8_t version_minor = 1;
  std::uint16_t status = 0;
  std::string_view reason;
  // kNone with body_until_close set: an HTTP/1.0-style body that ends when the server closes.
  BodyFraming framing = BodyFraming::kNone;
  bool body_until_close = false;
  std::uint64_t content_length = 0;  // body bytes when framing is kContentLength, else 0
  bool keep_alive = true;
  std::size_t header_count = 0;
  std::array<Header, kMaxHeaders> headers;

  [[nodiscard]] std::span<const Header> header_list() const {
    return {headers.data(), header_count};
  }
  // First header with this name (ASCII case-insensitive), or an empty view.
  [[nodiscard]] std::string_view header(std::string_view name) const;
  [[nodiscard]] bool has_body() const { return framing != BodyFraming::kNone || body_until_close; }
  // A 1xx other than 101: another head follows on the same connection. A 101 is final: what
  // follows it is no longer HTTP/1.1.
  [[nodiscard]] bool is_interim() const { return status >= 100 && status < 200 && status != 101; }
};

struct ResponseParseResult {
  ParseStatus status;
  std::size_t consumed = 0;  // bytes of the head, when complete
  ResponseError error = ResponseError::kNone;
};

struct ResponseParseOptions {
  bool request_was_head = false;  // a response to HEAD has no body whatever its headers say
  std::size_t max_head_bytes = kMaxResponseHeadBytes;
};

[[nodiscard]] ResponseParseResult parse_response_head(std::span<const char> input,
                                                      Response& response,
                                                      const ResponseParseOptions& options = {});

// Consumes the body of one response from successive spans and says when it is complete. It never
// consumes a byte past the end of the body, so with pipelining the next response's head starts
// exactly at the first unconsumed byte.
class ResponseBodyReader {
 public:
  struct Result {
    std::size_t consumed = 0;
    std::size_t data_bytes = 0;  // payload among the consumed bytes (chunk framing excluded)
    bool done = false;
    ResponseError error = ResponseError::kNone;
  };

  ResponseBodyReader() = default;
  explicit ResponseBodyReader(const Response& response) { start(response); }

  void start(const Response& response);
  [[nodiscard]] Result feed(std::span<const char> input);
  // The server closed the connection: a body read until close is now complete, any other
  // unfinished body was truncated.
  [[nodiscard]] Result finish_at_close();
  [[nodiscard]] bool done() const { return mode_ == Mode::kDone; }
  [[nodiscard]] std::uint64_t body_bytes() const { return body_bytes_; }

 private:
  enum class Mode : std::uint8_t { kDone, kLength, kChunked, kUntilClose, kFailed };

  [[nodiscard]] Result fail(std::size_t consumed, ResponseError error);

  Mode mode_ = Mode::kDone;
  ResponseError error_ = ResponseError::kNone;
  std::uint64_t remaining_ = 0;
  std::uint64_t body_bytes_ = 0;
  ChunkedDecoder chunked_;
};

}  // namespace ringside::http
