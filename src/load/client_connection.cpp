#include "load/client_connection.hpp"

#include <algorithm>
#include <cerrno>

namespace ringside::load {
void ClientConnection::init(WorkerContext& context, core::TimePoint start,
                            core::Duration schedule_offset) {
  context_ = &context;
  schedule_offset_ = schedule_offset;
  next_send_ = start + schedule_offset;
}

void ClientConnection::start() { connect_now(context_->loop.now()); }

void ClientConnection::connect_now(core::TimePoint now) {
  const Url& url = context_->config.targets.front().url;
  connect_started_ = now;
  // Claim the first request before connecting, so that a refused connect fails a request and a
  // -n run ends even when the server is down.
  fill_pipeline(now);
  state_ = State::kConnecting;
  core::TlsContext* tls = context_->tls();
  const bool resume = tls != nullptr && context_->next_connection_resumes();
  const int result =
      transport_.connect(context_->loop, reinterpret_cast<const sockaddr*>(&url.address),
                         url.address_length, *this, context_->write_blocks, tls, resume);
  if (result == 0) {
    opened(now);
  } else if (result == EINPROGRESS) {
    arm_timeout(now);
  } else {
    fail(connect_error_class(result), now);
  }
}

core::TimePoint ClientConnection::tcp_connected_at() const {
  const core::TlsLayer* tls = transport_.tls();
  return tls != nullptr ? tls->tcp_connected_at() : core::TimePoint{};
}

void ClientConnection::on_connected(int error) {
  // Measurement wants the time of this event, not of the loop turn: read the clock here.
  const core::TimePoint now = core::Clock::now();
  if (error != 0) {
    // With TLS, a failure after the TCP connect is the handshake's, whatever the errno.
    fail(tcp_connected_at() > connect_started_ ? ErrorClass::kTls : connect_error_class(error),
         now);
    return;
  }
  opened(now);
}

void ClientConnection::opened(core::TimePoint now) {
  state_ = State::kOpen;
  context_->count_opened(transport_.tls(), connect_started_, now);
  if (count_ == 0) {
    disarm();
    timer_use_ = TimerUse::kNone;
  } else {
    arm_timeout(now);
  }
  fill_pipeline(now);
}

void ClientConnection::fill_pipeline(core::TimePoint now) {
  if (close_after_response_) return;
  const LoadConfig& config = context_->config;
  const unsigned depth = state_ == State::kOpen ? config.pipeline : 1;
  const bool was_idle = count_ == 0;
  while (count_ < depth) {
    WorkerContext::Claim claim = context_->claim(*this, now);
    if (!claim.granted) break;
    Pending& p = pending_[(head_ + count_) % kMaxPipeline];
    p = {claim.intended, now, context_->next_target(), claim.measured, false};
    ++count_;
    ++unwritten_;
    context_->in_flight_changed(1);
    if (config.rate > 0) next_send_ += context_->send_interval;
  }
  if (state_ != State::kOpen) return;
  if (was_idle && count_ > 0) arm_timeout(now);
  if (unwritten_ > 0) write_unsent(now);
}

bool ClientConnection::write_unsent(core::TimePoint now) {
  // One write at a time: what the kernel did not take waits in the transport, and on_drained
  // hands over the rest. A write carries at most max_write() bytes (large bodies go in parts).
  if (transport_.write_pending()) return true;
  const auto& targets = context_->config.targets;
  iovec iov[kMaxPipeline];
  const unsigned first = (head_ + count_ - unwritten_) % kMaxPipeline;
  std::size_t budget = transport_.max_write();
  unsigned parts = 0;
  for (unsigned i = 0; i < unwritten_ && budget > 0; ++i) {
    const std::string& request = targets[pending_[(first + i) % kMaxPipeline].target].request;
    std::size_t offset = i == 0 ? write_offset_ : 0;
    std::size_t take = std::min(request.size() - offset, budget);
    iov[parts++] = {const_cast<char*>(request.data()) + offset, take};
    budget -= take;
  }
  if (transport_.write(std::span<const iovec>(iov, parts)) == core::WriteResult::kFailed) {
    fail(io_error_class(errno, ErrorClass::kWrite), now);
    return false;
  }
  // Every byte handed over is on its way: sent, or kept by the transport until the socket drains.
  const std::size_t handed = transport_.max_write() - budget;
  if (context_->measuring(now)) {
    context_->stats().bytes_written += handed;
    ++context_->stats().writes;
  }
  std::size_t left = handed;
  unsigned index = first;
  while (left > 0 && unwritten_ > 0) {
    Pending& p = pending_[index];
    if (write_offset_ == 0) p.written = now;  // its first byte left now
    std::size_t rest = targets[p.target].request.size() - write_offset_;
    if (left >= rest) {
      left -= rest;
      write_offset_ = 0;
      --unwritten_;
      index = (index + 1) % kMaxPipeline;
    } else {
      write_offset_ += left;
      left = 0;
    }
  }
  return true;
}

void ClientConnection::on_drained() {
  if (unwritten_ > 0) write_unsent(core::Clock::now());
}

void ClientConnection::on_error(int error) {
  fail(io_error_class(error, ErrorClass::kRead), core::Clock::now());
}

std::span<char> ClientConnection::read_space() {
  if (partial_len_ > 0) return {partial_ + partial_len_, http::kMaxResponseHeadBytes - partial_len_};
  return {context_->read_buffer.data(), context_->read_buffer.size()};
}

void ClientConnection::on_data(std::span<char> bytes) {
  const core::TimePoint now = core::Clock::now();
  if (context_->measuring(now)) context_->stats().bytes_read += bytes.size();
  std::span<const char> input(partial_len_ > 0 ? partial_ : bytes.data(), partial_len_ + bytes.size());
  const std::uint32_t generation = transport_.generation();
  // The answers of one read make room for as many new requests, sent in one write after them
  // (a write per answer would cost a syscall each and hand the server one request per segment).
  reading_ = true;
  const std::size_t used = process(input, now);
  reading_ = false;
  if (transport_.generation() != generation || state_ != State::kOpen) return;
  fill_pipeline(now);
  context_->partial_blocks.keep(partial_, partial_len_, input.subspan(used));
  // A kept head that fills its block can never complete (the parser caps heads below it).
  if (partial_len_ >= http::kMaxResponseHeadBytes) fail(ErrorClass::kMalformed, now);
}

void ClientConnection::on_peer_closed() {
  const core::TimePoint now = core::Clock::now();
  const std::uint32_t generation = transport_.generation();
  // The server closed. A body that runs until close ends here; anything else is cut short.
  if (in_body_) {
    auto result = body_.finish_at_close();
    if (result.done && result.error == http::ResponseError::kNone) finish_response(now);
    if (transport_.generation() != generation) return;
  }
  if (count_ > 0) {
    fail(ErrorClass::kClosed, now);
  } else {
    close_socket();
    reconnect(now, false);
  }
}

std::size_t ClientConnection::process(std::span<const char> input, core::TimePoint now) {
  const std::uint32_t generation = transport_.generation();
  std::size_t pos = 0;
  while (pos < input.size() && transport_.generation() == generation) {
    if (!in_body_) {
      if (count_ == 0) {  // bytes nobody asked for
        fail(ErrorClass::kMalformed, now);
        return pos;
      }
      Pending& p = front();
      if (!p.answered_first_byte) {
        p.answered_first_byte = true;
        if (p.measured) context_->stats().waiting.record(context_->micros(now - p.written));
      }
      http::ResponseParseOptions options;
      options.request_was_head = context_->config.targets[p.target].is_head;
      http::Response& response = context_->response;
      auto head = http::parse_response_head(input.subspan(pos), response, options);
      if (head.status == http::ParseStatus::kPartial) return pos;
      if (head.status == http::ParseStatus::kError) {
        fail(ErrorClass::kMalformed, now);
        return pos;
      }
      pos += head.consumed;
      if (response.is_interim()) continue;
      status_ = response.status;
      close_after_response_ = !response.keep_alive || !context_->config.keep_alive;
      body_.start(response);
      in_body_ = true;
      if (body_.done()) {
        finish_response(now);
        continue;
      }
    }
    auto result = body_.feed(input.subspan(pos));
    pos += result.consumed;
    if (result.error != http::ResponseError::kNone) {
      fail(ErrorClass::kMalformed, now);
      return pos;
    }
    if (result.done) finish_response(now);
  }
  return pos;
}

void ClientConnection::finish_response(core::TimePoint now) {
  in_body_ = false;
  const Pending p = front();
  head_ = (head_ + 1) % kMaxPipeline;
  --count_;
  context_->in_flight_changed(-1);
  if (p.measured) {
    Stats& stats = context_->stats();
    const std::uint64_t latency = context_->micros(now - p.intended);
    stats.latency.record(latency);
    stats.latency_uncorrected.record(context_->micros(now - p.written));
    ++stats.status[status_ < stats.status.size() ? status_ : 0];
    const std::size_t second = context_->second_of(now);
    stats.count_completion(second);
    if (stats.latency_seconds.enabled()) stats.latency_seconds.record(second, latency);
  } else {
    ++context_->stats().warmup_completed;
  }
  if (close_after_response_) {
    if (count_ > 0) {
      fail(ErrorClass::kClosed, now);  // the server will not answer what was pipelined after
    } else {
      close_socket();
      reconnect(now, false);
    }
    return;
  }
  if (count_ > 0) {
    arm_timeout(now);  // progress: the oldest outstanding request gets a fresh --timeout
  } else {
    disarm();
    timer_use_ = TimerUse::kNone;
  }
  if (!reading_) fill_pipeline(now);  // on_data fills once for all of its answers
}

void ClientConnection::fail(ErrorClass error, core::TimePoint now) {
  // A connect (TCP, and with TLS its handshake) that failed: counted when no request waited on
  // it, and retried after a pause rather than in a busy loop.
  const bool connecting = state_ == State::kConnecting;
  unsigned measured = 0;
  for (unsigned i = 0; i < count_; ++i) measured += pending_[(head_ + i) % kMaxPipeline].measured;
  Stats& stats = context_->stats();
  if (measured > 0) {
    stats.count_error(error, measured);
  } else if (connecting && context_->measuring(now)) {
    ++stats.connect_failures;
  }
  context_->in_flight_changed(-static_cast<int>(count_));
  count_ = unwritten_ = head_ = 0;
  write_offset_ = 0;
  close_socket();
  reconnect(now, connecting);
}

void ClientConnection::close_socket() {
  transport_.close();
  state_ = State::kClosed;
  in_body_ = false;
  close_after_response_ = false;
  context_->partial_blocks.release(partial_);
  partial_ = nullptr;
  partial_len_ = 0;
  disarm();
  timer_use_ = TimerUse::kNone;
}

void ClientConnection::reconnect(core::TimePoint now, bool back_off) {
  if (!context_->may_start_more(now)) return;
  if (back_off) {
    // A refused or failed connect is retried after a short pause, not in a busy loop.
    state_ = State::kBackoff;
    timer_use_ = TimerUse::kBackoff;
    context_->backoffs.arm(*this, now);
    return;
  }
  connect_now(now);
}

void ClientConnection::on_timer() {
  const TimerUse use = timer_use_;
  timer_use_ = TimerUse::kNone;
  const core::TimePoint now = context_->loop.now();
  if (use == TimerUse::kBackoff) {
    state_ = State::kClosed;
    connect_now(now);
  } else if (state_ == State::kConnecting) {
    fail(tcp_connected_at() > connect_started_ ? ErrorClass::kTls : ErrorClass::kConnectTimeout,
         now);
  } else if (state_ == State::kOpen) {
    fail(ErrorClass::kTimeout, now);
  }
}

void ClientConnection::on_due() {
  const core::TimePoint now = context_->loop.now();
  if (state_ == State::kOpen) {
    fill_pipeline(now);
  } else if (state_ == State::kClosed) {
    connect_now(now);
  }
}

void ClientConnection::abandon() {
  for (unsigned i = 0; i < count_; ++i) {
    context_->stats().in_flight += pending_[(head_ + i) % kMaxPipeline].measured;
  }
  context_->in_flight_changed(-static_cast<int>(count_));
  count_ = unwritten_ = head_ = 0;
  close_socket();
}

void ClientConnection::arm_timeout(core::TimePoint now) {
  timer_use_ = TimerUse::kTimeout;
  context_->timeouts.arm(*this, now);
}

}  // namespace ringside::load
