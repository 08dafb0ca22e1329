// What a route handler answers: views into memory that outlives the response (static strings,
// or worker-owned buffers).
#pragma once

#include <string_view>

#include "http/status.hpp"

namespace ringside::server {

struct Reply {
  http::Status status = http::Status::kOk;
  std::string_view content_type = "text/plain";
  std::string_view body;
  std::string_view extra_headers;  // whole lines ending in "\r\n", e.g. "Allow: GET, HEAD\r\n"
};

// The largest reply body a handler may produce; the connection keeps room for one.
inline constexpr std::size_t kMaxReplyBody = 8 * 1024;

}  // namespace ringside::server
