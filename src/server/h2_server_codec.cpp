#include "server/h2_server_codec.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "http/h2_request_fields.hpp"
#include "http/hpack_response.hpp"

namespace ringside::server {
namespace {

using http::H2Error;
using http::H2FrameHeader;
using http::H2FrameType;
using http::kH2FrameHeaderSize;
namespace flags = http::h2_flags;

constexpr std::uint32_t kMaxFrame = http::kH2DefaultMaxFrameSize;  // what we take: the default
constexpr std::int64_t kDefaultWindow = 65535;
constexpr std::int64_t kMaxWindow = 2147483647;
constexpr std::size_t kOutChunk = 64 * 1024;    // the send buffer's first size
constexpr std::size_t kOutTarget = 32 * 1024;   // DATA is added while the buffer holds less
constexpr std::size_t kOutLimit = 1024 * 1024;  // control frames past this: a flood
constexpr std::size_t kMaxHeadBlock = 4096;     // an answer's encoded fields
constexpr std::size_t kFirstBlockCapacity = 16 * 1024;

H2Error error_of(std::uint32_t code) {
  return static_cast<H2Error>(code);
}

bool is(const H2FrameHeader& header, H2FrameType type) {
  return header.type == static_cast<std::uint8_t>(type);
}

// The payload less its padding (RFC 9113 sections 6.1, 6.2); false when the padding is longer
// than the frame.
bool strip_padding(const H2FrameHeader& header, std::span<const char>& payload) {
  if ((header.flags & flags::kPadded) == 0) return true;
  if (payload.empty()) return false;
  const auto pad = static_cast<unsigned char>(payload[0]);
  if (pad >= payload.size()) return false;
  payload = payload.subspan(1, payload.size() - 1 - pad);
  return true;
}

}  // namespace

// Where a header block's fields go as it is decoded: to the stream while they keep the rules.
struct H2ServerCodec::FieldFeed {
  H2ServerCodec* codec;
  H2Stream* stream;
  http::H2RequestFields check;
  bool valid = true;
};

bool H2ServerCodec::open(const H2Limits& limits, H2CodecEvents& events,
                         core::RecyclingAllocator& memory, std::span<char> scratch) {
  close();
  limits_ = &limits;
  events_ = &events;
  memory_ = &memory;
  scratch_ = scratch;
  streams_.attach(memory);
  decoder_.emplace(http::HpackDecoder::kInitialTableSize);
  encoder_ = {};
  open_ = true;
  broken_ = goaway_sent_ = peer_goaway_ = settings_seen_ = settings_acked_ = false;
  preface_matched_ = 0;
  block_stream_ = 0;
  out_used_ = 0;
  out_handed_ = false;
  ready_head_ = ready_tail_ = nullptr;
  highest_id_ = last_opened_ = goaway_last_ = 0;
  send_window_ = receive_window_ = peer_initial_window_ = local_initial_window_ = kDefaultWindow;
  receive_unacked_ = 0;
  peer_max_frame_ = kMaxFrame;
  body_bytes_sent_ = 0;
  budget_.start(limits);
  recently_reset_.fill(0);
  next_reset_slot_ = 0;
  const std::array<http::H2SettingValue, 3> ours{{
      {http::H2Setting::kMaxConcurrentStreams, limits.max_concurrent_streams},
      {http::H2Setting::kMaxHeaderListSize, limits.max_header_list},
      {http::H2Setting::kInitialWindowSize, limits.initial_window},
  }};
  char* at = reserve(kH2FrameHeaderSize + 6 * ours.size());
  if (at == nullptr) return false;
  out_used_ += http::write_h2_settings(ours, at);
  return true;
}

void H2ServerCodec::close() {
  if (!open_) return;
  open_ = false;
  streams_.clear();
  decoder_.reset();
  memory_->free(partial_);
  memory_->free(block_);
  memory_->free(out_);
  partial_ = block_ = out_ = nullptr;
  head_used_ = partial_used_ = block_used_ = block_capacity_ = 0;
  out_used_ = out_capacity_ = 0;
  ready_head_ = ready_tail_ = nullptr;
}

// --- frames in -----------------------------------------------------------------------------

bool H2ServerCodec::receive(std::span<const char> bytes) {
  if (!open_ || broken_) return false;
  const std::string_view preface = http::kH2ClientPreface;
  while (preface_matched_ < preface.size() && !bytes.empty()) {
    if (bytes[0] != preface[preface_matched_]) return connection_error(H2Error::kProtocolError);
    ++preface_matched_;
    bytes = bytes.subspan(1);
  }
  if (head_used_ > 0 && !take_partial(bytes)) return false;
  while (head_used_ == 0 && bytes.size() >= kH2FrameHeaderSize) {
    const H2FrameHeader header = http::read_h2_frame_header(bytes);
    if (header.length > kMaxFrame) return connection_error(H2Error::kFrameSizeError);
    if (bytes.size() < kH2FrameHeaderSize + header.length) break;
    if (!frame(header, bytes.subspan(kH2FrameHeaderSize, header.length))) return false;
    bytes = bytes.subspan(kH2FrameHeaderSize + header.length);
  }
  // A frame's start: kept until the rest comes.
  if (!bytes.empty() && !take_partial(bytes)) return false;
  return !broken_;
}

// Takes `bytes` (all of them, or up to the end of the frame they complete) into the frame cut by
// the end of a read: its header in head_, its payload in partial_ (the exact size, from the
// allocator) only when the payload itself is cut; the frame is handled once whole.
bool H2ServerCodec::take_partial(std::span<const char>& bytes) {
  const std::size_t header_part = std::min(bytes.size(), kH2FrameHeaderSize - head_used_);
  if (header_part > 0) std::memcpy(head_.data() + head_used_, bytes.data(), header_part);
  head_used_ += static_cast<std::uint32_t>(header_part);
  bytes = bytes.subspan(header_part);
  if (head_used_ < kH2FrameHeaderSize) return true;
  const H2FrameHeader header = http::read_h2_frame_header(head_);
  if (header.length > kMaxFrame) return connection_error(H2Error::kFrameSizeError);
  if (partial_ == nullptr && bytes.size() >= header.length) {  // the payload is here whole
    head_used_ = 0;
    const std::span<const char> payload = bytes.first(header.length);
    bytes = bytes.subspan(header.length);
    return frame(header, payload);
  }
  if (partial_ == nullptr) {
    partial_ = static_cast<char*>(memory_->allocate(header.length));
    if (partial_ == nullptr) return connection_error(H2Error::kInternalError);
  }
  const std::size_t take = std::min<std::size_t>(bytes.size(), header.length - partial_used_);
  std::memcpy(partial_ + partial_used_, bytes.data(), take);
  partial_used_ += static_cast<std::uint32_t>(take);
  bytes = bytes.subspan(take);
  if (partial_used_ < header.length) return true;
  head_used_ = partial_used_ = 0;
  const bool whole = frame(header, {partial_, header.length});
  memory_->free(partial_);
  partial_ = nullptr;
  return whole;
}

bool H2ServerCodec::frame(const H2FrameHeader& header, std::span<const char> payload) {
  // RFC 9113 section 3.4: the client's preface ends with its SETTINGS.
  if (!settings_seen_) {
    if (!is(header, H2FrameType::kSettings) || (header.flags & flags::kAck) != 0) {
      return connection_error(H2Error::kProtocolError);
    }
    settings_seen_ = true;
  }
  // Section 4.3: a header block's frames come unbroken.
  if (block_stream_ != 0 && !is(header, H2FrameType::kContinuation)) {
    return connection_error(H2Error::kProtocolError);
  }
  switch (static_cast<H2FrameType>(header.type)) {
    case H2FrameType::kData:
      return data(header, payload);
    case H2FrameType::kHeaders:
      return headers(header, payload);
    case H2FrameType::kPriority:
      return priority(header, payload);
    case H2FrameType::kRstStream:
      return rst_stream(header, payload);
    case H2FrameType::kSettings:
      return settings(header, payload);
    case H2FrameType::kPushPromise:
      return connection_error(H2Error::kProtocolError);
    case H2FrameType::kPing:
      return ping(header, payload);
    case H2FrameType::kGoaway:
      if (header.stream_id != 0) return connection_error(H2Error::kProtocolError);
      if (payload.size() < 8) return connection_error(H2Error::kFrameSizeError);
      peer_goaway_ = true;
      return true;
    case H2FrameType::kWindowUpdate:
      return window_update(header, payload);
    case H2FrameType::kContinuation:
      return continuation(header, payload);
  }
  return true;  // an unknown type (section 5.5)
}

bool H2ServerCodec::data(const H2FrameHeader& header, std::span<const char> payload) {
  const auto id = static_cast<std::int32_t>(header.stream_id);
  if (id == 0 || !strip_padding(header, payload)) return connection_error(H2Error::kProtocolError);
  if (id > highest_id_) return connection_error(H2Error::kProtocolError);  // idle (section 5.1)
  // The connection's window counts every DATA frame, whatever its stream (section 6.9).
  if (header.length > receive_window_) return connection_error(H2Error::kFlowControlError);
  receive_window_ -= header.length;
  receive_unacked_ += header.length;
  if (receive_unacked_ >= kDefaultWindow / 2) {
    char* at = reserve(kH2FrameHeaderSize + 4);
    if (at == nullptr) return false;
    out_used_ += http::write_h2_window_update(0, receive_unacked_, at);
    receive_window_ += receive_unacked_;
    receive_unacked_ = 0;
  }
  H2Stream* stream = streams_.find(id);
  // A closed stream's late DATA is let pass, as libnghttp2 does: it may be one we reset, or one
  // the client's new streams closed before it opened (section 5.1.1); its window is counted.
  if (stream == nullptr || stream->reset_sent) return true;
  if (stream->remote_closed) return stream_error(*stream, H2Error::kStreamClosed);
  if (header.length > stream->receive_window) {
    return stream_error(*stream, H2Error::kFlowControlError);
  }
  const bool end_stream = (header.flags & flags::kEndStream) != 0;
  if (payload.empty() && !end_stream && !spend_budget()) return false;  // CVE-2019-9518
  stream->data_received += payload.size();
  if (stream->expected_length >= 0 &&
      stream->data_received > static_cast<std::uint64_t>(stream->expected_length)) {
    return stream_error(*stream, H2Error::kProtocolError);  // section 8.1.1
  }
  if (!payload.empty()) events_->on_body(*stream, payload.size());
  if (end_stream) return end_request(*stream);
  take_body(*stream, header.length);
  return !broken_;
}

// Gives the stream's window back once half of it is taken.
void H2ServerCodec::take_body(H2Stream& stream, std::uint32_t frame_length) {
  stream.receive_window -= frame_length;
  stream.receive_unacked += frame_length;
  if (stream.receive_unacked < local_initial_window_ / 2 || stream.receive_unacked == 0) return;
  char* at = reserve(kH2FrameHeaderSize + 4);
  if (at == nullptr) return;
  out_used_ += http::write_h2_window_update(static_cast<std::uint32_t>(stream.id),
                                            stream.receive_unacked, at);
  stream.receive_window += stream.receive_unacked;
  stream.receive_unacked = 0;
}

// The client's END_STREAM: the request is whole if its length is what it said.
bool H2ServerCodec::end_request(H2Stream& stream) {
  if (stream.expected_length >= 0 &&
      stream.data_received != static_cast<std::uint64_t>(stream.expected_length)) {
    return stream_error(stream, H2Error::kProtocolError);
  }
  stream.remote_closed = true;
  events_->on_request_end(stream);
  if (stream.local_closed && !stream.ready) close_stream(stream);
  return !broken_;
}

bool H2ServerCodec::headers(const H2FrameHeader& header, std::span<const char> payload) {
  const auto id = static_cast<std::int32_t>(header.stream_id);
  if (id == 0 || id % 2 == 0) return connection_error(H2Error::kProtocolError);
  if (!strip_padding(header, payload)) return connection_error(H2Error::kProtocolError);
  bool depends_on_itself = false;
  if ((header.flags & flags::kPriority) != 0) {
    if (payload.size() < 5) return connection_error(H2Error::kFrameSizeError);
    depends_on_itself = (http::read_h2_u32(payload.data()) & 0x7fffffffU) == header.stream_id;
    payload = payload.subspan(5);
  }
  const bool end_stream = (header.flags & flags::kEndStream) != 0;
  if ((header.flags & flags::kEndHeaders) != 0) {
    return header_block(id, end_stream, depends_on_itself, payload);
  }
  block_stream_ = id;
  block_end_stream_ = end_stream;
  block_depends_on_itself_ = depends_on_itself;
  block_continuations_ = 0;
  block_used_ = 0;
  return append_fragment(payload) || connection_error(H2Error::kInternalError);
}

bool H2ServerCodec::continuation(const H2FrameHeader& header, std::span<const char> fragment) {
  if (block_stream_ == 0 || header.stream_id != static_cast<std::uint32_t>(block_stream_)) {
    return connection_error(H2Error::kProtocolError);
  }
  if (++block_continuations_ > kMaxContinuations || !append_fragment(fragment)) {
    return connection_error(H2Error::kEnhanceYourCalm);
  }
  if ((header.flags & flags::kEndHeaders) == 0) return true;
  const std::int32_t id = block_stream_;
  block_stream_ = 0;
  const bool whole =
      header_block(id, block_end_stream_, block_depends_on_itself_, {block_, block_used_});
  memory_->free(block_);
  block_ = nullptr;
  block_capacity_ = block_used_ = 0;
  return whole;
}

// Adds a fragment to the header block being joined; false past the bound (or out of memory).
bool H2ServerCodec::append_fragment(std::span<const char> fragment) {
  const std::size_t limit = std::size_t{limits_->max_header_list} + kHeaderBlockSlack;
  const std::size_t need = block_used_ + fragment.size();
  if (need > limit) return false;
  if (need > block_capacity_) {
    std::size_t capacity = std::max<std::size_t>(block_capacity_, kFirstBlockCapacity);
    while (capacity < need) capacity *= 2;
    capacity = std::min(capacity, limit);
    void* grown = memory_->reallocate(block_, capacity);
    if (grown == nullptr) return false;
    block_ = static_cast<char*>(grown);
    block_capacity_ = static_cast<std::uint32_t>(capacity);
  }
  if (!fragment.empty()) std::memcpy(block_ + block_used_, fragment.data(), fragment.size());
  block_used_ = static_cast<std::uint32_t>(need);
  return true;
}

// A whole header block: a new stream's request, or trailers on an open one.
bool H2ServerCodec::header_block(std::int32_t id, bool end_stream, bool depends_on_itself,
                                 std::span<const char> block) {
  if (id > highest_id_) return open_stream(id, end_stream, depends_on_itself, block);
  H2Stream* stream = streams_.find(id);
  if (stream == nullptr) {
    // Section 5.1.1: an id that is not new opens nothing. Trailers the client sent on a stream
    // before it heard our reset are let pass (section 5.1); anything else ends the connection.
    if (!recently_reset(id)) return connection_error(H2Error::kProtocolError);
    return decode(block, nullptr);
  }
  if (stream->reset_sent) return decode(block, nullptr);
  if (stream->remote_closed) {
    return decode(block, nullptr) && stream_error(*stream, H2Error::kStreamClosed);
  }
  return trailers(*stream, end_stream, block);
}

bool H2ServerCodec::open_stream(std::int32_t id, bool end_stream, bool depends_on_itself,
                                std::span<const char> block) {
  highest_id_ = id;
  // After our GOAWAY, or the client's, no stream is taken: the block only feeds the table.
  if (goaway_sent_ || peer_goaway_) return decode(block, nullptr);
  if (depends_on_itself) {  // section 5.3.1
    return decode(block, nullptr) && stream_error(id, H2Error::kProtocolError);
  }
  H2Stream* stream =
      streams_.size() < limits_->max_concurrent_streams ? events_->on_stream_open(id) : nullptr;
  if (stream != nullptr && !streams_.insert(*stream)) {
    events_->on_stream_close(*stream);
    stream = nullptr;
  }
  if (stream == nullptr) {
    return decode(block, nullptr) && stream_error(id, H2Error::kRefusedStream);
  }
  last_opened_ = id;
  stream->send_window = peer_initial_window_;
  stream->receive_window = local_initial_window_;
  FieldFeed feed{this, stream, http::H2RequestFields(http::H2FieldBlock::kRequest)};
  if (!decode(block, &feed)) return false;
  if (!feed.valid || !feed.check.complete()) {
    return stream_error(*stream, H2Error::kProtocolError);  // malformed (section 8.1.1)
  }
  stream->expected_length = feed.check.content_length();
  return !end_stream || end_request(*stream);
}

// Section 8.1: a HEADERS after the request's head ends the stream and carries no pseudo-field.
bool H2ServerCodec::trailers(H2Stream& stream, bool end_stream, std::span<const char> block) {
  FieldFeed feed{this, &stream, http::H2RequestFields(http::H2FieldBlock::kTrailers)};
  if (!decode(block, end_stream ? &feed : nullptr)) return false;
  if (!end_stream || !feed.valid) return stream_error(stream, H2Error::kProtocolError);
  return end_request(stream);
}

// Decodes a block, its fields handed to `feed`'s stream (none: the table is kept, nothing more).
// A decoding error ends the connection (section 4.3: COMPRESSION_ERROR).
bool H2ServerCodec::decode(std::span<const char> block, FieldFeed* feed) {
  const http::HpackError error =
      decoder_->decode(block, scratch_, [feed](std::string_view name, std::string_view value) {
        if (feed == nullptr || !feed->valid) return;
        feed->valid = feed->check.accept(name, value);
        if (feed->valid) feed->codec->events_->on_field(*feed->stream, name, value);
      });
  return error == http::HpackError::kNone || connection_error(H2Error::kCompressionError);
}

bool H2ServerCodec::priority(const H2FrameHeader& header, std::span<const char> payload) {
  const auto id = static_cast<std::int32_t>(header.stream_id);
  if (id == 0) return connection_error(H2Error::kProtocolError);
  // Stream errors on an open stream; on one that is not (idle, or closed) no RST_STREAM may
  // name it, so the connection ends instead (section 5.4.1 allows either).
  H2Stream* stream = streams_.find(id);
  const bool stream_open = stream != nullptr && !stream->reset_sent;
  if (payload.size() != 5) {
    return stream_open ? stream_error(*stream, H2Error::kFrameSizeError)
                : connection_error(H2Error::kFrameSizeError);
  }
  if ((http::read_h2_u32(payload.data()) & 0x7fffffffU) != header.stream_id) return true;
  return stream_open ? stream_error(*stream, H2Error::kProtocolError)
              : connection_error(H2Error::kProtocolError);
}

bool H2ServerCodec::rst_stream(const H2FrameHeader& header, std::span<const char> payload) {
  const auto id = static_cast<std::int32_t>(header.stream_id);
  if (id == 0 || id > highest_id_) return connection_error(H2Error::kProtocolError);
  if (payload.size() != 4) return connection_error(H2Error::kFrameSizeError);
  if (!spend_budget()) return false;  // rapid reset
  if (H2Stream* stream = streams_.find(id)) close_stream(*stream);
  return true;
}

bool H2ServerCodec::settings(const H2FrameHeader& header, std::span<const char> payload) {
  if (header.stream_id != 0) return connection_error(H2Error::kProtocolError);
  if ((header.flags & flags::kAck) != 0) {
    if (!payload.empty()) return connection_error(H2Error::kFrameSizeError);
    if (!settings_acked_) {  // our initial window is the client's to use from now on
      settings_acked_ = true;
      const std::int64_t delta = std::int64_t{limits_->initial_window} - local_initial_window_;
      local_initial_window_ = limits_->initial_window;
      streams_.for_each([delta](H2Stream& stream) { stream.receive_window += delta; });
    }
    return true;
  }
  if (payload.size() % 6 != 0) return connection_error(H2Error::kFrameSizeError);
  if (!spend_budget()) return false;
  std::int64_t initial_window = -1;
  for (std::size_t at = 0; at < payload.size(); at += 6) {
    const auto id = static_cast<std::uint16_t>(static_cast<unsigned char>(payload[at]) << 8 |
                                               static_cast<unsigned char>(payload[at + 1]));
    const std::uint32_t value = http::read_h2_u32(payload.data() + at + 2);
    switch (static_cast<http::H2Setting>(id)) {
      case http::H2Setting::kEnablePush:
        if (value > 1) return connection_error(H2Error::kProtocolError);
        break;
      case http::H2Setting::kInitialWindowSize:
        if (value > kMaxWindow) return connection_error(H2Error::kFlowControlError);
        initial_window = value;
        break;
      case http::H2Setting::kMaxFrameSize:
        if (value < kMaxFrame || value > http::kH2MaxFrameSizeLimit) {
          return connection_error(H2Error::kProtocolError);
        }
        peer_max_frame_ = value;
        break;
      case http::H2Setting::kHeaderTableSize:
        encoder_.set_peer_limit(value);
        break;
      default:
        break;  // ids we do not know (section 6.5.2), and what a server need not act on
    }
  }
  if (initial_window >= 0 && !apply_initial_window(static_cast<std::uint32_t>(initial_window))) {
    return false;
  }
  char* at = reserve(kH2FrameHeaderSize);
  if (at == nullptr) return false;
  out_used_ += http::write_h2_settings_ack(at);
  return true;
}

// Section 6.9.2: a new SETTINGS_INITIAL_WINDOW_SIZE moves every stream's window by the change.
bool H2ServerCodec::apply_initial_window(std::uint32_t value) {
  const std::int64_t delta = std::int64_t{value} - peer_initial_window_;
  peer_initial_window_ = value;
  bool overflow = false;
  streams_.for_each([&](H2Stream& stream) {
    stream.send_window += delta;
    overflow = overflow || stream.send_window > kMaxWindow;
    if (delta > 0 && stream.answered && stream.body_sent < stream.body.size()) queue(stream);
  });
  return !overflow || connection_error(H2Error::kFlowControlError);
}

bool H2ServerCodec::ping(const H2FrameHeader& header, std::span<const char> payload) {
  if (header.stream_id != 0) return connection_error(H2Error::kProtocolError);
  if (payload.size() != 8) return connection_error(H2Error::kFrameSizeError);
  if ((header.flags & flags::kAck) != 0) return true;
  if (!spend_budget()) return false;
  char* at = reserve(kH2FrameHeaderSize + 8);
  if (at == nullptr) return false;
  out_used_ += http::write_h2_ping_ack(payload.first<8>(), at);
  return true;
}

bool H2ServerCodec::window_update(const H2FrameHeader& header, std::span<const char> payload) {
  if (payload.size() != 4) return connection_error(H2Error::kFrameSizeError);
  const std::uint32_t increment = http::read_h2_u32(payload.data()) & 0x7fffffffU;
  const auto id = static_cast<std::int32_t>(header.stream_id);
  if (id == 0) {
    if (increment == 0) return connection_error(H2Error::kProtocolError);
    send_window_ += increment;
    return send_window_ <= kMaxWindow || connection_error(H2Error::kFlowControlError);
  }
  if (id > highest_id_) return connection_error(H2Error::kProtocolError);  // idle
  H2Stream* stream = streams_.find(id);
  if (stream == nullptr || stream->reset_sent) return true;
  if (increment == 0) return stream_error(*stream, H2Error::kProtocolError);
  stream->send_window += increment;
  if (stream->send_window > kMaxWindow) return stream_error(*stream, H2Error::kFlowControlError);
  if (stream->answered && stream->body_sent < stream->body.size()) queue(*stream);
  return true;
}

// --- errors --------------------------------------------------------------------------------

bool H2ServerCodec::connection_error(H2Error error) {
  if (broken_) return false;
  broken_ = true;  // nothing more is read or answered: the GOAWAY goes out and the connection ends
  if (char* at = reserve(kH2FrameHeaderSize + 8)) {
    const std::int32_t last = goaway_sent_ ? goaway_last_ : last_opened_;
    out_used_ += http::write_h2_goaway(static_cast<std::uint32_t>(last), error, at);
  }
  return false;
}

bool H2ServerCodec::stream_error(H2Stream& stream, H2Error error) {
  const std::int32_t id = stream.id;
  close_stream(stream);
  return stream_error(id, error);
}

// RST_STREAM for a stream that has no state (refused, or gone): MadeYouReset spends the budget.
bool H2ServerCodec::stream_error(std::int32_t id, H2Error error) {
  append_rst_stream(id, error);
  return spend_budget();
}

bool H2ServerCodec::spend_budget() {
  return budget_.spend() || connection_error(H2Error::kEnhanceYourCalm);
}

bool H2ServerCodec::recently_reset(std::int32_t id) const {
  return std::find(recently_reset_.begin(), recently_reset_.end(), id) != recently_reset_.end();
}

void H2ServerCodec::remember_reset(std::int32_t id) {
  recently_reset_[next_reset_slot_++ % recently_reset_.size()] = id;
}

// --- frames out ----------------------------------------------------------------------------

// Room for `bytes` more at the end of the send buffer; nullptr (and the connection ended) when
// frames pile up past kOutLimit unread: a flood.
char* H2ServerCodec::reserve(std::size_t bytes) {
  if (out_handed_) {
    out_used_ = 0;
    out_handed_ = false;
  }
  if (out_used_ + bytes > out_capacity_) {
    std::size_t capacity = std::max(out_capacity_, kOutChunk);
    while (capacity < out_used_ + bytes) capacity *= 2;
    if (capacity > kOutLimit + kOutChunk) {
      if (!broken_) {
        broken_ = true;  // no GOAWAY fits: the connection just ends
      }
      return nullptr;
    }
    void* grown = memory_->reallocate(out_, capacity);
    if (grown == nullptr) {
      broken_ = true;
      return nullptr;
    }
    out_ = static_cast<char*>(grown);
    out_capacity_ = capacity;
  }
  return out_ + out_used_;
}

void H2ServerCodec::append_rst_stream(std::int32_t id, H2Error error) {
  remember_reset(id);
  if (char* at = reserve(kH2FrameHeaderSize + 4)) {
    out_used_ += http::write_h2_rst_stream(static_cast<std::uint32_t>(id), error, at);
  }
}

bool H2ServerCodec::respond(H2Stream& stream, const H2ResponseHead& head) {
  if (broken_ || stream.reset_sent) return true;  // nothing more goes out on it
  char* at = reserve(kH2FrameHeaderSize + kMaxHeadBlock);
  if (at == nullptr) return false;
  const std::size_t block_size =
      encoder_.encode(head.status, head.fields, {at + kH2FrameHeaderSize, kMaxHeadBlock});
  if (block_size == 0 || block_size > peer_max_frame_) return false;
  const bool body = head.with_body && !stream.body.empty();
  const std::uint8_t frame_flags = flags::kEndHeaders | (body ? 0 : flags::kEndStream);
  http::write_h2_frame_header(
      {static_cast<std::uint32_t>(block_size), static_cast<std::uint8_t>(H2FrameType::kHeaders),
       frame_flags, static_cast<std::uint32_t>(stream.id)},
      at);
  out_used_ += kH2FrameHeaderSize + block_size;
  stream.answered = true;
  if (!body) {
    stream.body = {};
    stream.local_closed = true;
  }
  queue(stream);
  return true;
}

void H2ServerCodec::reset(H2Stream& stream, std::uint32_t error_code) {
  if (broken_ || stream.reset_sent) return;
  append_rst_stream(stream.id, error_of(error_code));
  stream.reset_sent = true;
  queue(stream);  // closed at the next output()
}

void H2ServerCodec::reset_after_answer(H2Stream& stream) {
  stream.reset_after_answer = true;
}

std::span<const char> H2ServerCodec::output() {
  if (!open_) return {};
  if (out_handed_) {
    out_used_ = 0;
    out_handed_ = false;
  }
  if (!broken_) send_data();
  if (out_used_ == 0) {
    memory_->free(out_);  // an idle connection holds no buffer
    out_ = nullptr;
    out_capacity_ = 0;
    return {};
  }
  out_handed_ = true;
  return {out_, out_used_};
}

// DATA for the streams with an answer to send, a frame each in turn, while the buffer holds
// less than kOutTarget and the connection's window lasts; streams whose answer is all out end.
void H2ServerCodec::send_data() {
  while (ready_head_ != nullptr && out_used_ < kOutTarget && !broken_) {
    H2Stream& stream = *ready_head_;
    if (stream.reset_sent) {
      close_stream(stream);
      continue;
    }
    if (stream.body_sent < stream.body.size()) {
      if (send_window_ <= 0) return;  // the connection's window: the streams wait in turn
      if (stream.send_window <= 0) {  // the stream's: a WINDOW_UPDATE queues it again
        unqueue(stream);
        continue;
      }
      if (!send_one_data_frame(stream)) return;
      if (stream.body_sent < stream.body.size()) {
        unqueue(stream);  // to the back of the line
        queue(stream);
        continue;
      }
    }
    finish_answer(stream);
  }
}

bool H2ServerCodec::send_one_data_frame(H2Stream& stream) {
  const std::size_t left = stream.body.size() - stream.body_sent;
  const std::size_t room = kOutTarget + kH2FrameHeaderSize + kMaxFrame - out_used_;
  const std::size_t size =
      std::min({left, static_cast<std::size_t>(stream.send_window),
                static_cast<std::size_t>(send_window_), static_cast<std::size_t>(peer_max_frame_),
                static_cast<std::size_t>(kMaxFrame), room - kH2FrameHeaderSize});
  char* at = reserve(kH2FrameHeaderSize + size);
  if (at == nullptr) return false;
  const bool last = size == left;
  http::write_h2_frame_header(
      {static_cast<std::uint32_t>(size), static_cast<std::uint8_t>(H2FrameType::kData),
       static_cast<std::uint8_t>(last ? flags::kEndStream : 0),
       static_cast<std::uint32_t>(stream.id)},
      at);
  std::memcpy(at + kH2FrameHeaderSize, stream.body.data() + stream.body_sent, size);
  out_used_ += kH2FrameHeaderSize + size;
  stream.body_sent += size;
  stream.send_window -= static_cast<std::int64_t>(size);
  send_window_ -= static_cast<std::int64_t>(size);
  body_bytes_sent_ += size;
  if (last) stream.local_closed = true;
  return true;
}

// The answer is all out: the stream ends if the client has ended its side too, or is told to
// stop sending (reset_after_answer); otherwise it waits, half-closed, for the client's end.
void H2ServerCodec::finish_answer(H2Stream& stream) {
  unqueue(stream);
  if (stream.remote_closed) {
    close_stream(stream);
  } else if (stream.reset_after_answer) {
    append_rst_stream(stream.id, H2Error::kNoError);
    close_stream(stream);
  }
}

void H2ServerCodec::queue(H2Stream& stream) {
  if (stream.ready) return;
  stream.ready = true;
  stream.next_ready = nullptr;
  stream.prev_ready = ready_tail_;
  if (ready_tail_ != nullptr) {
    ready_tail_->next_ready = &stream;
  } else {
    ready_head_ = &stream;
  }
  ready_tail_ = &stream;
}

void H2ServerCodec::unqueue(H2Stream& stream) {
  if (!stream.ready) return;
  stream.ready = false;
  if (stream.prev_ready != nullptr) {
    stream.prev_ready->next_ready = stream.next_ready;
  } else {
    ready_head_ = stream.next_ready;
  }
  if (stream.next_ready != nullptr) {
    stream.next_ready->prev_ready = stream.prev_ready;
  } else {
    ready_tail_ = stream.prev_ready;
  }
  stream.prev_ready = stream.next_ready = nullptr;
}

// The stream is gone: out of the table and the queue, and its connection told.
void H2ServerCodec::close_stream(H2Stream& stream) {
  unqueue(stream);
  streams_.erase(stream.id);
  events_->on_stream_close(stream);
}

bool H2ServerCodec::alive() const {
  if (!open_) return false;
  const bool unsent = out_used_ > 0 && !out_handed_;
  if (broken_) return unsent;
  if (goaway_sent_ || peer_goaway_) return streams_.size() > 0 || unsent;
  return true;
}

void H2ServerCodec::shut_down() {
  if (!open_ || broken_ || goaway_sent_) return;
  char* at = reserve(kH2FrameHeaderSize + 8);
  if (at == nullptr) return;
  goaway_sent_ = true;
  goaway_last_ = last_opened_;
  out_used_ +=
      http::write_h2_goaway(static_cast<std::uint32_t>(goaway_last_), H2Error::kNoError, at);
}

void H2ServerCodec::terminate(std::uint32_t error_code) {
  if (!open_) return;
  (void)connection_error(error_of(error_code));
}

}  // namespace ringside::server
