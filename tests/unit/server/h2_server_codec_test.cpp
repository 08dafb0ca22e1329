// H2ServerCodec against libnghttp2's client session as the reference peer (and raw frames where a
// correct client would never send them): requests arrive as fields, body and end; answers arrive
// whole, in any order, within the client's windows; windows are given back both ways; the reset
// budget, the CONTINUATION bound, the stream limit and malformed requests end what they should;
// a graceful GOAWAY names the last stream and the connection ends once it is answered.
#include "server/h2_server_codec.hpp"

#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>

#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "http/h2_frame.hpp"

namespace ringside::server {
namespace {

using http::kH2FrameHeaderSize;

// The connection's side: streams from a deque, fields and body counted, requests answered at
// their end with "answer <id>" (unless `hold` is set: answer() later).
class Events final : public H2CodecEvents {
 public:
  H2Codec* codec = nullptr;
  bool hold = false;
  std::string big_body;  // when set, every answer's body
  std::deque<H2Stream> streams;
  std::map<std::int32_t, std::vector<std::pair<std::string, std::string>>> fields;
  std::map<std::int32_t, std::size_t> body;
  std::vector<std::int32_t> ended, closed;
  std::map<std::int32_t, std::string> answers;

  H2Stream* on_stream_open(std::int32_t id) override {
    streams.emplace_back();
    streams.back().id = id;
    return &streams.back();
  }
  void on_field(H2Stream& stream, std::string_view name, std::string_view value) override {
    fields[stream.id].emplace_back(name, value);
  }
  void on_body(H2Stream& stream, std::size_t bytes) override { body[stream.id] += bytes; }
  void on_request_end(H2Stream& stream) override {
    ended.push_back(stream.id);
    if (!hold) answer(stream);
  }
  void on_stream_close(H2Stream& stream) override { closed.push_back(stream.id); }

  void answer(H2Stream& stream) {
    std::string& text = answers[stream.id];
    text = big_body.empty() ? "answer " + std::to_string(stream.id) : big_body;
    stream.body = text;
    const std::string length = std::to_string(text.size());
    const H2Field head_fields[] = {{"content-type", "text/plain"}, {"content-length", length}};
    ASSERT_TRUE(codec->respond(stream, {200, head_fields, true}));
  }
  H2Stream* stream(std::int32_t id) {
    for (H2Stream& s : streams) {
      if (s.id == id) return &s;
    }
    return nullptr;
  }
};

// libnghttp2's client: what it received per stream, its resets and the GOAWAY.
struct Client {
  struct Response {
    std::string status;
    std::string body;
    bool ended = false;
  };
  nghttp2_session* session = nullptr;
  std::map<std::int32_t, Response> responses;
  std::map<std::int32_t, std::uint32_t> resets;
  std::int64_t goaway_error = -1;
  std::int32_t goaway_last = -1;

  explicit Client(std::uint32_t initial_window = 65535) {
    nghttp2_session_callbacks* callbacks = nullptr;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_header_callback(
        callbacks,
        [](nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name, size_t name_length,
           const uint8_t* value, size_t value_length, uint8_t, void* user) {
          if (std::string_view(reinterpret_cast<const char*>(name), name_length) == ":status") {
            static_cast<Client*>(user)->responses[frame->hd.stream_id].status =
                std::string(reinterpret_cast<const char*>(value), value_length);
          }
          return 0;
        });
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(
        callbacks,
        [](nghttp2_session*, uint8_t, int32_t id, const uint8_t* data, size_t length, void* user) {
          static_cast<Client*>(user)->responses[id].body.append(reinterpret_cast<const char*>(data),
                                                                length);
          return 0;
        });
    nghttp2_session_callbacks_set_on_frame_recv_callback(
        callbacks, [](nghttp2_session*, const nghttp2_frame* frame, void* user) {
          auto* self = static_cast<Client*>(user);
          if (frame->hd.type == NGHTTP2_GOAWAY) {
            self->goaway_error = frame->goaway.error_code;
            self->goaway_last = frame->goaway.last_stream_id;
          } else if (frame->hd.type == NGHTTP2_RST_STREAM) {
            self->resets[frame->hd.stream_id] = frame->rst_stream.error_code;
          } else if ((frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0) {
            self->responses[frame->hd.stream_id].ended = true;
          }
          return 0;
        });
    nghttp2_session_client_new(&session, callbacks, this);
    nghttp2_session_callbacks_del(callbacks);
    const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, initial_window}};
    nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, settings, 1);
  }
  ~Client() { nghttp2_session_del(session); }

  std::int32_t get(const std::string& path, const char* method = "GET",
                   const std::string* upload = nullptr) {
    const std::string length = upload ? std::to_string(upload->size()) : "";
    std::vector<nghttp2_nv> nv{field(":method", method), field(":scheme", "http"),
                               field(":authority", "t"), field(":path", path)};
    if (upload != nullptr) nv.push_back(field("content-length", length));
    nghttp2_data_provider provider{};
    if (upload != nullptr) {
      provider.source.ptr = const_cast<std::string*>(upload);
      provider.read_callback = [](nghttp2_session*, int32_t, uint8_t* buffer, size_t room,
                                  uint32_t* flags, nghttp2_data_source* source, void*) {
        auto* text = static_cast<std::string*>(source->ptr);
        const size_t take = std::min(room, text->size());
        std::memcpy(buffer, text->data(), take);
        text->erase(0, take);
        if (text->empty()) *flags |= NGHTTP2_DATA_FLAG_EOF;
        return static_cast<ssize_t>(take);
      };
    }
    return nghttp2_submit_request(session, nullptr, nv.data(), nv.size(),
                                  upload ? &provider : nullptr, nullptr);
  }

  static nghttp2_nv field(const char* name, std::string_view value) {
    return {reinterpret_cast<uint8_t*>(const_cast<char*>(name)),
            reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), std::strlen(name),
            value.size(), NGHTTP2_NV_FLAG_NONE};
  }
};

constexpr std::string_view kPreface = http::kH2ClientPreface;

class H2ServerCodecTest : public ::testing::Test {
 protected:
  void SetUp() override { start(); }
  void start() {
    codec = std::make_unique<H2ServerCodec>();
    events.codec = codec.get();
    ASSERT_TRUE(codec->open(limits, events, memory, scratch));
  }

  // Bytes both ways until neither side has anything to say (nghttp2's client sends the preface
  // itself); false once the codec refused input.
  bool pump(Client& client) {
    bool healthy = true;
    for (int turn = 0; turn < 10000; ++turn) {
      const uint8_t* data = nullptr;
      const ssize_t size = nghttp2_session_mem_send(client.session, &data);
      bool moved = false;
      if (size > 0) {
        if (healthy) {
          healthy =
              codec->receive({reinterpret_cast<const char*>(data), static_cast<std::size_t>(size)});
        }
        moved = true;
      }
      const std::span<const char> out = codec->output();
      if (!out.empty()) {
        server_bytes.append(out.data(), out.size());
        nghttp2_session_mem_recv(client.session, reinterpret_cast<const uint8_t*>(out.data()),
                                 out.size());
        moved = true;
      }
      if (!moved) break;
    }
    return healthy;
  }

  H2Limits limits;
  core::RecyclingAllocator memory;
  std::vector<char> scratch = std::vector<char>(http::HpackDecoder::kScratchBytes);
  Events events;
  std::unique_ptr<H2ServerCodec> codec;
  std::string server_bytes;
};

TEST_F(H2ServerCodecTest, ManyStreamsAnsweredWithTheirOwnBodies) {
  Client client;
  std::vector<std::int32_t> ids;
  for (int i = 0; i < 60; ++i) ids.push_back(client.get("/n" + std::to_string(i)));
  ASSERT_TRUE(pump(client));
  ASSERT_EQ(events.ended.size(), 60u);
  for (std::int32_t id : ids) {
    const Client::Response& response = client.responses[id];
    EXPECT_EQ(response.status, "200") << id;
    EXPECT_EQ(response.body, "answer " + std::to_string(id));
    EXPECT_TRUE(response.ended);
  }
  EXPECT_EQ(events.closed.size(), 60u);
  const auto& first = events.fields[ids[0]];
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(first[0], (std::pair<std::string, std::string>{":method", "GET"}));
  EXPECT_EQ(first[3], (std::pair<std::string, std::string>{":path", "/n0"}));
  EXPECT_TRUE(codec->alive());
  EXPECT_EQ(client.goaway_error, -1);
}

TEST_F(H2ServerCodecTest, AnswersOutOfOrderAndHeadWithoutBody) {
  events.hold = true;
  Client client;
  const std::int32_t a = client.get("/a");
  const std::int32_t b = client.get("/b", "HEAD");
  ASSERT_TRUE(pump(client));
  ASSERT_EQ(events.ended.size(), 2u);
  H2Stream& head = *events.stream(b);
  const H2Field fields[] = {{"content-length", "12"}};
  ASSERT_TRUE(codec->respond(head, {200, fields, false}));
  ASSERT_TRUE(pump(client));
  EXPECT_TRUE(client.responses[b].ended);
  EXPECT_EQ(client.responses[b].body, "");
  EXPECT_FALSE(client.responses[a].ended);
  events.answer(*events.stream(a));
  ASSERT_TRUE(pump(client));
  EXPECT_EQ(client.responses[a].body, "answer 1");
  EXPECT_EQ(events.closed, (std::vector<std::int32_t>{b, a}));
}

TEST_F(H2ServerCodecTest, AnAnswerWaitsForTheClientsWindow) {
  events.big_body = std::string(200000, 'b');  // more than the connection's first window
  for (std::size_t i = 0; i < events.big_body.size(); ++i) events.big_body[i] = char('a' + i % 26);
  Client client(100);  // each stream's window: 100 bytes until the client opens it further
  const std::int32_t id = client.get("/big");
  ASSERT_TRUE(pump(client));  // nghttp2's client gives windows back as it reads
  EXPECT_EQ(client.responses[id].body, events.big_body);
  EXPECT_EQ(codec->body_bytes_sent(), events.big_body.size());
  // No DATA frame ever went past the window: the first one is 100 bytes.
  const std::size_t first_data = [&] {
    std::size_t at = 0;
    while (at + kH2FrameHeaderSize <= server_bytes.size()) {
      const auto header = http::read_h2_frame_header({server_bytes.data() + at, 9});
      if (header.type == 0) return static_cast<std::size_t>(header.length);
      at += kH2FrameHeaderSize + header.length;
    }
    return std::size_t{0};
  }();
  EXPECT_EQ(first_data, 100u);
}

TEST_F(H2ServerCodecTest, ARequestBodyLargerThanTheWindowsArrivesWhole) {
  std::string upload(300000, 'u');
  Client client;
  const std::int32_t id = client.get("/upload", "POST", &upload);
  ASSERT_TRUE(pump(client));
  EXPECT_EQ(events.body[id], 300000u);
  EXPECT_EQ(events.ended, (std::vector<std::int32_t>{id}));
  EXPECT_TRUE(client.responses[id].ended);
}

// Raw frames: what a correct client never sends.
class H2ServerCodecRawTest : public H2ServerCodecTest {
 protected:
  static std::string frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream,
                           std::string_view payload) {
    std::string out(kH2FrameHeaderSize, '\0');
    http::write_h2_frame_header({static_cast<std::uint32_t>(payload.size()), type, flags, stream},
                                out.data());
    return out.append(payload);
  }
  static constexpr std::string_view kGetBlock{"\x82\x86\x84\x01\x01t", 6};  // GET / :authority t
  bool send(const std::string& bytes) {
    const bool taken =
        codec->receive(opened_ ? bytes : std::string(kPreface) + frame(0x4, 0, 0, "") + bytes);
    opened_ = true;
    for (std::span<const char> out = codec->output(); !out.empty(); out = codec->output()) {
      server_bytes.append(out.data(), out.size());
    }
    return taken;
  }
  // Each frame the server sent: type, flags, stream id, the 4 bytes after (error codes).
  struct Sent {
    std::uint8_t type;
    std::uint32_t stream;
    std::uint32_t code;  // RST_STREAM's, or GOAWAY's
    std::uint32_t last;  // GOAWAY's last stream id
  };
  std::vector<Sent> sent() const {
    std::vector<Sent> frames;
    for (std::size_t at = 0; at + kH2FrameHeaderSize <= server_bytes.size();) {
      const auto header = http::read_h2_frame_header({server_bytes.data() + at, 9});
      const char* payload = server_bytes.data() + at + kH2FrameHeaderSize;
      Sent one{header.type, header.stream_id, 0, 0};
      if (header.type == 0x3) one.code = http::read_h2_u32(payload);
      if (header.type == 0x7) {
        one.last = http::read_h2_u32(payload);
        one.code = http::read_h2_u32(payload + 4);
      }
      frames.push_back(one);
      at += kH2FrameHeaderSize + header.length;
    }
    return frames;
  }
  std::uint32_t goaway_code() const {
    for (const Sent& one : sent()) {
      if (one.type == 0x7) return one.code;
    }
    return 0xffffffff;
  }
  std::uint32_t reset_code(std::uint32_t stream) const {
    for (const Sent& one : sent()) {
      if (one.type == 0x3 && one.stream == stream) return one.code;
    }
    return 0xffffffff;
  }
  bool opened_ = false;
};

TEST_F(H2ServerCodecRawTest, RapidResetEndsWithEnhanceYourCalm) {
  limits.reset_burst = 10;
  limits.reset_rate = 1;
  start();
  events.hold = true;
  std::string bytes;
  for (std::uint32_t id = 1; id < 60; id += 2) {
    bytes += frame(0x1, 0x5, id, kGetBlock) + frame(0x3, 0, id, std::string("\0\0\0\x08", 4));
  }
  EXPECT_FALSE(send(bytes));
  EXPECT_EQ(goaway_code(), 0xbu);  // ENHANCE_YOUR_CALM
  EXPECT_FALSE(codec->alive());
  EXPECT_LE(events.ended.size(), 11u);  // the burst, and the stream whose reset broke it
}

TEST_F(H2ServerCodecRawTest, EndlessContinuationFramesEndTheConnection) {
  std::string bytes = frame(0x1, 0x1, 1, kGetBlock.substr(0, 3));  // no END_HEADERS
  for (std::uint32_t i = 0; i <= H2ServerCodec::kMaxContinuations; ++i) {
    bytes += frame(0x9, 0, 1, "");
  }
  EXPECT_FALSE(send(bytes));
  EXPECT_EQ(goaway_code(), 0xbu);  // ENHANCE_YOUR_CALM
  EXPECT_TRUE(events.ended.empty());
}

TEST_F(H2ServerCodecRawTest, AHeaderBlockPastItsBoundEndsTheConnection) {
  std::string bytes = frame(0x1, 0x1, 1, kGetBlock);  // no END_HEADERS
  const std::string fragment(16384, 'x');
  const std::size_t frames = (limits.max_header_list + H2ServerCodec::kHeaderBlockSlack) / 16384;
  for (std::size_t i = 0; i < frames; ++i) bytes += frame(0x9, 0, 1, fragment);
  EXPECT_FALSE(send(bytes));
  EXPECT_EQ(goaway_code(), 0xbu);
}

TEST_F(H2ServerCodecRawTest, AMalformedRequestIsResetAndNeverEnds) {
  // :method GET, :scheme http, :path /, then "X-Upper: 1" as a literal with a new name.
  const std::string block =
      std::string("\x82\x86\x84", 3) + std::string("\x00\x07X-Upper\x01\x31", 11);
  EXPECT_TRUE(send(frame(0x1, 0x5, 1, block)));
  EXPECT_EQ(reset_code(1), 0x1u);  // PROTOCOL_ERROR
  EXPECT_TRUE(events.ended.empty());
  EXPECT_EQ(events.closed, (std::vector<std::int32_t>{1}));
  EXPECT_TRUE(send(frame(0x1, 0x5, 3, kGetBlock)));  // the connection goes on
  EXPECT_EQ(events.ended, (std::vector<std::int32_t>{3}));
}

TEST_F(H2ServerCodecRawTest, StreamsPastTheLimitAreRefused) {
  limits.max_concurrent_streams = 2;
  start();
  events.hold = true;
  EXPECT_TRUE(send(frame(0x1, 0x5, 1, kGetBlock) + frame(0x1, 0x5, 3, kGetBlock) +
                   frame(0x1, 0x5, 5, kGetBlock)));
  EXPECT_EQ(reset_code(5), 0x7u);  // REFUSED_STREAM
  EXPECT_EQ(events.ended, (std::vector<std::int32_t>{1, 3}));
  events.answer(*events.stream(1));
  EXPECT_TRUE(send(""));
  EXPECT_TRUE(send(frame(0x1, 0x5, 7, kGetBlock)));  // room again
  EXPECT_EQ(events.ended, (std::vector<std::int32_t>{1, 3, 7}));
}

TEST_F(H2ServerCodecRawTest, ContentLengthMustMatchTheBody) {
  // POST (3), :scheme http, :path /, content-length (28) "5", no END_STREAM.
  const std::string block = std::string("\x83\x86\x84\x0f\x0d\x01\x35", 7);
  EXPECT_TRUE(send(frame(0x1, 0x4, 1, block) + frame(0x0, 0x1, 1, "hello!")));
  EXPECT_EQ(reset_code(1), 0x1u);
  EXPECT_TRUE(send(frame(0x1, 0x4, 3, block) + frame(0x0, 0x1, 3, "hello")));
  EXPECT_EQ(events.ended, (std::vector<std::int32_t>{3}));
  EXPECT_EQ(events.body[3], 5u);
}

TEST_F(H2ServerCodecRawTest, GracefulGoawayNamesTheLastStreamAndEndsWhenAnswered) {
  events.hold = true;
  EXPECT_TRUE(send(frame(0x1, 0x5, 1, kGetBlock) + frame(0x1, 0x5, 3, kGetBlock)));
  codec->shut_down();
  EXPECT_TRUE(send(frame(0x1, 0x5, 5, kGetBlock)));  // after the GOAWAY: not taken
  EXPECT_EQ(events.ended, (std::vector<std::int32_t>{1, 3}));
  std::uint32_t last = 0;
  for (const Sent& one : sent()) {
    if (one.type == 0x7) last = one.last;
  }
  EXPECT_EQ(last, 3u);
  EXPECT_EQ(goaway_code(), 0u);
  EXPECT_TRUE(codec->alive());
  events.answer(*events.stream(1));
  events.answer(*events.stream(3));
  EXPECT_TRUE(send(""));
  EXPECT_FALSE(codec->alive());
  EXPECT_EQ(events.closed.size(), 2u);
}

TEST_F(H2ServerCodecRawTest, AResetFromTheConnectionClosesAtTheNextOutput) {
  events.hold = true;
  EXPECT_TRUE(send(frame(0x1, 0x5, 1, kGetBlock)));
  codec->reset(*events.stream(1), 0x2);
  EXPECT_TRUE(events.closed.empty());
  EXPECT_TRUE(send(""));
  EXPECT_EQ(reset_code(1), 0x2u);
  EXPECT_EQ(events.closed, (std::vector<std::int32_t>{1}));
}

TEST_F(H2ServerCodecRawTest, TheFirstFrameMustBeSettings) {
  EXPECT_FALSE(codec->receive(std::string(kPreface) + frame(0x6, 0, 0, "12345678")));
  for (std::span<const char> out = codec->output(); !out.empty(); out = codec->output()) {
    server_bytes.append(out.data(), out.size());
  }
  EXPECT_EQ(goaway_code(), 0x1u);
}

TEST_F(H2ServerCodecRawTest, FramesSplitAtEveryByteAreTakenTheSame) {
  const std::string bytes = std::string(kPreface) + frame(0x4, 0, 0, "") +
                            frame(0x1, 0x5, 1, kGetBlock) + frame(0x6, 0, 0, "12345678");
  for (char byte : bytes) ASSERT_TRUE(codec->receive({&byte, 1}));
  EXPECT_EQ(events.ended, (std::vector<std::int32_t>{1}));
  for (std::span<const char> out = codec->output(); !out.empty(); out = codec->output()) {
    server_bytes.append(out.data(), out.size());
  }
  std::size_t pings = 0;
  for (const Sent& one : sent()) pings += one.type == 0x6;
  EXPECT_EQ(pings, 1u);
}

}  // namespace
}  // namespace ringside::server
