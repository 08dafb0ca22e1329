#include "http/h2_response_reader.hpp"

#include <array>
#include <cstring>
#include <string_view>

namespace ringside::http {
namespace {

constexpr std::uint32_t kLargestWindow = 0x7fffffff;        // 2^31 - 1 (RFC 9113 section 6.9.1)
constexpr std::uint32_t kDefaultConnectionWindow = 65535;   // section 6.9.2

// A three-digit :status, 0 when it is not one.
int parse_status(std::string_view text) {
  if (text.size() != 3) return 0;
  int status = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return 0;
    status = status * 10 + (c - '0');
  }
  return status;
}

// The fragment of a HEADERS frame's payload without its padding and priority fields; false when
// they do not fit in the payload.
bool header_fragment(const ScannedFrame& frame, std::span<const char>& fragment) {
  std::span<const char> payload = frame.payload;
  std::size_t padding = 0;
  if (frame.header.flags & h2_flags::kPadded) {
    if (payload.empty()) return false;
    padding = static_cast<unsigned char>(payload[0]);
    payload = payload.subspan(1);
  }
  if (frame.header.flags & h2_flags::kPriority) {
    if (payload.size() < 5) return false;
    payload = payload.subspan(5);
  }
  if (padding > payload.size()) return false;
  fragment = payload.first(payload.size() - padding);
  return true;
}

}  // namespace

std::size_t H2ResponseReader::write_client_start(char* out) {
  std::memcpy(out, kH2ClientPreface.data(), kH2ClientPreface.size());
  std::size_t size = kH2ClientPreface.size();
  const H2SettingValue settings[] = {{H2Setting::kEnablePush, 0},
                                     {H2Setting::kInitialWindowSize, kLargestWindow}};
  size += write_h2_settings(settings, out + size);
  size += write_h2_window_update(0, kLargestWindow - kDefaultConnectionWindow, out + size);
  return size;
}

H2ResponseReader::H2ResponseReader(std::uint32_t window_refill) : window_refill_(window_refill) {}

H2ResponseReader::~H2ResponseReader() = default;

H2ReadResult H2ResponseReader::feed(std::span<const char> input, OutBuffer& answers,
                                    H2ResponseListener& listener) {
  H2ReadResult result;
  ScannedFrame frame;
  while (answers.remaining() >= kAnswerRoom) {
    const ScanStatus status = scanner_.next(input.subspan(result.consumed), frame);
    if (status == ScanStatus::kPartial) break;
    if (status == ScanStatus::kTooLarge) {
      result.error = H2Error::kFrameSizeError;
      break;
    }
    result.consumed += frame.size();
    result.error = on_frame(frame, answers, listener);
    if (result.error != H2Error::kNoError) break;
  }
  return result;
}

H2Error H2ResponseReader::on_frame(const ScannedFrame& frame, OutBuffer& answers,
                                   H2ResponseListener& listener) {
  const H2FrameHeader& header = frame.header;
  const auto type = static_cast<H2FrameType>(header.type);
  // Within a header block only its CONTINUATION frames may come (section 6.10).
  if (block_stream_ != 0 &&
      (type != H2FrameType::kContinuation || header.stream_id != block_stream_)) {
    return H2Error::kProtocolError;
  }
  switch (type) {
    case H2FrameType::kHeaders: {
      std::span<const char> fragment;
      if (header.stream_id == 0 || !header_fragment(frame, fragment)) return H2Error::kProtocolError;
      block_stream_ = header.stream_id;
      block_ends_stream_ = (header.flags & h2_flags::kEndStream) != 0;
      block_status_ = 0;
      return on_header_fragment(header.stream_id, fragment,
                                (header.flags & h2_flags::kEndHeaders) != 0, listener);
    }
    case H2FrameType::kContinuation:
      if (block_stream_ == 0) return H2Error::kProtocolError;
      return on_header_fragment(header.stream_id, frame.payload,
                                (header.flags & h2_flags::kEndHeaders) != 0, listener);
    case H2FrameType::kData: {
      if (header.stream_id == 0) return H2Error::kProtocolError;
      // Flow control counts the whole payload, padding included (section 6.9.1).
      unreturned_ += header.length;
      if (unreturned_ >= window_refill_) {
        char update[kH2FrameHeaderSize + 4];
        answers.append({update, write_h2_window_update(0, static_cast<std::uint32_t>(unreturned_),
                                                      update)});
        unreturned_ = 0;
      }
      if (header.flags & h2_flags::kEndStream) listener.on_stream_end(header.stream_id);
      return H2Error::kNoError;
    }
    case H2FrameType::kSettings:
      return on_settings(frame, answers);
    case H2FrameType::kPing: {
      if (header.length != 8 || header.stream_id != 0) return H2Error::kFrameSizeError;
      if (header.flags & h2_flags::kAck) return H2Error::kNoError;
      char ack[kH2FrameHeaderSize + 8];
      answers.append({ack, write_h2_ping_ack(frame.payload.first<8>(), ack)});
      return H2Error::kNoError;
    }
    case H2FrameType::kRstStream:
      if (header.length != 4 || header.stream_id == 0) return H2Error::kFrameSizeError;
      listener.on_stream_reset(header.stream_id, static_cast<H2Error>(read_h2_u32(frame.payload.data())));
      return H2Error::kNoError;
    case H2FrameType::kGoaway:
      if (header.length < 8 || header.stream_id != 0) return H2Error::kFrameSizeError;
      listener.on_goaway(read_h2_u32(frame.payload.data()) & 0x7fffffffU,
                         static_cast<H2Error>(read_h2_u32(frame.payload.data() + 4)));
      return H2Error::kNoError;
    case H2FrameType::kPushPromise:
      return H2Error::kProtocolError;  // our SETTINGS turned push off
    case H2FrameType::kWindowUpdate: {
      if (header.length != 4) return H2Error::kFrameSizeError;
      const std::uint32_t increment = read_h2_u32(frame.payload.data()) & 0x7fffffffU;
      // A zero increment is an error of the connection on stream 0 (section 6.9); on a stream
      // it is the stream's, and the server resets it itself: nothing to open either way.
      if (increment == 0)
        return header.stream_id == 0 ? H2Error::kProtocolError : H2Error::kNoError;
      listener.on_window_update(header.stream_id, increment);
      return H2Error::kNoError;
    }
    case H2FrameType::kPriority:
      return H2Error::kNoError;
  }
  return H2Error::kNoError;  // an unknown frame type is ignored (section 4.1)
}

H2Error H2ResponseReader::on_header_fragment(std::uint32_t stream_id,
                                             std::span<const char> fragment, bool end_headers,
                                             H2ResponseListener& listener) {
  if (!end_headers || !split_block_.empty()) {
    // A block split over frames: kept until its last fragment (rare: a response's fields fit
    // one frame), bounded.
    if (split_block_.size() + fragment.size() > kMaxSplitBlock) return H2Error::kEnhanceYourCalm;
    split_block_.append(fragment.data(), fragment.size());
    if (!end_headers) return H2Error::kNoError;
    fragment = split_block_;
  }
  const H2Error error = decode_block(fragment);
  split_block_.clear();
  if (error != H2Error::kNoError) return error;
  block_stream_ = 0;
  // An informational (1xx) block is followed by the final one; trailers carry no :status.
  if (block_status_ >= 200) listener.on_status(stream_id, block_status_);
  if (block_ends_stream_) listener.on_stream_end(stream_id);
  return H2Error::kNoError;
}

H2Error H2ResponseReader::decode_block(std::span<const char> block) {
  // Huffman strings are decoded here while their field is looked at: one per thread suffices.
  thread_local std::array<char, HpackDecoder::kScratchBytes> scratch;
  const HpackError error =
      decoder_.decode(block, scratch, [this](std::string_view name, std::string_view value) {
        if (name == ":status") block_status_ = parse_status(value);
      });
  return error == HpackError::kNone ? H2Error::kNoError : H2Error::kCompressionError;
}

H2Error H2ResponseReader::on_settings(const ScannedFrame& frame, OutBuffer& answers) {
  const H2FrameHeader& header = frame.header;
  if (header.stream_id != 0) return H2Error::kProtocolError;
  if (header.flags & h2_flags::kAck) {
    return header.length == 0 ? H2Error::kNoError : H2Error::kFrameSizeError;
  }
  if (header.length % 6 != 0) return H2Error::kFrameSizeError;
  settings_received_ = true;
  for (std::size_t at = 0; at < header.length; at += 6) {
    const auto* b = reinterpret_cast<const unsigned char*>(frame.payload.data() + at);
    const auto id = static_cast<std::uint16_t>(b[0] << 8 | b[1]);
    const std::uint32_t value = read_h2_u32(frame.payload.data() + at + 2);
    if (id == static_cast<std::uint16_t>(H2Setting::kMaxConcurrentStreams)) {
      max_concurrent_streams_ = value;
    } else if (id == static_cast<std::uint16_t>(H2Setting::kInitialWindowSize)) {
      if (value > 0x7fffffffU) return H2Error::kFlowControlError;  // section 6.5.2
      initial_window_ = value;
    } else if (id == static_cast<std::uint16_t>(H2Setting::kMaxFrameSize)) {
      if (value < kH2DefaultMaxFrameSize || value > kH2MaxFrameSizeLimit) {
        return H2Error::kProtocolError;
      }
      max_frame_size_ = value;
    }
  }
  char ack[kH2FrameHeaderSize];
  answers.append({ack, write_h2_settings_ack(ack)});
  return H2Error::kNoError;
}

}  // namespace ringside::http
