// HTTP/2 framing (RFC 9113 section 4): the 9-byte frame header, read and written, the client
// connection preface, and the few control frames a client or server writes itself (SETTINGS and
// its ACK, WINDOW_UPDATE, PING's answer, RST_STREAM, GOAWAY). Pure: bytes in, bytes out, nothing
// allocated. `FrameScanner` walks a received byte stream frame by frame, as the load generator's
// HTTP/2 client will, refusing a frame longer than the SETTINGS_MAX_FRAME_SIZE it announced.
//
//   FrameScanner scanner(16384);
//   ScannedFrame frame;
//   while (scanner.next(input.subspan(used), frame) == ScanStatus::kFrame) {
//     ... frame.header.type, frame.payload ...;  used += frame.size();
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace ringside::http {

inline constexpr std::string_view kH2ClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
inline constexpr std::size_t kH2FrameHeaderSize = 9;
inline constexpr std::uint32_t kH2DefaultMaxFrameSize = 16384;  // 2^14, RFC 9113 section 6.5.2
inline constexpr std::uint32_t kH2MaxFrameSizeLimit = 16777215; // 2^24 - 1

// Whether a connection's first bytes are HTTP/2's client preface (h2c with prior knowledge), the
// start of it (wait for more), or something else (HTTP/1.1).
enum class PrefaceMatch : std::uint8_t { kNo, kPartial, kYes };
constexpr PrefaceMatch match_h2_preface(std::string_view first_bytes) {
  if (first_bytes.size() < kH2ClientPreface.size()) {
    return kH2ClientPreface.starts_with(first_bytes) ? PrefaceMatch::kPartial : PrefaceMatch::kNo;
  }
  return first_bytes.starts_with(kH2ClientPreface) ? PrefaceMatch::kYes : PrefaceMatch::kNo;
}

enum class H2FrameType : std::uint8_t {
  kData = 0x0, kHeaders = 0x1, kPriority = 0x2, kRstStream = 0x3, kSettings = 0x4,
  kPushPromise = 0x5, kPing = 0x6, kGoaway = 0x7, kWindowUpdate = 0x8, kContinuation = 0x9,
};

namespace h2_flags {
inline constexpr std::uint8_t kEndStream = 0x1;
inline constexpr std::uint8_t kAck = 0x1;  // SETTINGS, PING
inline constexpr std::uint8_t kEndHeaders = 0x4;
inline constexpr std::uint8_t kPadded = 0x8;
inline constexpr std::uint8_t kPriority = 0x20;
}  // namespace h2_flags

enum class H2Setting : std::uint16_t {
  kHeaderTableSize = 0x1, kEnablePush = 0x2, kMaxConcurrentStreams = 0x3,
  kInitialWindowSize = 0x4, kMaxFrameSize = 0x5, kMaxHeaderListSize = 0x6,
};

enum class H2Error : std::uint32_t {
  kNoError = 0x0, kProtocolError = 0x1, kInternalError = 0x2, kFlowControlError = 0x3,
  kSettingsTimeout = 0x4, kStreamClosed = 0x5, kFrameSizeError = 0x6, kRefusedStream = 0x7,
  kCancel = 0x8, kCompressionError = 0x9, kConnectError = 0xa, kEnhanceYourCalm = 0xb,
  kInadequateSecurity = 0xc, kHttp11Required = 0xd,
};

struct H2FrameHeader {
  std::uint32_t length = 0;     // the payload's, 24 bits
  std::uint8_t type = 0;        // an H2FrameType, or an unknown type (to be ignored)
  std::uint8_t flags = 0;
  std::uint32_t stream_id = 0;  // 31 bits: the reserved bit is dropped on reading
};

struct H2SettingValue {
  H2Setting id;
  std::uint32_t value;
};

// A 32-bit field in network byte order (a stream id, an error code, a setting's value).
[[nodiscard]] std::uint32_t read_h2_u32(const char* bytes);

// Reads the header at the start of `bytes` (at least kH2FrameHeaderSize of them).
[[nodiscard]] H2FrameHeader read_h2_frame_header(std::span<const char> bytes);
// Writes it to `out` (kH2FrameHeaderSize bytes), the reserved bit clear.
void write_h2_frame_header(const H2FrameHeader& header, char* out);
// Rewrites the stream id of a frame written before (a request's HEADERS, sent again).
void patch_h2_stream_id(char* frame, std::uint32_t stream_id);

// Whole frames into `out`, which has room for them (kH2FrameHeaderSize + the payload; the size
// is returned). SETTINGS takes at most 6 values (36 bytes of payload).
std::size_t write_h2_settings(std::span<const H2SettingValue> values, char* out);
std::size_t write_h2_settings_ack(char* out);
std::size_t write_h2_window_update(std::uint32_t stream_id, std::uint32_t increment, char* out);
std::size_t write_h2_ping_ack(std::span<const char, 8> opaque, char* out);
std::size_t write_h2_rst_stream(std::uint32_t stream_id, H2Error error, char* out);
std::size_t write_h2_goaway(std::uint32_t last_stream_id, H2Error error, char* out);

enum class ScanStatus : std::uint8_t { kFrame, kPartial, kTooLarge };

struct ScannedFrame {
  H2FrameHeader header;
  std::span<const char> payload;
  [[nodiscard]] std::size_t size() const { return kH2FrameHeaderSize + payload.size(); }
};

class FrameScanner {
 public:
  explicit FrameScanner(std::uint32_t max_frame_size = kH2DefaultMaxFrameSize)
      : max_frame_size_(max_frame_size) {}
  // The frame at the start of `input`: kFrame (whole, in `frame`), kPartial (more bytes needed),
  // or kTooLarge (its length exceeds the maximum: a FRAME_SIZE_ERROR, the connection ends).
  [[nodiscard]] ScanStatus next(std::span<const char> input, ScannedFrame& frame) const;

 private:
  std::uint32_t max_frame_size_;
};

}  // namespace ringside::http
