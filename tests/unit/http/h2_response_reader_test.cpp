// The client's reading side against a libnghttp2 server session as the peer: our start and
// requests go in, the server's frames (its SETTINGS, PING, responses with bodies, a header block
// split into CONTINUATION frames, a 1xx before the final status, a reset stream) come back in cuts
// of every size, and the listener hears each stream's status and end; our answers (SETTINGS ACK,
// PING ACK, WINDOW_UPDATEs) are fed back and the server takes them without error.
#include "http/h2_response_reader.hpp"

#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>

#include <map>
#include <string>
#include <vector>

#include "http/hpack_request.hpp"

namespace ringside::http {
namespace {

nghttp2_nv field(const std::string& name, const std::string& value) {
  return {reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
          NGHTTP2_NV_FLAG_NONE};
}

// A nghttp2 server answering each request by its path:
//   /hello: 200 "Hello World!"   /missing: 404, no body   /big: 200 and `big_body` bytes
//   /huge-header: 200 with a 40 KB header (CONTINUATION frames)   /early-hints: 103, then 204
//   /reset: RST_STREAM (REFUSED_STREAM)
struct Server {
  Server() {
    nghttp2_session_callbacks* callbacks = nullptr;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_header_callback(
        callbacks, [](nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                      size_t name_len, const uint8_t* value, size_t value_len, uint8_t, void* user) {
          if (std::string(reinterpret_cast<const char*>(name), name_len) == ":path") {
            static_cast<Server*>(user)->paths[frame->hd.stream_id] =
                std::string(reinterpret_cast<const char*>(value), value_len);
          }
          return 0;
        });
    nghttp2_session_callbacks_set_on_frame_recv_callback(
        callbacks, [](nghttp2_session* peer, const nghttp2_frame* frame, void* user) {
          auto* self = static_cast<Server*>(user);
          if (frame->hd.type == NGHTTP2_PING && (frame->hd.flags & NGHTTP2_FLAG_ACK)) ++self->ping_acks;
          if (frame->hd.type == NGHTTP2_SETTINGS && (frame->hd.flags & NGHTTP2_FLAG_ACK)) ++self->settings_acks;
          if (frame->hd.type == NGHTTP2_WINDOW_UPDATE) self->window_updates.push_back(frame->window_update.window_size_increment);
          if (frame->hd.type == NGHTTP2_HEADERS && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
            self->respond(peer, frame->hd.stream_id);
          }
          return 0;
        });
    nghttp2_session_server_new(&session, callbacks, this);
    nghttp2_session_callbacks_del(callbacks);
    const nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 77}};
    nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, settings, 1);
    const uint8_t opaque[8] = {'p', 'i', 'n', 'g', 'p', 'o', 'n', 'g'};
    nghttp2_submit_ping(session, NGHTTP2_FLAG_NONE, opaque);
  }
  ~Server() { nghttp2_session_del(session); }

  void respond(nghttp2_session* s, int32_t stream) {
    const std::string& path = paths[stream];
    static const std::string status = ":status", ok = "200", missing = "404", hints = "103",
                             no_content = "204", big_name = "x-big";
    nghttp2_data_provider provider;
    provider.source.ptr = this;
    provider.read_callback = [](nghttp2_session*, int32_t stream_id, uint8_t* buf, size_t length,
                                uint32_t* flags, nghttp2_data_source* source, void*) -> ssize_t {
      auto* self = static_cast<Server*>(source->ptr);
      std::size_t& sent = self->body_sent[stream_id];
      const std::string& body = self->paths[stream_id] == "/big" ? self->big_body : self->hello;
      const std::size_t n = std::min(length, body.size() - sent);
      std::memcpy(buf, body.data() + sent, n);
      sent += n;
      if (sent == body.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
      return static_cast<ssize_t>(n);
    };
    if (path == "/hello" || path == "/big") {
      const nghttp2_nv nv[] = {field(status, ok)};
      nghttp2_submit_response(s, stream, nv, 1, &provider);
    } else if (path == "/missing") {
      const nghttp2_nv nv[] = {field(status, missing)};
      nghttp2_submit_response(s, stream, nv, 1, nullptr);
    } else if (path == "/huge-header") {
      const nghttp2_nv nv[] = {field(status, ok), field(big_name, huge_value)};
      nghttp2_submit_response(s, stream, nv, 2, nullptr);
    } else if (path == "/early-hints") {
      const nghttp2_nv early[] = {field(status, hints)};
      nghttp2_submit_headers(s, NGHTTP2_FLAG_NONE, stream, nullptr, early, 1, nullptr);
      const nghttp2_nv nv[] = {field(status, no_content)};
      nghttp2_submit_response(s, stream, nv, 1, nullptr);
    } else {
      nghttp2_submit_rst_stream(s, NGHTTP2_FLAG_NONE, stream, NGHTTP2_REFUSED_STREAM);
    }
  }

  void receive(const std::string& bytes) {
    ASSERT_EQ(nghttp2_session_mem_recv(session, reinterpret_cast<const uint8_t*>(bytes.data()),
                                       bytes.size()),
              static_cast<ssize_t>(bytes.size()));
  }
  std::string send() {
    std::string out;
    const uint8_t* data = nullptr;
    ssize_t n = 0;
    while ((n = nghttp2_session_mem_send(session, &data)) > 0) {
      out.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
    }
    return out;
  }

  nghttp2_session* session = nullptr;
  std::map<int32_t, std::string> paths;
  std::map<int32_t, std::size_t> body_sent;
  std::string hello = "Hello World!";
  std::string big_body = std::string(3 << 20, 'b');  // past the default 64 KiB windows
  std::string huge_value = std::string(40000, 'h');  // past a 16 KiB frame: CONTINUATION
  int ping_acks = 0, settings_acks = 0;
  std::vector<int32_t> window_updates;
};

struct Heard : H2ResponseListener {
  void on_status(std::uint32_t stream, int status) override { statuses[stream] = status; }
  void on_stream_end(std::uint32_t stream) override { ended.push_back(stream); }
  void on_stream_reset(std::uint32_t stream, H2Error error) override { resets[stream] = error; }
  void on_goaway(std::uint32_t last, H2Error error) override {
    goaway_last = last;
    goaway_error = error;
  }
  void on_window_update(std::uint32_t stream, std::uint32_t increment) override {
    windows[stream] += increment;
  }
  std::map<std::uint32_t, std::uint64_t> windows;
  std::map<std::uint32_t, int> statuses;
  std::vector<std::uint32_t> ended;
  std::map<std::uint32_t, H2Error> resets;
  std::int64_t goaway_last = -1;
  H2Error goaway_error = H2Error::kNoError;
};

std::string request(std::uint32_t stream, const char* path) {
  char block[256];
  const std::size_t n = encode_request_headers({"GET", "http", "127.0.0.1", path}, {}, block);
  char header[kH2FrameHeaderSize];
  write_h2_frame_header({static_cast<std::uint32_t>(n), static_cast<std::uint8_t>(H2FrameType::kHeaders),
                         h2_flags::kEndStream | h2_flags::kEndHeaders, stream}, header);
  return std::string(header, sizeof header) + std::string(block, n);
}

// Feeds `bytes` to the reader in pieces of `cut` bytes (the rest kept, as a connection keeps a
// partial frame), returning the answers it wrote.
std::string read_all(H2ResponseReader& reader, const std::string& bytes, std::size_t cut, Heard& heard) {
  std::string answers, pending;
  char room[4096];
  for (std::size_t at = 0; at < bytes.size(); at += cut) {
    pending += bytes.substr(at, cut);
    while (true) {
      OutBuffer out(room, sizeof room);
      const H2ReadResult result = reader.feed(pending, out, heard);
      EXPECT_EQ(result.error, H2Error::kNoError);
      answers += out.view();
      pending.erase(0, result.consumed);
      if (result.consumed == 0) break;
    }
  }
  EXPECT_TRUE(pending.empty()) << pending.size() << " bytes left";
  return answers;
}

TEST(H2ResponseReader, HearsEveryStreamOfANghttp2ServerInCutsOfEverySize) {
  for (std::size_t cut : {std::size_t{1}, std::size_t{7}, std::size_t{9}, std::size_t{1000},
                          std::size_t{1} << 24}) {
    SCOPED_TRACE(cut);
    Server server;
    char start[H2ResponseReader::kClientStartSize];
    std::string client(start, H2ResponseReader::write_client_start(start));
    const char* paths[] = {"/hello", "/missing", "/big", "/huge-header", "/early-hints", "/reset"};
    for (std::uint32_t i = 0; i < 6; ++i) client += request(2 * i + 1, paths[i]);
    server.receive(client);
    H2ResponseReader reader(1 << 20);  // a WINDOW_UPDATE per MiB read
    Heard heard;
    const std::string answers = read_all(reader, server.send(), cut, heard);
    EXPECT_EQ(heard.statuses, (std::map<std::uint32_t, int>{{1, 200}, {3, 404}, {5, 200}, {7, 200}, {9, 204}}));
    std::vector<std::uint32_t> ended = heard.ended;
    std::sort(ended.begin(), ended.end());
    EXPECT_EQ(ended, (std::vector<std::uint32_t>{1, 3, 5, 7, 9}));
    EXPECT_EQ(heard.resets, (std::map<std::uint32_t, H2Error>{{11, H2Error::kRefusedStream}}));
    EXPECT_EQ(reader.max_concurrent_streams(), 77U);
    server.receive(answers);
    EXPECT_EQ(server.settings_acks, 1);
    EXPECT_EQ(server.ping_acks, 1);
    // Our start's, then 3 MiB and some bytes of DATA read: three of a MiB's worth each, at least.
    ASSERT_EQ(server.window_updates.size(), 4U);
    EXPECT_EQ(server.window_updates.front(), 0x7fffffff - 65535);  // our start's
    for (std::size_t i = 1; i < server.window_updates.size(); ++i) {
      EXPECT_GE(server.window_updates[i], 1 << 20);
    }
  }
}

TEST(H2ResponseReader, AGoawayIsHeardAndBrokenFramesEndTheConnection) {
  Heard heard;
  char room[256];
  OutBuffer out(room, sizeof room);
  char frame[64];
  {
    H2ResponseReader reader;
    const std::size_t n = write_h2_goaway(9, H2Error::kEnhanceYourCalm, frame);
    EXPECT_EQ(reader.feed({frame, n}, out, heard).error, H2Error::kNoError);
    EXPECT_EQ(heard.goaway_last, 9);
    EXPECT_EQ(heard.goaway_error, H2Error::kEnhanceYourCalm);
  }
  {
    H2ResponseReader reader;  // a frame over the 16 KiB we announced
    write_h2_frame_header({20000, 0x0, 0, 1}, frame);
    EXPECT_EQ(reader.feed({frame, kH2FrameHeaderSize}, out, heard).error, H2Error::kFrameSizeError);
  }
  {
    H2ResponseReader reader;  // push is off: a PUSH_PROMISE is a protocol error
    write_h2_frame_header({4, static_cast<std::uint8_t>(H2FrameType::kPushPromise), 0x4, 1}, frame);
    std::memset(frame + kH2FrameHeaderSize, 0, 4);
    EXPECT_EQ(reader.feed({frame, kH2FrameHeaderSize + 4}, out, heard).error, H2Error::kProtocolError);
  }
  {
    H2ResponseReader reader;  // a header block interrupted by another frame
    write_h2_frame_header({1, static_cast<std::uint8_t>(H2FrameType::kHeaders), 0, 1}, frame);
    frame[kH2FrameHeaderSize] = static_cast<char>(0x88);  // :status 200, no END_HEADERS
    const std::size_t ping = write_h2_ping_ack(std::span<const char, 8>("12345678", 8),
                                               frame + kH2FrameHeaderSize + 1);
    EXPECT_EQ(reader.feed({frame, kH2FrameHeaderSize + 1 + ping}, out, heard).error,
              H2Error::kProtocolError);
  }
  {
    H2ResponseReader reader;  // a header block HPACK cannot decode (index 100 is in no table)
    write_h2_frame_header({1, static_cast<std::uint8_t>(H2FrameType::kHeaders), 0x5, 1}, frame);
    frame[kH2FrameHeaderSize] = static_cast<char>(0x80 | 100);
    EXPECT_EQ(reader.feed({frame, kH2FrameHeaderSize + 1}, out, heard).error,
              H2Error::kCompressionError);
  }
}

TEST(H2ResponseReader, SendWindowsAndFrameSizeAreHeardForRequestBodies) {
  Heard heard;
  char room[256];
  OutBuffer out(room, sizeof room);
  char frame[64];
  H2ResponseReader reader;
  EXPECT_EQ(reader.initial_window(), 65535U);
  EXPECT_EQ(reader.max_frame_size(), kH2DefaultMaxFrameSize);
  const std::array<H2SettingValue, 2> settings{
      {{H2Setting::kInitialWindowSize, 1000}, {H2Setting::kMaxFrameSize, 65536}}};
  std::size_t n = write_h2_settings(settings, frame);
  n += write_h2_window_update(0, 70000, frame + n);
  n += write_h2_window_update(3, 5, frame + n);
  n += write_h2_window_update(3, 6, frame + n);
  EXPECT_EQ(reader.feed({frame, n}, out, heard).error, H2Error::kNoError);
  EXPECT_EQ(reader.initial_window(), 1000U);
  EXPECT_EQ(reader.max_frame_size(), 65536U);
  EXPECT_EQ(heard.windows, (std::map<std::uint32_t, std::uint64_t>{{0, 70000}, {3, 11}}));
  // A zero increment: the connection's is a connection error, a stream's is not ours to act on.
  out.clear();
  n = write_h2_window_update(5, 0, frame);
  EXPECT_EQ(reader.feed({frame, n}, out, heard).error, H2Error::kNoError);
  n = write_h2_window_update(0, 0, frame);
  EXPECT_EQ(reader.feed({frame, n}, out, heard).error, H2Error::kProtocolError);
  // Settings out of their ranges (RFC 9113 section 6.5.2).
  for (const H2SettingValue bad : {H2SettingValue{H2Setting::kInitialWindowSize, 0x80000000U},
                                   H2SettingValue{H2Setting::kMaxFrameSize, 16383},
                                   H2SettingValue{H2Setting::kMaxFrameSize, 1U << 24}}) {
    H2ResponseReader fresh;
    out.clear();
    n = write_h2_settings({&bad, 1}, frame);
    EXPECT_NE(fresh.feed({frame, n}, out, heard).error, H2Error::kNoError);
  }
}

TEST(H2ResponseReader, PaddingAndPriorityFieldsAreSkipped) {
  H2ResponseReader reader(10);  // a WINDOW_UPDATE once 10 bytes of DATA were read
  Heard heard;
  // HEADERS, padded and with priority: pad length 3, 5 bytes of priority, :status 200 (0x88).
  std::string bytes(kH2FrameHeaderSize, '\0');
  write_h2_frame_header({1 + 5 + 1 + 3, static_cast<std::uint8_t>(H2FrameType::kHeaders),
                         h2_flags::kPadded | h2_flags::kPriority | h2_flags::kEndHeaders, 1},
                        bytes.data());
  bytes += std::string("\x03" "\0\0\0\0\x10" "\x88" "pad", 10);
  // DATA, padded: 1 + 4 + 6 = 11 bytes counted for flow control, END_STREAM.
  std::string data(kH2FrameHeaderSize, '\0');
  write_h2_frame_header({11, static_cast<std::uint8_t>(H2FrameType::kData),
                         h2_flags::kPadded | h2_flags::kEndStream, 1}, data.data());
  bytes += data + std::string("\x06" "body" "\0\0\0\0\0\0", 11);
  char room[256];
  OutBuffer out(room, sizeof room);
  const H2ReadResult result = reader.feed(bytes, out, heard);
  EXPECT_EQ(result.error, H2Error::kNoError);
  EXPECT_EQ(result.consumed, bytes.size());
  EXPECT_EQ(heard.statuses, (std::map<std::uint32_t, int>{{1, 200}}));
  EXPECT_EQ(heard.ended, std::vector<std::uint32_t>{1});
  ASSERT_EQ(out.size(), kH2FrameHeaderSize + 4);
  const H2FrameHeader update = read_h2_frame_header({room, kH2FrameHeaderSize});
  EXPECT_EQ(update.type, static_cast<std::uint8_t>(H2FrameType::kWindowUpdate));
  EXPECT_EQ(std::string(room + kH2FrameHeaderSize, 4), std::string("\0\0\0\x0b", 4));
}

TEST(H2ResponseReader, StopsWhenTheAnswersHaveNoRoomLeft) {
  H2ResponseReader reader;
  Heard heard;
  std::string pings;
  char frame[kH2FrameHeaderSize + 8];
  for (int i = 0; i < 10; ++i) {
    write_h2_frame_header({8, static_cast<std::uint8_t>(H2FrameType::kPing), 0, 0}, frame);
    std::memcpy(frame + kH2FrameHeaderSize, "abcdefgh", 8);
    pings.append(frame, sizeof frame);
  }
  char room[3 * H2ResponseReader::kAnswerRoom + 5];
  OutBuffer out(room, sizeof room);
  const H2ReadResult first = reader.feed(pings, out, heard);
  EXPECT_EQ(first.consumed, 3 * sizeof frame);
  EXPECT_EQ(out.size(), 3 * sizeof frame);  // three PING ACKs, each the size of a PING
}

}  // namespace
}  // namespace ringside::http
