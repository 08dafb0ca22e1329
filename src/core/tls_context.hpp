// TLS settings shared by every connection of one side, over an OpenSSL 3 SSL_CTX: the server's
// certificate and key (from PEM files, or an ECDSA P-256 certificate made at start), ALPN, session
// tickets with rotating keys and a session cache; or the client's verification, SNI, ALPN and the
// session it offers to resume. A TlsLayer (core/tls_layer.hpp) runs one connection over it.
//
//   std::string error;
//   auto server = TlsContext::make_server({.cert_file = "c.pem", .key_file = "k.pem"}, error);
//   if (!server) { /* error: one line naming the file and what OpenSSL said */ }
//
// A server context is shared by all worker threads (OpenSSL's SSL_CTX is thread-safe; the ticket
// keys are ours, behind a mutex touched once per handshake), so a ticket one worker issued resumes
// on another. A client context belongs to one load thread: it keeps the last session it saw, to
// offer on the connections that --tls-resume says should resume.
#pragma once

#include <openssl/types.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "core/clock.hpp"

typedef struct ssl_session_st SSL_SESSION;  // <openssl/ssl.h>'s, without all of it here

namespace ringside::core {

class KernelTls;

// Told the secret a TLS 1.3 server sends its application data under, when the context hands
// sending to the kernel (enable_kernel_tls): a connection's SSL carries its listener as app data.
class SendSecretListener {
 public:
  virtual void on_send_secret(std::span<const unsigned char> secret) = 0;

 protected:
  ~SendSecretListener() = default;
};

struct TlsServerOptions {
  std::string cert_file;  // PEM: the certificate, then any intermediates
  std::string key_file;   // PEM
  bool self_signed = false;  // instead of the files: an ECDSA P-256 certificate for localhost
  std::vector<std::string> alpn = {"http/1.1"};  // offered in order of preference
  Duration ticket_key_lifetime = std::chrono::hours(1);  // a key issues tickets this long
};

struct TlsClientOptions {
  std::string ca_file;      // verify the server against these; empty: no verification (as wrk)
  std::string server_name;  // SNI, and the name verified; empty: none sent
  // With ca_file, an IP literal the certificate must name (its subjectAltName iPAddress), for a
  // server reached by address: no SNI goes with it (RFC 6066). Empty: only the chain is checked.
  std::string verify_ip;
  std::vector<std::string> alpn = {"http/1.1"};
};

class TlsContext {
 public:
  // nullptr and `error` (one line) when the files or the key cannot be used.
  static std::unique_ptr<TlsContext> make_server(const TlsServerOptions& options,
                                                 std::string& error);
  static std::unique_ptr<TlsContext> make_client(const TlsClientOptions& options,
                                                 std::string& error);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  [[nodiscard]] SSL_CTX* native() const { return ctx_; }
  [[nodiscard]] bool is_server() const { return server_; }
  [[nodiscard]] const std::string& server_name() const { return server_name_; }
  // The server's certificate: "ECDSA P-256" / "RSA 2048" and its SHA-256 fingerprint (AB:CD:...).
  [[nodiscard]] const std::string& key_description() const { return key_description_; }
  [[nodiscard]] const std::string& fingerprint() const { return fingerprint_; }

  // Client: the newest session a server gave (nullptr before the first); owned by the context.
  [[nodiscard]] SSL_SESSION* last_session() const { return last_session_; }

  // Server: how many ticket keys were made so far (the first at start, then one per lifetime).
  [[nodiscard]] std::uint64_t ticket_keys_made() const;

  // Server: TLS 1.3 connections hand their sending to `kernel` once their handshake is done
  // (core/ktls.hpp); call before the first connection. The context learns each connection's
  // sending secret from OpenSSL's key log, so only call it when the kernel can take the keys.
  void enable_kernel_tls(KernelTls& kernel);
  [[nodiscard]] KernelTls* kernel_tls() const { return kernel_tls_; }
  // How many connections the kernel sent for, and how many stayed in userspace (TLS 1.2, a
  // cipher the kernel lacks, a refusal), for the server's report. Once per handshake.
  void count_kernel_tls(bool kernel_sends) {
    (kernel_sends ? kernel_tls_connections_ : userspace_tls_connections_)
        .fetch_add(1, std::memory_order_relaxed);
  }
  [[nodiscard]] std::uint64_t kernel_tls_connections() const {
    return kernel_tls_connections_.load(std::memory_order_relaxed);
  }
  [[nodiscard]] std::uint64_t userspace_tls_connections() const {
    return userspace_tls_connections_.load(std::memory_order_relaxed);
  }

 private:
  struct TicketKey {
    std::array<unsigned char, 16> name{};
    std::array<unsigned char, 32> aes_key{};
    std::array<unsigned char, 32> hmac_key{};
    TimePoint made{};
  };

  TlsContext(SSL_CTX* ctx, bool server);
  static int on_ticket_key(SSL* ssl, unsigned char* name, unsigned char* iv, EVP_CIPHER_CTX* cipher,
                           EVP_MAC_CTX* mac, int encrypt);
  static int on_new_session(SSL* ssl, SSL_SESSION* session);
  static void on_key_log(const SSL* ssl, const char* line);
  static int on_alpn(SSL* ssl, const unsigned char** out, unsigned char* out_len,
                     const unsigned char* in, unsigned int in_len, void* arg);
  bool make_ticket_key(TicketKey& key) const;

  SSL_CTX* ctx_ = nullptr;
  bool server_ = false;
  std::string server_name_;
  std::string key_description_;
  std::string fingerprint_;
  std::vector<unsigned char> alpn_wire_;  // the protocols, each length-prefixed
  SSL_SESSION* last_session_ = nullptr;
  KernelTls* kernel_tls_ = nullptr;
  std::atomic<std::uint64_t> kernel_tls_connections_{0};
  std::atomic<std::uint64_t> userspace_tls_connections_{0};

  mutable std::mutex ticket_mutex_;
  TicketKey current_key_;
  TicketKey previous_key_;  // still decrypts for one more lifetime
  bool has_previous_key_ = false;
  Duration ticket_key_lifetime_{};
  std::uint64_t ticket_keys_made_ = 0;
};

}  // namespace ringside::core
