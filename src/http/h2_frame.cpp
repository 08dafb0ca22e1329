#include "http/h2_frame.hpp"

namespace ringside::http {
namespace {

void write_u32(std::uint32_t value, char* out) {
  out[0] = static_cast<char>(value >> 24);
  out[1] = static_cast<char>(value >> 16);
  out[2] = static_cast<char>(value >> 8);
  out[3] = static_cast<char>(value);
}

std::size_t frame(H2FrameType type, std::uint8_t flags, std::uint32_t stream_id,
                  std::uint32_t length, char* out) {
  write_h2_frame_header({length, static_cast<std::uint8_t>(type), flags, stream_id}, out);
  return kH2FrameHeaderSize + length;
}

}  // namespace

std::uint32_t read_h2_u32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return static_cast<std::uint32_t>(b[0]) << 24 | static_cast<std::uint32_t>(b[1]) << 16 |
         static_cast<std::uint32_t>(b[2]) << 8 | b[3];
}

H2FrameHeader read_h2_frame_header(std::span<const char> bytes) {
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  H2FrameHeader header;
  header.length = static_cast<std::uint32_t>(b[0]) << 16 | static_cast<std::uint32_t>(b[1]) << 8 | b[2];
  header.type = b[3];
  header.flags = b[4];
  header.stream_id = read_h2_u32(bytes.data() + 5) & 0x7fffffffU;
  return header;
}

void write_h2_frame_header(const H2FrameHeader& header, char* out) {
  out[0] = static_cast<char>(header.length >> 16);
  out[1] = static_cast<char>(header.length >> 8);
  out[2] = static_cast<char>(header.length);
  out[3] = static_cast<char>(header.type);
  out[4] = static_cast<char>(header.flags);
  write_u32(header.stream_id & 0x7fffffffU, out + 5);
}

void patch_h2_stream_id(char* frame_bytes, std::uint32_t stream_id) {
  write_u32(stream_id & 0x7fffffffU, frame_bytes + 5);
}

std::size_t write_h2_settings(std::span<const H2SettingValue> values, char* out) {
  char* payload = out + kH2FrameHeaderSize;
  for (const H2SettingValue& setting : values) {
    const auto id = static_cast<std::uint16_t>(setting.id);
    payload[0] = static_cast<char>(id >> 8);
    payload[1] = static_cast<char>(id);
    write_u32(setting.value, payload + 2);
    payload += 6;
  }
  return frame(H2FrameType::kSettings, 0, 0, static_cast<std::uint32_t>(values.size() * 6), out);
}

std::size_t write_h2_settings_ack(char* out) {
  return frame(H2FrameType::kSettings, h2_flags::kAck, 0, 0, out);
}

std::size_t write_h2_window_update(std::uint32_t stream_id, std::uint32_t increment, char* out) {
  write_u32(increment & 0x7fffffffU, out + kH2FrameHeaderSize);
  return frame(H2FrameType::kWindowUpdate, 0, stream_id, 4, out);
}

std::size_t write_h2_ping_ack(std::span<const char, 8> opaque, char* out) {
  for (std::size_t i = 0; i < opaque.size(); ++i) out[kH2FrameHeaderSize + i] = opaque[i];
  return frame(H2FrameType::kPing, h2_flags::kAck, 0, 8, out);
}

std::size_t write_h2_rst_stream(std::uint32_t stream_id, H2Error error, char* out) {
  write_u32(static_cast<std::uint32_t>(error), out + kH2FrameHeaderSize);
  return frame(H2FrameType::kRstStream, 0, stream_id, 4, out);
}

std::size_t write_h2_goaway(std::uint32_t last_stream_id, H2Error error, char* out) {
  write_u32(last_stream_id & 0x7fffffffU, out + kH2FrameHeaderSize);
  write_u32(static_cast<std::uint32_t>(error), out + kH2FrameHeaderSize + 4);
  return frame(H2FrameType::kGoaway, 0, 0, 8, out);
}

ScanStatus FrameScanner::next(std::span<const char> input, ScannedFrame& scanned) const {
  if (input.size() < kH2FrameHeaderSize) return ScanStatus::kPartial;
  const H2FrameHeader header = read_h2_frame_header(input);
  if (header.length > max_frame_size_) return ScanStatus::kTooLarge;
  if (input.size() - kH2FrameHeaderSize < header.length) return ScanStatus::kPartial;
  scanned.header = header;
  scanned.payload = input.subspan(kH2FrameHeaderSize, header.length);
  return ScanStatus::kFrame;
}

}  // namespace ringside::http
