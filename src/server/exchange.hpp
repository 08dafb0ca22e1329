// What a route handler sees of one request, and how it answers later.
//
// A handler gets an Exchange: the parsed request, the route's path parameters ("/users/:id" gives
// param(0)) and a scratch buffer for a body built per request. It either returns a Reply at once,
// or parks the request and returns Reply::later():
//
//   Reply user(Exchange& exchange) {
//     std::uint64_t id;  if (!parse_id(exchange.param(0), id)) return bad_request;
//     PendingReply& pending = exchange.defer();      // pooled; valid until respond()
//     database.lookup(id, &pending);                 // copies what it needs: views die on return
//     return Reply::later();
//   }
//   ... later, on the same worker's loop:  pending.body() << json;  pending.respond(reply);
//
// The connection keeps pipelined responses in request order however their answers arrive (a
// request answered at once waits behind an earlier parked one). A client that goes away while a
// request is parked makes it aborted(): respond() must still be called exactly once, and then
// only gives the PendingReply back. Nothing here allocates in steady state: PendingReplies and
// their blocks come from the worker's pools.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "http/out_buffer.hpp"
#include "http/request.hpp"
#include "server/pending_reply.hpp"
#include "server/reply.hpp"

namespace ringside::server {

struct WorkerContext;
class WorkerExtension;

inline constexpr std::size_t kMaxRouteParams = 4;

struct RouteParams {
  std::array<std::string_view, kMaxRouteParams> values{};
  std::size_t count = 0;
};

class Exchange {
 public:
  Exchange(const http::Request& request, WorkerContext* context, ReplyQueue* queue)
      : request_(request), context_(context), queue_(queue) {}

  // Valid only during the handler call: the views point into the connection's input.
  [[nodiscard]] const http::Request& request() const { return request_; }
  [[nodiscard]] std::string_view param(std::size_t i) const {
    return i < params.count ? params.values[i] : std::string_view{};
  }
  // A worker-owned buffer (kMaxReplyBody bytes) for a body built now; a Reply may point into it.
  [[nodiscard]] http::OutBuffer& body();
  // Parks this request; the handler must then return Reply::later(). Not available without a
  // connection (a router test routes bare requests).
  [[nodiscard]] PendingReply& defer();
  [[nodiscard]] bool can_defer() const { return queue_ != nullptr; }
  // The worker's extension (see server/worker_extension.hpp), or nullptr when the server has none.
  [[nodiscard]] WorkerExtension* extension() const;

  RouteParams params;

 private:
  const http::Request& request_;
  WorkerContext* context_;
  ReplyQueue* queue_;
};

}  // namespace ringside::server
