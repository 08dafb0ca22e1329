// What fuzz/h2_connection_fuzz.cpp knows of both directions of one HTTP/2 connection: the client's
// bytes read back frame by frame as the server's codec reads them (which streams they open, and
// when; which requests they complete; their PINGs, SETTINGS and flow-control windows), and the
// server's bytes checked frame by frame against that. Header blocks of both directions are decoded
// with libnghttp2's HPACK inflater, a decoder independent of the server's own, so each request's
// :method and :path are known and its answer can be compared with what its route gives. A broken
// invariant prints its name and aborts (connection_checks.hpp's fail()).
#pragma once

#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "connection_checks.hpp"
#include "http/h2_frame.hpp"

namespace ringside::fuzz {

using Fields = std::vector<std::pair<std::string, std::string>>;
using http::H2FrameType;
namespace h2_flags = http::h2_flags;

inline constexpr std::size_t kNever = SIZE_MAX;
inline constexpr std::uint64_t kH2DefaultWindow = 65535;

inline std::string_view field_value(const Fields& fields, std::string_view name) {
  for (const auto& [field_name, value] : fields) {
    if (field_name == name) return value;
  }
  return {};
}

inline H2FrameType frame_type(const http::ScannedFrame& frame) {
  return static_cast<H2FrameType>(frame.header.type);
}

// One direction's HPACK state: whole header blocks decoded in the order they were sent.
class HeaderDecoder {
 public:
  explicit HeaderDecoder(std::uint64_t table_size = 4096) {
    if (nghttp2_hd_inflate_new(&inflater_) != 0) fail("an HPACK inflater can be made");
    (void)nghttp2_hd_inflate_change_table_size(
        inflater_, static_cast<std::size_t>(std::min<std::uint64_t>(table_size, 1U << 30)));
  }
  ~HeaderDecoder() { nghttp2_hd_inflate_del(inflater_); }
  HeaderDecoder(const HeaderDecoder&) = delete;
  HeaderDecoder& operator=(const HeaderDecoder&) = delete;

  // False when `block` does not decode; the decoder is then out of step with its encoder for good.
  bool decode(std::string_view block, Fields& fields) {
    fields.clear();
    const auto* in = reinterpret_cast<const std::uint8_t*>(block.data());
    std::size_t left = block.size();
    while (!broken_) {
      nghttp2_nv field;
      int flags = 0;
      const ssize_t used = nghttp2_hd_inflate_hd2(inflater_, &field, &flags, in, left, 1);
      if (used < 0) break;
      in += used;
      left -= static_cast<std::size_t>(used);
      if ((flags & NGHTTP2_HD_INFLATE_EMIT) != 0) {
        fields.emplace_back(
            std::string(reinterpret_cast<const char*>(field.name), field.namelen),
            std::string(reinterpret_cast<const char*>(field.value), field.valuelen));
      }
      if ((flags & NGHTTP2_HD_INFLATE_FINAL) != 0) {
        nghttp2_hd_inflate_end_headers(inflater_);
        return true;
      }
      if ((flags & NGHTTP2_HD_INFLATE_EMIT) == 0 && left == 0) break;
    }
    broken_ = true;
    return false;
  }

 private:
  nghttp2_hd_inflater* inflater_ = nullptr;
  bool broken_ = false;
};

// A HEADERS or DATA frame's payload without its padding (and HEADERS' priority fields). False
// when the padding is longer than the frame.
inline bool unpadded(const http::ScannedFrame& frame, std::string_view& content) {
  std::string_view payload(frame.payload.data(), frame.payload.size());
  std::size_t padding = 0;
  if ((frame.header.flags & h2_flags::kPadded) != 0) {
    if (payload.empty()) return false;
    padding = static_cast<std::uint8_t>(payload[0]);
    payload.remove_prefix(1);
  }
  if (frame_type(frame) == H2FrameType::kHeaders &&
      (frame.header.flags & h2_flags::kPriority) != 0) {
    if (payload.size() < 5) return false;
    payload.remove_prefix(5);
  }
  if (padding > payload.size()) return false;
  content = payload.substr(0, payload.size() - padding);
  return true;
}

// One client write: where it ended in the client's bytes, and how many bytes the client had read
// when it was made (the server cannot have answered a stream before it saw the stream's HEADERS).
struct WriteMark {
  std::size_t sent_end = 0;
  std::size_t received = 0;
};

struct ClientStream {
  std::size_t opened_at = kNever;  // received bytes when its first HEADERS' frame header was sent
  bool opens = false;      // that HEADERS opened a stream at the server (odd, above every earlier)
  bool head_done = false;  // its first header block ended
  bool complete = false;   // the request ended (END_STREAM) before any GOAWAY of the client's
  bool reset = false;      // the client sent RST_STREAM on it
  std::uint64_t window_updates = 0;
  std::string method;  // from its first header block, when that decoded
  std::string path;
};

struct ClientFrames {
  std::map<std::uint32_t, ClientStream> streams;
  std::vector<std::string> pings;  // payloads of the client's PINGs (not ACKs), in order
  std::size_t settings = 0;        // SETTINGS frames on stream 0 that are not ACKs
  std::uint32_t max_frame_size = http::kH2DefaultMaxFrameSize;  // the largest the client allowed
  std::uint64_t max_initial_window = kH2DefaultWindow;
  std::uint64_t max_table_size = 4096;
  std::uint64_t connection_window_updates = 0;
  bool goaway = false;
};

// Reads the client's bytes (after its preface) as the server's codec does.
class ClientReader {
 public:
  ClientFrames read(std::span<const char> sent, std::span<const WriteMark> marks) {
    const http::FrameScanner scanner(http::kH2MaxFrameSizeLimit);
    std::size_t pos = http::kH2ClientPreface.size();
    std::size_t mark = 0;
    http::ScannedFrame frame;
    while (pos + http::kH2FrameHeaderSize <= sent.size()) {
      while (marks[mark].sent_end < pos + http::kH2FrameHeaderSize) ++mark;
      if (scanner.next(sent.subspan(pos), frame) != http::ScanStatus::kFrame) {
        on_partial_frame(sent.subspan(pos), marks[mark].received);
        break;
      }
      on_frame(frame, marks[mark].received);
      pos += frame.size();
    }
    return std::move(out_);
  }

 private:
  void on_frame(const http::ScannedFrame& frame, std::size_t received_before) {
    const http::H2FrameHeader& header = frame.header;
    // A block interrupted by another frame is a connection error: the server sends GOAWAY.
    if (block_stream_ != 0 &&
        (frame_type(frame) != H2FrameType::kContinuation || header.stream_id != block_stream_)) {
      block_stream_ = 0;
    }
    switch (frame_type(frame)) {
      case H2FrameType::kHeaders:
        on_headers(frame, received_before);
        break;
      case H2FrameType::kContinuation:
        on_continuation(frame);
        break;
      case H2FrameType::kData:
        on_data(frame);
        break;
      case H2FrameType::kRstStream:
        if (header.stream_id != 0) out_.streams[header.stream_id].reset = true;
        break;
      case H2FrameType::kSettings:
        on_settings(frame);
        break;
      case H2FrameType::kPing:
        on_ping(frame);
        break;
      case H2FrameType::kGoaway:
        out_.goaway = true;
        break;
      case H2FrameType::kWindowUpdate:
        on_window_update(frame);
        break;
      default:
        break;  // PRIORITY, PUSH_PROMISE (an error from a client), extensions (ignored)
    }
  }

  // A codec may read a header block as it arrives (nghttp2 does; ours waits for whole frames): a
  // HEADERS frame still cut short may have opened its stream, and the server may have answered it
  // already (a bad field: RST_STREAM).
  void on_partial_frame(std::span<const char> rest, std::size_t received_before) {
    const http::H2FrameHeader header = http::read_h2_frame_header(rest);
    if (static_cast<H2FrameType>(header.type) == H2FrameType::kHeaders && header.stream_id != 0) {
      (void)open_stream(header.stream_id, received_before);
    }
  }

  // A HEADERS frame on `id`; true when it is the stream's first (its request head).
  bool open_stream(std::uint32_t id, std::size_t received_before) {
    ClientStream& stream = out_.streams[id];
    const bool first = stream.opened_at == kNever;
    if (first) stream.opened_at = received_before;
    // nghttp2 opens a stream for a new odd id above the last; an older one it ignores.
    if (id % 2 == 1 && id > last_opened_) {
      stream.opens = first;
      last_opened_ = id;
    }
    return first;
  }

  void on_headers(const http::ScannedFrame& frame, std::size_t received_before) {
    const std::uint32_t id = frame.header.stream_id;
    if (id == 0) return;  // a connection error
    const bool first = open_stream(id, received_before);
    std::string_view fragment;
    if (!unpadded(frame, fragment)) return;  // a connection error
    block_stream_ = id;
    block_first_ = first;
    block_ends_stream_ = (frame.header.flags & h2_flags::kEndStream) != 0;
    block_.assign(fragment);
    if ((frame.header.flags & h2_flags::kEndHeaders) != 0) end_block();
  }

  void on_continuation(const http::ScannedFrame& frame) {
    if (block_stream_ == 0) return;  // outside a block: a connection error
    block_.append(frame.payload.data(), frame.payload.size());
    if ((frame.header.flags & h2_flags::kEndHeaders) != 0) end_block();
  }

  void end_block() {
    ClientStream& stream = out_.streams[block_stream_];
    Fields fields;
    if (decoder_.decode(block_, fields) && block_first_) {
      stream.method = field_value(fields, ":method");
      stream.path = field_value(fields, ":path");
    }
    if (block_first_) stream.head_done = true;
    if (block_ends_stream_ && stream.head_done && !out_.goaway) stream.complete = true;
    block_stream_ = 0;
  }

  void on_data(const http::ScannedFrame& frame) {
    auto it = out_.streams.find(frame.header.stream_id);
    if (it == out_.streams.end() || !it->second.head_done || out_.goaway) return;
    if ((frame.header.flags & h2_flags::kEndStream) != 0) it->second.complete = true;
  }

  void on_settings(const http::ScannedFrame& frame) {
    if (frame.header.stream_id != 0 || (frame.header.flags & h2_flags::kAck) != 0) return;
    ++out_.settings;
    for (std::size_t at = 0; at + 6 <= frame.payload.size(); at += 6) {
      const char* entry = frame.payload.data() + at;
      const auto id = static_cast<std::uint16_t>(static_cast<std::uint8_t>(entry[0]) << 8 |
                                                 static_cast<std::uint8_t>(entry[1]));
      const std::uint32_t value = http::read_h2_u32(entry + 2);
      switch (static_cast<http::H2Setting>(id)) {
        case http::H2Setting::kHeaderTableSize:
          out_.max_table_size = std::max<std::uint64_t>(out_.max_table_size, value);
          break;
        case http::H2Setting::kInitialWindowSize:
          out_.max_initial_window = std::max<std::uint64_t>(out_.max_initial_window, value);
          break;
        case http::H2Setting::kMaxFrameSize:
          out_.max_frame_size = std::clamp(value, out_.max_frame_size, http::kH2MaxFrameSizeLimit);
          break;
        default:
          break;
      }
    }
  }

  void on_ping(const http::ScannedFrame& frame) {
    if (frame.header.stream_id != 0 || frame.payload.size() != 8 ||
        (frame.header.flags & h2_flags::kAck) != 0) {
      return;
    }
    out_.pings.emplace_back(frame.payload.data(), frame.payload.size());
  }

  void on_window_update(const http::ScannedFrame& frame) {
    if (frame.payload.size() != 4) return;
    const std::uint32_t increment = http::read_h2_u32(frame.payload.data()) & 0x7fffffffU;
    if (frame.header.stream_id == 0) {
      out_.connection_window_updates += increment;
    } else {
      out_.streams[frame.header.stream_id].window_updates += increment;
    }
  }

  ClientFrames out_;
  HeaderDecoder decoder_;  // the server's table size: the default, as it announces no other
  std::uint32_t last_opened_ = 0;
  std::uint32_t block_stream_ = 0;  // a header block continues on this stream (0: none)
  bool block_first_ = false;        // the block is its stream's request head (not trailers)
  bool block_ends_stream_ = false;
  std::string block_;
};

struct ServerStream {
  bool headers = false;  // the response's HEADERS came
  bool ended = false;    // END_STREAM came
  bool ended_on_data = false;
  bool reset = false;  // the server sent RST_STREAM
  int status = 0;
  std::string content_length;
  std::uint64_t data_bytes = 0;  // DATA payloads, padding included (what flow control counts)
  std::string body;
};

struct ServerFrames {
  std::map<std::uint32_t, ServerStream> streams;
  std::size_t ping_acks = 0;
  std::size_t settings_acks = 0;
  bool goaway = false;
  // A GOAWAY with an error code. Not always the end: nghttp2's stream reset limit (rapid reset)
  // sends GOAWAY INTERNAL_ERROR and still answers the streams up to its last stream id.
  bool error_goaway = false;
  std::uint32_t goaway_last = 0x7fffffffU;
  bool cut_short = false;  // the last frame was partial
};

// A route's answer to GET, for comparing what a stream got with what its request asked for.
struct RouteBody {
  std::string_view path;
  std::string_view body;
};

// Checks the server's bytes frame by frame against what the client sent.
class ServerChecker {
 public:
  ServerChecker(const ClientFrames& client, std::span<const RouteBody> routes)
      : client_(client), routes_(routes), decoder_(client.max_table_size) {}

  ServerFrames walk(std::span<const char> received, bool may_be_cut_short) {
    const http::FrameScanner scanner(client_.max_frame_size);
    std::size_t pos = 0;
    http::ScannedFrame frame;
    while (pos < received.size()) {
      const http::ScanStatus status = scanner.next(received.subspan(pos), frame);
      check(status != http::ScanStatus::kTooLarge, "a frame larger than the client allows");
      if (status == http::ScanStatus::kPartial) {
        check(may_be_cut_short, "the server's last frame is cut short");
        out_.cut_short = true;
        break;
      }
      if (pos == 0) {
        check(frame_type(frame) == H2FrameType::kSettings &&
                  (frame.header.flags & h2_flags::kAck) == 0,
              "the server's first frame is not its SETTINGS");
      }
      on_frame(frame, pos);
      pos += frame.size();
    }
    check(block_stream_ == 0 || out_.cut_short, "the server's header block never ends");
    for (const auto& [id, stream] : out_.streams) check_answer(id, stream);
    return std::move(out_);
  }

 private:
  void on_frame(const http::ScannedFrame& frame, std::size_t offset) {
    if (block_stream_ != 0) {
      check(frame_type(frame) == H2FrameType::kContinuation &&
                frame.header.stream_id == block_stream_,
            "the server's header block is interrupted");
    }
    switch (frame_type(frame)) {
      case H2FrameType::kSettings:
        on_settings(frame, offset);
        break;
      case H2FrameType::kPing:
        on_ping(frame);
        break;
      case H2FrameType::kGoaway:
        on_goaway(frame);
        break;
      case H2FrameType::kHeaders:
        on_headers(frame, offset);
        break;
      case H2FrameType::kContinuation:
        on_continuation(frame);
        break;
      case H2FrameType::kData:
        on_data(frame, offset);
        break;
      case H2FrameType::kRstStream:
        check(frame.payload.size() == 4, "an RST_STREAM that is not 4 bytes");
        stream_frame(frame, offset).reset = true;
        break;
      case H2FrameType::kWindowUpdate:
        check(frame.payload.size() == 4, "a WINDOW_UPDATE that is not 4 bytes");
        if (frame.header.stream_id != 0) (void)stream_frame(frame, offset);
        break;
      case H2FrameType::kPushPromise:
        fail("the server sends a PUSH_PROMISE (it never pushes)");
      case H2FrameType::kPriority:
        fail("the server sends PRIORITY (it never does)");
      default:
        fail("the server sends a frame of an unknown type");
    }
  }

  // The checks every frame on a stream passes; returns the stream's state.
  ServerStream& stream_frame(const http::ScannedFrame& frame, std::size_t offset) {
    const std::uint32_t id = frame.header.stream_id;
    check(id != 0, "a stream's frame on stream 0");
    check(id % 2 == 1, "a frame on an even stream (the server opens none)");
    auto opened = client_.streams.find(id);
    check(opened != client_.streams.end() && opened->second.opened_at != kNever,
          "a frame on a stream the client never opened with HEADERS");
    check(offset >= opened->second.opened_at, "a frame on a stream before the client opened it");
    ServerStream& stream = out_.streams[id];
    check(!stream.reset, "a frame on a stream after the server reset it");
    return stream;
  }

  void on_settings(const http::ScannedFrame& frame, std::size_t offset) {
    check(frame.header.stream_id == 0, "SETTINGS on a stream");
    if ((frame.header.flags & h2_flags::kAck) != 0) {
      check(frame.payload.empty(), "a SETTINGS ACK with a payload");
      check(++out_.settings_acks <= client_.settings, "a SETTINGS ACK for SETTINGS never sent");
      return;
    }
    check(offset == 0, "the server sends its SETTINGS twice");
    check(frame.payload.size() % 6 == 0, "the server's SETTINGS is not whole entries");
  }

  void on_ping(const http::ScannedFrame& frame) {
    check(frame.header.stream_id == 0 && frame.payload.size() == 8, "a PING not 8 bytes on 0");
    check((frame.header.flags & h2_flags::kAck) != 0, "the server sends a PING of its own");
    const std::string_view opaque(frame.payload.data(), frame.payload.size());
    check(out_.ping_acks < client_.pings.size() && client_.pings[out_.ping_acks] == opaque,
          "a PING ACK that answers no PING of the client's, in order");
    ++out_.ping_acks;
  }

  void on_goaway(const http::ScannedFrame& frame) {
    check(frame.header.stream_id == 0 && frame.payload.size() >= 8, "a GOAWAY malformed");
    std::uint32_t last = http::read_h2_u32(frame.payload.data()) & 0x7fffffffU;
    check(last <= out_.goaway_last, "a GOAWAY raises the last stream id of an earlier one");
    last = std::min(last, out_.goaway_last);
    check(last == 0 || last % 2 == 1, "a GOAWAY names a stream the client could not open");
    out_.goaway = true;
    out_.goaway_last = last;
    if (http::read_h2_u32(frame.payload.data() + 4) != 0) out_.error_goaway = true;
  }

  void on_headers(const http::ScannedFrame& frame, std::size_t offset) {
    ServerStream& stream = stream_frame(frame, offset);
    check(!stream.headers, "a second HEADERS on a stream (the server sends no 1xx, no trailers)");
    check(!out_.goaway || frame.header.stream_id <= out_.goaway_last,
          "an answer on a stream the server's GOAWAY said it left alone");
    stream.headers = true;
    std::string_view fragment;
    check(unpadded(frame, fragment), "a HEADERS frame whose padding does not fit");
    block_stream_ = frame.header.stream_id;
    block_ends_stream_ = (frame.header.flags & h2_flags::kEndStream) != 0;
    block_.assign(fragment);
    if ((frame.header.flags & h2_flags::kEndHeaders) != 0) end_block();
  }

  void on_continuation(const http::ScannedFrame& frame) {
    check(block_stream_ != 0, "a CONTINUATION outside a header block");
    block_.append(frame.payload.data(), frame.payload.size());
    if ((frame.header.flags & h2_flags::kEndHeaders) != 0) end_block();
  }

  void end_block() {
    ServerStream& stream = out_.streams[block_stream_];
    Fields fields;
    check(decoder_.decode(block_, fields), "a response head that does not decode (HPACK)");
    check(!fields.empty() && fields[0].first == ":status", "a response head without :status first");
    const std::string& status = fields[0].second;
    check(status.size() == 3 && std::all_of(status.begin(), status.end(),
                                            [](char c) { return c >= '0' && c <= '9'; }),
          "a :status that is not three digits");
    stream.status = std::stoi(status);
    check(stream.status >= 200, "an interim response (the server sends none)");
    stream.content_length = field_value(fields, "content-length");
    stream.ended = block_ends_stream_;
    block_stream_ = 0;
  }

  void on_data(const http::ScannedFrame& frame, std::size_t offset) {
    ServerStream& stream = stream_frame(frame, offset);
    const std::uint32_t id = frame.header.stream_id;
    check(stream.headers, "DATA before the response's HEADERS");
    check(!stream.ended, "DATA after the stream's END_STREAM");
    check(!out_.goaway || id <= out_.goaway_last,
          "DATA on a stream the server's GOAWAY said it left alone");
    stream.data_bytes += frame.payload.size();
    connection_data_ += frame.payload.size();
    const ClientStream& asked = client_.streams.at(id);
    check(stream.data_bytes <= client_.max_initial_window + asked.window_updates,
          "DATA beyond the stream's flow-control window");
    check(connection_data_ <= kH2DefaultWindow + client_.connection_window_updates,
          "DATA beyond the connection's flow-control window");
    std::string_view content;
    check(unpadded(frame, content), "a DATA frame whose padding does not fit");
    stream.body.append(content);
    if ((frame.header.flags & h2_flags::kEndStream) != 0)
      stream.ended = stream.ended_on_data = true;
  }

  // A whole answer against its request: its length, and for GET its route's body.
  void check_answer(std::uint32_t id, const ServerStream& stream) {
    if (stream.ended_on_data) {
      check(stream.content_length == std::to_string(stream.body.size()),
            "a response's DATA does not add up to its content-length");
    }
    const ClientStream& asked = client_.streams.at(id);
    if (asked.method == "HEAD") {
      check(stream.data_bytes == 0, "a response to HEAD carries DATA");
    }
    if (asked.method != "GET" || stream.status != 200 || !stream.ended) return;
    const std::string_view path = std::string_view(asked.path).substr(0, asked.path.find('?'));
    auto route = std::find_if(routes_.begin(), routes_.end(),
                              [path](const RouteBody& r) { return r.path == path; });
    check(route != routes_.end(), "a 200 for a path no route serves");
    check(stream.body == route->body, "an answer that is not its route's (another stream's?)");
  }

  const ClientFrames& client_;
  std::span<const RouteBody> routes_;
  ServerFrames out_;
  HeaderDecoder decoder_;
  std::uint64_t connection_data_ = 0;
  std::uint32_t block_stream_ = 0;
  bool block_ends_stream_ = false;
  std::string block_;
};

// For a connection still open and in good health once everything settled (no GOAWAY for an error,
// the client neither closed nor shut, no timer fired): every request the client completed on a
// stream the server opened is answered or reset, unless the client reset it or the server's
// GOAWAY said it left the stream alone; with no GOAWAY either way, every PING and SETTINGS is
// acknowledged.
inline void check_nothing_owed(const ClientFrames& client, const ServerFrames& server) {
  if (server.error_goaway) return;
  for (const auto& [id, asked] : client.streams) {
    if (!asked.opens || !asked.complete || asked.reset) continue;
    if (server.goaway && id > server.goaway_last) continue;
    auto answer = server.streams.find(id);
    check(answer != server.streams.end() && (answer->second.headers || answer->second.reset),
          "a complete request was left unanswered");
  }
  // After a GOAWAY either way with no stream left, nghttp2 counts the session as closing and drops
  // the acknowledgements still queued: only a connection without one owes them all.
  if (client.goaway || server.goaway) return;
  check(server.ping_acks >= client.pings.size(), "a PING was left unanswered");
  check(server.settings_acks >= client.settings, "a SETTINGS was left unacknowledged");
}

}  // namespace ringside::fuzz
