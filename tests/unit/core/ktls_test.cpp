// Kernel TLS without the kernel's TLS: this machine's kernel has no TLS ULP, so an emulated
// kernel stands between a TLS server (a Transport on one end of a socketpair) and a real
// ringside TLS client (over TCP). Before the server hands its sending keys over, the emulator
// passes bytes through; after, it encrypts what the server sends in plaintext into TLS 1.3
// records (RFC 8446 §5.2-5.3) with exactly the keys and record number it was given, as the
// kernel would. If the key, the IV or the record count were wrong, the client's OpenSSL would
// refuse the first record (bad_record_mac): every test below reads through it.
#include "core/ktls.hpp"

#include <gtest/gtest.h>
#include <linux/tls.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/socket.hpp"
#include "core/tls_context.hpp"
#include "core/tls_layer.hpp"
#include "core/transport.hpp"
#include "transport_recorder.hpp"

namespace ringside::core {
namespace {

constexpr std::size_t kBlock = 16 * 1024;
using testing::kMaxTurns;
using testing::Recorder;

// Reads everything `fd` has now (non-blocking); false at its EOF or an error.
bool read_available(int fd, std::string& into) {
  char chunk[65536];
  for (;;) {
    const ssize_t got = ::recv(fd, chunk, sizeof chunk, MSG_DONTWAIT);
    if (got > 0) {
      into.append(chunk, static_cast<std::size_t>(got));
      continue;
    }
    return got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
}

void write_some(int fd, std::string& pending) {
  while (!pending.empty()) {
    const ssize_t sent = ::send(fd, pending.data(), pending.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent <= 0) return;
    pending.erase(0, static_cast<std::size_t>(sent));
  }
}

// The kernel's TLS ULP, emulated on a relay: `server_side` is the peer of the server's socket,
// `client_side` the accepted TCP connection of the client.
class EmulatedKernel final : public KernelTls {
 public:
  bool install_send_keys(int /*fd*/, const KtlsSendKeys& keys) override {
    ++installs;
    if (refuse) {
      errno = ENOPROTOOPT;
      return false;
    }
    relay();  // what the server sent before is OpenSSL's ciphertext: it passes unchanged
    tls_crypto_info header{};
    std::memcpy(&header, keys.crypto_info.data(), sizeof header);
    version = header.version;
    cipher_type = header.cipher_type;
    if (header.cipher_type == TLS_CIPHER_AES_GCM_128) {
      take_gcm<tls12_crypto_info_aes_gcm_128>(keys, EVP_aes_128_gcm());
    } else if (header.cipher_type == TLS_CIPHER_AES_GCM_256) {
      take_gcm<tls12_crypto_info_aes_gcm_256>(keys, EVP_aes_256_gcm());
    } else if (header.cipher_type == TLS_CIPHER_CHACHA20_POLY1305) {
      tls12_crypto_info_chacha20_poly1305 info{};
      EXPECT_EQ(keys.length, sizeof info);
      std::memcpy(&info, keys.crypto_info.data(), sizeof info);
      key.assign(info.key, info.key + sizeof info.key);
      std::memcpy(iv.data(), info.iv, 12);
      sequence = read_sequence(info.rec_seq);
      cipher = EVP_chacha20_poly1305();
    } else {
      ADD_FAILURE() << "a cipher the kernel was not meant to get: " << header.cipher_type;
      return false;
    }
    first_sequence = sequence;
    encrypting = true;
    return true;
  }

  bool send_record(int /*fd*/, unsigned char content_type, std::span<const unsigned char> bytes) override {
    relay();  // the data the server sent before goes first
    records_of_type.push_back(content_type);
    seal(content_type, reinterpret_cast<const char*>(bytes.data()), bytes.size());
    write_some(client_side, to_client);
    return true;
  }

  // Moves what is there both ways; the server's bytes sealed once the keys were given.
  void relay() {
    std::string from_server;
    server_open = read_available(server_side, from_server) && server_open;
    if (encrypting) {
      for (std::size_t at = 0; at < from_server.size(); at += 16384) {
        const std::size_t length = std::min<std::size_t>(16384, from_server.size() - at);
        seal(23, from_server.data() + at, length);
      }
    } else {
      to_client += from_server;
    }
    write_some(client_side, to_client);
    if (!server_open && to_client.empty() && !client_shut) {
      ::shutdown(client_side, SHUT_WR);
      client_shut = true;
    }
    std::string from_client;
    read_available(client_side, from_client);
    to_server += from_client;
    write_some(server_side, to_server);
  }

  int server_side = -1;
  int client_side = -1;
  bool refuse = false;
  int installs = 0;
  bool encrypting = false;
  std::uint16_t version = 0;
  std::uint16_t cipher_type = 0;
  std::uint64_t first_sequence = 0;
  std::uint64_t sequence = 0;
  std::vector<unsigned char> records_of_type;

 private:
  template <typename Info>
  void take_gcm(const KtlsSendKeys& keys, const EVP_CIPHER* gcm) {
    Info info{};
    EXPECT_EQ(keys.length, sizeof info);
    std::memcpy(&info, keys.crypto_info.data(), sizeof info);
    key.assign(info.key, info.key + sizeof info.key);
    std::memcpy(iv.data(), info.salt, 4);
    std::memcpy(iv.data() + 4, info.iv, 8);
    sequence = read_sequence(info.rec_seq);
    cipher = gcm;
  }

  static std::uint64_t read_sequence(const unsigned char* bytes) {
    std::uint64_t number = 0;
    for (int i = 0; i < 8; ++i) number = number << 8 | bytes[i];
    return number;
  }

  // TLSInnerPlaintext (content || type), AEAD-sealed with nonce = iv XOR sequence number and
  // the record header as additional data.
  void seal(unsigned char content_type, const char* bytes, std::size_t length) {
    std::string inner(bytes, length);
    inner.push_back(static_cast<char>(content_type));
    const std::size_t sealed = inner.size() + 16;
    const unsigned char header[5] = {23, 3, 3, static_cast<unsigned char>(sealed >> 8),
                                     static_cast<unsigned char>(sealed)};
    std::array<unsigned char, 12> nonce = iv;
    for (int i = 0; i < 8; ++i) nonce[11 - i] ^= static_cast<unsigned char>(sequence >> (8 * i));
    ++sequence;
    std::vector<unsigned char> out(inner.size() + 16);
    EVP_CIPHER_CTX* context = EVP_CIPHER_CTX_new();
    int produced = 0;
    int final_bytes = 0;
    ASSERT_EQ(EVP_EncryptInit_ex(context, cipher, nullptr, key.data(), nonce.data()), 1);
    ASSERT_EQ(EVP_EncryptUpdate(context, nullptr, &produced, header, sizeof header), 1);
    ASSERT_EQ(EVP_EncryptUpdate(context, out.data(), &produced,
                                reinterpret_cast<const unsigned char*>(inner.data()),
                                static_cast<int>(inner.size())),
              1);
    ASSERT_EQ(EVP_EncryptFinal_ex(context, out.data() + produced, &final_bytes), 1);
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, 16, out.data() + inner.size()), 1);
    EVP_CIPHER_CTX_free(context);
    to_client.append(reinterpret_cast<const char*>(header), sizeof header);
    to_client.append(reinterpret_cast<const char*>(out.data()), out.size());
  }

  const EVP_CIPHER* cipher = nullptr;
  std::vector<unsigned char> key;
  std::array<unsigned char, 12> iv{};
  std::string to_client;
  std::string to_server;
  bool server_open = true;
  bool client_shut = false;
};

class KernelTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    TlsServerOptions server_options;
    server_options.self_signed = true;
    server_tls = TlsContext::make_server(server_options, error);
    ASSERT_NE(server_tls, nullptr) << error;
    server_tls->enable_kernel_tls(kernel);
    client_tls = TlsContext::make_client(TlsClientOptions{}, error);
    ASSERT_NE(client_tls, nullptr) << error;
  }
  void TearDown() override {
    client.close();
    server.close();
    for (int fd : {listener, kernel.server_side, kernel.client_side}) {
      if (fd >= 0) ::close(fd);
    }
  }

  // The server on a socketpair, the client over TCP to the emulator, which joins the two.
  // `resume`: the client offers the session it was last given.
  void connect(bool resume = false) {
    int pair[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, pair), 0);
    ASSERT_TRUE(server.open_tls(loop, pair[0], server_handler, server_blocks, *server_tls));
    kernel.server_side = pair[1];
    ListenOptions options;
    options.host = "127.0.0.1";
    options.port = 0;
    listener = listen_tcp(options);
    ASSERT_GE(listener, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(local_port(listener));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(client.connect(loop, reinterpret_cast<sockaddr*>(&address), sizeof address,
                             client_handler, client_blocks, client_tls.get(), resume),
              EINPROGRESS);
    for (int turn = 0; turn < kMaxTurns && kernel.client_side < 0; ++turn) {
      loop.run_once(std::chrono::milliseconds(10));
      kernel.client_side = accept_nonblocking(listener);
    }
    ASSERT_GE(kernel.client_side, 0);
  }

  bool run_until(const std::function<bool()>& done) {
    for (int turn = 0; turn < kMaxTurns && !done(); ++turn) {
      loop.run_once(std::chrono::milliseconds(5));
      kernel.relay();
    }
    return done();
  }

  bool handshake() {
    return run_until([&] {
             return !client_handler.connected.empty() && server.tls() != nullptr &&
                    server.tls()->handshake_done();
           }) &&
           client_handler.connected.front() == 0;
  }

  // A request, an answer: both ways through the emulator.
  void exchange(const std::string& request, const std::string& answer) {
    const std::size_t had_request = server_handler.data.size();
    const std::size_t had_answer = client_handler.data.size();
    ASSERT_NE(client.write(std::span<const char>(request.data(), request.size())), WriteResult::kFailed);
    ASSERT_TRUE(run_until([&] { return server_handler.data.size() == had_request + request.size(); }));
    EXPECT_EQ(server_handler.data.substr(had_request), request);
    ASSERT_NE(server.write(std::span<const char>(answer.data(), answer.size())), WriteResult::kFailed);
    ASSERT_TRUE(run_until([&] {
      return client_handler.data.size() == had_answer + answer.size() || !client_handler.errors.empty();
    }));
    EXPECT_TRUE(client_handler.errors.empty()) << client.tls()->last_error();
    EXPECT_EQ(client_handler.data.substr(had_answer), answer);
  }

  EmulatedKernel kernel;
  EventLoop loop;
  std::unique_ptr<TlsContext> server_tls;
  std::unique_ptr<TlsContext> client_tls;
  BlockPool server_blocks{kBlock, 4};
  BlockPool client_blocks{kBlock, 4};
  Recorder server_handler;
  Recorder client_handler;
  Transport server;
  Transport client;
  int listener = -1;
};

class KernelTlsCipherTest : public KernelTlsTest,
                            public ::testing::WithParamInterface<const char*> {};

TEST_P(KernelTlsCipherTest, TheClientReadsWhatTheKernelSealed) {
  ASSERT_EQ(SSL_CTX_set_ciphersuites(client_tls->native(), GetParam()), 1);
  connect();
  ASSERT_TRUE(handshake());
  ASSERT_NE(server.tls(), nullptr);
  EXPECT_TRUE(server.tls()->kernel_sends());
  EXPECT_EQ(server.tls()->session_info().cipher, GetParam());
  EXPECT_EQ(kernel.installs, 1);
  EXPECT_EQ(kernel.version, TLS_1_3_VERSION);
  // The session tickets OpenSSL sent under the same key come first: the kernel starts after them.
  EXPECT_GE(kernel.first_sequence, 1u);
  exchange("GET / HTTP/1.1\r\n\r\n", "HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello");
  exchange("again", "and again, in the next record");
  EXPECT_EQ(server_tls->kernel_tls_connections(), 1u);
  EXPECT_EQ(server_tls->userspace_tls_connections(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Tls13Ciphers, KernelTlsCipherTest,
                         ::testing::Values("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
                                           "TLS_CHACHA20_POLY1305_SHA256"));

TEST_F(KernelTlsTest, LargeOutputBacksUpAndArrivesInOrder) {
  connect();
  ASSERT_TRUE(handshake());
  ASSERT_TRUE(server.tls()->kernel_sends());
  const int small = 16 * 1024;
  ASSERT_EQ(setsockopt(server.fd(), SOL_SOCKET, SO_SNDBUF, &small, sizeof small), 0);
  std::string sent;
  bool pending = false;
  for (int i = 0; i < 4096 && !pending; ++i) {
    std::string chunk(kBlock, static_cast<char>('a' + i % 26));
    sent += chunk;
    const WriteResult result = server.write(std::span<const char>(chunk.data(), chunk.size()));
    ASSERT_NE(result, WriteResult::kFailed);
    pending = result == WriteResult::kPending;
  }
  ASSERT_TRUE(pending) << "a socket buffer that fills must make the writer wait";
  ASSERT_TRUE(run_until([&] {
    return (server_handler.drained == 1 && client_handler.data.size() == sent.size()) ||
           !client_handler.errors.empty();
  }));
  EXPECT_TRUE(client_handler.errors.empty()) << client.tls()->last_error();
  EXPECT_TRUE(client_handler.data == sent) << "every byte, in order";
}

TEST_F(KernelTlsTest, ShutdownWriteSendsTheCloseNotifyAsAnAlertRecord) {
  connect();
  ASSERT_TRUE(handshake());
  ASSERT_TRUE(server.tls()->kernel_sends());
  ASSERT_EQ(server.write(std::span<const char>("bye", 3)), WriteResult::kDone);
  EXPECT_TRUE(server.shutdown_write());
  ASSERT_TRUE(run_until([&] { return client_handler.peer_closed == 1 || !client_handler.errors.empty(); }));
  EXPECT_TRUE(client_handler.errors.empty()) << client.tls()->last_error();
  EXPECT_EQ(client_handler.data, "bye");
  EXPECT_EQ(kernel.records_of_type, std::vector<unsigned char>{21});
}

TEST_F(KernelTlsTest, CloseSaysGoodbyeThroughTheKernel) {
  connect();
  ASSERT_TRUE(handshake());
  ASSERT_TRUE(server.tls()->kernel_sends());
  server.close();
  ASSERT_TRUE(run_until([&] { return client_handler.peer_closed == 1 || !client_handler.errors.empty(); }));
  EXPECT_TRUE(client_handler.errors.empty()) << client.tls()->last_error();
  EXPECT_EQ(kernel.records_of_type, std::vector<unsigned char>{21});
}

TEST_F(KernelTlsTest, AResumedSessionIsHandedOverToo) {
  connect();
  ASSERT_TRUE(handshake());
  exchange("one", "first");  // the client has its ticket by now
  ASSERT_NE(client_tls->last_session(), nullptr);
  client.close();
  server.close();
  ::close(kernel.server_side);
  ::close(kernel.client_side);
  ::close(listener);
  kernel = EmulatedKernel{};
  client_handler = Recorder{};
  server_handler = Recorder{};
  connect(/*resume=*/true);
  ASSERT_TRUE(handshake());
  EXPECT_TRUE(server.tls()->resumed());
  EXPECT_TRUE(server.tls()->kernel_sends());
  exchange("two", "second, resumed");
  EXPECT_EQ(server_tls->kernel_tls_connections(), 2u);
}

TEST_F(KernelTlsTest, Tls12StaysWithOpenSsl) {
  ASSERT_EQ(SSL_CTX_set_max_proto_version(client_tls->native(), TLS1_2_VERSION), 1);
  connect();
  ASSERT_TRUE(handshake());
  EXPECT_EQ(server.tls()->session_info().version, "TLSv1.2");
  EXPECT_FALSE(server.tls()->kernel_sends());
  EXPECT_EQ(kernel.installs, 0);
  exchange("ping", "pong");
  EXPECT_EQ(server_tls->userspace_tls_connections(), 1u);
  EXPECT_EQ(server_tls->kernel_tls_connections(), 0u);
}

TEST_F(KernelTlsTest, AKernelThatRefusesLeavesTheConnectionWithOpenSsl) {
  kernel.refuse = true;
  connect();
  ASSERT_TRUE(handshake());
  EXPECT_EQ(kernel.installs, 1);
  EXPECT_FALSE(server.tls()->kernel_sends());
  exchange("ping", "pong, encrypted by OpenSSL");
  EXPECT_EQ(server_tls->userspace_tls_connections(), 1u);
}

// RecordTally: record headers followed across any split of the stream.
std::string record(unsigned char type, std::size_t body) {
  std::string bytes = {static_cast<char>(type), 3, 3, static_cast<char>(body >> 8),
                       static_cast<char>(body & 0xff)};
  bytes.append(body, 'x');
  return bytes;
}

TEST(RecordTallyTest, CountsTheRecordsFromTheMarkAtEverySplit) {
  const std::string before = record(22, 90) + record(20, 1) + record(23, 300);
  const std::string after = record(23, 200) + record(23, 17000) + record(23, 0);
  const std::string stream = before + after;
  for (std::size_t split = 0; split <= stream.size(); split += (split < 700 ? 1 : 997)) {
    RecordTally tally;
    tally.mark(before.size());
    tally.consume(stream.data(), split);
    tally.consume(stream.data() + split, stream.size() - split);
    EXPECT_FALSE(tally.mark_misplaced()) << split;
    EXPECT_TRUE(tally.at_record_boundary()) << split;
    EXPECT_EQ(tally.records_after_mark(), 3u) << split;
    EXPECT_EQ(tally.offset(), stream.size());
  }
}

TEST(RecordTallyTest, AMarkInsideARecordIsMisplaced) {
  const std::string stream = record(23, 100) + record(23, 100);
  RecordTally inside_body;
  inside_body.mark(50);
  inside_body.consume(stream.data(), stream.size());
  EXPECT_TRUE(inside_body.mark_misplaced());

  RecordTally after_part;  // marked once part of a record was seen, at a byte inside it
  after_part.consume(stream.data(), 20);
  after_part.mark(60);
  EXPECT_TRUE(after_part.mark_misplaced());

  RecordTally behind;
  behind.consume(stream.data(), 110);
  behind.mark(105);
  EXPECT_TRUE(behind.mark_misplaced());

  RecordTally half_seen;
  half_seen.consume(stream.data(), 50);
  EXPECT_FALSE(half_seen.at_record_boundary());
}

TEST(KtlsKeysTest, OnlyTheKernelsCiphersAndTheirSecretLengths) {
  const std::vector<unsigned char> secret32(32, 7);
  const std::vector<unsigned char> secret48(48, 7);
  KtlsSendKeys keys;
  EXPECT_TRUE(tls13_send_keys(kTlsAes128GcmSha256, secret32, 5, keys));
  EXPECT_EQ(keys.length, sizeof(tls12_crypto_info_aes_gcm_128));
  tls12_crypto_info_aes_gcm_128 info{};
  std::memcpy(&info, keys.crypto_info.data(), sizeof info);
  EXPECT_EQ(info.rec_seq[7], 5);
  EXPECT_EQ(info.rec_seq[0], 0);
  EXPECT_TRUE(tls13_send_keys(kTlsAes256GcmSha384, secret48, 0, keys));
  EXPECT_EQ(keys.length, sizeof(tls12_crypto_info_aes_gcm_256));
  EXPECT_TRUE(tls13_send_keys(kTlsChacha20Poly1305Sha256, secret32, 0, keys));
  EXPECT_EQ(keys.length, sizeof(tls12_crypto_info_chacha20_poly1305));
  EXPECT_FALSE(tls13_send_keys(kTlsAes256GcmSha384, secret32, 0, keys)) << "SHA-384 needs 48 bytes";
  EXPECT_FALSE(tls13_send_keys(0x1304, secret32, 0, keys)) << "AES-CCM: not offered to the kernel";
}

// The probe's answer agrees with the kernel's own list of ULPs (a loaded TLS ULP is listed).
TEST(KtlsProbeTest, AgreesWithTheKernelsListOfUlps) {
  const std::string why_not = probe_kernel_tls();
  std::ifstream list("/proc/sys/net/ipv4/tcp_available_ulp");
  std::stringstream text;
  text << list.rdbuf();
  const bool listed = (" " + text.str() + " ").find(" tls") != std::string::npos;
  if (why_not.empty()) {
    EXPECT_TRUE(listed) << text.str();
  } else {
    EXPECT_FALSE(listed) << why_not;
    EXPECT_EQ(why_not.find('\n'), std::string::npos);
    EXPECT_NE(why_not.find("TLS ULP"), std::string::npos) << why_not;
  }
}

}  // namespace
}  // namespace ringside::core
