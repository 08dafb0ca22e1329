// Why a request was refused: each error maps to a status code and a one-line explanation that
// goes into the response body, so a client learns what to fix. Errors in request framing leave the
// byte stream in an unknown state, so the server closes the connection after answering any of them.
#pragma once

#include <cstdint>
#include <string_view>

#include "http/status.hpp"

namespace ringside::http {

enum class RequestError : std::uint8_t {
  kNone,
  kMalformedRequestLine,
  kInvalidMethod,
  kInvalidTarget,
  kInvalidTargetForm,
  kAsteriskForm,
  kInvalidTargetHost,
  kMisdirectedScheme,
  kUnsupportedVersion,
  kBareLineFeed,
  kMalformedHeader,
  kSpaceBeforeColon,
  kObsoleteLineFolding,
  kControlCharacter,
  kTooManyHeaders,
  kHeadTooLarge,
  kUriTooLong,
  kMissingHost,
  kRepeatedHost,
  kInvalidHost,
  kLengthAndTransferEncoding,
  kInvalidContentLength,
  kConflictingContentLength,
  kUnsupportedTransferEncoding,
  kChunkedNotLast,
  kTransferEncodingInHttp10,
  kBodyTooLarge,
  kUnsupportedExpectation,
  kMalformedChunk,
  kChunkLineTooLong,
  kChunkFramingTooLarge,
  kHeaderTimeout,
};

struct ErrorDescription {
  Status status;
  std::string_view message;  // ends with '\n'; the whole response body
};

constexpr ErrorDescription describe(RequestError error) {
  using enum RequestError;
  switch (error) {
    case kNone: return {Status::kOk, "no error\n"};
    case kMalformedRequestLine:
      return {Status::kBadRequest, "malformed request line: expected 'METHOD /target HTTP/1.1'\n"};
    case kInvalidMethod: return {Status::kBadRequest, "invalid character in method\n"};
    case kInvalidTarget: return {Status::kBadRequest, "invalid character in request target\n"};
    case kInvalidTargetForm:
      return {Status::kBadRequest,
              "request target must be a path '/...' or an absolute 'http://host/...' URL\n"};
    case kAsteriskForm:
      return {Status::kBadRequest, "'*' (server-wide OPTIONS) is not supported: ask for a path\n"};
    case kInvalidTargetHost:
      return {Status::kBadRequest,
              "invalid host in absolute-form target: expected 'http://host[:port]/path'\n"};
    case kMisdirectedScheme:
      return {Status::kMisdirectedRequest,
              "an https:// target sent to a plain-HTTP server: use http://\n"};
    case kUnsupportedVersion:
      return {Status::kHttpVersionNotSupported, "only HTTP/1.0 and HTTP/1.1 are supported\n"};
    case kBareLineFeed: return {Status::kBadRequest, "lines must end with CRLF, not a bare LF or CR\n"};
    case kMalformedHeader: return {Status::kBadRequest, "malformed header field: expected 'Name: value'\n"};
    case kSpaceBeforeColon:
      return {Status::kBadRequest, "whitespace between header name and colon is not allowed\n"};
    case kObsoleteLineFolding:
      return {Status::kBadRequest, "obsolete line folding (a header line starting with whitespace)\n"};
    case kControlCharacter: return {Status::kBadRequest, "control character in header value\n"};
    case kTooManyHeaders:
      return {Status::kRequestHeaderFieldsTooLarge, "too many header fields (limit 100)\n"};
    case kHeadTooLarge:
      return {Status::kRequestHeaderFieldsTooLarge, "request line and headers exceed 16 KiB\n"};
    case kUriTooLong: return {Status::kUriTooLong, "request line exceeds 16 KiB\n"};
    case kMissingHost: return {Status::kBadRequest, "HTTP/1.1 request without a Host header\n"};
    case kRepeatedHost: return {Status::kBadRequest, "more than one Host header\n"};
    case kInvalidHost:
      return {Status::kBadRequest, "invalid Host header: expected 'host' or 'host:port'\n"};
    case kLengthAndTransferEncoding:
      return {Status::kBadRequest, "both Content-Length and Transfer-Encoding: send only one\n"};
    case kInvalidContentLength: return {Status::kBadRequest, "invalid Content-Length\n"};
    case kConflictingContentLength:
      return {Status::kBadRequest, "differing Content-Length values\n"};
    case kUnsupportedTransferEncoding:
      return {Status::kNotImplemented, "only Transfer-Encoding: chunked is supported\n"};
    case kChunkedNotLast:
      return {Status::kBadRequest, "chunked must be the final transfer coding, applied once\n"};
    case kTransferEncodingInHttp10:
      return {Status::kBadRequest, "Transfer-Encoding is not allowed in HTTP/1.0\n"};
    case kBodyTooLarge: return {Status::kPayloadTooLarge, "request body exceeds --max-body\n"};
    case kUnsupportedExpectation:
      return {Status::kExpectationFailed, "only 'Expect: 100-continue' is supported\n"};
    case kMalformedChunk: return {Status::kBadRequest, "malformed chunked body\n"};
    case kChunkLineTooLong:
      return {Status::kBadRequest,
              "chunk-size line (size, whitespace, extensions) exceeds 4096 bytes\n"};
    case kChunkFramingTooLarge:
      return {Status::kBadRequest,
              "chunked framing (size lines, extensions, trailers) exceeds max(64 KiB, body)\n"};
    case kHeaderTimeout:
      return {Status::kRequestTimeout, "request headers not received within --header-timeout\n"};
  }
  return {Status::kBadRequest, "bad request\n"};
}

}  // namespace ringside::http
