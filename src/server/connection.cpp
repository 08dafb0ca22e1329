#include "server/connection.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>

#include "http/request_parser.hpp"
#include "http/response_writer.hpp"

namespace ringside::server {
namespace {

// Room kept in the batch before each request: the largest reply plus a 100 Continue.
constexpr std::size_t kReplyRoom = kMaxReplyBody + http::kResponseOverhead + 512;
constexpr int kMaxLingerReads = 64;

bool would_block(int error) { return error == EAGAIN || error == EWOULDBLOCK; }

}  // namespace

void Connection::open(int fd, WorkerContext& context) {
  ctx_ = &context;
  fd_ = fd;
  input_len_ = output_len_ = output_sent_ = 0;
  phase_ = Phase::kHead;
  close_after_output_ = peer_closed_ = false;
  socket_may_have_input_ = input_unprocessed_ = false;
  timer_kind_ = TimerKind::kNone;
  arm(TimerKind::kHeader, true);
}

bool Connection::keep_alive() const { return reply_keep_alive_ && !ctx_->draining; }

void Connection::arm(TimerKind kind, bool restart) {
  if (!restart && timer_kind_ == kind && armed()) return;
  timer_kind_ = kind;
  ctx_->timers(kind).arm(*this, ctx_->loop.now());
}

void Connection::on_io(core::IoEvents events) {
  if (fd_ < 0) return;
  if (events & core::kError) {
    close();
    return;
  }
  if (phase_ == Phase::kLingering) {
    discard_lingering_input();
    return;
  }
  // Edge-triggered: remember readability even while output is stalled, or it is lost.
  if (events & (core::kReadable | core::kPeerClosed)) socket_may_have_input_ = true;
  if (output_len_ > 0 && !flush_pending_output()) return;
  // A bare writable edge (every new connection gets one) changes nothing: leave the timers.
  if (!socket_may_have_input_ && !input_unprocessed_) return;
  read_and_process();
}

void Connection::read_and_process() {
  http::OutBuffer batch(ctx_->batch_buffer.data(), ctx_->batch_buffer.size());
  if (input_unprocessed_ && input_len_ > 0) {
    input_unprocessed_ = false;
    std::span<const char> saved(input_, input_len_);
    std::size_t used = process(saved, batch);
    if (fd_ < 0) return;
    keep_input(saved.subspan(used));
  }
  input_unprocessed_ = false;
  while (fd_ >= 0 && socket_may_have_input_ && output_len_ == 0 && !close_after_output_) {
    // A partial request continues in its block so that it stays contiguous.
    char* destination = input_len_ > 0 ? input_ + input_len_ : ctx_->read_buffer.data();
    std::size_t capacity = WorkerContext::kReadBytes - input_len_;
    ssize_t n = ::recv(fd_, destination, capacity, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (would_block(errno)) {
        socket_may_have_input_ = false;
        break;
      }
      close();
      return;
    }
    if (n == 0) {
      peer_closed_ = true;
      socket_may_have_input_ = false;
      break;
    }
    // A short read means the socket is drained; edge triggering reports any later data.
    socket_may_have_input_ = static_cast<std::size_t>(n) == capacity;
    std::span<const char> input(input_len_ > 0 ? input_ : destination, input_len_ + n);
    std::size_t used = process(input, batch);
    if (fd_ < 0) return;
    keep_input(input.subspan(used));
  }
  if (!batch.empty() && !flush(batch)) {
    if (fd_ < 0) return;
  }
  after_io();
}

std::size_t Connection::process(std::span<const char> input, http::OutBuffer& batch) {
  std::size_t pos = 0;
  while (pos < input.size() && !close_after_output_ && output_len_ == 0) {
    if (batch.remaining() < kReplyRoom && !flush(batch)) break;
    if (phase_ == Phase::kBody) {
      if (!consume_body(input, pos, batch)) break;
      continue;
    }
    http::ParseResult parsed = http::parse_request(input.subspan(pos), ctx_->request);
    if (parsed.status == http::ParseStatus::kPartial) break;
    if (parsed.status == http::ParseStatus::kError) {
      write_error(parsed.error, batch);
      break;
    }
    pos += parsed.consumed;
    if (!start_request(ctx_->request, pos == input.size(), batch)) break;
  }
  return pos;
}

bool Connection::start_request(const http::Request& request, bool body_waiting,
                               http::OutBuffer& batch) {
  reply_ = ctx_->router.route(request);
  assert(reply_.body.size() <= kMaxReplyBody);
  reply_keep_alive_ = request.keep_alive;
  reply_head_only_ = request.method == http::Method::kHead;
  reply_http10_ = request.version_minor == 0;
  switch (request.framing) {
    case http::BodyFraming::kNone:
      write_reply(batch);
      return !close_after_output_;
    case http::BodyFraming::kContentLength:
      if (request.content_length > ctx_->config.max_body) {
        write_error(http::RequestError::kBodyTooLarge, batch);
        return false;
      }
      body_remaining_ = request.content_length;
      body_chunked_ = false;
      break;
    case http::BodyFraming::kChunked:
      chunked_.reset(ctx_->config.max_body);
      body_chunked_ = true;
      break;
  }
  phase_ = Phase::kBody;
  // Tell a client that waits for permission to send its body (RFC 9110 section 10.1.1).
  if (request.expect_continue && body_waiting) (void)http::write_continue(batch);
  return true;
}

bool Connection::consume_body(std::span<const char> input, std::size_t& pos,
                              http::OutBuffer& batch) {
  auto rest = input.subspan(pos);
  bool done = false;
  if (!body_chunked_) {
    auto take = static_cast<std::size_t>(std::min<std::uint64_t>(body_remaining_, rest.size()));
    pos += take;
    body_remaining_ -= take;
    done = body_remaining_ == 0;
  } else {
    http::ChunkedDecoder::Result result = chunked_.feed(rest);
    pos += result.consumed;
    if (result.error != http::RequestError::kNone) {
      write_error(result.error, batch);
      return false;
    }
    done = result.done;
  }
  if (done) {
    phase_ = Phase::kHead;
    write_reply(batch);
  }
  return !close_after_output_;
}

void Connection::write_reply(http::OutBuffer& batch) {
  http::ResponseOptions options{reply_head_only_, keep_alive(), reply_http10_, reply_.extra_headers};
  [[maybe_unused]] bool written = http::write_response(
      batch, ctx_->date.value(), reply_.status, reply_.content_type, reply_.body, options);
  assert(written);
  if (!options.keep_alive) close_after_output_ = true;
}

void Connection::write_error(http::RequestError error, http::OutBuffer& batch) {
  http::ErrorDescription description = http::describe(error);
  http::ResponseOptions options{};
  options.keep_alive = false;
  phase_ = Phase::kHead;
  [[maybe_unused]] bool written = http::write_response(batch, ctx_->date.value(), description.status,
                                                       "text/plain", description.message, options);
  assert(written);
  close_after_output_ = true;
}

bool Connection::flush(http::OutBuffer& batch) {
  std::size_t sent = 0;
  while (sent < batch.size()) {
    ssize_t n = ::send(fd_, batch.data() + sent, batch.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && would_block(errno)) {
      break;
    } else {
      batch.clear();
      close();
      return false;
    }
  }
  if (sent < batch.size()) {
    // The kernel's send buffer is full: keep the rest and stop reading until it drains.
    output_ = ctx_->output_blocks.acquire();
    output_len_ = static_cast<std::uint32_t>(batch.size() - sent);
    output_sent_ = 0;
    std::memcpy(output_, batch.data() + sent, output_len_);
    input_unprocessed_ = true;
  }
  batch.clear();
  return output_len_ == 0;
}

bool Connection::flush_pending_output() {
  while (output_sent_ < output_len_) {
    ssize_t n = ::send(fd_, output_ + output_sent_, output_len_ - output_sent_, MSG_NOSIGNAL);
    if (n > 0) {
      output_sent_ += static_cast<std::uint32_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && would_block(errno)) {
      arm(TimerKind::kIdle, true);
      return false;
    } else {
      close();
      return false;
    }
  }
  ctx_->output_blocks.release(output_);
  output_ = nullptr;
  output_len_ = output_sent_ = 0;
  if (close_after_output_) {
    start_lingering_close();
    return false;
  }
  return true;
}

void Connection::keep_input(std::span<const char> rest) {
  // After "Connection: close" nothing more is processed, so nothing is kept.
  ctx_->input_blocks.keep(input_, input_len_, close_after_output_ ? rest.first(0) : rest);
}

void Connection::after_io() {
  if (output_len_ > 0) {
    arm(TimerKind::kIdle, true);  // waiting for the client to read: the idle clock applies
    return;
  }
  if (close_after_output_) {
    start_lingering_close();
    return;
  }
  if (peer_closed_) {
    close();
    return;
  }
  if (phase_ == Phase::kBody) {
    arm(TimerKind::kHeader, true);  // each part of a body restarts its clock
  } else if (input_len_ > 0) {
    arm(TimerKind::kHeader, false);  // a partial head: the clock keeps running (slowloris)
  } else if (ctx_->draining) {
    arm(TimerKind::kDrainGrace, false);
  } else {
    arm(TimerKind::kIdle, true);
  }
}

void Connection::start_lingering_close() {
  // Close our side first and read what the client still sends, so that its unread bytes do not
  // make the kernel answer with a reset that could destroy our last response (RFC 9112 9.6).
  ctx_->input_blocks.release(input_);
  input_ = nullptr;
  input_len_ = 0;
  phase_ = Phase::kLingering;
  if (peer_closed_ || ::shutdown(fd_, SHUT_WR) != 0) {
    close();
    return;
  }
  arm(TimerKind::kLinger, true);
  discard_lingering_input();
}

void Connection::discard_lingering_input() {
  for (int i = 0; i < kMaxLingerReads; ++i) {
    ssize_t n = ::recv(fd_, ctx_->read_buffer.data(), ctx_->read_buffer.size(), 0);
    if (n > 0) continue;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && would_block(errno)) return;
    close();
    return;
  }
}

void Connection::on_timeout() {
  TimerKind kind = timer_kind_;
  timer_kind_ = TimerKind::kNone;
  if (kind == TimerKind::kHeader && (input_len_ > 0 || phase_ == Phase::kBody)) {
    http::OutBuffer batch(ctx_->batch_buffer.data(), ctx_->batch_buffer.size());
    write_error(http::RequestError::kHeaderTimeout, batch);
    if (flush(batch) || fd_ >= 0) after_io();
    return;
  }
  close();
}

void Connection::begin_drain() {
  if (is_idle()) arm(TimerKind::kDrainGrace, true);
}

void Connection::close() {
  if (fd_ < 0) return;
  disarm();
  timer_kind_ = TimerKind::kNone;
  ::close(fd_);
  fd_ = -1;
  ctx_->input_blocks.release(input_);
  ctx_->output_blocks.release(output_);
  input_ = output_ = nullptr;
  input_len_ = output_len_ = output_sent_ = 0;
  ctx_->owner->release(*this);
}

}  // namespace ringside::server
