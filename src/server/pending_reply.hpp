// A parked request's answer (see server/exchange.hpp for how a handler parks one), and what it is
// answered with. A PendingReply comes from the worker's pool when its connection parks a request,
// and goes back once respond() was called: its response and body are built in blocks from the
// worker's pools too, so nothing here allocates in steady state.
//
// The connection's side is a ReplyQueue: it hands out PendingReplies in request order and hears
// when one is answered. An HTTP/1.1 connection gets the whole response to send; an HTTP/2 one
// (server/h2_connection.hpp) the status, fields and body, which it frames on the request's stream.
// The worker's side is a ReplyContext: the pools, the cached Date, and whether the worker drains
// (an answer then closes its connection). WorkerContext (server/worker_context.hpp) is a
// ReplyContext, so a PendingReply needs nothing else of it.
#pragma once

#include <cstdint>

#include "core/block_pool.hpp"
#include "core/free_list_pool.hpp"
#include "core/intrusive_queue.hpp"
#include "http/date_cache.hpp"
#include "http/out_buffer.hpp"
#include "server/reply.hpp"

namespace ringside::server {

class PendingReply;
struct ReplyContext;

// The connection's side of parking: it queues a PendingReply in request order and hears when one
// is ready.
class ReplyQueue {
 public:
  virtual PendingReply& park() = 0;
  virtual void on_reply_ready(PendingReply& reply) = 0;

 protected:
  ~ReplyQueue() = default;
};

class PendingReply {
 public:
  // A pooled buffer (kMaxReplyBody bytes) for the body; the Reply given to respond() may point
  // into it.
  [[nodiscard]] http::OutBuffer& body();
  // The answer. Call exactly once, on the worker's thread; afterwards this object is gone.
  void respond(const Reply& reply);
  // The client went away: respond() only gives this object back.
  [[nodiscard]] bool aborted() const { return waiter_ == nullptr; }

 private:
  friend class Connection;
  friend class H2Connection;

  void start(ReplyContext& context, ReplyQueue* waiter, bool keep_alive, bool head_only,
             bool http10);
  // For an HTTP/2 stream: the answer is kept as its parts (the body copied), for the connection
  // to frame.
  void start_h2(ReplyContext& context, ReplyQueue* waiter, void* stream);
  void finish();
  void release();

  ReplyContext* context_ = nullptr;
  ReplyQueue* waiter_ = nullptr;
  PendingReply* next_ = nullptr;  // in the connection's queue, or the pool's free list
  char* response_ = nullptr;      // the whole response, once answered
  std::uint32_t response_len_ = 0;
  char* body_block_ = nullptr;
  http::OutBuffer body_{nullptr, 0};
  bool done_ = false;
  bool keep_alive_ = true;  // as the request asked; draining is applied when answered
  bool head_only_ = false;
  bool http10_ = false;
  // HTTP/2: the stream this answers, and the answer's parts (the body is in response_).
  void* stream_ = nullptr;
  http::Status status_ = http::Status::kOk;
  std::string_view content_type_;
  std::string_view extra_headers_;

 public:
  // The worker's pool of them, and a connection's queue of them in request order, both linked
  // through next_ (one at a time), named here, where next_ may be.
  using Pool = core::FreeListPool<PendingReply, &PendingReply::next_>;
  using Queue = core::IntrusiveQueue<PendingReply, &PendingReply::next_>;
};

// Parked requests' PendingReplies, recycled: none is allocated in steady state.
using ReplyPool = PendingReply::Pool;

// What a worker's PendingReplies are answered with. One thread touches it.
struct ReplyContext {
  // A parked request's answer (a whole response) and the body it is built in.
  core::BlockPool reply_blocks{kReplyRoom, 256, 16};
  core::BlockPool body_blocks{kMaxReplyBody, 256, 16};
  ReplyPool replies;
  http::DateCache date;
  bool draining = false;  // the worker is shutting down: answers close their connections
};

}  // namespace ringside::server
