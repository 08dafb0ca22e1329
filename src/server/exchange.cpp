#include "server/exchange.hpp"

#include "server/worker_context.hpp"

namespace ringside::server {

http::OutBuffer& Exchange::body() {
  context_->body_scratch_buffer.clear();
  return context_->body_scratch_buffer;
}

PendingReply& Exchange::defer() { return queue_->park(); }

WorkerExtension* Exchange::extension() const {
  return context_ != nullptr ? context_->extension : nullptr;
}

}  // namespace ringside::server
