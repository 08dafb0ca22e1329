// What a route handler answers: views into memory that outlives the response (static strings,
// or worker-owned buffers).
#pragma once

#include <cstddef>
#include <string_view>

#include "http/response_writer.hpp"
#include "http/status.hpp"

namespace ringside::server {

struct Reply {
  http::Status status = http::Status::kOk;
  std::string_view content_type = "text/plain";
  std::string_view body;
  std::string_view extra_headers;  // whole lines ending in "\r\n", e.g. "Allow: GET, HEAD\r\n"
  bool deferred = false;           // the handler parked the request (see server/exchange.hpp)

  // What a handler returns after Exchange::defer(): the answer comes through PendingReply.
  static constexpr Reply later() {
    Reply reply;
    reply.deferred = true;
    return reply;
  }
};

// The largest reply body a handler may produce; the connection keeps room for one. TechEmpower's
// /queries?queries=500 answers about 16.5 KB.
inline constexpr std::size_t kMaxReplyBody = 32 * 1024;
// Room kept for one response: the largest reply plus a 100 Continue.
inline constexpr std::size_t kReplyRoom = kMaxReplyBody + http::kResponseOverhead + 512;

// True when `reply` fits the room kept for it; one that does not is answered with kReplyTooLarge
// rather than dropped.
constexpr bool fits_reply_room(const Reply& reply) {
  http::ResponseOptions options;
  options.extra_headers = reply.extra_headers;
  return reply.body.size() <= kMaxReplyBody &&
         http::response_size_bound(reply.content_type, reply.body, options) + 32 <= kReplyRoom;
}

inline constexpr Reply kReplyTooLarge{http::Status::kInternalServerError, "text/plain",
                                      "the handler's reply exceeds the server's reply limit\n", {}};

}  // namespace ringside::server
