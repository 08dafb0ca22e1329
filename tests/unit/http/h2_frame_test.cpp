// HTTP/2 framing checked against libnghttp2 as the reference: frames a nghttp2 client session
// writes are walked by FrameScanner exactly, and the frames we write (SETTINGS, HEADERS with our
// HPACK block, PING's answer, WINDOW_UPDATE, RST_STREAM, GOAWAY) are taken by a nghttp2 server
// session without a protocol error, with the callbacks reporting what we meant.
#include "http/h2_frame.hpp"

#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "http/hpack_request.hpp"

namespace ringside::http {
namespace {

std::string client_session_bytes() {
  nghttp2_session_callbacks* callbacks = nullptr;
  nghttp2_session_callbacks_new(&callbacks);
  nghttp2_session* session = nullptr;
  nghttp2_session_client_new(&session, callbacks, nullptr);
  const nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100},
                                             {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20}};
  nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, settings, 2);
  auto nv = [](const char* name, const char* value) {
    return nghttp2_nv{reinterpret_cast<uint8_t*>(const_cast<char*>(name)),
                      reinterpret_cast<uint8_t*>(const_cast<char*>(value)),
                      std::char_traits<char>::length(name), std::char_traits<char>::length(value),
                      NGHTTP2_NV_FLAG_NONE};
  };
  const nghttp2_nv request[] = {nv(":method", "GET"), nv(":scheme", "http"),
                                nv(":authority", "127.0.0.1"), nv(":path", "/json")};
  EXPECT_EQ(nghttp2_submit_request(session, nullptr, request, 4, nullptr, nullptr), 1);
  const std::array<uint8_t, 8> opaque{1, 2, 3, 4, 5, 6, 7, 8};
  nghttp2_submit_ping(session, NGHTTP2_FLAG_NONE, opaque.data());
  std::string bytes;
  const uint8_t* data = nullptr;
  ssize_t n = 0;
  while ((n = nghttp2_session_mem_send(session, &data)) > 0) {
    bytes.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
  }
  nghttp2_session_del(session);
  nghttp2_session_callbacks_del(callbacks);
  return bytes;
}

TEST(H2Frame, HeaderRoundTripsWithTheReservedBitDropped) {
  char bytes[kH2FrameHeaderSize];
  write_h2_frame_header({0xabcdef, 0x1, 0x25, 0x7fffffff}, bytes);
  EXPECT_EQ(std::string(bytes, 5), std::string("\xab\xcd\xef\x01\x25", 5));
  bytes[5] = static_cast<char>(bytes[5] | 0x80);  // a peer that sets the reserved bit
  const H2FrameHeader header = read_h2_frame_header(bytes);
  EXPECT_EQ(header.length, 0xabcdefU);
  EXPECT_EQ(header.type, 0x1);
  EXPECT_EQ(header.flags, 0x25);
  EXPECT_EQ(header.stream_id, 0x7fffffffU);
  patch_h2_stream_id(bytes, 7);
  EXPECT_EQ(read_h2_frame_header(bytes).stream_id, 7U);
  EXPECT_EQ(read_h2_frame_header(bytes).length, 0xabcdefU);
}

TEST(H2Frame, ScannerWalksWhatANghttp2ClientWrites) {
  const std::string bytes = client_session_bytes();
  ASSERT_EQ(bytes.substr(0, kH2ClientPreface.size()), kH2ClientPreface);
  std::span<const char> rest(bytes.data() + kH2ClientPreface.size(),
                             bytes.size() - kH2ClientPreface.size());
  FrameScanner scanner;
  std::vector<std::pair<std::uint8_t, std::uint32_t>> seen;
  ScannedFrame frame;
  while (!rest.empty()) {
    ASSERT_EQ(scanner.next(rest, frame), ScanStatus::kFrame);
    seen.emplace_back(frame.header.type, frame.header.stream_id);
    if (frame.header.type == static_cast<std::uint8_t>(H2FrameType::kHeaders)) {
      EXPECT_EQ(frame.header.flags & (h2_flags::kEndStream | h2_flags::kEndHeaders),
                h2_flags::kEndStream | h2_flags::kEndHeaders);
    }
    if (frame.header.type == static_cast<std::uint8_t>(H2FrameType::kSettings)) {
      EXPECT_EQ(frame.payload.size(), 12U);  // two settings of 6 bytes
    }
    rest = rest.subspan(frame.size());
  }
  // SETTINGS, then PING (nghttp2 sends it ahead of requests), then the request's HEADERS.
  const std::vector<std::pair<std::uint8_t, std::uint32_t>> expected{{0x4, 0}, {0x6, 0}, {0x1, 1}};
  EXPECT_EQ(seen, expected);
}

TEST(H2Frame, ScannerWaitsForWholeFramesAndRefusesOversizedOnes) {
  char bytes[kH2FrameHeaderSize + 8];
  const std::size_t size = write_h2_goaway(3, H2Error::kNoError, bytes);
  FrameScanner scanner;
  ScannedFrame frame;
  for (std::size_t cut = 0; cut < size; ++cut) {
    EXPECT_EQ(scanner.next({bytes, cut}, frame), ScanStatus::kPartial) << cut;
  }
  EXPECT_EQ(scanner.next({bytes, size}, frame), ScanStatus::kFrame);
  EXPECT_EQ(frame.size(), size);
  char big[kH2FrameHeaderSize];
  write_h2_frame_header({kH2DefaultMaxFrameSize + 1, 0x0, 0, 1}, big);
  EXPECT_EQ(scanner.next({big, sizeof big}, frame), ScanStatus::kTooLarge);
  EXPECT_EQ(FrameScanner(kH2MaxFrameSizeLimit).next({big, sizeof big}, frame), ScanStatus::kPartial);
}

// What a nghttp2 server session reports of the bytes we send it.
struct ServerSeen {
  std::vector<std::pair<std::string, std::string>> fields;
  std::vector<std::pair<std::uint8_t, std::uint8_t>> frames;  // type, flags
  std::uint32_t rst_error = 0xffffffff;
  std::vector<std::pair<std::int32_t, std::uint32_t>> settings;  // id, value
  std::int32_t window_increment = -1;
  std::int32_t goaway_last_stream = -1;
};

std::pair<ssize_t, ServerSeen> feed_server(const std::string& bytes) {
  ServerSeen seen;
  nghttp2_session_callbacks* callbacks = nullptr;
  nghttp2_session_callbacks_new(&callbacks);
  nghttp2_session_callbacks_set_on_header_callback(
      callbacks, [](nghttp2_session*, const nghttp2_frame*, const uint8_t* name, size_t name_len,
                    const uint8_t* value, size_t value_len, uint8_t, void* user) {
        static_cast<ServerSeen*>(user)->fields.emplace_back(
            std::string(reinterpret_cast<const char*>(name), name_len),
            std::string(reinterpret_cast<const char*>(value), value_len));
        return 0;
      });
  nghttp2_session_callbacks_set_on_frame_recv_callback(
      callbacks, [](nghttp2_session*, const nghttp2_frame* frame, void* user) {
        auto* out = static_cast<ServerSeen*>(user);
        out->frames.emplace_back(frame->hd.type, frame->hd.flags);
        if (frame->hd.type == NGHTTP2_RST_STREAM) out->rst_error = frame->rst_stream.error_code;
        if (frame->hd.type == NGHTTP2_SETTINGS && !(frame->hd.flags & NGHTTP2_FLAG_ACK)) {
          for (std::size_t i = 0; i < frame->settings.niv; ++i) {
            out->settings.emplace_back(frame->settings.iv[i].settings_id, frame->settings.iv[i].value);
          }
        }
        if (frame->hd.type == NGHTTP2_WINDOW_UPDATE) {
          out->window_increment = frame->window_update.window_size_increment;
        }
        if (frame->hd.type == NGHTTP2_GOAWAY) out->goaway_last_stream = frame->goaway.last_stream_id;
        return 0;
      });
  nghttp2_session* session = nullptr;
  nghttp2_session_server_new(&session, callbacks, &seen);
  // The server's own SETTINGS, sent (into nowhere), so that our ACK of them is expected.
  nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, nullptr, 0);
  const uint8_t* sent = nullptr;
  while (nghttp2_session_mem_send(session, &sent) > 0) {
  }
  const ssize_t taken = nghttp2_session_mem_recv(
      session, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  nghttp2_session_del(session);
  nghttp2_session_callbacks_del(callbacks);
  return {taken, seen};
}

TEST(H2Frame, ANghttp2ServerTakesOurFramesAndOurHeaderBlock) {
  std::string bytes(kH2ClientPreface);
  char frame[256];
  const H2SettingValue settings[] = {{H2Setting::kEnablePush, 0},
                                     {H2Setting::kInitialWindowSize, 1 << 20}};
  bytes.append(frame, write_h2_settings(settings, frame));
  bytes.append(frame, write_h2_window_update(0, 1 << 20, frame));
  char block[128];
  const H2HeaderField extra[] = {{"Accept", "*/*"}, {"Connection", "keep-alive"}};
  const std::size_t block_size =
      encode_request_headers({"GET", "http", "127.0.0.1:8080", "/users/7"}, extra, block);
  ASSERT_GT(block_size, 0U);
  for (std::uint32_t stream = 1; stream <= 3; stream += 2) {
    write_h2_frame_header({static_cast<std::uint32_t>(block_size),
                           static_cast<std::uint8_t>(H2FrameType::kHeaders),
                           h2_flags::kEndStream | h2_flags::kEndHeaders, stream}, frame);
    bytes.append(frame, kH2FrameHeaderSize);
    bytes.append(block, block_size);
  }
  bytes.append(frame, write_h2_rst_stream(3, H2Error::kCancel, frame));
  bytes.append(frame, write_h2_settings_ack(frame));
  // A client names the last stream the server opened (push): none.
  bytes.append(frame, write_h2_goaway(0, H2Error::kNoError, frame));
  const auto [taken, seen] = feed_server(bytes);
  ASSERT_EQ(taken, static_cast<ssize_t>(bytes.size()));
  const std::vector<std::pair<std::string, std::string>> one_request{
      {":method", "GET"}, {":scheme", "http"}, {":authority", "127.0.0.1:8080"},
      {":path", "/users/7"}, {"accept", "*/*"}};
  std::vector<std::pair<std::string, std::string>> two = one_request;
  two.insert(two.end(), one_request.begin(), one_request.end());
  EXPECT_EQ(seen.fields, two);
  const std::vector<std::pair<std::uint8_t, std::uint8_t>> frames{
      {NGHTTP2_SETTINGS, 0}, {NGHTTP2_WINDOW_UPDATE, 0}, {NGHTTP2_HEADERS, 0x5},
      {NGHTTP2_HEADERS, 0x5}, {NGHTTP2_RST_STREAM, 0}, {NGHTTP2_SETTINGS, NGHTTP2_FLAG_ACK},
      {NGHTTP2_GOAWAY, 0}};
  EXPECT_EQ(seen.frames, frames);
  EXPECT_EQ(seen.rst_error, static_cast<std::uint32_t>(H2Error::kCancel));
  EXPECT_EQ(seen.settings, (std::vector<std::pair<std::int32_t, std::uint32_t>>{
                               {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
                               {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1U << 20}}));
  EXPECT_EQ(seen.window_increment, 1 << 20);
  EXPECT_EQ(seen.goaway_last_stream, 0);
}

TEST(H2Frame, PingAnswerEchoesTheOpaqueBytes) {
  const std::array<char, 8> opaque{'r', 'i', 'n', 'g', 's', 'i', 'd', 'e'};
  char frame[kH2FrameHeaderSize + 8];
  ASSERT_EQ(write_h2_ping_ack(opaque, frame), sizeof frame);
  const H2FrameHeader header = read_h2_frame_header(frame);
  EXPECT_EQ(header.type, static_cast<std::uint8_t>(H2FrameType::kPing));
  EXPECT_EQ(header.flags, h2_flags::kAck);
  EXPECT_EQ(header.length, 8U);
  EXPECT_EQ(std::string(frame + kH2FrameHeaderSize, 8), "ringside");
}

}  // namespace
}  // namespace ringside::http

namespace ringside::http {
namespace {

TEST(H2Preface, TellsHttp2FromHttp11ByTheFirstBytes) {
  EXPECT_EQ(match_h2_preface(kH2ClientPreface), PrefaceMatch::kYes);
  EXPECT_EQ(match_h2_preface(std::string(kH2ClientPreface) + "\x00\x00\x00\x04"),
            PrefaceMatch::kYes);
  EXPECT_EQ(match_h2_preface(""), PrefaceMatch::kPartial);
  EXPECT_EQ(match_h2_preface("PRI * HTTP/2.0\r\n"), PrefaceMatch::kPartial);
  EXPECT_EQ(match_h2_preface(kH2ClientPreface.substr(0, 23)), PrefaceMatch::kPartial);
  EXPECT_EQ(match_h2_preface("GET / HTTP/1.1\r\n"), PrefaceMatch::kNo);
  EXPECT_EQ(match_h2_preface("PRI / HTTP/1.1\r\n"), PrefaceMatch::kNo);
  // As long as the preface, differing only in its last byte.
  std::string almost(kH2ClientPreface);
  almost.back() = 'x';
  EXPECT_EQ(match_h2_preface(almost), PrefaceMatch::kNo);
}

}  // namespace
}  // namespace ringside::http
