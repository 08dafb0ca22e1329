// Writes whole responses into an OutBuffer. Every response carries Server, Date, Content-Type and
// Content-Length (TechEmpower's verifier checks all four); HEAD gets the headers alone.
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

// Appends the response; returns false (writing nothing) when `out` lacks room.
bool write_response(OutBuffer& out, std::string_view date, Status status,
                    std::string_view content_type, std::string_view body,
                    const ResponseOptions& options);

// "HTTP/1.1 100 Continue\r\n\r\n"
bool write_continue(OutBuffer& out);

}  // namespace ringside::http
