// Writes whole responses into an OutBuffer. Every response carries Server, Date, Content-Type and
// Content-Length (TechEmpower's verifier checks all four); HEAD gets the headers alone. A write
// that does not fit writes nothing and says so ([[nodiscard]]): callers must handle it.
#pragma once

#include <cstdint>
#include <string_view>

#include "http/out_buffer.hpp"
#include "http/status.hpp"

namespace ringside::http {

struct ResponseOptions {
  bool head_only = false;   // a response to HEAD: headers only, Content-Length of the GET body
  bool keep_alive = true;   // false: send "Connection: close"
  bool http10 = false;      // HTTP/1.0 keep-alive must be announced explicitly
  std::string_view extra_headers = {};  // whole lines, each ending in "\r\n"
};

inline constexpr std::string_view kServerName = "ringside";

// Bytes write_response needs beyond the content type, body and extra headers, with a Date of
// kDateLength bytes (an IMF-fixdate, as DateCache makes).
inline constexpr std::size_t kResponseOverhead = 192;
inline constexpr std::size_t kDateLength = 29;

[[nodiscard]] constexpr std::size_t response_size_bound(std::string_view content_type,
                                                        std::string_view body,
                                                        const ResponseOptions& options) {
  return kResponseOverhead + content_type.size() + body.size() + options.extra_headers.size();
}

namespace response_detail {
constexpr std::size_t decimal_digits(std::uint64_t value) {
  std::size_t digits = 1;
  while (value >= 10) {
    value /= 10;
    ++digits;
  }
  return digits;
}
inline constexpr std::string_view kBeforeDate = "Server: ringside\r\nDate: ";
inline constexpr std::string_view kBeforeType = "\r\nContent-Type: ";
inline constexpr std::string_view kBeforeLength = "\r\nContent-Length: ";
inline constexpr std::string_view kClose = "Connection: close\r\n";
inline constexpr std::string_view kKeepAlive = "Connection: keep-alive\r\n";
}  // namespace response_detail

// Exactly the bytes write_response appends for these arguments (never more than
// response_size_bound with a kDateLength date). A caller that must not fail can check
// `out.remaining() >= response_size(...)` first, or size a buffer with it.
[[nodiscard]] constexpr std::size_t response_size(std::string_view date, Status status,
                                                  std::string_view content_type,
                                                  std::string_view body,
                                                  const ResponseOptions& options) {
  using namespace response_detail;
  std::size_t size = status_line(status).size() + kBeforeDate.size() + date.size() +
                     kBeforeType.size() + content_type.size() + kBeforeLength.size() +
                     decimal_digits(body.size()) + 2 + options.extra_headers.size() + 2;
  if (!options.keep_alive) {
    size += kClose.size();
  } else if (options.http10) {
    size += kKeepAlive.size();
  }
  return options.head_only ? size : size + body.size();
}

// Appends the response and returns true, or returns false having written nothing when `out` has
// fewer than response_size(...) bytes left. The result must be handled (flush and retry, or send
// a smaller error): nothing else catches an oversized reply in a release build, and dropping it
// leaves the client waiting for an answer that never comes.
[[nodiscard]] bool write_response(OutBuffer& out, std::string_view date, Status status,
                                  std::string_view content_type, std::string_view body,
                                  const ResponseOptions& options);

// "HTTP/1.1 100 Continue\r\n\r\n"; false (writing nothing) when `out` lacks room for it.
[[nodiscard]] bool write_continue(OutBuffer& out);

}  // namespace ringside::http
