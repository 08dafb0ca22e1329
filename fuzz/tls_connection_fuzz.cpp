// Drives one whole server Connection over TLS (Connection::open with the server's TlsContext, so
// core::TlsLayer sits between the socket and the protocol) through a socketpair, with an
// in-process OpenSSL client on memory BIOs whose ciphertext the fuzz input delivers: cut at any
// point into the socket's writes (records across writes, several in one), corrupted, with bytes
// of its own between records. The input's first byte picks the version (bit 0: TLS 1.2, else
// 1.3); then ops, one byte each (taken modulo the op count) followed by their arguments:
//
//   request  len:u16be data[len]  the client's plaintext, written as records once the handshake
//                                 is done (until then it waits, in order)
//   records  size:u8              later requests are written size+1 bytes a record (0: reset to
//                                 whole records, up to 16 KiB)
//   send     len:u16be            hands up to len bytes (0: all) of the ciphertext not yet sent
//                                 to the socket, non-blocking, until the socket is full
//   read     max:u16be            the client reads up to max ciphertext bytes (0: all there is)
//                                 and runs its side: the handshake, decrypting responses
//   flip     pos:u16be mask:u8    XORs an unsent ciphertext byte (pos modulo what is unsent)
//   inject   len:u8 data[len]     appends raw bytes to the ciphertext not yet sent (between two
//                                 records of the client's: garbage, a record header, an alert)
//   notify                        the client's close_notify
//   keyupdate                     TLS 1.3: a KeyUpdate asking the server for one too
//   renegotiate                   TLS 1.2: the client asks for a renegotiation (refused)
//   shut, close, run, timers mask:u8, drain, buffers server:u8 client:u8
//                                 as in connection_fuzz.cpp: FIN, close, one loop turn with a
//                                 zero timeout, the connection's timers, a graceful drain, and
//                                 smaller socket buffers
//
// When the script ends, the loop runs, the client reading, sending what it has and running its
// side, until nothing moves any more; then the client closes and the loop runs again.
// Invariants (a broken one prints its name and aborts):
//   - what the client decrypted parses as complete HTTP/1.1 responses with the project's own
//     response parser (only the last may be cut short, after a close or a corruption); never
//     more responses than requests, plus one;
//   - with no corruption, a connection still open has answered every complete request whose
//     records all reached the socket (requests cut across records and writes included), and
//     once the client sent its FIN the server closes as soon as it has nothing left to send;
//   - a record of application data (type 23: always encrypted and authenticated) with a flipped
//     byte in its body, reaching the server before any other corruption, closes the connection
//     before the loop goes quiet (a bounded number of turns): a bad MAC is never ignored;
//   - once the client has closed, the server closes within a bounded number of loop turns, and
//     no block of either BlockPool is in use then;
//   - and, under the sanitizers, no memory error, leak or undefined behaviour.
// The randomness OpenSSL draws (randoms, key shares, ECDSA nonces, ticket IVs) comes from a
// counter restarted for each input, so an input replays the same ciphertext (libFuzzer's coverage
// and a finding's reproduction depend on it). Seeds: make_tls_connection_corpus.py
// (corpus/tls_connection). TLS_CONNECTION_FUZZ_VERBOSE=1 prints what each input did. Fuzzing:
//   build/fuzz/fuzz/tls_connection fuzz/corpus/tls_connection -dict=fuzz/tls_connection.dict
//       -max_len=8192
#define OPENSSL_SUPPRESS_DEPRECATED  // RAND_set_rand_method: the fixed randomness below

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <stdlib.h>
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
#include <filesystem>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "connection_checks.hpp"
#include "core/tls_context.hpp"
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
constexpr int kMaxTimerFiresPerOp = 8;
constexpr auto kLongTimeLater = std::chrono::hours(24 * 365);
constexpr unsigned char kApplicationData = 23;
constexpr std::size_t kRecordHeader = 5;

enum class Op : std::uint8_t {
  kRequest,
  kRecords,
  kSend,
  kRead,
  kFlip,
  kInject,
  kNotify,
  kKeyUpdate,
  kRenegotiate,
  kShut,
  kClose,
  kRun,
  kTimers,
  kDrain,
  kBuffers,
  kCount
};

// A test identity, made for this target with `openssl req -x509 -newkey ec` (P-256, 100 years):
// it protects nothing, and the client does not verify it.
constexpr char kTestKey[] = R"(-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgbh83KbBpn/xS+BiP
YBF1Hu9CpsZWcnpXxOrommT5mrWhRANCAAQxmZHyeAGT6qdsCi/cE86LwV4b3eky
CVNmGkMSISfik7AEosehDF/E5KemUFUbh+mF9UGZ2DPZziIaIhobWGJe
-----END PRIVATE KEY-----
)";
constexpr char kTestCertificate[] = R"(-----BEGIN CERTIFICATE-----
MIIBzzCCAXWgAwIBAgIUJHzsrSR2T47tE8JyZILCWLRa5n8wCgYIKoZIzj0EAwIw
MTEbMBkGA1UECgwScmluZ3NpZGUgZnV6eiB0ZXN0MRIwEAYDVQQDDAlsb2NhbGhv
c3QwIBcNMjYxMjAzMTkxMTM5WhgPMjEyNjExMDkxOTExMzlaMDExGzAZBgNVBAoM
EnJpbmdzaWRlIGZ1enogdGVzdDESMBAGA1UEAwwJbG9jYWxob3N0MFkwEwYHKoZI
zj0CAQYIKoZIzj0DAQcDQgAEMZmR8ngBk+qnbAov3BPOi8FeG93pMglTZhpDEiEn
4pOwBKLHoQxfxOSnplBVG4fphfVBmdgz2c4iGiIaG1hiXqNpMGcwHQYDVR0OBBYE
FNYw6RBRltYTLzC5KiCL1VT+y9pJMB8GA1UdIwQYMBaAFNYw6RBRltYTLzC5KiCL
1VT+y9pJMA8GA1UdEwEB/wQFMAMBAf8wFAYDVR0RBA0wC4IJbG9jYWxob3N0MAoG
CCqGSM49BAMCA0gAMEUCIQCgsx5rIVLIZkmuMC5rbjK27ytkRrgnfkSk5Ba2HoZM
FgIgRN6icbyOpbZD7MVyiMCqgjhMY+8sNHL8L5F+1YatuvU=
-----END CERTIFICATE-----
)";

// -- randomness that repeats ---------------------------------------------------------------------
std::uint64_t random_state = 0;

int fixed_random_bytes(unsigned char* out, int length) {
  for (int i = 0; i < length; ++i) {  // splitmix64, a byte of each step: a test stream, not random
    std::uint64_t z = (random_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    out[i] = static_cast<unsigned char>(z ^ (z >> 31));
  }
  return 1;
}

int fixed_random_status() { return 1; }

const RAND_METHOD kFixedRandom = {nullptr, fixed_random_bytes, nullptr, nullptr,
                                  fixed_random_bytes, fixed_random_status};

// -- the two sides' TLS settings, made once ------------------------------------------------------
core::TlsContext& server_tls() {
  static const std::unique_ptr<core::TlsContext> context = [] {
    RAND_set_rand_method(&kFixedRandom);
    std::string folder = (std::filesystem::temp_directory_path() / "tls-fuzz-XXXXXX").string();
    if (::mkdtemp(folder.data()) == nullptr) fail("a temporary folder for the test identity");
    const std::string cert = folder + "/cert.pem";
    const std::string key = folder + "/key.pem";
    std::ofstream(cert) << kTestCertificate;
    std::ofstream(key) << kTestKey;
    std::string error;
    auto made = core::TlsContext::make_server({.cert_file = cert, .key_file = key}, error);
    std::filesystem::remove_all(folder);
    if (!made) {
      std::fprintf(stderr, "tls_connection_fuzz: %s\n", error.c_str());
      fail("the server's TLS context is made");
    }
    return made;
  }();
  return *context;
}

SSL_CTX* client_tls() {
  static SSL_CTX* const context = [] {
    SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    if (ctx == nullptr) fail("the client's TLS context is made");
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    static const unsigned char kAlpn[] = "\x08http/1.1";
    SSL_CTX_set_alpn_protos(ctx, kAlpn, sizeof kAlpn - 1);
    return ctx;
  }();
  return context;
}

const server::ServerConfig& fuzz_config() {
  static const server::ServerConfig config = [] {
    server::ServerConfig c;
    c.threads = 1;
    c.max_body = kMaxBody;
    return c;
  }();
  return config;
}

const server::Router& hello_router() {
  static const server::Router router = [] {
    server::Router r;
    server::add_hello_routes(r);
    return r;
  }();
  return router;
}

class Owner final : public server::ConnectionOwner {
 public:
  void release(server::Connection&) override { released = true; }
  bool released = false;
};

// -- the client ----------------------------------------------------------------------------------
// An OpenSSL client on memory BIOs, and the ciphertext stream it sends: its own records (where
// each lies, for the corruption invariant), bytes injected between them, and how far the socket
// has taken the stream.
class Client {
 public:
  explicit Client(bool tls12) : ssl_(SSL_new(client_tls())) {
    BIO* in = BIO_new(BIO_s_mem());
    BIO* out = BIO_new(BIO_s_mem());
    if (ssl_ == nullptr || in == nullptr || out == nullptr) fail("the client's TLS state is made");
    SSL_set_bio(ssl_, in, out);
    in_ = in;
    out_ = out;
    SSL_set_connect_state(ssl_);
    SSL_set_tlsext_host_name(ssl_, "localhost");
    SSL_set_max_proto_version(ssl_, tls12 ? TLS1_2_VERSION : TLS1_3_VERSION);
    tls12_ = tls12;
    progress();  // the ClientHello
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  ~Client() { SSL_free(ssl_); }

  struct Record {
    std::size_t start;
    std::size_t length;  // of the body
    unsigned char type;
  };

  void request(std::span<const char> plaintext) {
    queued_.append(plaintext.data(), plaintext.size());
    progress();
  }
  void set_record_size(std::uint8_t size) { record_size_ = size == 0 ? 16384 : size + 1U; }

  // Ciphertext from the server: into the client's BIO, then its side runs.
  void received(std::span<const char> ciphertext) {
    if (ciphertext.empty()) return;
    BIO_write(in_, ciphertext.data(), static_cast<int>(ciphertext.size()));
    progress();
  }

  void flip(std::uint16_t position, std::uint8_t mask) {
    if (unsent() == 0) return;
    const std::size_t at = sent_ + position % unsent();
    stream_[at] = static_cast<char>(stream_[at] ^ (mask == 0 ? 1 : mask));
  }
  void inject(std::span<const char> bytes) {
    if (bytes.empty()) return;
    injections_.push_back(stream_.size());
    stream_.append(bytes.data(), bytes.size());
    genuine_.append(bytes.data(), bytes.size());
  }
  void close_notify() {
    if (failed_ || !handshake_done_) return;
    ERR_clear_error();
    SSL_shutdown(ssl_);
    notified_ = true;
    collect_output();
  }
  void key_update() {
    if (failed_ || !handshake_done_ || tls12_ || notified_) return;
    ERR_clear_error();
    if (SSL_key_update(ssl_, SSL_KEY_UPDATE_REQUESTED) == 1) progress();
    ERR_clear_error();
  }
  void renegotiate() {
    if (failed_ || !handshake_done_ || !tls12_ || notified_) return;
    ERR_clear_error();
    if (SSL_renegotiate(ssl_) == 1) {
      renegotiated_ = true;
      progress();
    }
    ERR_clear_error();
  }

  // The stream: what the socket has taken, what waits for it.
  [[nodiscard]] std::size_t unsent() const { return stream_.size() - sent_; }
  [[nodiscard]] std::span<const char> unsent_bytes() const {
    return {stream_.data() + sent_, unsent()};
  }
  void taken(std::size_t n) { sent_ += n; }

  // The plaintext whose records all reached the socket.
  [[nodiscard]] std::string delivered_plaintext() const {
    std::string out;
    for (const auto& [end, bytes] : writes_) {
      if (end <= sent_) out += bytes;
    }
    return out;
  }
  [[nodiscard]] bool corrupted() const { return first_corruption() < stream_.size(); }
  // A type-23 record with a flipped body byte reached the socket whole, and no corruption comes
  // before it in the stream: the server has read genuine records up to it and must refuse it.
  [[nodiscard]] bool bad_record_delivered() const {
    const std::size_t first = first_corruption();
    if (first == stream_.size() || stream_[first] == genuine_[first]) return false;  // injected
    for (const Record& record : records_) {
      const std::size_t end = record.start + kRecordHeader + record.length;
      if (first >= record.start + kRecordHeader && first < end) {
        return record.type == kApplicationData && sent_ >= end;
      }
    }
    return false;
  }
  [[nodiscard]] const std::string& plaintext_received() const { return received_; }
  [[nodiscard]] bool failed() const { return failed_; }
  [[nodiscard]] bool renegotiated() const { return renegotiated_; }
  [[nodiscard]] bool notified() const { return notified_; }
  [[nodiscard]] bool handshake_done() const { return handshake_done_; }

 private:
  // Where the stream first differs from what the client wrote (a flipped byte that stayed
  // flipped: two flips of one bit undo each other) or holds injected bytes; its size if nowhere.
  std::size_t first_corruption() const {
    const auto differ = std::mismatch(stream_.begin(), stream_.end(), genuine_.begin());
    std::size_t first = static_cast<std::size_t>(differ.first - stream_.begin());
    if (!injections_.empty()) first = std::min(first, injections_.front());
    return first;
  }

  // Handshake, then the queued requests and the server's records; new output to the stream.
  void progress() {
    if (!failed_ && !handshake_done_) {
      ERR_clear_error();
      const int result = SSL_do_handshake(ssl_);
      if (result == 1) {
        handshake_done_ = true;
      } else if (!wants_more(result)) {
        failed_ = true;
      }
    }
    if (!failed_ && handshake_done_) {
      write_queued();
      read_all();
    }
    collect_output();
    ERR_clear_error();
  }

  bool wants_more(int result) {
    const int error = SSL_get_error(ssl_, result);
    return error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE;
  }

  void write_queued() {
    while (!queued_.empty() && !failed_ && !notified_) {
      const std::size_t n = std::min<std::size_t>(queued_.size(), record_size_);
      std::size_t written = 0;
      ERR_clear_error();
      const int result = SSL_write_ex(ssl_, queued_.data(), n, &written);
      if (result != 1) {
        if (!wants_more(result)) failed_ = true;
        return;
      }
      collect_output();  // the records of this write end here in the stream
      writes_.emplace_back(stream_.size(), queued_.substr(0, written));
      queued_.erase(0, written);
    }
  }

  void read_all() {
    std::array<char, 16384> buffer;
    while (!failed_) {
      std::size_t got = 0;
      ERR_clear_error();
      const int result = SSL_read_ex(ssl_, buffer.data(), buffer.size(), &got);
      if (result == 1) {
        received_.append(buffer.data(), got);
        continue;
      }
      const int error = SSL_get_error(ssl_, result);
      // A renegotiation the server refused, or the server's alert after a corruption (its
      // close_notify, SSL_ERROR_ZERO_RETURN, ends the reading only).
      if (error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE &&
          error != SSL_ERROR_ZERO_RETURN) {
        failed_ = true;
      }
      return;
    }
  }

  // The client's output is whole records (a memory BIO takes everything): note where each is.
  void collect_output() {
    char* data = nullptr;
    const long length = BIO_get_mem_data(out_, &data);
    if (length <= 0) return;
    std::size_t pos = 0;
    const auto* bytes = reinterpret_cast<const unsigned char*>(data);
    while (pos + kRecordHeader <= static_cast<std::size_t>(length)) {
      const std::size_t body = static_cast<std::size_t>(bytes[pos + 3]) << 8 | bytes[pos + 4];
      records_.push_back({stream_.size() + pos, body, bytes[pos]});
      pos += kRecordHeader + body;
    }
    stream_.append(data, static_cast<std::size_t>(length));
    genuine_.append(data, static_cast<std::size_t>(length));
    (void)BIO_reset(out_);
  }

  SSL* ssl_;
  BIO* in_ = nullptr;
  BIO* out_ = nullptr;
  bool tls12_ = false;
  bool handshake_done_ = false;
  bool failed_ = false;
  bool notified_ = false;
  bool renegotiated_ = false;
  std::size_t record_size_ = 16384;
  std::string queued_;  // plaintext waiting for the handshake
  std::string stream_;   // every ciphertext byte meant for the socket, in order
  std::string genuine_;  // the same before any flip
  std::size_t sent_ = 0;
  std::vector<Record> records_;
  std::vector<std::size_t> injections_;  // where injected bytes begin, in stream order
  std::vector<std::pair<std::size_t, std::string>> writes_;  // (stream end, plaintext)
  std::string received_;
};

// -- the session: the server's connection, the socketpair, the script ---------------------------
class Session {
 public:
  explicit Session(bool tls12)
      : ctx_(std::make_unique<server::WorkerContext>(fuzz_config(), hello_router())),
        client_(tls12) {
    ctx_->owner = &owner_;
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) != 0) {
      std::perror("socketpair");
      std::abort();
    }
    socket_ = fds[0];
    server_fd_ = fds[1];
    connection_.open(server_fd_, *ctx_, &server_tls());
    if (!connection_.is_open()) fail("a new TLS connection registers");
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() {
    if (socket_ >= 0) ::close(socket_);
    connection_.close();  // only reached open when an invariant is about to abort anyway
  }

  void step(fuzz::Script& script) {
    switch (static_cast<Op>(script.u8() % static_cast<std::uint8_t>(Op::kCount))) {
      case Op::kRequest:
        client_.request(script.take(script.u16()));
        break;
      case Op::kRecords:
        client_.set_record_size(script.u8());
        break;
      case Op::kSend:
        send(script.u16());
        break;
      case Op::kRead:
        read(script.u16());
        break;
      case Op::kFlip: {
        const std::uint16_t position = script.u16();
        client_.flip(position, script.u8());
        break;
      }
      case Op::kInject:
        client_.inject(script.take(script.u8()));
        break;
      case Op::kNotify:
        client_.close_notify();
        break;
      case Op::kKeyUpdate:
        client_.key_update();
        break;
      case Op::kRenegotiate:
        client_.renegotiate();
        break;
      case Op::kShut:
        if (socket_ >= 0 && ::shutdown(socket_, SHUT_WR) == 0) shut_write_ = true;
        break;
      case Op::kClose:
        close_socket();
        break;
      case Op::kRun:
        ctx_->loop.run_once(core::Duration::zero());
        break;
      case Op::kTimers:
        fire_timers(script.u8());
        break;
      case Op::kDrain:
        ctx_->draining = true;
        break;
      case Op::kBuffers: {
        const int server_size = buffer_size(script.u8());
        const int client_size = buffer_size(script.u8());
        if (!owner_.released) set_buffers(server_fd_, server_size);
        if (socket_ >= 0) set_buffers(socket_, client_size);
        break;
      }
      case Op::kCount:
        break;
    }
  }

  void finish() {
    // First with the client idle: over a socketpair its reads would wake the server with every
    // ready flag set, which over TCP they would not, and hide a FIN the server missed.
    settle(false);
    const bool clean = !client_.corrupted() && !client_.failed() && !client_.renegotiated();
    if (clean && shut_write_ && !owner_.released && connection_.is_idle()) {
      fail("client sent FIN and the server has nothing to send, but the connection stays open");
    }
    settle(true);
    const std::string sent = client_.delivered_plaintext();
    const fuzz::SentRequests requests = fuzz::parse_sent(sent, kMaxBody);
    const bool may_be_cut = socket_closed_ || closed_by_timer_ || !clean;
    const fuzz::ReceivedResponses responses =
        fuzz::parse_received(client_.plaintext_received(), requests, may_be_cut);
    if (std::getenv("TLS_CONNECTION_FUZZ_VERBOSE") != nullptr) {
      std::fprintf(stderr,
                   "handshake %s; sent %zu plaintext bytes: %zu heads, %zu complete; received "
                   "%zu bytes: %zu responses%s%s; corrupted %d (bad record delivered %d), "
                   "client failed %d; server %s\n",
                   client_.handshake_done() ? "done" : "not done", sent.size(), requests.heads,
                   requests.complete, client_.plaintext_received().size(), responses.finals,
                   responses.ended_with_close ? ", last closing" : "",
                   responses.truncated ? ", truncated" : "", client_.corrupted(),
                   client_.bad_record_delivered(), client_.failed(),
                   owner_.released ? "closed" : "open");
    }
    check(responses.finals <= requests.heads + 1, "more responses than requests");
    if (client_.bad_record_delivered()) {
      check(owner_.released, "a record with a bad MAC reached the server, but it stays open");
    }
    if (clean && !owner_.released && !socket_closed_) {
      check(!shut_write_, "client sent FIN and read everything, but the connection stays open");
      if (!responses.ended_with_close && !client_.notified()) {
        check(responses.finals >= requests.complete, "a complete request was left unanswered");
        check(responses.finals <= requests.heads, "an answer that no request asked for");
      }
    }
    close_socket();
    settle(true);
    check(owner_.released, "client closed, but the connection stays open");
    check(ctx_->input_blocks.in_use() == 0, "input block leaked");
    check(ctx_->output_blocks.in_use() == 0, "output block leaked");
  }

 private:
  static int buffer_size(std::uint8_t selector) { return 1024 + selector * 256; }

  static void set_buffers(int fd, int size) {
    (void)::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    (void)::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  }

  // Hands up to `max` unsent bytes (0: all) to the socket; returns how many it took.
  std::size_t send(std::size_t max) {
    if (socket_ < 0 || shut_write_) return 0;
    std::span<const char> data = client_.unsent_bytes();
    if (max != 0) data = data.first(std::min(max, data.size()));
    std::size_t total = 0;
    while (!data.empty()) {
      const ssize_t n = ::send(socket_, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // full, or the server is gone
      client_.taken(static_cast<std::size_t>(n));
      total += static_cast<std::size_t>(n);
      data = data.subspan(static_cast<std::size_t>(n));
    }
    return total;
  }

  // The client reads up to `max` bytes (0: all there is) and runs its side; returns how many.
  std::size_t read(std::size_t max) {
    if (socket_ < 0) return 0;
    if (max == 0) max = SIZE_MAX;
    std::size_t got = 0;
    std::array<char, 16384> buffer;
    while (got < max) {
      const ssize_t n =
          ::recv(socket_, buffer.data(), std::min(buffer.size(), max - got), MSG_DONTWAIT);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      client_.received({buffer.data(), static_cast<std::size_t>(n)});
      got += static_cast<std::size_t>(n);
    }
    return got;
  }

  void close_socket() {
    if (socket_ < 0) return;
    ::close(socket_);
    socket_ = -1;
    socket_closed_ = true;
  }

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

  // Runs the loop until nothing moves for a few turns; with `client_active` the client also
  // reads, runs its side and sends everything it has each turn.
  void settle(bool client_active) {
    int quiet = 0;
    for (int turn = 0; turn < kMaxSettleTurns; ++turn) {
      const int events = ctx_->loop.run_once(core::Duration::zero());
      std::size_t moved = 0;
      if (client_active) {
        moved += read(0);
        moved += send(0);
      }
      if (owner_.released && socket_ < 0) return;
      quiet = events == 0 && moved == 0 ? quiet + 1 : 0;
      if (quiet >= kQuietTurnsToSettle) return;
    }
    fail("the connection never settles (livelock)");
  }

  // Declared first, destroyed last: the connection and its timers point into the context.
  std::unique_ptr<server::WorkerContext> ctx_;
  Owner owner_;
  server::Connection connection_;
  Client client_;
  int socket_ = -1;
  int server_fd_ = -1;
  bool shut_write_ = false;
  bool socket_closed_ = false;
  bool closed_by_timer_ = false;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)server_tls();  // made once, before the randomness restarts
  random_state = 0;
  fuzz::Script script({data, size});
  const bool tls12 = (script.u8() & 1) != 0;
  Session session(tls12);
  while (!script.done()) session.step(script);
  session.finish();
  return 0;
}
