// Drives one whole server Connection through a socketpair, the way a hostile or unlucky client
// would, and checks what comes back. The other end of the pair is the "client"; the fuzz input is
// a script for it and for the server's loop. Each op is one byte (taken modulo the op count)
// followed by its arguments:
//
//   write  len:u16be data[len]  client sends the bytes, non-blocking, until the socket is full
//   read   max:u16be            client reads up to `max` bytes (0: all there is)
//   shut                        client shutdown(SHUT_WR): a FIN after whatever it sent
//   close                       client close(); later client ops do nothing
//   run                         the server's loop runs once with a zero timeout
//   timers mask:u8              fire the connection's timers as if a long time passed; bits
//                               0-2 pick the header, idle and linger lists (0: all)
//   drain                       the worker begins a graceful drain
//   buffers server:u8 client:u8 shrink SO_SNDBUF/SO_RCVBUF of each end (backpressure paths)
//
// When the script ends the loop runs, the client reading, until nothing moves any more; then the
// client closes and the loop runs again. Invariants (a broken one prints its name and aborts):
//   - everything the server sent parses as complete HTTP/1.1 responses with the project's own
//     response parser; only the last may be cut short, and only when the client closed or a
//     timer closed the connection; nothing follows a "Connection: close" response;
//   - final responses never outnumber the request heads the client sent, plus one (an error);
//   - a connection still open and not closing has answered every complete request it was sent
//     (a pipelined request must not be left unanswered), and no more than the heads it was sent:
//     a request whose body is still arriving may be answered already (a parked route's answer
//     goes out when it comes; RFC 9110 allows answering before the body is read), the rest of
//     the body is then read and discarded;
//   - once the client has sent its FIN, the server closes as soon as it has nothing left to send
//     (checked before the client reads, as over TCP a read by the client would not wake the
//     server) and after the client has read everything; once the client has closed, the server
//     closes within a bounded number of loop turns;
//   - no block of either BlockPool is still in use after the connection closed;
//   - and, under the sanitizers, no memory error or undefined behaviour.
// Seeds come from make_connection_corpus.py (corpus/connection, with the inputs that broke an
// invariant before issue 6's transport fixes: a FIN that arrived with the data, a slow reader's
// deep pipeline). CONNECTION_FUZZ_VERBOSE=1 prints what each input sent and got back. Fuzzing:
//   build/fuzz/fuzz/connection fuzz/corpus/connection -dict=fuzz/connection.dict -max_len=8192
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
#include <vector>

#include "connection_checks.hpp"
#include "http/out_buffer.hpp"
#include "server/config.hpp"
#include "server/connection.hpp"
#include "server/hello_routes.hpp"
#include "server/router.hpp"
#include "server/worker_context.hpp"

namespace {

using namespace ringside;
using fuzz::check;
using fuzz::fail;

constexpr std::uint64_t kMaxBody = 4 * 1024;
constexpr int kMaxSettleTurns = 20000;  // a livelock, not a slow pipeline, if ever reached
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
  kAnswer,  // answer one parked request (route /p parks every request it gets)
  kCount
};

const server::ServerConfig& fuzz_config() {
  static const server::ServerConfig config = [] {
    server::ServerConfig c;
    c.threads = 1;
    c.max_body = kMaxBody;
    return c;
  }();
  return config;
}

// Requests parked by /p, waiting for a kAnswer op (or the end of the input) to answer them.
std::vector<server::PendingReply*>& parked() {
  static std::vector<server::PendingReply*> waiting;
  return waiting;
}

server::Reply park(server::Exchange& exchange) {
  parked().push_back(&exchange.defer());
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
    r.add("/p", server::kGetOrHead, park);
    return r;
  }();
  return router;
}

// The one place that knows how a connection takes an accepted descriptor (it registers itself with
// the loop through its transport, as in Worker::accept_queued).
bool open_connection(server::Connection& connection, int fd, server::WorkerContext& ctx) {
  connection.open(fd, ctx);
  return connection.is_open();
}

class Owner final : public server::ConnectionOwner {
 public:
  void release(server::Connection&) override { released = true; }
  bool released = false;
};

class Session {
 public:
  Session() : ctx_(std::make_unique<server::WorkerContext>(fuzz_config(), hello_router())) {
    ctx_->owner = &owner_;
    parked().clear();
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) != 0) {
      std::perror("socketpair");
      std::abort();
    }
    client_ = fds[0];
    server_fd_ = fds[1];
    if (!open_connection(connection_, server_fd_, *ctx_)) fail("a new connection registers");
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() {
    if (client_ >= 0) ::close(client_);
    connection_.close();  // only reached open when an invariant is about to abort anyway
  }

  void step(fuzz::Script& script) {
    switch (static_cast<Op>(script.u8() % static_cast<std::uint8_t>(Op::kCount))) {
      case Op::kWrite:
        client_write(script.take(script.u16()));
        break;
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
      case Op::kBuffers: {
        const int server_size = buffer_size(script.u8());
        const int client_size = buffer_size(script.u8());
        if (!owner_.released) set_buffers(server_fd_, server_size);
        if (client_ >= 0) set_buffers(client_, client_size);
        break;
      }
      case Op::kAnswer: {
        const std::uint8_t which = script.u8();
        if (!parked().empty()) answer_parked(which % parked().size());
        break;
      }
      case Op::kCount:
        break;
    }
  }

  void finish() {
    // First without reading: on a socketpair each read by the client wakes the server with every
    // ready flag set, which over TCP it would not, and would hide a FIN the server missed.
    settle(false);
    if (shut_write_ && !owner_.released && server_has_nothing_pending()) {
      fail("client sent FIN and the server has nothing to send, but the connection stays open");
    }
    settle(true);
    const fuzz::SentRequests sent = fuzz::parse_sent(sent_, kMaxBody);
    const fuzz::ReceivedResponses received =
        fuzz::parse_received(received_, sent, client_closed_ || closed_by_timer_);
    if (std::getenv("CONNECTION_FUZZ_VERBOSE") != nullptr) {
      std::fprintf(
          stderr,
          "sent %zu bytes: %zu heads, %zu complete; received %zu bytes: %zu responses%s%s; "
          "server %s\n",
          sent_.size(), sent.heads, sent.complete, received_.size(), received.finals,
          received.ended_with_close ? ", last closing" : "",
          received.truncated ? ", truncated" : "", owner_.released ? "closed" : "open");
    }
    check(received.finals <= sent.heads + 1, "more responses than requests");
    if (!owner_.released && !client_closed_) {
      check(!shut_write_, "client sent FIN and read everything, but the connection stays open");
      if (!received.ended_with_close) {
        check(received.finals >= sent.complete, "a complete request was left unanswered");
        check(received.finals <= sent.heads, "an answer that no request asked for");
      }
    }
    client_close();
    settle(true);
    check(owner_.released, "client closed, but the connection stays open");
    check(ctx_->input_blocks.in_use() == 0, "input block leaked");
    check(ctx_->replies.in_use() == 0, "a parked request's PendingReply leaked");
    check(ctx_->reply_blocks.in_use() == 0 && ctx_->body_blocks.in_use() == 0,
          "a parked request's block leaked");
    check(ctx_->output_blocks.in_use() == 0, "output block leaked");
  }

 private:
  static int buffer_size(std::uint8_t selector) { return 1024 + selector * 256; }

  static void set_buffers(int fd, int size) {
    (void)::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    (void)::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  }

  void client_write(std::span<const char> data) {
    if (client_ < 0) return;
    while (!data.empty()) {
      ssize_t n = ::send(client_, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // full, or the server is gone
      sent_.append(data.data(), static_cast<std::size_t>(n));
      data = data.subspan(static_cast<std::size_t>(n));
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

  // Between requests with nothing buffered in either direction (connection API; see the seam).
  bool server_has_nothing_pending() const { return connection_.is_idle(); }

  // Runs the loop, the client reading all it can if asked, until nothing moves for a few turns.
  void settle(bool client_reads) {
    int quiet = 0;
    for (int turn = 0; turn < kMaxSettleTurns; ++turn) {
      int events = ctx_->loop.run_once(core::Duration::zero());
      // While settling, the "database" answers what got parked, newest first (order is tested).
      while (!parked().empty()) {
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

  // Declared first, destroyed last: the connection and its timers point into the context.
  std::unique_ptr<server::WorkerContext> ctx_;
  Owner owner_;
  server::Connection connection_;
  int client_ = -1;
  int server_fd_ = -1;
  bool shut_write_ = false;
  bool client_closed_ = false;
  bool closed_by_timer_ = false;
  std::string sent_;      // every byte the client got into the socket
  std::string received_;  // every byte the client read
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Script script({data, size});
  Session session;
  while (!script.done()) session.step(script);
  session.finish();
  return 0;
}
