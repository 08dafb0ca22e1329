#include "harness/process/tls_client.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <cstring>

#include "harness/process/tls_material.hpp"

namespace ringside::harness {
namespace {

using Clock = std::chrono::steady_clock;

constexpr unsigned char kAlpnOffer[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
constexpr unsigned char kAlpnOfferH2[] = {2, 'h', '2'};

int remaining_ms(TlsStream::Deadline deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(left);
}

// The thread's OpenSSL errors as one phrase (the queue emptied); "" when there are none.
std::string openssl_errors() {
  std::string reason;
  char text[256];
  while (const unsigned long code = ERR_get_error()) {
    ERR_error_string_n(code, text, sizeof text);
    reason = text;  // the last is the outermost
  }
  return reason;
}

// OpenSSL writes to the socket with write(2), so a peer that has gone raises SIGPIPE. The CLI
// ignores it; a library must not count on that, so it is held back on this thread while OpenSSL
// writes, and one it raised is taken before the mask is put back.
class SigpipeHeld {
 public:
  SigpipeHeld() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &previous_);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
  }
  ~SigpipeHeld() {
    sigset_t pending;
    sigpending(&pending);
    if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
      const timespec now{0, 0};
      sigtimedwait(&pipe_, nullptr, &now);
    }
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }
  SigpipeHeld(const SigpipeHeld&) = delete;
  SigpipeHeld& operator=(const SigpipeHeld&) = delete;

 private:
  sigset_t pipe_, previous_;
  bool was_pending_ = false;
};

// Why a handshake failed, in words a contestant's author can act on.
std::string handshake_failure(SSL* ssl, int ssl_error, const std::string& reason) {
  const long verified = SSL_get_verify_result(ssl);
  if (verified != X509_V_OK) {
    return std::string("the server's certificate did not verify against the run's CA: ") +
           X509_verify_cert_error_string(verified) +
           " (does it serve {tls_cert}, the certificate it was given?)";
  }
  if (ssl_error == SSL_ERROR_ZERO_RETURN || (ssl_error == SSL_ERROR_SYSCALL && reason.empty())) {
    return "the server closed the connection during the TLS handshake";
  }
  if (reason.find("wrong version number") != std::string::npos ||
      reason.find("packet length too long") != std::string::npos ||
      reason.find("record layer failure") != std::string::npos) {
    return "the server did not answer with TLS (" + reason +
           "): does it listen with TLS on {port} when given {tls_cert} and {tls_key}?";
  }
  if (ssl_error == SSL_ERROR_SYSCALL) return std::string("TLS handshake: ") + std::strerror(errno);
  return "TLS handshake failed: " + (reason.empty() ? std::string("no reason given") : reason);
}

}  // namespace

std::string TlsFacts::text() const {
  std::string out = version + ", " + cipher;
  if (!group.empty()) out += ", " + group;
  return out + (alpn.empty() ? ", no ALPN" : ", ALPN " + alpn);
}

TlsClientContext::TlsClientContext(const std::string& ca_file, std::string server_name,
                                   bool offer_h2)
    : server_name_(std::move(server_name)) {
  ERR_clear_error();
  context_ = SSL_CTX_new(TLS_client_method());
  if (context_ == nullptr) throw TlsError("TLS client: " + openssl_errors());
  SSL_CTX_set_min_proto_version(context_, TLS1_2_VERSION);
  // A server that closes without close_notify ends a body that runs until close; it is not an
  // attack on a checker.
  SSL_CTX_set_options(context_, SSL_OP_IGNORE_UNEXPECTED_EOF);
  SSL_CTX_set_session_cache_mode(context_, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_verify(context_, SSL_VERIFY_PEER, nullptr);
  if (SSL_CTX_load_verify_locations(context_, ca_file.c_str(), nullptr) != 1) {
    const std::string reason = openssl_errors();
    SSL_CTX_free(context_);
    throw TlsError("TLS client: cannot read the CA certificate " + ca_file + ": " + reason);
  }
  if (offer_h2) {
    SSL_CTX_set_alpn_protos(context_, kAlpnOfferH2, sizeof kAlpnOfferH2);  // 0 is success here
  } else {
    SSL_CTX_set_alpn_protos(context_, kAlpnOffer, sizeof kAlpnOffer);
  }
}

TlsClientContext::~TlsClientContext() { SSL_CTX_free(context_); }

TlsStream::TlsStream(const TlsClientContext& context, int fd) : fd_(fd) {
  ssl_ = SSL_new(context.native());
  if (ssl_ == nullptr) throw TlsError("TLS client: " + openssl_errors());
  SSL_set_fd(ssl_, fd);
  SSL_set_tlsext_host_name(ssl_, context.server_name().c_str());
  SSL_set1_host(ssl_, context.server_name().c_str());
  SSL_set_connect_state(ssl_);
}

TlsStream::~TlsStream() { SSL_free(ssl_); }

bool TlsStream::wait(int ssl_error, Deadline deadline) {
  pollfd item{fd_, static_cast<short>(ssl_error == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN), 0};
  while (true) {
    const int ready = poll(&item, 1, remaining_ms(deadline));
    if (ready > 0) return true;
    if (ready == 0 || errno != EINTR) return false;
  }
}

bool TlsStream::handshake(Deadline deadline, std::string& error) {
  while (true) {
    ERR_clear_error();
    int result = 0;
    {
      const SigpipeHeld held;
      result = SSL_connect(ssl_);
    }
    if (result == 1) break;
    const int ssl_error = SSL_get_error(ssl_, result);
    if (ssl_error == SSL_ERROR_WANT_READ || ssl_error == SSL_ERROR_WANT_WRITE) {
      if (wait(ssl_error, deadline)) continue;
      error = "no TLS handshake within the timeout (does the server speak TLS on {port}?)";
      return false;
    }
    error = handshake_failure(ssl_, ssl_error, openssl_errors());
    return false;
  }
  facts_.version = SSL_get_version(ssl_);
  facts_.cipher = SSL_CIPHER_get_name(SSL_get_current_cipher(ssl_));
  const unsigned char* alpn = nullptr;
  unsigned int alpn_length = 0;
  SSL_get0_alpn_selected(ssl_, &alpn, &alpn_length);
  facts_.alpn.assign(reinterpret_cast<const char*>(alpn), alpn_length);
  const int group = SSL_get_negotiated_group(ssl_);
  const char* group_name = group > 0 ? SSL_group_to_name(ssl_, group) : nullptr;
  facts_.group = group_name != nullptr ? group_name : "";
  return true;
}

bool TlsStream::write_all(std::string_view bytes, Deadline deadline, std::string& error) {
  while (!bytes.empty()) {
    ERR_clear_error();
    std::size_t written = 0;
    int result = 0;
    {
      const SigpipeHeld held;
      result = SSL_write_ex(ssl_, bytes.data(), bytes.size(), &written);
    }
    if (result == 1) {
      bytes.remove_prefix(written);
      continue;
    }
    const int ssl_error = SSL_get_error(ssl_, result);
    if ((ssl_error == SSL_ERROR_WANT_READ || ssl_error == SSL_ERROR_WANT_WRITE) &&
        wait(ssl_error, deadline)) {
      continue;
    }
    const std::string reason = openssl_errors();
    error = ssl_error == SSL_ERROR_WANT_READ || ssl_error == SSL_ERROR_WANT_WRITE
                ? "send: the server took no bytes within the timeout"
            : ssl_error == SSL_ERROR_SYSCALL ? std::string("send: ") + std::strerror(errno)
                                             : "send (TLS): " + reason;
    return false;
  }
  return true;
}

long TlsStream::read(char* into, std::size_t size, Deadline deadline, std::string& error) {
  while (true) {
    ERR_clear_error();
    std::size_t got = 0;
    const int result = SSL_read_ex(ssl_, into, size, &got);
    if (result == 1) return static_cast<long>(got);
    const int ssl_error = SSL_get_error(ssl_, result);
    if (ssl_error == SSL_ERROR_ZERO_RETURN) return 0;
    if (ssl_error == SSL_ERROR_WANT_READ || ssl_error == SSL_ERROR_WANT_WRITE) {
      if (wait(ssl_error, deadline)) continue;
      error = "no whole response within the timeout";
      return -1;
    }
    const std::string reason = openssl_errors();
    if (ssl_error == SSL_ERROR_SYSCALL && reason.empty() && errno == 0) return 0;
    error = ssl_error == SSL_ERROR_SYSCALL ? std::string("recv: ") + std::strerror(errno)
                                           : "recv (TLS): " + reason;
    return -1;
  }
}

void TlsStream::shutdown() {
  ERR_clear_error();
  const SigpipeHeld held;
  SSL_shutdown(ssl_);  // one call: close_notify sent (or queued); the peer's is not awaited
  ERR_clear_error();
}

}  // namespace ringside::harness
