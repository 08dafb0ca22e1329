// Drives one whole server Connection speaking HTTP/2 (h2c with prior knowledge: it becomes an
// H2Connection on the client preface) through a socketpair, the way a hostile or unlucky client
// would, and checks what comes back. The client sends its connection preface first (the 24-byte
// magic and an empty SETTINGS frame), so every input reaches the frame layer; the fuzz input is
// then a script for the client and the server's loop.
// Each op is one byte (taken modulo the op count) followed by its arguments:
//
//   write    len:u16be data[len]   client sends the bytes, non-blocking, until the socket is full
//   read     max:u16be             client reads up to `max` bytes (0: all there is)
//   shut                           client shutdown(SHUT_WR): a FIN after whatever it sent
//   close                          client close(); later client ops do nothing
//   run                            the server's loop runs once with a zero timeout
//   timers   mask:u8               fire the connection's timers as if a long time passed; bits
//                                  0-2 pick the header, idle and linger lists (0: all)
//   drain                          the worker begins a graceful drain (GOAWAY on the next read)
//   buffers  server:u8 client:u8   shrink SO_SNDBUF/SO_RCVBUF of each end (backpressure paths)
//   answer   which:u8              answers parked request number `which` modulo how many wait
//                                  (0: the oldest), as a database would; route /p parks them all
//   frame    type:u8 flags:u8 stream:u8 len:u16be data[len]
//                                  client sends one frame: a well-formed 9-byte header (stream id
//                                  0-255, length = the data taken) and the data
//   request  stream:u8 pick:u8     client sends a request's HEADERS on stream id `stream`: bits
//                                  0-2 pick it (GET /, GET /p, HEAD /p, POST /p, GET /json,
//                                  HEAD /, POST /, GET /missing), bit 3 leaves END_STREAM off (a
//                                  body follows in DATA frames), bit 4 leaves END_HEADERS off
//                                  (CONTINUATION frames follow)
//
// When the script ends the loop runs, the client reading and the parked requests answered newest
// first, until nothing moves any more; then the client closes and the loop runs again. Everything
// the client sent is read back as the server's codec reads it (h2_connection_checks.hpp), and
// everything it got is checked against it. Invariants (a broken one prints its name and aborts):
//   - what the server sent is a sequence of whole HTTP/2 frames, none longer than the client
//     allows, the first its SETTINGS (not an ACK), sent once; only the last frame may be cut
//     short, and only when the client closed or shut, or a timer closed the connection;
//   - the server sends no frame on an even stream, nor on one the client had not opened with
//     HEADERS when the frame went out (stream 0 only for SETTINGS, PING, GOAWAY, WINDOW_UPDATE);
//     no PUSH_PROMISE, PRIORITY, unknown type or PING of its own; its PING ACKs echo the
//     client's PINGs in order, its SETTINGS ACKs never outnumber the client's SETTINGS;
//   - per stream: one HEADERS, decoding (HPACK) to a final :status first, before any DATA;
//     nothing after END_STREAM but RST_STREAM or WINDOW_UPDATE, nothing at all after its
//     RST_STREAM; DATA within the flow-control windows the client gave (stream and connection);
//     an answer ended by DATA adds up to its content-length; an answer to HEAD carries no DATA;
//     a 200 to GET is its route's body (an answer on the wrong stream shows here);
//   - GOAWAY: its last stream id never rises (RFC 9113 section 6.8); no answer after it on a
//     stream above that id. (Not "nothing after a GOAWAY for an error": nghttp2's stream reset
//     limit sends GOAWAY INTERNAL_ERROR and still answers the streams up to its last id.)
//   - a connection still open and in good health (no GOAWAY for an error, the client neither
//     closed nor shut, no timer fired) has answered or reset every request the client completed,
//     except streams the client reset or a GOAWAY left alone, and, with no GOAWAY either way,
//     acknowledged every PING and SETTINGS (after one, nghttp2 drops the acknowledgements still
//     queued once no stream is left); and the server never closes the connection unless the
//     client closed or shut, a timer fired or a GOAWAY was sent (the lingering close after it
//     gives up on a client that keeps sending: 256 reads, however small);
//   - once the client has sent its FIN, the server closes as soon as it has nothing left to send;
//     once the client has closed, within a bounded number of loop turns;
//   - after the connection closed every pool is back: H2Resources' streams, head blocks and
//     connections, the context's input, output, body and reply blocks; PendingReplies are in use
//     exactly for the parked requests the script has not answered (a client that reset or left
//     a parked stream leaves its PendingReply to the answer), and none once those are answered;
//   - and, under the sanitizers, no memory error or undefined behaviour.
// Seeds come from make_h2_connection_corpus.py (corpus/h2_connection), among them the three
// inputs by which this target found its first bugs: a GOAWAY's last stream id raised by a drain,
// and an error's body (431, 413) sent to HEAD.
// H2_CONNECTION_FUZZ_VERBOSE=1 prints what each input sent and got back, =2 every frame too.
// The server's codec is ours (server/h2_server_codec.hpp); H2_CONNECTION_FUZZ_CODEC=nghttp2 runs
// the same inputs through libnghttp2's (--h2-codec nghttp2) instead.
// Fuzzing:
//   build/fuzz/fuzz/h2_connection fuzz/corpus/h2_connection -dict=fuzz/h2_connection.dict
//       -max_len=8192
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "connection_checks.hpp"
#include "h2_connection_checks.hpp"
#include "http/h2_frame.hpp"
#include "http/out_buffer.hpp"
#include "server/config.hpp"
#include "server/connection.hpp"
#include "server/h2_connection.hpp"
#include "server/hello_routes.hpp"
#include "server/router.hpp"
#include "server/worker_context.hpp"

namespace {

using namespace ringside;
using fuzz::check;
using fuzz::fail;

constexpr std::uint64_t kMaxBody = 4 * 1024;
constexpr int kMaxSettleTurns = 20000;  // a livelock, not a slow stream, if ever reached
constexpr int kQuietTurnsToSettle = 3;
constexpr int kMaxTimerFiresPerOp = 8;  // one connection: more means a timer re-arms forever
constexpr auto kLongTimeLater = std::chrono::hours(24 * 365);

enum class Op : std::uint8_t {
  kWrite,
  kRead,
  kShut,
  kClose,
  kRun,
  kTimers,
  kDrain,
  kBuffers,
  kAnswer,
  kFrame,
  kRequest,
  kCount
};

// Request heads for the request op, in HPACK's static table and literals without indexing
// (":authority: t"), so they leave the dynamic table as it was.
constexpr std::array<std::string_view, 8> kRequestBlocks{{
    "\x82\x86\x84\x01\x01t",                // GET /
    "\x82\x86\x04\x02/p\x01\x01t",          // GET /p (parks)
    "\x02\x04HEAD\x86\x04\x02/p\x01\x01t",  // HEAD /p (parks)
    "\x83\x86\x04\x02/p\x01\x01t",          // POST /p (parks)
    "\x82\x86\x04\x05/json\x01\x01t",       // GET /json
    "\x02\x04HEAD\x86\x84\x01\x01t",        // HEAD /
    "\x83\x86\x84\x01\x01t",                // POST / (405)
    "\x82\x86\x04\x08/missing\x01\x01t",    // GET /missing (404)
}};

// What GET gives on each route that answers 200, for checking answers against their requests.
constexpr std::array<fuzz::RouteBody, 5> kRouteBodies{{
    {"/", "Hello World!"},
    {"/plaintext", "Hello, World!"},
    {"/json", R"({"message":"Hello, World!"})"},
    {"/health", "ok\n"},
    {"/p", "parked"},
}};

const server::ServerConfig& fuzz_config() {
  static const server::ServerConfig config = [] {
    server::ServerConfig c;
    c.threads = 1;
    c.max_body = kMaxBody;
    return c;
  }();
  return config;
}

// Small, so that the stream limit, the header list's room and the reset rate are reached.
server::H2Limits fuzz_limits() {
  server::H2Limits limits;
  limits.max_concurrent_streams = 8;
  limits.max_header_list = 4096;
  limits.initial_window = 65535;
  limits.reset_burst = 20;
  limits.reset_rate = 5;
  return limits;
}

bool nghttp2_codec() {
  const char* codec = std::getenv("H2_CONNECTION_FUZZ_CODEC");
  return codec != nullptr && std::string_view(codec) == "nghttp2";
}

// Requests parked by /p, waiting for an answer op (or the end of the input) to answer them.
std::vector<server::PendingReply*>& parked() {
  static std::vector<server::PendingReply*> waiting;
  return waiting;
}
std::size_t parked_in_all = 0;  // this input's, for H2_CONNECTION_FUZZ_VERBOSE

server::Reply park(server::Exchange& exchange) {
  parked().push_back(&exchange.defer());
  ++parked_in_all;
  return server::Reply::later();
}

void answer_parked(std::size_t index) {
  server::PendingReply* pending = parked()[index];
  parked().erase(parked().begin() + static_cast<std::ptrdiff_t>(index));
  http::OutBuffer& body = pending->body();
  body.append("parked");
  pending->respond({http::Status::kOk, "text/plain", body.view(), {}});
}

const server::Router& hello_router() {
  static const server::Router router = [] {
    server::Router r;
    server::add_hello_routes(r);
    r.add("/p",
          static_cast<server::MethodMask>(server::kGetOrHead |
                                          server::method_bit(http::Method::kPost)),
          park);
    return r;
  }();
  return router;
}

class Owner final : public server::ConnectionOwner {
 public:
  void release(server::Connection&) override { released = true; }
  bool released = false;
};

class Session {
 public:
  Session()
      : ctx_(std::make_unique<server::WorkerContext>(fuzz_config(), hello_router())),
        h2_(std::make_unique<server::H2Resources>(fuzz_limits(), nghttp2_codec())) {
    ctx_->owner = &owner_;
    ctx_->h2 = h2_.get();
    parked().clear();
    parked_in_all = 0;
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) != 0) {
      std::perror("socketpair");
      std::abort();
    }
    client_ = fds[0];
    server_fd_ = fds[1];
    connection_.open(server_fd_, *ctx_);  // registers itself with the loop through its transport
    if (!connection_.is_open()) fail("a new connection registers");
    // The client connection preface: the magic, then a SETTINGS frame (empty: the defaults).
    char settings[http::kH2FrameHeaderSize];
    http::write_h2_frame_header({0, static_cast<std::uint8_t>(http::H2FrameType::kSettings), 0, 0},
                                settings);
    client_write(http::kH2ClientPreface);
    client_write({settings, sizeof settings});
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() {
    if (client_ >= 0) ::close(client_);
    connection_.close();  // only reached open when an invariant is about to abort anyway
  }

  void step(fuzz::Script& script) {
    switch (static_cast<Op>(script.u8() % static_cast<std::uint8_t>(Op::kCount))) {
      case Op::kWrite: {
        const std::span<const char> bytes = script.take(script.u16());
        client_write({bytes.data(), bytes.size()});
        break;
      }
      case Op::kRead:
        client_read(script.u16());
        break;
      case Op::kShut:
        if (client_ >= 0 && ::shutdown(client_, SHUT_WR) == 0) shut_write_ = true;
        break;
      case Op::kClose:
        client_close();
        break;
      case Op::kRun:
        ctx_->loop.run_once(core::Duration::zero());
        break;
      case Op::kTimers:
        fire_timers(script.u8());
        break;
      case Op::kDrain:
        ctx_->draining = true;  // all a drain changes for a connection (Worker::begin_drain)
        break;
      case Op::kBuffers:
        set_buffers(script.u8(), script.u8());
        break;
      case Op::kAnswer: {
        const std::uint8_t which = script.u8();
        if (!parked().empty()) answer_parked(which % parked().size());
        break;
      }
      case Op::kFrame:
        write_frame(script);
        break;
      case Op::kRequest:
        write_request(script.u8(), script.u8());
        break;
      case Op::kCount:
        break;
    }
  }

  void finish() {
    // First without reading: on a socketpair each read by the client wakes the server with every
    // ready flag set, which over TCP it would not, and would hide a FIN the server missed.
    settle(false);
    if (shut_write_ && !owner_.released && connection_.is_idle()) {
      fail("client sent FIN and the server has nothing to send, but the connection stays open");
    }
    settle(true);
    const bool ended_from_outside = client_closed_ || shut_write_ || closed_by_timer_;
    check_exchange(ended_from_outside);
    client_close();
    settle(true);
    check(owner_.released, "client closed, but the connection stays open");
    check_pools_back();
  }

 private:
  void set_buffers(std::uint8_t server_selector, std::uint8_t client_selector) {
    if (!owner_.released) set_buffer(server_fd_, 1024 + server_selector * 256);
    if (client_ >= 0) set_buffer(client_, 1024 + client_selector * 256);
  }

  static void set_buffer(int fd, int size) {
    (void)::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    (void)::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  }

  void write_frame(fuzz::Script& script) {
    const std::uint8_t type = script.u8();
    const std::uint8_t flags = script.u8();
    const std::uint8_t stream = script.u8();
    const std::span<const char> payload = script.take(script.u16());
    send_frame(type, flags, stream, {payload.data(), payload.size()});
  }

  void write_request(std::uint8_t stream, std::uint8_t pick) {
    std::uint8_t flags = 0;
    if ((pick & 0x08) == 0) flags |= http::h2_flags::kEndStream;
    if ((pick & 0x10) == 0) flags |= http::h2_flags::kEndHeaders;
    send_frame(static_cast<std::uint8_t>(http::H2FrameType::kHeaders), flags, stream,
               kRequestBlocks[pick % kRequestBlocks.size()]);
  }

  void send_frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream,
                  std::string_view payload) {
    std::string frame(http::kH2FrameHeaderSize, '\0');
    http::write_h2_frame_header({static_cast<std::uint32_t>(payload.size()), type, flags, stream},
                                frame.data());
    frame.append(payload);
    client_write(frame);
  }

  void client_write(std::string_view data) {
    if (client_ < 0) return;
    while (!data.empty()) {
      ssize_t n = ::send(client_, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // full, or the server is gone
      sent_.append(data.data(), static_cast<std::size_t>(n));
      marks_.push_back({sent_.size(), received_.size()});
      data.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  // Returns how many bytes arrived.
  std::size_t client_read(std::size_t max) {
    if (client_ < 0) return 0;
    if (max == 0) max = SIZE_MAX;
    std::size_t got = 0;
    std::array<char, 4096> buffer;
    while (got < max) {
      ssize_t n = ::recv(client_, buffer.data(), std::min(buffer.size(), max - got), MSG_DONTWAIT);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      received_.append(buffer.data(), static_cast<std::size_t>(n));
      got += static_cast<std::size_t>(n);
    }
    return got;
  }

  void client_close() {
    if (client_ < 0) return;
    ::close(client_);
    client_ = -1;
    client_closed_ = true;
  }

  // As Worker::expire_timers does once a loop turn, with a clock that has jumped far ahead.
  void fire_timers(std::uint8_t mask) {
    if (mask == 0) mask = 0x07;
    int fired = 0;
    auto fire = [&fired](core::TimerNode& node) {
      check(++fired <= kMaxTimerFiresPerOp, "a timer re-arms itself without end");
      static_cast<server::Connection&>(node).on_timeout();
    };
    const bool was_open = !owner_.released;
    const core::TimePoint later = ctx_->loop.now() + kLongTimeLater;
    if (mask & 1) ctx_->header_timers.expire(later, fire);
    if (mask & 2) ctx_->idle_timers.expire(later, fire);
    if (mask & 4) ctx_->linger_timers.expire(later, fire);
    if (was_open && owner_.released) closed_by_timer_ = true;
  }

  // Runs the loop, the client reading all it can if asked, until nothing moves for a few turns.
  // While the connection is open the "database" answers what got parked, newest first (the
  // order is tested); once it closed, parked requests wait for the end (check_pools_back).
  void settle(bool client_reads) {
    int quiet = 0;
    for (int turn = 0; turn < kMaxSettleTurns; ++turn) {
      int events = ctx_->loop.run_once(core::Duration::zero());
      while (!owner_.released && !parked().empty()) {
        answer_parked(parked().size() - 1);
        ++events;
      }
      const std::size_t got = client_reads ? client_read(0) : 0;
      if (owner_.released && client_ < 0) return;
      quiet = events == 0 && got == 0 ? quiet + 1 : 0;
      if (quiet >= kQuietTurnsToSettle) return;
    }
    fail("the connection never settles (livelock)");
  }

  // What the client sent against what it got back (h2_connection_checks.hpp).
  void check_exchange(bool ended_from_outside) {
    const char* verbose = std::getenv("H2_CONNECTION_FUZZ_VERBOSE");
    if (verbose != nullptr && std::string_view(verbose) == "2") {
      print_frames("client", std::string_view(sent_).substr(http::kH2ClientPreface.size()));
      print_frames("server", received_);
    }
    const fuzz::ClientFrames client = fuzz::ClientReader().read(sent_, marks_);
    const fuzz::ServerFrames server =
        fuzz::ServerChecker(client, kRouteBodies).walk(received_, ended_from_outside);
    if (verbose != nullptr) print(client, server);
    if (!owner_.released && !ended_from_outside) fuzz::check_nothing_owed(client, server);
    // After a GOAWAY the lingering close may give up on a client that keeps sending.
    check(!owner_.released || ended_from_outside || server.goaway || client.goaway,
          "the server closed the connection with no GOAWAY, and neither client nor timer ended it");
  }

  void print(const fuzz::ClientFrames& client, const fuzz::ServerFrames& server) const {
    std::size_t complete = 0;
    for (const auto& [id, stream] : client.streams) complete += stream.complete ? 1 : 0;
    std::size_t answered = 0;
    for (const auto& [id, stream] : server.streams) answered += stream.headers ? 1 : 0;
    std::fprintf(stderr,
                 "sent %zu bytes: %zu streams, %zu complete, %zu PINGs%s; received %zu bytes: "
                 "%zu answered, %zu PING ACKs%s%s; server %s; %zu parked, %zu still waiting\n",
                 sent_.size(), client.streams.size(), complete, client.pings.size(),
                 client.goaway ? ", GOAWAY" : "", received_.size(), answered, server.ping_acks,
                 server.goaway ? (server.error_goaway ? ", GOAWAY (error)" : ", GOAWAY") : "",
                 server.cut_short ? ", cut short" : "", owner_.released ? "closed" : "open",
                 parked_in_all, parked().size());
  }

  static void print_frames(const char* who, std::string_view bytes) {
    const http::FrameScanner scanner(http::kH2MaxFrameSizeLimit);
    http::ScannedFrame frame;
    while (scanner.next({bytes.data(), bytes.size()}, frame) == http::ScanStatus::kFrame) {
      // RST_STREAM's error code, WINDOW_UPDATE's increment, GOAWAY's last stream and error code.
      std::uint32_t words[2] = {0, 0};
      for (std::size_t i = 0; i < 2 && frame.payload.size() >= 4 * (i + 1); ++i) {
        words[i] = http::read_h2_u32(frame.payload.data() + 4 * i);
      }
      std::fprintf(stderr, "%s: type %u flags 0x%02x stream %u length %u (words %u %u)\n", who,
                   frame.header.type, frame.header.flags, frame.header.stream_id,
                   frame.header.length, words[0], words[1]);
      bytes.remove_prefix(frame.size());
    }
    if (!bytes.empty())
      std::fprintf(stderr, "%s: %zu bytes of a partial frame\n", who, bytes.size());
  }

  void check_pools_back() {
    check(h2_->streams.in_use() == 0, "an H2Stream leaked");
    check(h2_->head_blocks.in_use() == 0, "a stream's head block leaked");
    check(h2_->connections.in_use() == 0, "an H2Connection leaked");
    check(ctx_->input_blocks.in_use() == 0, "input block leaked");
    check(ctx_->output_blocks.in_use() == 0, "output block leaked");
    check(ctx_->reply_blocks.in_use() == 0 && ctx_->body_blocks.in_use() == 0,
          "a reply or body block leaked");
    check(ctx_->replies.in_use() == parked().size(),
          "PendingReplies in use are not the parked requests still unanswered");
    while (!parked().empty()) answer_parked(0);
    check(ctx_->replies.in_use() == 0, "a parked request's PendingReply leaked");
    check(ctx_->reply_blocks.in_use() == 0 && ctx_->body_blocks.in_use() == 0,
          "a parked request's block leaked");
  }

  // Declared first, destroyed last: the connection and its timers point into the context, and
  // its HTTP/2 state into the H2Resources.
  std::unique_ptr<server::WorkerContext> ctx_;
  std::unique_ptr<server::H2Resources> h2_;
  Owner owner_;
  server::Connection connection_;
  int client_ = -1;
  int server_fd_ = -1;
  bool shut_write_ = false;
  bool client_closed_ = false;
  bool closed_by_timer_ = false;
  std::string sent_;                    // every byte the client got into the socket
  std::vector<fuzz::WriteMark> marks_;  // where each write ended, and what had been read by then
  std::string received_;                // every byte the client read
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Script script({data, size});
  Session session;
  while (!script.done()) session.step(script);
  session.finish();
  return 0;
}
