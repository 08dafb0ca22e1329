#include "server/h2_connection.hpp"

#include <array>
#include <charconv>
#include <cstring>

#include "http/request_parser.hpp"
#include "http/token.hpp"
#include "server/exchange.hpp"
#include "server/router.hpp"

namespace ringside::server {
namespace {

constexpr std::uint32_t kNoError = 0x0;
constexpr std::uint32_t kInternalError = 0x2;
constexpr std::size_t kMaxExtraFields = 8;

constexpr Reply kFieldsTooLarge{http::Status::kRequestHeaderFieldsTooLarge,
                                "text/plain",
                                "request header fields too large\n",
                                {}};
constexpr Reply kBodyTooLarge{
    http::Status::kPayloadTooLarge, "text/plain", "request body too large\n", {}};

// A field as the stream keeps it: 2-byte lengths, then the bytes.
struct StoredField {
  std::string_view name;
  std::string_view value;
};

std::uint16_t read_length(const char* at) {
  std::uint16_t length;
  std::memcpy(&length, at, sizeof length);
  return length;
}

// Walks the fields kept in a stream's head block.
template <typename Visit>
void for_each_field(const H2Stream& stream, Visit&& visit) {
  std::uint32_t at = 0;
  while (at < stream.head_used) {
    const std::uint16_t name_length = read_length(stream.head_block + at);
    const std::uint16_t value_length = read_length(stream.head_block + at + 2);
    const char* name = stream.head_block + at + 4;
    visit(std::string_view(name, name_length), std::string_view(name + name_length, value_length));
    at += 4 + name_length + value_length;
  }
}

// Fields of a Reply's extra_headers ("Allow: GET, HEAD\r\n" lines), names lowercased into
// `names`; connection-specific ones, which HTTP/2 forbids, are left out.
std::size_t split_extra_headers(std::string_view lines, std::span<H2Field> fields,
                                std::span<char> names) {
  std::size_t count = 0;
  std::size_t names_used = 0;
  while (!lines.empty() && count < fields.size()) {
    const std::size_t end = lines.find("\r\n");
    const std::string_view line = lines.substr(0, end);
    lines = end == std::string_view::npos ? std::string_view{} : lines.substr(end + 2);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || names_used + colon > names.size()) continue;
    const std::string_view name = line.substr(0, colon);
    if (http::equals_ignore_case(name, "connection") ||
        http::equals_ignore_case(name, "keep-alive") ||
        http::equals_ignore_case(name, "transfer-encoding")) {
      continue;
    }
    char* lowered = names.data() + names_used;
    for (std::size_t i = 0; i < name.size(); ++i) lowered[i] = http::ascii_lower(name[i]);
    names_used += name.size();
    fields[count++] = {{lowered, name.size()}, http::trim_whitespace(line.substr(colon + 1))};
  }
  return count;
}

}  // namespace

bool H2Connection::open(WorkerContext& context, core::Transport& transport, H2Host& host) {
  ctx_ = &context;
  h2_ = context.h2;
  transport_ = &transport;
  host_ = &host;
  open_streams_ = routing_ = nullptr;
  receiving_ = going_away_ = false;
  body_owed_ = body_sent_at_arm_ = 0;
  if (h2_->nghttp2_codec) {
    codec_ = &nghttp2_codec_;
    return nghttp2_codec_.open(h2_->setup, *this, h2_->memory);
  }
  codec_ = &own_codec_;
  return own_codec_.open(h2_->limits, *this, h2_->memory,
                         {h2_->hpack_scratch.get(), http::HpackDecoder::kScratchBytes});
}

void H2Connection::on_data(std::span<const char> bytes) {
  receiving_ = true;
  const bool whole =
      codec_->receive(bytes);  // a broken one sends its GOAWAY, then closes (after_io)
  receiving_ = false;
  // Draining: GOAWAY after the read, naming the streams it opened (they are answered). Before
  // it, a stream of this read would be handled and then dropped unanswered, and a connection
  // error later in the read would send a second GOAWAY with a higher last stream id.
  if (whole && ctx_->draining && !going_away_) {
    going_away_ = true;
    codec_->shut_down();
  }
  flush();
}

void H2Connection::on_drained() {
  transport_->resume_reading();
  flush();
}

void H2Connection::on_timeout() {
  // flush() may end the connection and give this object back: keep what is needed after it.
  core::Transport* transport = transport_;
  H2Host* host = host_;
  codec_->terminate(kNoError);
  flush();
  if (transport->is_open()) host->close();
}

void H2Connection::close() {
  own_codec_.close();
  nghttp2_codec_.close();
  while (open_streams_ != nullptr) release_stream(*open_streams_);
}

H2Stream* H2Connection::on_stream_open(std::int32_t id) {
  H2Stream& stream = h2_->streams.acquire();
  stream = H2Stream{};
  stream.id = id;
  stream.head_block = h2_->head_blocks.acquire();
  stream.next_open = open_streams_;
  if (open_streams_ != nullptr) open_streams_->prev_open = &stream;
  open_streams_ = &stream;
  return &stream;
}

void H2Connection::on_field(H2Stream& stream, std::string_view name, std::string_view value) {
  if (stream.routed || stream.head_block == nullptr) return;  // trailers after an early answer
  // Known before any answer, an error's too: a HEAD answer carries no body (RFC 9110 9.3.2).
  if (name == ":method") stream.head_only = value == "HEAD";
  const std::size_t need = 4 + name.size() + value.size();
  if (name.size() > 0xffff || value.size() > 0xffff ||
      stream.head_used + need > h2_->head_blocks.block_size()) {
    stream.head_too_large = true;
    return;
  }
  char* at = stream.head_block + stream.head_used;
  const auto name_length = static_cast<std::uint16_t>(name.size());
  const auto value_length = static_cast<std::uint16_t>(value.size());
  std::memcpy(at, &name_length, 2);
  std::memcpy(at + 2, &value_length, 2);
  std::memcpy(at + 4, name.data(), name.size());
  std::memcpy(at + 4 + name.size(), value.data(), value.size());
  stream.head_used += static_cast<std::uint32_t>(need);
}

void H2Connection::on_body(H2Stream& stream, std::size_t bytes) {
  stream.body_received += bytes;
  if (stream.routed || stream.body_received <= ctx_->config.max_body) return;
  // Too large: answer now and end the stream, rather than read (and give window for) the rest.
  stream.routed = true;
  h2_->head_blocks.release(stream.head_block);
  stream.head_block = nullptr;
  answer(stream, kBodyTooLarge, kBodyTooLarge.body);
  codec_->reset_after_answer(stream);
}

void H2Connection::on_request_end(H2Stream& stream) {
  if (!stream.routed) route(stream);
}

void H2Connection::on_stream_close(H2Stream& stream) {
  release_stream(stream);
}

void H2Connection::route(H2Stream& stream) {
  stream.routed = true;
  http::Request& request = ctx_->request;
  if (stream.head_too_large || !read_request(stream, request)) {
    answer(stream, kFieldsTooLarge, kFieldsTooLarge.body);
  } else {
    Exchange exchange(request, ctx_, this);
    routing_ = &stream;
    Reply reply = ctx_->router.route(exchange);
    routing_ = nullptr;
    if (!reply.deferred) {
      if (!fits_reply_room(reply)) reply = kReplyTooLarge;
      answer(stream, reply, reply.body);
    }
  }
  // The handler has returned: nothing points into the fields any more.
  h2_->head_blocks.release(stream.head_block);
  stream.head_block = nullptr;
}

// Fills `request` from the stream's fields, as the HTTP/1.1 parser would from a head. False when
// there are more fields than a Request holds.
bool H2Connection::read_request(H2Stream& stream, http::Request& request) {
  request.method_name = request.target = request.path = request.query = request.host = {};
  request.version_minor = 1;
  request.keep_alive = true;
  request.expect_continue = false;
  request.header_count = 0;
  request.framing =
      stream.body_received > 0 ? http::BodyFraming::kContentLength : http::BodyFraming::kNone;
  request.content_length = stream.body_received;
  std::string_view host_field;
  bool fits = true;
  for_each_field(stream, [&](std::string_view name, std::string_view value) {
    if (name == ":method") {
      request.method_name = value;
    } else if (name == ":path") {
      request.target = value;
    } else if (name == ":authority") {
      request.host = value;
    } else if (name.starts_with(':')) {
      return;  // :scheme, :protocol
    } else if (request.header_count == http::kMaxHeaders) {
      fits = false;
    } else {
      if (name == "host") host_field = value;
      request.headers[request.header_count++] = {name, value};
    }
  });
  if (request.host.empty()) request.host = host_field;
  request.method = http::method_of(request.method_name);
  const std::size_t question = request.target.find('?');
  request.path = request.target.substr(0, question);
  if (question != std::string_view::npos) request.query = request.target.substr(question + 1);
  return fits;
}

// Answers `stream` with `reply`; its body (`body`, which may be gone after this call) is copied.
void H2Connection::answer(H2Stream& stream, const Reply& reply, std::string_view body) {
  if (!body.empty() && !stream.head_only) {
    stream.body_block = ctx_->body_blocks.acquire();
    std::memcpy(stream.body_block, body.data(), body.size());
    stream.body = {stream.body_block, body.size()};
  }
  respond(stream, reply.status, reply.content_type, reply.extra_headers, body.size());
}

void H2Connection::respond(H2Stream& stream, http::Status status, std::string_view content_type,
                           std::string_view extra_headers, std::size_t body_size) {
  char length[24];
  const auto [length_end, ignored] = std::to_chars(length, length + sizeof length, body_size);
  std::array<H2Field, 3 + kMaxExtraFields> fields{{
      {"content-type", content_type},
      {"content-length", {length, static_cast<std::size_t>(length_end - length)}},
      {"date", ctx_->date.value()},
  }};
  char names[256];
  const std::size_t extra =
      split_extra_headers(extra_headers, std::span<H2Field>(fields).subspan(3), names);
  H2ResponseHead head{http::code(status), std::span<const H2Field>(fields.data(), 3 + extra),
                      !stream.body.empty()};
  body_owed_ += stream.body.size();  // given back by release_stream if the stream ends first
  if (!codec_->respond(stream, head)) codec_->reset(stream, kInternalError);
}

PendingReply& H2Connection::park() {
  PendingReply& pending = ctx_->replies.acquire();
  pending.start_h2(*ctx_, this, routing_);
  routing_->pending = &pending;
  return pending;
}

void H2Connection::on_reply_ready(PendingReply& reply) {
  H2Stream& stream = *static_cast<H2Stream*>(reply.stream_);
  if (!stream.head_only) stream.body = {reply.response_, reply.response_len_};
  respond(stream, reply.status_, reply.content_type_, reply.extra_headers_, reply.response_len_);
  if (!receiving_) flush();  // inside receive(), the answer goes out with the rest of the read's
}

void H2Connection::release_stream(H2Stream& stream) {
  if (stream.prev_open != nullptr) {
    stream.prev_open->next_open = stream.next_open;
  } else {
    open_streams_ = stream.next_open;
  }
  if (stream.next_open != nullptr) stream.next_open->prev_open = stream.prev_open;
  body_owed_ -= stream.body.size() - stream.body_sent;
  h2_->head_blocks.release(stream.head_block);
  ctx_->body_blocks.release(stream.body_block);
  if (PendingReply* pending = stream.pending) {
    if (pending->done_) {
      pending->release();
    } else {
      pending->waiter_ = nullptr;  // the client reset the stream: the answer only goes back
    }
  }
  h2_->streams.release(stream);
}

// Sends what the codec has to send, in as few writes as the batch buffer allows.
void H2Connection::flush() {
  http::OutBuffer batch(ctx_->batch_buffer.data(), ctx_->batch_buffer.size());
  while (transport_->is_open() && !transport_->write_pending()) {
    const std::span<const char> out = codec_->output();
    if (out.empty()) break;
    if (out.size() > batch.remaining() && !batch.empty() && !send(batch)) break;
    if (out.size() > batch.remaining()) {
      if (!send(out)) break;  // larger than the whole batch: straight from the codec
      continue;
    }
    batch.append({out.data(), out.size()});
  }
  if (!batch.empty() && transport_->is_open() && !transport_->write_pending()) (void)send(batch);
  after_io();
}

bool H2Connection::send(http::OutBuffer& batch) {
  const bool sent = send(std::span<const char>(batch.data(), batch.size()));
  batch.clear();
  return sent;
}

bool H2Connection::send(std::span<const char> bytes) {
  const core::WriteResult result = transport_->write(bytes);
  if (result == core::WriteResult::kDone) return true;
  if (result == core::WriteResult::kFailed) {
    host_->close();
    return false;
  }
  // The kernel's send buffer is full: the transport keeps the rest; read nothing more until it
  // drains (on_drained), so what waits stays bounded.
  transport_->pause_reading();
  return false;
}

void H2Connection::after_io() {
  if (!transport_->is_open() || transport_->write_pending()) return;  // on_drained comes back
  const bool finished = !codec_->alive() || (going_away_ && open_streams_ == nullptr);
  if (finished) {
    host_->end_gracefully();
    return;
  }
  // While the peer's windows hold an answer back, only a body byte let through starts the clock
  // again: a client that never opens a window is timed out at --idle-timeout however much else
  // it sends meanwhile (PINGs, SETTINGS, WINDOW_UPDATEs for other streams, new requests).
  const std::uint64_t sent = codec_->body_bytes_sent();
  const bool held = body_owed_ > sent;
  host_->arm_idle(!held || sent != body_sent_at_arm_);
  body_sent_at_arm_ = sent;
}

}  // namespace ringside::server
