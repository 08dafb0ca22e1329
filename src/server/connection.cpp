#include "server/connection.hpp"

#include <algorithm>

#include "http/h2_frame.hpp"
#include "http/response_writer.hpp"
#include "server/exchange.hpp"
#include "server/router.hpp"

namespace ringside::server {
namespace {

// A lingering close discards at most this many reads (of 16 KiB) before giving up on the client.
constexpr std::uint16_t kMaxLingerReads = 256;

}  // namespace

void Connection::open(int fd, WorkerContext& context, core::TlsContext* tls) {
  ctx_ = &context;
  input_len_ = 0;
  head_scan_ = {};
  linger_reads_ = 0;
  phase_ = Phase::kHead;
  close_after_output_ = peer_closed_ = close_after_queue_ = processing_ = false;
  first_bytes_ = true;
  h2_ = nullptr;
  queue_ = PendingReply::Queue{};
  timer_kind_ = TimerKind::kNone;
  arm(TimerKind::kHeader, true);
  const bool opened = tls != nullptr
                          ? transport_.open_tls(context.loop, fd, *this, context.output_blocks, *tls)
                          : transport_.open(context.loop, fd, *this, context.output_blocks);
  if (!opened) {
    // The transport closed the socket; give the connection back all the same.
    disarm();
    ctx_->owner->release(*this);
  }
}

bool Connection::keep_alive() const { return reply_keep_alive_ && !ctx_->draining; }

void Connection::arm(TimerKind kind, bool restart) {
  if (!restart && timer_kind_ == kind && armed()) return;
  timer_kind_ = kind;
  ctx_->timers(kind).arm(*this, ctx_->loop.now());
}

std::span<char> Connection::read_space() {
  // A partial request continues in its block so that it stays contiguous for the parser.
  if (h2_ == nullptr && phase_ != Phase::kLingering && input_len_ > 0) {
    return {input_ + input_len_, WorkerContext::kReadBytes - input_len_};
  }
  return {ctx_->read_buffer.data(), ctx_->read_buffer.size()};
}

void Connection::on_data(std::span<char> bytes) {
  if (h2_ != nullptr) {
    h2_->on_data(bytes);
    return;
  }
  if (phase_ == Phase::kLingering) {
    if (++linger_reads_ >= kMaxLingerReads) close();
    return;  // discarded
  }
  process_input({input_len_ > 0 ? input_ : bytes.data(), input_len_ + bytes.size()});
}

// On a connection's first bytes: becomes HTTP/2 when they are its preface (or ALPN said "h2"),
// and says whether it did. A partial preface waits for the rest.
bool Connection::start_h2_if_preface(std::span<const char> input) {
  const core::TlsLayer* tls = transport_.tls();
  const http::PrefaceMatch match = tls != nullptr && tls->alpn() == "h2"
                                       ? http::PrefaceMatch::kYes
                                       : http::match_h2_preface({input.data(), input.size()});
  if (match == http::PrefaceMatch::kNo) {
    first_bytes_ = false;
    return false;
  }
  if (match == http::PrefaceMatch::kPartial) {
    keep_input(input);
    after_io();
    return true;
  }
  first_bytes_ = false;
  H2Connection& h2 = ctx_->h2->connections.acquire();
  if (!h2.open(*ctx_, transport_, *this)) {
    ctx_->h2->connections.release(h2);
    close();
    return true;
  }
  h2_ = &h2;
  h2.on_data(input);  // the codec keeps what it needs of the bytes: the kept block can go back
  if (is_open()) {
    ctx_->input_blocks.release(input_);
    input_ = nullptr;
    input_len_ = 0;
  }
  return true;
}

void Connection::process_input(std::span<const char> input) {
  if (first_bytes_ && ctx_->h2 != nullptr && start_h2_if_preface(input)) return;
  http::OutBuffer batch(ctx_->batch_buffer.data(), ctx_->batch_buffer.size());
  processing_ = true;
  std::size_t used = process(input, batch);
  processing_ = false;
  if (!is_open()) return;
  if (!queue_.empty() && !drain_ready(batch) && !is_open()) return;
  keep_input(input.subspan(used));
  // A full queue, or a parked request that ends the connection: read nothing more until answers
  // come (on_reply_ready), so the kept input stays bounded.
  if (queue_.size() >= kMaxQueued || close_after_queue_) transport_.pause_reading();
  if (input_len_ >= WorkerContext::kReadBytes && !transport_.write_pending() &&
      !close_after_output_) {
    // A kept head that fills its block can never complete (the parser caps heads below it).
    write_error(http::RequestError::kHeadTooLarge, batch);
  }
  if (!batch.empty() && !send(batch) && !is_open()) return;
  after_io();
}

std::size_t Connection::process(std::span<const char> input, http::OutBuffer& batch) {
  std::size_t pos = 0;
  while (pos < input.size() && !close_after_output_ && !close_after_queue_ &&
         queue_.size() < kMaxQueued && !transport_.write_pending()) {
    if (batch.remaining() < kReplyRoom && !send(batch)) break;
    if (phase_ == Phase::kBody) {
      if (!consume_body(input, pos, batch)) break;
      continue;
    }
    // The kept input starts at the head the scan belongs to; later heads in it start fresh
    // (the parser resets the scan on every complete or failed head).
    if (pos > 0) head_scan_ = {};
    http::ParseResult parsed = http::parse_request(input.subspan(pos), ctx_->request, head_scan_);
    if (parsed.status == http::ParseStatus::kPartial) break;
    if (parsed.status == http::ParseStatus::kError) {
      write_error(parsed.error, batch);
      break;
    }
    pos += parsed.consumed;
    const bool go_on = start_request(ctx_->request, pos == input.size(), batch);
    if (!queue_.empty() && !drain_ready(batch)) break;
    if (!go_on) break;
  }
  return pos;
}

bool Connection::start_request(const http::Request& request, bool body_waiting,
                               http::OutBuffer& batch) {
  reply_keep_alive_ = request.keep_alive;
  reply_head_only_ = request.method == http::Method::kHead;
  reply_http10_ = request.version_minor == 0;
  Exchange exchange(request, ctx_, this);
  reply_ = ctx_->router.route(exchange);
  if (!reply_.deferred && !fits_reply_room(reply_)) reply_ = kReplyTooLarge;
  switch (request.framing) {
    case http::BodyFraming::kNone:
      write_reply(batch);
      return !close_after_output_ && !close_after_queue_;
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
  if (reply_.deferred) return;  // parked: its PendingReply answers, in its place in the queue
  if (!queue_.empty()) {
    // Behind a parked request: wait in the queue, so responses leave in request order.
    park().respond(reply_);
    return;
  }
  http::ResponseOptions options{reply_head_only_, keep_alive(), reply_http10_, reply_.extra_headers};
  if (!http::write_response(batch, ctx_->date.value(), reply_.status, reply_.content_type,
                            reply_.body, options)) {
    // Cannot happen while kReplyRoom holds (checked in start_request); if it ever does, end the
    // connection after what was written rather than leave the client waiting for this response.
    close_after_output_ = true;
    return;
  }
  if (!options.keep_alive) close_after_output_ = true;
}

void Connection::write_error(http::RequestError error, http::OutBuffer& batch) {
  http::ErrorDescription description = http::describe(error);
  const bool answered_already = phase_ == Phase::kBody && reply_.deferred && queue_.empty();
  phase_ = Phase::kHead;
  if (answered_already) {
    // A parked route answered this request before its body had all arrived, and the body then
    // failed (stalled, or bad chunk framing): a second response would answer nothing the client
    // asked. End the connection after what was sent.
    close_after_output_ = true;
    return;
  }
  if (!queue_.empty()) {
    // Behind a parked request the error waits its turn too; it ends the connection after it.
    reply_keep_alive_ = reply_head_only_ = reply_http10_ = false;
    park().respond({description.status, "text/plain", description.message, {}});
    return;
  }
  http::ResponseOptions options{};
  options.keep_alive = false;
  // Error bodies are one short line, far below the room every request starts with.
  (void)http::write_response(batch, ctx_->date.value(), description.status, "text/plain",
                             description.message, options);
  close_after_output_ = true;
}

bool Connection::send(http::OutBuffer& batch) {
  const core::WriteResult result = transport_.write(std::span<const char>(batch.data(), batch.size()));
  batch.clear();
  if (result == core::WriteResult::kDone) return true;
  if (result == core::WriteResult::kFailed) {
    close();
    return false;
  }
  // The kernel's send buffer is full: the transport keeps the rest; read nothing more until it
  // drains (on_drained), so memory stays bounded by one block per slow reader.
  transport_.pause_reading();
  return false;
}

void Connection::keep_input(std::span<const char> rest) {
  // After "Connection: close" nothing more is processed, so nothing is kept.
  const bool closing = close_after_output_ || close_after_queue_;
  ctx_->input_blocks.keep(input_, input_len_, closing ? rest.first(0) : rest);
}

void Connection::on_drained() {
  if (h2_ != nullptr) {
    h2_->on_drained();
    return;
  }
  if (close_after_output_) {
    start_lingering_close();
    return;
  }
  send_answered_and_continue();
}

// After output drained or an answer came: sends the answered head of the queue, then answers the
// kept input and reads on, unless something still holds the connection back.
void Connection::send_answered_and_continue() {
  if (!queue_.empty()) {
    http::OutBuffer batch(ctx_->batch_buffer.data(), ctx_->batch_buffer.size());
    drain_ready(batch);
    if (!is_open() || (!batch.empty() && !send(batch) && !is_open())) return;
  }
  // Requests that arrived while the output was stalled, or the queue full, wait in the input
  // block: answer them before reading more, or a pipelined client waits for them forever.
  if (input_len_ > 0 && !transport_.write_pending() && !close_after_output_) {
    process_input({input_, input_len_});
  } else {
    after_io();
  }
  if (!is_open() || transport_.write_pending() || close_after_output_ || close_after_queue_ ||
      queue_.size() >= kMaxQueued) {
    return;
  }
  transport_.resume_reading();
}

PendingReply& Connection::park() {
  PendingReply& pending = ctx_->replies.acquire();
  pending.start(*ctx_, this, reply_keep_alive_, reply_head_only_, reply_http10_);
  queue_.push(pending);
  if (!reply_keep_alive_) close_after_queue_ = true;
  return pending;
}

// Moves the answered replies at the head of the queue into the batch, in order. False when the
// output stalled (the rest waits for on_drained) or the connection closed.
bool Connection::drain_ready(http::OutBuffer& batch) {
  // Nothing may follow a "Connection: close" response: what queues behind it is dropped at close.
  while (!close_after_output_ && !queue_.empty() && queue_.front()->done_) {
    PendingReply& head = *queue_.front();
    if (batch.remaining() < head.response_len_ && !send(batch)) return false;
    batch.append({head.response_, head.response_len_});
    if (!head.keep_alive_) close_after_output_ = true;
    queue_.pop();
    head.release();
  }
  return true;
}

void Connection::on_reply_ready(PendingReply&) {
  if (processing_) return;  // answered inside its handler: process() drains it in order
  send_answered_and_continue();
}

void Connection::drop_queue() {
  // Parked requests still waiting hear that their client went away; answered ones go back now.
  while (PendingReply* head = queue_.pop()) {
    if (head->done_) {
      head->release();
    } else {
      head->waiter_ = nullptr;
    }
  }
}

void Connection::on_peer_closed() {
  peer_closed_ = true;
  if (h2_ != nullptr) {
    close();  // HTTP/2 ends with GOAWAY: a client that closes has given up on its streams
    return;
  }
  if (phase_ == Phase::kLingering) {
    close();
    return;
  }
  // A client that closes while a request is parked has given up on it, as nginx assumes (HTTP/1.1
  // cannot tell a half-close from a close): end the connection now; the parked requests hear it
  // as aborted() and are cleaned up when their answers arrive.
  for (const PendingReply& parked : queue_) {
    if (!parked.done_) {
      close();
      return;
    }
  }
  after_io();
}

void Connection::on_error(int) { close(); }

void Connection::after_io() {
  if (!is_open() || phase_ == Phase::kLingering) return;
  if (transport_.write_pending() || (!queue_.empty() && !close_after_output_)) {
    // Waiting for the client to read, or for parked requests' answers: the idle clock applies.
    arm(TimerKind::kIdle, true);
    return;
  }
  if (close_after_output_) {
    start_lingering_close();
    return;
  }
  if (peer_closed_) {
    close();  // everything asked for is answered; a partial request can never complete
    return;
  }
  if (phase_ == Phase::kBody) {
    arm(TimerKind::kHeader, true);  // each part of a body restarts its clock
  } else if (input_len_ > 0) {
    arm(TimerKind::kHeader, false);  // a partial head: the clock keeps running (slowloris)
  } else {
    // Draining too: an idle connection stays open until its next request, answered with
    // "Connection: close", or until the drain deadline (Worker::begin_drain says why).
    arm(TimerKind::kIdle, true);
  }
}

void Connection::start_lingering_close() {
  // Close our side first and read what the client still sends, so that its unread bytes do not
  // make the kernel answer with a reset that could destroy our last response (RFC 9112 9.6).
  ctx_->input_blocks.release(input_);
  input_ = nullptr;
  input_len_ = 0;
  head_scan_ = {};
  phase_ = Phase::kLingering;
  linger_reads_ = 0;
  if (peer_closed_ || !transport_.shutdown_write()) {
    close();
    return;
  }
  arm(TimerKind::kLinger, true);
  transport_.resume_reading();
}

void Connection::on_timeout() {
  if (h2_ != nullptr) {
    timer_kind_ = TimerKind::kNone;
    h2_->on_timeout();
    return;
  }
  TimerKind kind = timer_kind_;
  timer_kind_ = TimerKind::kNone;
  if (kind == TimerKind::kHeader && (input_len_ > 0 || phase_ == Phase::kBody)) {
    http::OutBuffer batch(ctx_->batch_buffer.data(), ctx_->batch_buffer.size());
    write_error(http::RequestError::kHeaderTimeout, batch);
    if (!send(batch) && !is_open()) return;
    after_io();
    return;
  }
  close();
}

void Connection::close_h2() {
  if (h2_ == nullptr) return;
  h2_->close();
  ctx_->h2->connections.release(*h2_);
  h2_ = nullptr;
}

void Connection::end_gracefully() {
  close_h2();  // from here on the connection only discards what it reads (kLingering)
  start_lingering_close();
}

void Connection::close() {
  if (!is_open()) return;
  disarm();
  timer_kind_ = TimerKind::kNone;
  close_h2();
  transport_.close();
  drop_queue();
  ctx_->input_blocks.release(input_);
  input_ = nullptr;
  input_len_ = 0;
  ctx_->owner->release(*this);
}

}  // namespace ringside::server
