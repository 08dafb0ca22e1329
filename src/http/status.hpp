// HTTP status codes the server sends, with their reason phrases (RFC 9110 section 15).
#pragma once

#include <cstdint>
#include <string_view>

namespace ringside::http {

enum class Status : std::uint16_t {
  kContinue = 100,
  kOk = 200,
  kNoContent = 204,
  kBadRequest = 400,
  kNotFound = 404,
  kMethodNotAllowed = 405,
  kRequestTimeout = 408,
  kPayloadTooLarge = 413,
  kUriTooLong = 414,
  kExpectationFailed = 417,
  kMisdirectedRequest = 421,
  kRequestHeaderFieldsTooLarge = 431,
  kInternalServerError = 500,
  kNotImplemented = 501,
  kServiceUnavailable = 503,
  kHttpVersionNotSupported = 505,
};

constexpr std::uint16_t code(Status status) { return static_cast<std::uint16_t>(status); }

// "HTTP/1.1 200 OK\r\n": the whole status line, ready to copy.
constexpr std::string_view status_line(Status status) {
  switch (status) {
    case Status::kContinue: return "HTTP/1.1 100 Continue\r\n";
    case Status::kOk: return "HTTP/1.1 200 OK\r\n";
    case Status::kNoContent: return "HTTP/1.1 204 No Content\r\n";
    case Status::kBadRequest: return "HTTP/1.1 400 Bad Request\r\n";
    case Status::kNotFound: return "HTTP/1.1 404 Not Found\r\n";
    case Status::kMethodNotAllowed: return "HTTP/1.1 405 Method Not Allowed\r\n";
    case Status::kRequestTimeout: return "HTTP/1.1 408 Request Timeout\r\n";
    case Status::kPayloadTooLarge: return "HTTP/1.1 413 Content Too Large\r\n";
    case Status::kUriTooLong: return "HTTP/1.1 414 URI Too Long\r\n";
    case Status::kExpectationFailed: return "HTTP/1.1 417 Expectation Failed\r\n";
    case Status::kMisdirectedRequest: return "HTTP/1.1 421 Misdirected Request\r\n";
    case Status::kRequestHeaderFieldsTooLarge:
      return "HTTP/1.1 431 Request Header Fields Too Large\r\n";
    case Status::kInternalServerError: return "HTTP/1.1 500 Internal Server Error\r\n";
    case Status::kNotImplemented: return "HTTP/1.1 501 Not Implemented\r\n";
    case Status::kServiceUnavailable: return "HTTP/1.1 503 Service Unavailable\r\n";
    case Status::kHttpVersionNotSupported: return "HTTP/1.1 505 HTTP Version Not Supported\r\n";
  }
  return "HTTP/1.1 500 Internal Server Error\r\n";
}

}  // namespace ringside::http
