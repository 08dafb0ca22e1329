// TLS over the transport seam: sits between a socket transport (EpollTransport, which still does
// every recv and send) and the protocol's handler, so the protocol code does not change. It is
// the socket's TransportHandler (ciphertext) and calls the protocol's TransportHandler (plaintext)
// with the same contract (core/transport_handler.hpp); core::Transport (core/transport.hpp) routes
// a TLS connection's calls through it.
//
// OpenSSL runs over a BIO pair, not the socket: ciphertext is received straight into the pair's
// buffer (read_space is the pair's free space) and sent straight from it, so the socket keeps its
// one-recv-per-read behaviour and its own copy of what the kernel would not take.
// - Handshake: a server answers the ClientHello when it arrives; a client starts when its TCP
//   connect completes and reports on_connected() only once the handshake is done (a failed one is
//   on_connected(EPROTO), after the TCP connect, or on_error(EPROTO) on a server).
// - Writes: plaintext is encrypted at once, record by record (the parts of one write() gathered
//   into one record when they fit a block); what cannot be handed to the socket
//   yet (the socket is still sending earlier output) is kept in one block of `write_blocks` and
//   encrypted when it drains, so the caller's memory is free when write() returns.
// - Reads: after each arrival every whole record is decrypted into the handler's read_space();
//   a close_notify, or the socket's EOF once every record is read, is on_peer_closed().
// - Errors: a bad record, a failed handshake or a renegotiation attempt close nothing themselves:
//   the handler gets on_error(EPROTO) (last_error() says what OpenSSL said) and closes.
// - Kernel TLS (a server context with enable_kernel_tls): once a TLS 1.3 handshake is done and
//   OpenSSL's records have left, the kernel gets the sending keys (core/ktls.hpp) and writes go
//   to the socket as plaintext, the kernel encrypting; OpenSSL only reads from then on. A record
//   OpenSSL would still have to send (the answer to a KeyUpdate that asks for one) cannot go out
//   under the kernel's keys: the connection ends with on_error(EPROTO).
#pragma once

#include <openssl/types.h>
#include <sys/uio.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/block_pool.hpp"
#include "core/clock.hpp"
#include "core/epoll_transport.hpp"
#include "core/ktls.hpp"
#include "core/tls_context.hpp"
#include "core/transport_handler.hpp"

namespace ringside::core {

// What a connection negotiated, for reports.
struct TlsSessionInfo {
  std::string version;   // "TLSv1.3"
  std::string cipher;    // "TLS_AES_256_GCM_SHA384"
  std::string group;     // "x25519", "prime256v1" (empty when unknown)
  std::string alpn;      // "http/1.1", or empty when none was agreed
  bool resumed = false;
};

class TlsLayer final : private TransportHandler, private SendSecretListener {
 public:
  explicit TlsLayer(TlsContext& context) : context_(&context) {}
  ~TlsLayer() { end(); }
  TlsLayer(const TlsLayer&) = delete;
  TlsLayer& operator=(const TlsLayer&) = delete;

  // A new connection on `socket`, whose handler must be this layer (as socket_handler() returns).
  // False when OpenSSL cannot make the connection's state (out of memory).
  [[nodiscard]] bool begin(EpollTransport& socket, TransportHandler& handler,
                           BlockPool& write_blocks, bool offer_last_session = false);
  // Frees the connection's TLS state; safe to call twice.
  void end();
  // Before the socket closes: our close_notify (after a completed handshake) and whatever the
  // pair still holds (an alert) go to the socket if it takes them now; nothing waits for them.
  void say_goodbye();

  [[nodiscard]] TransportHandler& socket_handler() { return *this; }
  [[nodiscard]] TlsContext* context() const { return context_; }
  // Client: the TCP connect finished at once (connect() returned 0): start the handshake.
  void tcp_connected();

  void pause_reading();
  void resume_reading();
  [[nodiscard]] WriteResult write(std::span<const iovec> parts);
  bool shutdown_write();

  [[nodiscard]] bool write_pending() const;
  [[nodiscard]] bool reading() const { return reading_; }
  [[nodiscard]] bool handshake_done() const { return handshake_done_; }
  // Client: when the TCP connect completed (the handshake's start).
  [[nodiscard]] TimePoint tcp_connected_at() const { return tcp_connected_at_; }
  [[nodiscard]] TlsSessionInfo session_info() const;
  // The protocol ALPN agreed on ("h2", "http/1.1"), empty when none; without copying it.
  [[nodiscard]] std::string_view alpn() const;
  [[nodiscard]] bool resumed() const;
  // The kernel encrypts what this connection sends (kernel TLS).
  [[nodiscard]] bool kernel_sends() const { return kernel_ == KernelSending::kYes; }
  [[nodiscard]] const std::string& last_error() const { return last_error_; }

 private:
  // TransportHandler, for the socket (ciphertext).
  std::span<char> read_space() override;
  void on_data(std::span<char> bytes) override;
  void on_peer_closed() override;
  void on_drained() override;
  void on_error(int error) override;
  void on_connected(int error) override;
  // SendSecretListener: the secret OpenSSL sends application data under (kernel TLS only).
  void on_send_secret(std::span<const unsigned char> secret) override;

  // Kernel TLS: hands sending to the kernel once OpenSSL's records have all left (or decides it
  // stays with OpenSSL). False on a socket failure (errno set).
  bool start_kernel_sending();
  void send_close_notify_by_kernel();
  // Drives the handshake, then decrypts into the handler while it reads. Returns false when a
  // callback closed or replaced the connection (touch nothing then).
  bool pump();
  // Hands the pair's ciphertext to the socket while it takes it; false on a socket failure
  // (errno set).
  bool flush_output();
  // The same before a handler callback, with on_drained() owed if output still waits; false
  // (on_error given) on a socket failure.
  bool flush_before_handler();
  // Encrypts `bytes`; returns how many were taken before the pair filled.
  bool encrypt(const char* data, std::size_t length, std::size_t& taken);
  // Encrypts several parts as one record (copied into one block first); `done` as encrypt's.
  bool encrypt_gathered(std::span<const iovec> parts, std::size_t total, std::size_t& done);
  // Encrypts the kept plaintext as far as the socket allows. False on failure (errno set).
  bool encrypt_unsent();
  void keep_unsent(std::span<const iovec> parts, std::size_t skip);
  void fail(int error);  // notes OpenSSL's reason and reports on_error / on_connected
  [[nodiscard]] bool replaced(std::uint32_t generation) const;
  [[nodiscard]] bool output_queued() const;

  TlsContext* context_;
  EpollTransport* socket_ = nullptr;
  TransportHandler* handler_ = nullptr;
  BlockPool* write_blocks_ = nullptr;
  SSL* ssl_ = nullptr;
  BIO* network_ = nullptr;  // our end of the pair: ciphertext in from the socket, out to it
  char* unsent_ = nullptr;  // plaintext not yet encrypted (a block of write_blocks_)
  std::uint32_t unsent_len_ = 0;
  std::uint32_t unsent_done_ = 0;
  TimePoint tcp_connected_at_{};
  std::string last_error_;
  bool handshake_done_ = false;
  bool reading_ = true;
  bool socket_eof_ = false;      // the socket delivered its EOF
  bool eof_delivered_ = false;   // on_peer_closed() was given to the handler
  bool owe_drained_ = false;     // a write returned kPending: on_drained() is due
  bool fin_after_flush_ = false; // shutdown_write() waits for the close_notify to leave
  bool in_pump_ = false;
  bool failed_ = false;          // a TLS error ended it: its session is not to be resumed

  enum class KernelSending : std::uint8_t { kNo, kWaiting, kYes };
  KernelSending kernel_ = KernelSending::kNo;
  std::uint8_t send_secret_length_ = 0;
  std::array<unsigned char, 48> send_secret_{};
  RecordTally sent_records_;  // OpenSSL's records, counted from its sending key's change
};

}  // namespace ringside::core
