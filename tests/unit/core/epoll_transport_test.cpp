#include "core/epoll_transport.hpp"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/socket.hpp"
#include "transport_recorder.hpp"

namespace ringside::core {
namespace {

constexpr Duration kNoWait = Duration::zero();
constexpr Duration kGenerousWait = std::chrono::seconds(5);
constexpr std::size_t kBlock = 4096;

using testing::Recorder;

struct Pair {
  Pair() {
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
    local = fds[0];
    peer = fds[1];
  }
  ~Pair() {
    if (peer >= 0) ::close(peer);
  }
  int local = -1;  // handed to the transport, which closes it
  int peer = -1;
};

void send_all(int fd, std::string_view bytes) {
  ASSERT_EQ(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
}

std::string drain(int fd) {
  std::string out;
  char chunk[65536];
  while (true) {
    ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) return out;
    out.append(chunk, static_cast<std::size_t>(n));
  }
}

class TransportTest : public ::testing::Test {
 protected:
  EventLoop loop;
  BlockPool blocks{kBlock, 4};
  Recorder handler;
  EpollTransport transport;
  Pair pair;

  void open() { ASSERT_TRUE(transport.open(loop, pair.local, handler, blocks)); }
};

TEST_F(TransportTest, DeliversDataThenEofThatArrivedTogether) {
  open();
  // The bytes and the FIN are queued before the loop looks: one edge announces both, and a
  // short read must not be taken to mean "nothing more", or the EOF is never seen.
  send_all(pair.peer, "last bytes");
  ::shutdown(pair.peer, SHUT_WR);
  loop.run_once(kGenerousWait);
  EXPECT_EQ(handler.data, "last bytes");
  EXPECT_EQ(handler.peer_closed, 1);
  loop.run_once(kNoWait);
  EXPECT_EQ(handler.peer_closed, 1) << "the EOF is reported once";
}

TEST_F(TransportTest, ShortReadWithoutHangUpCostsOneRecv) {
  open();
  send_all(pair.peer, "GET / HTTP/1.1\r\n\r\n");
  loop.run_once(kGenerousWait);
  EXPECT_EQ(handler.data_calls, 1);
  EXPECT_EQ(handler.peer_closed, 0);
  send_all(pair.peer, "more");
  loop.run_once(kGenerousWait);
  EXPECT_EQ(handler.data, "GET / HTTP/1.1\r\n\r\nmore");
}

TEST_F(TransportTest, ReadsInPiecesOfTheOfferedSpace) {
  open();
  handler.space = 3;
  send_all(pair.peer, "abcdefgh");
  loop.run_once(kGenerousWait);
  EXPECT_EQ(handler.data, "abcdefgh");
  EXPECT_EQ(handler.data_calls, 3);
}

TEST_F(TransportTest, PausedReadingHoldsDataAndEofUntilResumed) {
  open();
  transport.pause_reading();
  send_all(pair.peer, "held");
  ::shutdown(pair.peer, SHUT_WR);
  loop.run_once(kGenerousWait);
  EXPECT_TRUE(handler.data.empty());
  EXPECT_EQ(handler.peer_closed, 0);
  // Edge-triggered: no new edge will come, so resuming must read what is already there.
  transport.resume_reading();
  EXPECT_EQ(handler.data, "held");
  EXPECT_EQ(handler.peer_closed, 1);
}

TEST_F(TransportTest, WriteKeepsWhatTheKernelRefusesAndReportsTheDrain) {
  open();
  int small = 4096;
  setsockopt(pair.local, SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
  setsockopt(pair.peer, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  std::string sent;
  WriteResult result = WriteResult::kDone;
  for (int i = 0; i < 1000 && result == WriteResult::kDone; ++i) {
    std::string chunk(kBlock / 2, static_cast<char>('a' + i % 26));
    result = transport.write(chunk);
    sent += chunk;
  }
  ASSERT_EQ(result, WriteResult::kPending) << "the socket buffer never filled";
  EXPECT_TRUE(transport.write_pending());
  EXPECT_EQ(blocks.in_use(), 1u);
  std::string received;
  for (int turn = 0; turn < 10000 && transport.write_pending(); ++turn) {
    received += drain(pair.peer);
    loop.run_once(std::chrono::milliseconds(10));
  }
  received += drain(pair.peer);
  EXPECT_FALSE(transport.write_pending());
  EXPECT_EQ(handler.drained, 1);
  EXPECT_EQ(received, sent) << "bytes lost, duplicated or reordered";
  EXPECT_EQ(blocks.in_use(), 0u);
}

TEST_F(TransportTest, WriteToAClosedPeerFailsWithoutSigpipe) {
  open();
  ::close(pair.peer);
  pair.peer = -1;
  // MSG_NOSIGNAL: an embedding process is not killed by SIGPIPE (the test would die here).
  WriteResult result = transport.write(std::string_view("hello"));
  EXPECT_EQ(result, WriteResult::kFailed);
  EXPECT_EQ(errno, EPIPE);
}

TEST_F(TransportTest, RefusesAWriteLargerThanOneBlock) {
  open();
  std::string huge(kBlock + 1, 'x');
  EXPECT_EQ(transport.write(huge), WriteResult::kFailed);
  EXPECT_EQ(errno, EMSGSIZE);
}

TEST_F(TransportTest, CloseInsideACallbackStopsDelivery) {
  open();
  handler.space = 2;
  handler.after_data = [&] { transport.close(); };
  const std::uint32_t generation = transport.generation();
  send_all(pair.peer, "abcdef");
  ::shutdown(pair.peer, SHUT_WR);
  loop.run_once(kGenerousWait);
  EXPECT_EQ(handler.data, "ab");
  EXPECT_EQ(handler.peer_closed, 0);
  EXPECT_FALSE(transport.is_open());
  EXPECT_NE(transport.generation(), generation);
}

// Queues bytes on `fd` until the kernel takes no more; returns how many.
std::size_t fill(int fd) {
  const std::string chunk(16384, 'f');
  std::size_t queued = 0;
  while (true) {
    const ssize_t n = ::send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL);
    if (n <= 0) return queued;
    queued += static_cast<std::size_t>(n);
  }
}

TEST(TransportFairness, AFullSocketIsReadForABudgetATurnAndTheOthersAreServedBetween) {
  EventLoop loop;
  BlockPool blocks{kBlock, 4};
  Pair flooding, quiet;
  Recorder flood_handler, quiet_handler;
  flood_handler.space = quiet_handler.space = 16384;  // what a server offers
  EpollTransport flood_transport, quiet_transport;
  ASSERT_TRUE(flood_transport.open(loop, flooding.local, flood_handler, blocks));
  ASSERT_TRUE(quiet_transport.open(loop, quiet.local, quiet_handler, blocks));
  const std::size_t queued = fill(flooding.peer);
  ASSERT_GT(queued, 2 * EpollTransport::kReadBudget) << "the test needs more than two turns' worth";

  send_all(quiet.peer, "first");
  loop.run_once(kGenerousWait);
  EXPECT_EQ(quiet_handler.data, "first");
  EXPECT_GE(flood_handler.data.size(), EpollTransport::kReadBudget);
  EXPECT_LT(flood_handler.data.size(), EpollTransport::kReadBudget + 16384)
      << "read past its budget in one turn";

  // The rest of the full socket comes in later turns (the edge was asked for again), and a quiet
  // socket that has bytes meanwhile is served in the very next turn.
  send_all(quiet.peer, "second");
  loop.run_once(kGenerousWait);
  EXPECT_EQ(quiet_handler.data, "firstsecond");
  for (int turn = 0; turn < testing::kMaxTurns && flood_handler.data.size() < queued; ++turn) {
    loop.run_once(kGenerousWait);
  }
  EXPECT_EQ(flood_handler.data.size(), queued);
  EXPECT_EQ(flood_handler.data.find_first_not_of('f'), std::string::npos);
}

// A loopback listener on a free port, and the address to reach it.
struct Listener {
  Listener() {
    ListenOptions options;
    options.reuse_port = false;
    fd = listen_tcp(options);
    port = local_port(fd);
    EXPECT_TRUE(parse_address("127.0.0.1", port, address, length));
  }
  ~Listener() { close(); }
  void close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  const sockaddr* target() const { return reinterpret_cast<const sockaddr*>(&address); }

  int fd = -1;
  std::uint16_t port = 0;
  sockaddr_storage address{};
  socklen_t length = 0;
};

TEST(TransportConnect, ConnectsAndExchangesBytes) {
  EventLoop loop;
  BlockPool blocks{kBlock, 4};
  Recorder handler;
  EpollTransport transport;
  Listener listener;
  int result = transport.connect(loop, listener.target(), listener.length, handler, blocks);
  ASSERT_TRUE(result == 0 || result == EINPROGRESS) << result;
  for (int i = 0; i < 100 && result == EINPROGRESS && handler.connected.empty(); ++i) {
    loop.run_once(std::chrono::milliseconds(50));
  }
  if (result == EINPROGRESS) {
    ASSERT_EQ(handler.connected.size(), 1u);
    EXPECT_EQ(handler.connected[0], 0);
  }
  int server_side = -1;
  for (int i = 0; i < 100 && server_side < 0; ++i) {
    server_side = accept_nonblocking(listener.fd);
    if (server_side < 0) loop.run_once(std::chrono::milliseconds(10));
  }
  ASSERT_GE(server_side, 0);
  EXPECT_EQ(transport.write(std::string_view("ping")), WriteResult::kDone);
  send_all(server_side, "pong");
  ::shutdown(server_side, SHUT_WR);
  for (int i = 0; i < 100 && handler.peer_closed == 0; ++i) loop.run_once(std::chrono::milliseconds(50));
  EXPECT_EQ(handler.data, "pong");
  EXPECT_EQ(handler.peer_closed, 1);
  char got[8] = {};
  EXPECT_EQ(::recv(server_side, got, sizeof got, 0), 4);
  EXPECT_EQ(std::string_view(got, 4), "ping");
  ::close(server_side);
}

TEST(TransportConnect, ReportsARefusedConnect) {
  EventLoop loop;
  BlockPool blocks{kBlock, 4};
  Recorder handler;
  EpollTransport transport;
  // A port that was just free: bind, read it, close, then connect to it.
  Listener listener;
  listener.close();
  int result = transport.connect(loop, listener.target(), listener.length, handler, blocks);
  if (result == EINPROGRESS) {
    for (int i = 0; i < 100 && handler.connected.empty(); ++i) loop.run_once(std::chrono::milliseconds(50));
    ASSERT_EQ(handler.connected.size(), 1u);
    result = handler.connected[0];
  }
  EXPECT_EQ(result, ECONNREFUSED);
  EXPECT_FALSE(transport.is_open());
}

TEST_F(TransportTest, ReportsAResetAsAnError) {
  open();
  // SO_LINGER 0 on a TCP socket would be the usual reset; on a socket pair, a peer that closes
  // with unread data gives ECONNRESET to the reader of this end.
  send_all(pair.local, "unread by the peer");
  ::close(pair.peer);
  pair.peer = -1;
  loop.run_once(kGenerousWait);
  const bool reported = !handler.errors.empty() || handler.peer_closed == 1;
  EXPECT_TRUE(reported) << "a dead peer must be reported, as an error or an EOF";
}

}  // namespace
}  // namespace ringside::core
