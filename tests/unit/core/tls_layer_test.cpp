// TlsLayer keeps the transport contract (core/transport_handler.hpp) over TLS: a client and a
// server Transport joined by a socketpair, both on one loop, each with a recording handler.
#include "core/tls_layer.hpp"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/socket.hpp"
#include "core/tls_context.hpp"
#include "core/transport.hpp"
#include "transport_recorder.hpp"

namespace ringside::core {
namespace {

constexpr std::size_t kBlock = 16 * 1024;
using testing::kMaxTurns;
using testing::Recorder;

std::unique_ptr<TlsContext> server_context() {
  TlsServerOptions options;
  options.self_signed = true;
  std::string error;
  auto context = TlsContext::make_server(options, error);
  EXPECT_NE(context, nullptr) << error;
  return context;
}

std::unique_ptr<TlsContext> client_context() {
  std::string error;
  auto context = TlsContext::make_client(TlsClientOptions{}, error);
  EXPECT_NE(context, nullptr) << error;
  return context;
}

class TlsLayerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int fds[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
    ASSERT_TRUE(server.open_tls(loop, fds[0], server_handler, server_blocks, *server_tls));
    client_fd = fds[1];
  }

  // Runs the loop until `done` holds, at most kMaxTurns turns.
  bool run_until(const std::function<bool()>& done) {
    for (int turn = 0; turn < kMaxTurns && !done(); ++turn) loop.run_once(std::chrono::milliseconds(50));
    return done();
  }

  EventLoop loop;
  std::unique_ptr<TlsContext> server_tls = server_context();
  BlockPool server_blocks{kBlock, 4};
  Recorder server_handler;
  Transport server;
  int client_fd = -1;  // a raw client: the test writes its bytes
};

// A TLS client over a connected socket: a Transport connected through a real TCP listener.
class TlsPairTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ListenOptions options;
    options.host = "127.0.0.1";
    options.port = 0;
    listener = listen_tcp(options);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(local_port(listener));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const int result = client.connect(loop, reinterpret_cast<sockaddr*>(&address), sizeof address,
                                      client_handler, client_blocks, client_tls.get());
    ASSERT_EQ(result, EINPROGRESS) << "with TLS the connect is never done at once";
    int fd = -1;
    for (int turn = 0; turn < kMaxTurns && fd < 0; ++turn) {
      loop.run_once(std::chrono::milliseconds(10));
      fd = accept_nonblocking(listener);
    }
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(server.open_tls(loop, fd, server_handler, server_blocks, *server_tls));
  }
  void TearDown() override { ::close(listener); }

  bool run_until(const std::function<bool()>& done) {
    for (int turn = 0; turn < kMaxTurns && !done(); ++turn) loop.run_once(std::chrono::milliseconds(50));
    return done();
  }
  // Both ends done: the client hears on_connected, the server has read the client's Finished.
  bool handshake() {
    return run_until([&] {
             return !client_handler.connected.empty() && server.tls() != nullptr &&
                    server.tls()->handshake_done();
           }) &&
           client_handler.connected.front() == 0;
  }

  EventLoop loop;
  std::unique_ptr<TlsContext> server_tls = server_context();
  std::unique_ptr<TlsContext> client_tls = client_context();
  BlockPool server_blocks{kBlock, 4};
  BlockPool client_blocks{kBlock, 4};
  Recorder server_handler;
  Recorder client_handler;
  Transport server;
  Transport client;
  int listener = -1;
};

TEST_F(TlsPairTest, ConnectedComesAfterTheHandshakeAndNamesTheSession) {
  ASSERT_TRUE(handshake());
  EXPECT_EQ(client_handler.connected, std::vector<int>{0});
  ASSERT_NE(client.tls(), nullptr);
  EXPECT_TRUE(client.tls()->handshake_done());
  const TlsSessionInfo info = client.tls()->session_info();
  EXPECT_EQ(info.version, "TLSv1.3");
  EXPECT_EQ(info.alpn, "http/1.1");
  EXPECT_FALSE(info.cipher.empty());
  EXPECT_FALSE(info.resumed);
  EXPECT_LE(client.tls()->tcp_connected_at(), loop.now());
}

TEST_F(TlsPairTest, BytesCrossBothWaysDecrypted) {
  ASSERT_TRUE(handshake());
  ASSERT_EQ(client.write(std::span<const char>("ping", 4)), WriteResult::kDone);
  ASSERT_TRUE(run_until([&] { return server_handler.data.size() == 4; }));
  EXPECT_EQ(server_handler.data, "ping");
  ASSERT_EQ(server.write(std::span<const char>("pong!", 5)), WriteResult::kDone);
  ASSERT_TRUE(run_until([&] { return client_handler.data.size() == 5; }));
  EXPECT_EQ(client_handler.data, "pong!");
}

TEST_F(TlsPairTest, LargeOutputToASlowReaderIsKeptAndDrainedInOrder) {
  ASSERT_TRUE(handshake());
  client.pause_reading();  // the client reads nothing: the server's output must back up
  const int small = 16 * 1024;  // small kernel buffers, so it backs up soon
  ASSERT_EQ(setsockopt(server.fd(), SOL_SOCKET, SO_SNDBUF, &small, sizeof small), 0);
  ASSERT_EQ(setsockopt(client.fd(), SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
  std::string sent;
  int pending = 0;
  for (int i = 0; i < 4096 && pending == 0; ++i) {
    std::string chunk(kBlock, static_cast<char>('a' + i % 26));
    sent += chunk;
    const WriteResult result = server.write(std::span<const char>(chunk.data(), chunk.size()));
    ASSERT_NE(result, WriteResult::kFailed);
    if (result == WriteResult::kPending) pending = 1;
  }
  ASSERT_EQ(pending, 1) << "a reader that reads nothing must stall the writer";
  EXPECT_TRUE(server.write_pending());
  client.resume_reading();
  ASSERT_TRUE(run_until([&] { return server_handler.drained == 1 && client_handler.data.size() == sent.size(); }));
  EXPECT_TRUE(client_handler.data == sent) << "every byte, in order";
  EXPECT_FALSE(server.write_pending());
}

TEST_F(TlsPairTest, PausedReadingHoldsDataUntilResumed) {
  ASSERT_TRUE(handshake());
  server.pause_reading();
  ASSERT_EQ(client.write(std::span<const char>("held", 4)), WriteResult::kDone);
  for (int turn = 0; turn < 5; ++turn) loop.run_once(std::chrono::milliseconds(20));
  EXPECT_EQ(server_handler.data, "");
  server.resume_reading();
  ASSERT_TRUE(run_until([&] { return server_handler.data == "held"; }));
}

TEST_F(TlsPairTest, SmallReadSpacesGetEveryByte) {
  ASSERT_TRUE(handshake());
  server_handler.space = 3;
  const std::string message = "a message longer than three bytes";
  ASSERT_EQ(client.write(std::span<const char>(message.data(), message.size())), WriteResult::kDone);
  ASSERT_TRUE(run_until([&] { return server_handler.data.size() == message.size(); }));
  EXPECT_EQ(server_handler.data, message);
}

TEST_F(TlsPairTest, ShutdownWriteIsACloseNotifyThenTheEof) {
  ASSERT_TRUE(handshake());
  ASSERT_EQ(client.write(std::span<const char>("last", 4)), WriteResult::kDone);
  EXPECT_TRUE(client.shutdown_write());
  ASSERT_TRUE(run_until([&] { return server_handler.peer_closed == 1; }));
  EXPECT_EQ(server_handler.data, "last") << "the data before the close_notify is delivered first";
  EXPECT_TRUE(server_handler.errors.empty());
}

TEST_F(TlsPairTest, CloseSendsACloseNotifyThePeerSeesAsAClose) {
  ASSERT_TRUE(handshake());
  server.close();
  ASSERT_TRUE(run_until([&] { return client_handler.peer_closed == 1; }));
  EXPECT_TRUE(client_handler.errors.empty());
}

TEST_F(TlsPairTest, WriteBeforeTheServerFinishedGoesOutAndDrains) {
  // The client hears on_connected in the loop turn that sends its Finished; the server reads it
  // in a later turn. A server write in between waits for the handshake's end, then goes out,
  // and its on_drained comes when it has gone.
  ASSERT_TRUE(run_until([&] { return !client_handler.connected.empty(); }));
  ASSERT_NE(server.tls(), nullptr);
  ASSERT_FALSE(server.tls()->handshake_done()) << "the server has not read the Finished yet";
  ASSERT_EQ(server.write(std::span<const char>("early", 5)), WriteResult::kPending);
  ASSERT_TRUE(run_until([&] { return client_handler.data == "early" && server_handler.drained == 1; }));
  EXPECT_FALSE(server.write_pending());
}

TEST_F(TlsPairTest, AnEofWithoutCloseNotifyIsThePeerClosing) {
  ASSERT_TRUE(handshake());
  ::shutdown(server.fd(), SHUT_WR);  // a FIN with no close_notify before it (a truncation)
  ASSERT_TRUE(run_until([&] { return client_handler.peer_closed == 1; }));
  EXPECT_TRUE(client_handler.errors.empty());
}

TEST_F(TlsPairTest, WriteOverMaxWriteIsRefusedAsForTheSocket) {
  ASSERT_TRUE(handshake());
  std::string too_big(kBlock + 1, 'x');
  errno = 0;
  EXPECT_EQ(client.write(std::span<const char>(too_big.data(), too_big.size())), WriteResult::kFailed);
  EXPECT_EQ(errno, EMSGSIZE);
}

TEST_F(TlsLayerTest, GarbageInsteadOfAClientHelloIsAnError) {
  const std::string garbage = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(::send(client_fd, garbage.data(), garbage.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(garbage.size()));
  ASSERT_TRUE(run_until([&] { return !server_handler.errors.empty(); }));
  EXPECT_EQ(server_handler.errors.front(), EPROTO);
  EXPECT_TRUE(server_handler.data.empty());
  ::close(client_fd);
}

TEST_F(TlsLayerTest, AnEofDuringTheHandshakeIsThePeerClosing) {
  const unsigned char partial_hello[] = {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00};
  ASSERT_EQ(::send(client_fd, partial_hello, sizeof partial_hello, MSG_NOSIGNAL),
            static_cast<ssize_t>(sizeof partial_hello));
  ::shutdown(client_fd, SHUT_WR);
  ASSERT_TRUE(run_until([&] { return server_handler.peer_closed == 1 || !server_handler.errors.empty(); }));
  EXPECT_TRUE(server_handler.data.empty());
  ::close(client_fd);
}

TEST(TlsContextTest, SelfSignedCertificateIsDescribed) {
  auto context = server_context();
  ASSERT_NE(context, nullptr);
  EXPECT_EQ(context->key_description(), "ECDSA P-256");
  EXPECT_EQ(context->fingerprint().size(), 32u * 3 - 1) << context->fingerprint();
  EXPECT_EQ(context->ticket_keys_made(), 1u);
}

TEST(TlsContextTest, MissingFilesAreOneLineNamingTheFlag) {
  TlsServerOptions options;
  options.cert_file = "/nonexistent/cert.pem";
  options.key_file = "/nonexistent/key.pem";
  std::string error;
  EXPECT_EQ(TlsContext::make_server(options, error), nullptr);
  EXPECT_NE(error.find("--tls-cert /nonexistent/cert.pem"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
  TlsClientOptions client_options;
  client_options.ca_file = "/nonexistent/ca.pem";
  EXPECT_EQ(TlsContext::make_client(client_options, error), nullptr);
  EXPECT_NE(error.find("--cacert /nonexistent/ca.pem"), std::string::npos) << error;
}

}  // namespace
}  // namespace ringside::core
