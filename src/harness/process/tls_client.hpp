// TLS under the harness's blocking HTTP client (http_client.hpp), for readiness and the checks of
// https workloads: a context that trusts one CA only (the run's, tls_material.hpp), verifies the
// server's certificate for the name it sends as SNI ("localhost"), takes TLS 1.2 or 1.3 and
// offers ALPN "http/1.1"; and a stream over a connected non-blocking socket whose every wait is
// bounded by a deadline. A checker, not a loader: one handshake per connection, no resumption.
//
//   TlsClientContext context(tls->files().ca);                 // TlsError when it cannot
//   TlsStream stream(context, fd);
//   if (!stream.handshake(deadline, error)) ...                  // "certificate verify failed ..."
//   stream.facts().version, .cipher, .alpn                       // "TLSv1.3", ..., "http/1.1"
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace ringside::harness {

// What a handshake agreed on.
struct TlsFacts {
  std::string version;  // "TLSv1.3"
  std::string cipher;   // "TLS_AES_256_GCM_SHA384"
  std::string alpn;     // "http/1.1"; "" when the server chose none
  std::string group;    // the key exchange's group ("X25519"); "" when not known
  // "TLSv1.3, TLS_AES_256_GCM_SHA384, ALPN http/1.1" ("no ALPN" when it chose none)
  [[nodiscard]] std::string text() const;
};

class TlsClientContext {
 public:
  // Trusts the CA certificate in `ca_file` (PEM) and nothing else. Throws TlsError (from
  // tls_material.hpp) when it cannot be read. Offers ALPN http/1.1, or h2 alone with `offer_h2`
  // (to prove a server speaks HTTP/2 over TLS).
  explicit TlsClientContext(const std::string& ca_file, std::string server_name = "localhost",
                            bool offer_h2 = false);
  ~TlsClientContext();
  TlsClientContext(const TlsClientContext&) = delete;
  TlsClientContext& operator=(const TlsClientContext&) = delete;

  [[nodiscard]] SSL_CTX* native() const { return context_; }
  [[nodiscard]] const std::string& server_name() const { return server_name_; }

 private:
  SSL_CTX* context_ = nullptr;
  std::string server_name_;
};

// One TLS connection over a connected socket (non-blocking; the stream does not own it).
class TlsStream {
 public:
  using Deadline = std::chrono::steady_clock::time_point;

  TlsStream(const TlsClientContext& context, int fd);
  ~TlsStream();
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;

  // The handshake, verified; false with `error` naming what failed ("the server's certificate
  // did not verify against the run's CA: ...", "no TLS answer within the timeout").
  bool handshake(Deadline deadline, std::string& error);
  // Writes all of `bytes`; false with `error` set.
  bool write_all(std::string_view bytes, Deadline deadline, std::string& error);
  // Reads what is there (waiting for some until the deadline): bytes read, 0 at the end of the
  // stream (close_notify or the peer's FIN), -1 on an error or the deadline (`error` set).
  long read(char* into, std::size_t size, Deadline deadline, std::string& error);
  // Sends close_notify, without waiting for the peer's.
  void shutdown();
  [[nodiscard]] const TlsFacts& facts() const { return facts_; }

 private:
  // Waits for what the last call's SSL error asks (readable or writable); false at the deadline.
  bool wait(int ssl_error, Deadline deadline);
  SSL* ssl_ = nullptr;
  int fd_ = -1;
  TlsFacts facts_;
};

}  // namespace ringside::harness
