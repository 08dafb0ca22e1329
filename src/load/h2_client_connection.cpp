#include "load/h2_client_connection.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>

#include "http/h2_frame.hpp"

namespace ringside::load {
namespace {

constexpr std::uint32_t kLastStreamId = 0x7fffffff;
// Streams opened before the server's first SETTINGS (which a server sends first, so it comes a
// round trip after the connect): RFC 9113 lets a client open up to 100 meanwhile, but a server
// that allows fewer refuses the rest, which would count as failures of the server.
constexpr unsigned kStreamsBeforeSettings = 1;
// Output kept free beside new streams' HEADERS for the answers a read may owe (SETTINGS and PING
// ACKs, WINDOW_UPDATEs): a server's control frames must outrun this, with the socket backed up,
// before the connection fails.
constexpr std::size_t kAnswerReserve = 16 * http::H2ResponseReader::kAnswerRoom;

}  // namespace

void H2ClientConnection::init(WorkerContext& context, core::TimePoint start,
                              core::Duration schedule_offset) {
  context_ = &context;
  schedule_offset_ = schedule_offset;
  next_send_ = start + schedule_offset;
  // At most half the slots in use, so a free id is always near.
  streams_.resize(std::bit_ceil(std::max(2U, 2 * context.config.streams)));
}

void H2ClientConnection::start() {
  connect_now(context_->loop.now());
}

void H2ClientConnection::connect_now(core::TimePoint now) {
  const Url& url = context_->config.targets.front().url;
  connect_started_ = now;
  out_block_ = context_->write_blocks.acquire();
  out_ = http::OutBuffer(out_block_, context_->write_blocks.block_size());
  char start[http::H2ResponseReader::kClientStartSize];
  out_.append({start, http::H2ResponseReader::write_client_start(start)});
  reader_.emplace();
  next_stream_id_ = 1;
  winding_down_ = false;
  connection_window_ = 65535;  // RFC 9113 section 6.9.2, until the server's WINDOW_UPDATEs
  initial_window_ = 65535;
  bodies_pending_ = 0;
  state_ = State::kConnecting;
  // As HTTP/1.1 does: the first request is claimed before connecting, so a refused connect fails
  // a request and a -n run ends even when the server is down.
  open_streams(now);
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

void H2ClientConnection::on_connected(int error) {
  const core::TimePoint now = core::Clock::now();
  if (error != 0) {
    fail(tls_handshaking() ? ErrorClass::kTls : connect_error_class(error), now);
    return;
  }
  opened(now);
}

bool H2ClientConnection::tls_handshaking() const {
  const core::TlsLayer* tls = transport_.tls();
  return tls != nullptr && tls->tcp_connected_at() > connect_started_;
}

void H2ClientConnection::opened(core::TimePoint now) {
  state_ = State::kOpen;
  const core::TlsLayer* tls = transport_.tls();
  context_->count_opened(tls, connect_started_, now);
  if (tls != nullptr && tls->alpn() != "h2") {  // the server does not speak HTTP/2 over TLS
    fail(ErrorClass::kProtocol, now);
    return;
  }
  for (Stream& stream : streams_) stream.written = now;  // the streams claimed while connecting
  if (open_ > 0) arm_timeout(now);
  open_streams(now);
}

unsigned H2ClientConnection::stream_limit() const {
  const std::uint32_t server =
      reader_->settings_received() ? reader_->max_concurrent_streams() : kStreamsBeforeSettings;
  return std::min(context_->config.streams, server);
}

void H2ClientConnection::open_streams(core::TimePoint now) {
  const auto& targets = context_->config.targets;
  const unsigned limit = state_ == State::kOpen ? stream_limit() : 1;
  const bool was_idle = open_ == 0;
  const std::size_t mask = streams_.size() - 1;
  while (!winding_down_ && open_ < limit) {
    const std::string& next_frame = targets[context_->peek_target()].h2_headers;
    if (out_.remaining() < next_frame.size() + kAnswerReserve) break;  // after the next write
    // A connection whose ids run out is retired once its streams are done.
    if (next_stream_id_ > kLastStreamId - 2 * streams_.size()) {
      winding_down_ = true;
      break;
    }
    const WorkerContext::Claim claim = context_->claim(*this, now);
    if (!claim.granted) break;
    while (streams_[(next_stream_id_ >> 1) & mask].id != 0) next_stream_id_ += 2;
    Stream& stream = streams_[(next_stream_id_ >> 1) & mask];
    stream = {next_stream_id_, context_->next_target(), claim.intended, now, 0, claim.measured, 0,
              initial_window_};
    const std::size_t at = out_.size();
    out_.append(targets[stream.target].h2_headers);
    http::patch_h2_stream_id(out_block_ + at, stream.id);
    if (targets[stream.target].body_size > 0) ++bodies_pending_;
    next_stream_id_ += 2;
    ++open_;
    context_->in_flight_changed(1);
    if (context_->config.rate > 0) next_send_ += context_->send_interval;
  }
  if (state_ != State::kOpen) return;
  if (was_idle && open_ > 0) arm_timeout(now);
  // Bodies larger than the output block go out block by block while the windows allow: each
  // write that the kernel took whole makes room for the next (one it did not take waits for
  // on_drained, which comes back here).
  bool more = send_bodies();
  while (flush(now) && more && out_.empty() && state_ == State::kOpen) more = send_bodies();
}

// Puts as much of the open streams' bodies into the output as the windows allow; true when the
// output filled first (more could go after a write).
bool H2ClientConnection::send_bodies() {
  if (bodies_pending_ == 0 || state_ != State::kOpen) return false;
  for (Stream& stream : streams_) {
    if (connection_window_ <= 0) return false;
    if (stream.id != 0 && !send_body(stream)) return true;
  }
  return false;
}

// One stream's next DATA frames; false when the output has no room for more.
bool H2ClientConnection::send_body(Stream& stream) {
  const std::string_view body = context_->config.targets[stream.target].body();
  while (stream.body_sent < body.size() && stream.window > 0 && connection_window_ > 0) {
    if (out_.remaining() < http::kH2FrameHeaderSize + kAnswerReserve + 1) return false;
    const std::size_t room = out_.remaining() - http::kH2FrameHeaderSize - kAnswerReserve;
    const std::size_t size = std::min<std::size_t>(
        {body.size() - stream.body_sent, static_cast<std::size_t>(stream.window),
         static_cast<std::size_t>(connection_window_), reader_->max_frame_size(), room});
    const bool last = stream.body_sent + size == body.size();
    http::H2FrameHeader header;
    header.length = static_cast<std::uint32_t>(size);
    header.type = static_cast<std::uint8_t>(http::H2FrameType::kData);
    header.flags = last ? http::h2_flags::kEndStream : 0;
    header.stream_id = stream.id;
    char frame_header[http::kH2FrameHeaderSize];
    http::write_h2_frame_header(header, frame_header);
    out_.append({frame_header, sizeof frame_header});
    out_.append(body.substr(stream.body_sent, size));
    stream.body_sent += static_cast<std::uint32_t>(size);
    stream.window -= static_cast<std::int64_t>(size);
    connection_window_ -= static_cast<std::int64_t>(size);
    if (last) --bodies_pending_;
  }
  return true;
}

void H2ClientConnection::on_window_update(std::uint32_t stream_id, std::uint32_t increment) {
  if (stream_id == 0) {
    connection_window_ += increment;
  } else if (Stream* stream = find(stream_id)) {
    stream->window += increment;
  }
}

// A SETTINGS_INITIAL_WINDOW_SIZE changes every open stream's window by the difference (RFC 9113
// section 6.9.2).
void H2ClientConnection::follow_initial_window() {
  const std::uint32_t now_initial = reader_->initial_window();
  if (now_initial == initial_window_) return;
  const std::int64_t delta = static_cast<std::int64_t>(now_initial) - initial_window_;
  for (Stream& stream : streams_) {
    if (stream.id != 0) stream.window += delta;
  }
  initial_window_ = now_initial;
}

bool H2ClientConnection::flush(core::TimePoint now) {
  // One write at a time: while the transport holds unsent bytes, new ones wait here and
  // on_drained sends them. The block is max_write() bytes, so one write takes all of it.
  if (out_.empty() || state_ != State::kOpen || transport_.write_pending()) return true;
  if (transport_.write(std::span<const char>(out_.data(), out_.size())) ==
      core::WriteResult::kFailed) {
    fail(io_error_class(errno, ErrorClass::kWrite), now);
    return false;
  }
  if (context_->measuring(now)) {
    context_->stats().bytes_written += out_.size();
    ++context_->stats().writes;
  }
  out_.clear();
  return true;
}

void H2ClientConnection::on_drained() {
  const core::TimePoint now = core::Clock::now();
  if (flush(now)) open_streams(now);
}

void H2ClientConnection::on_error(int error) {
  fail(io_error_class(error, ErrorClass::kRead), core::Clock::now());
}

std::span<char> H2ClientConnection::read_space() {
  if (partial_len_ > 0) return {partial_ + partial_len_, WorkerContext::kFrameBytes - partial_len_};
  return {context_->read_buffer.data(), context_->read_buffer.size()};
}

void H2ClientConnection::on_data(std::span<char> bytes) {
  const core::TimePoint now = core::Clock::now();
  now_ = now;
  if (context_->measuring(now)) context_->stats().bytes_read += bytes.size();
  std::span<const char> input(partial_len_ > 0 ? partial_ : bytes.data(),
                              partial_len_ + bytes.size());
  const std::uint32_t generation = transport_.generation();
  const std::size_t used = process(input, now);
  if (transport_.generation() != generation || state_ != State::kOpen) return;
  context_->frame_blocks.keep(partial_, partial_len_, input.subspan(used));
  follow_initial_window();
  if (winding_down_ && open_ == 0) {  // after a GOAWAY, or with the ids spent: a new connection
    close_socket();
    reconnect(now, false);
    return;
  }
  open_streams(now);  // the streams this read finished make room for as many, in one write
}

std::size_t H2ClientConnection::process(std::span<const char> input, core::TimePoint now) {
  std::size_t used = 0;
  while (true) {
    const http::H2ReadResult result = reader_->feed(input.subspan(used), out_, *this);
    used += result.consumed;
    if (result.error != http::H2Error::kNoError) {
      fail(ErrorClass::kProtocol, now);
      return used;
    }
    if (out_.remaining() >= http::H2ResponseReader::kAnswerRoom) return used;  // a partial frame
    // The answers filled the output: send them and read on, unless the socket is backed up.
    if (transport_.write_pending()) {
      fail(ErrorClass::kProtocol, now);
      return used;
    }
    if (!flush(now)) return used;
  }
}

H2ClientConnection::Stream* H2ClientConnection::find(std::uint32_t stream_id) {
  Stream& stream = streams_[(stream_id >> 1) & (streams_.size() - 1)];
  return stream.id == stream_id && stream_id != 0 ? &stream : nullptr;
}

void H2ClientConnection::on_status(std::uint32_t stream_id, int status) {
  Stream* stream = find(stream_id);
  if (stream == nullptr) return;
  stream->status = static_cast<std::uint16_t>(status);
  if (stream->measured) context_->stats().waiting.record(context_->micros(now_ - stream->written));
}

void H2ClientConnection::on_stream_end(std::uint32_t stream_id) {
  if (Stream* stream = find(stream_id)) finish_stream(*stream, now_);
}

void H2ClientConnection::on_stream_reset(std::uint32_t stream_id, http::H2Error /*error*/) {
  Stream* stream = find(stream_id);
  if (stream == nullptr) return;
  if (stream->measured) context_->stats().count_error(ErrorClass::kStreamReset, 1);
  end_stream(*stream);
}

void H2ClientConnection::on_goaway(std::uint32_t last_stream_id, http::H2Error /*error*/) {
  // The streams above last_stream_id were not taken and will not be answered; the others may.
  winding_down_ = true;
  for (Stream& stream : streams_) {
    if (stream.id <= last_stream_id) continue;
    if (stream.measured) context_->stats().count_error(ErrorClass::kClosed, 1);
    end_stream(stream);
  }
}

void H2ClientConnection::end_stream(Stream& stream) {
  // Answered (or reset) before its whole body went: the rest is not sent.
  if (stream.body_sent < context_->config.targets[stream.target].body_size) --bodies_pending_;
  stream.id = 0;
  --open_;
  context_->in_flight_changed(-1);
  if (open_ == 0) {
    disarm();
    timer_use_ = TimerUse::kNone;
  }
}

void H2ClientConnection::finish_stream(Stream& stream, core::TimePoint now) {
  Stats& stats = context_->stats();
  if (!stream.measured) {
    ++stats.warmup_completed;
  } else if (stream.status == 0) {
    stats.count_error(ErrorClass::kMalformed, 1);  // it ended without a final :status
  } else {
    const std::uint64_t latency = context_->micros(now - stream.intended);
    stats.latency.record(latency);
    stats.latency_uncorrected.record(context_->micros(now - stream.written));
    ++stats.status[stream.status < stats.status.size() ? stream.status : 0];
    const std::size_t second = context_->second_of(now);
    stats.count_completion(second);
    if (stats.latency_seconds.enabled()) stats.latency_seconds.record(second, latency);
  }
  end_stream(stream);
  if (open_ > 0) arm_timeout(now);  // progress: the streams still out get a fresh --timeout
}

void H2ClientConnection::on_peer_closed() {
  const core::TimePoint now = core::Clock::now();
  if (open_ > 0) {
    fail(ErrorClass::kClosed, now);
  } else {
    close_socket();
    reconnect(now, false);
  }
}

void H2ClientConnection::fail(ErrorClass error, core::TimePoint now) {
  const bool connecting = state_ == State::kConnecting;
  unsigned measured = 0;
  for (const Stream& stream : streams_) measured += stream.id != 0 && stream.measured;
  Stats& stats = context_->stats();
  if (measured > 0) {
    stats.count_error(error, measured);
  } else if (connecting && context_->measuring(now)) {
    ++stats.connect_failures;
  }
  clear_streams();
  close_socket();
  reconnect(now, connecting);
}

void H2ClientConnection::clear_streams() {
  context_->in_flight_changed(-static_cast<int>(open_));
  for (Stream& stream : streams_) stream.id = 0;
  open_ = 0;
  bodies_pending_ = 0;
}

void H2ClientConnection::close_socket() {
  transport_.close();
  state_ = State::kClosed;
  reader_.reset();
  context_->frame_blocks.release(partial_);
  partial_ = nullptr;
  partial_len_ = 0;
  context_->write_blocks.release(out_block_);
  out_block_ = nullptr;
  out_ = http::OutBuffer(nullptr, 0);
  disarm();
  timer_use_ = TimerUse::kNone;
}

void H2ClientConnection::reconnect(core::TimePoint now, bool back_off) {
  if (!context_->may_start_more(now)) return;
  if (back_off) {
    state_ = State::kBackoff;
    timer_use_ = TimerUse::kBackoff;
    context_->backoffs.arm(*this, now);
    return;
  }
  connect_now(now);
}

void H2ClientConnection::on_timer() {
  const TimerUse use = timer_use_;
  timer_use_ = TimerUse::kNone;
  const core::TimePoint now = context_->loop.now();
  if (use == TimerUse::kBackoff) {
    state_ = State::kClosed;
    connect_now(now);
  } else if (state_ == State::kConnecting) {
    fail(tls_handshaking() ? ErrorClass::kTls : ErrorClass::kConnectTimeout, now);
  } else if (state_ == State::kOpen) {
    fail(ErrorClass::kTimeout, now);
  }
}

void H2ClientConnection::on_due() {
  const core::TimePoint now = context_->loop.now();
  if (state_ == State::kOpen) {
    open_streams(now);
  } else if (state_ == State::kClosed) {
    connect_now(now);
  }
}

void H2ClientConnection::abandon() {
  for (const Stream& stream : streams_) {
    context_->stats().in_flight += stream.id != 0 && stream.measured;
  }
  clear_streams();
  close_socket();
}

void H2ClientConnection::arm_timeout(core::TimePoint now) {
  timer_use_ = TimerUse::kTimeout;
  context_->timeouts.arm(*this, now);
}

}  // namespace ringside::load
