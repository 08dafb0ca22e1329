#include "server/pending_reply.hpp"

#include <cstring>

#include "http/response_writer.hpp"

namespace ringside::server {

void PendingReply::start(ReplyContext& context, ReplyQueue* waiter, bool keep_alive,
                         bool head_only, bool http10) {
  context_ = &context;
  waiter_ = waiter;
  next_ = nullptr;
  response_ = body_block_ = nullptr;
  response_len_ = 0;
  body_ = http::OutBuffer(nullptr, 0);
  done_ = false;
  keep_alive_ = keep_alive;
  head_only_ = head_only;
  http10_ = http10;
  stream_ = nullptr;
}

void PendingReply::start_h2(ReplyContext& context, ReplyQueue* waiter, void* stream) {
  start(context, waiter, true, false, false);
  stream_ = stream;
}

http::OutBuffer& PendingReply::body() {
  if (body_block_ == nullptr) {
    body_block_ = context_->body_blocks.acquire();
    body_ = http::OutBuffer(body_block_, kMaxReplyBody);
  }
  return body_;
}

void PendingReply::respond(const Reply& given) {
  if (waiter_ == nullptr) {  // the client went away while this was parked
    release();
    return;
  }
  const Reply& reply = fits_reply_room(given) && !given.deferred ? given : kReplyTooLarge;
  response_ = context_->reply_blocks.acquire();
  if (stream_ != nullptr) {
    std::memcpy(response_, reply.body.data(), reply.body.size());
    response_len_ = static_cast<std::uint32_t>(reply.body.size());
    status_ = reply.status;
    content_type_ = reply.content_type;
    extra_headers_ = reply.extra_headers;
    finish();
    return;
  }
  http::OutBuffer out(response_, kReplyRoom);
  http::ResponseOptions options{head_only_, keep_alive_ && !context_->draining, http10_,
                                reply.extra_headers};
  // The room is checked above, so this cannot fail; if it did, the connection ends after the
  // responses before this one instead of leaving the client waiting.
  if (!http::write_response(out, context_->date.value(), reply.status, reply.content_type,
                            reply.body, options)) {
    options.keep_alive = false;
  }
  keep_alive_ = options.keep_alive;
  response_len_ = static_cast<std::uint32_t>(out.size());
  finish();
}

void PendingReply::finish() {
  context_->body_blocks.release(body_block_);
  body_block_ = nullptr;
  done_ = true;
  waiter_->on_reply_ready(*this);
}

void PendingReply::release() {
  context_->reply_blocks.release(response_);
  context_->body_blocks.release(body_block_);
  response_ = body_block_ = nullptr;
  context_->replies.release(*this);
}

}  // namespace ringside::server
