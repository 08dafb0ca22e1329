#include "core/tls_layer.hpp"

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/iovec_bytes.hpp"

namespace ringside::core {
namespace {

// The pair's buffers, made with each connection: outgoing, one whole record (16 KiB of plaintext
// and its framing), so a record is handed to the socket in one piece; incoming, less: OpenSSL
// reads a record through it in parts into its own buffer, and a connection that never completes
// a handshake (a slowloris) should cost little.
constexpr std::size_t kPairOutBytes = 16 * 1024 + 512;
constexpr std::size_t kPairInBytes = 8 * 1024;

std::string openssl_reason(int ssl_error) {
  unsigned long code = 0;
  unsigned long last = 0;
  while ((code = ERR_get_error()) != 0) last = code;
  if (last != 0) {
    char text[256];
    ERR_error_string_n(last, text, sizeof text);
    return text;
  }
  switch (ssl_error) {
    case SSL_ERROR_ZERO_RETURN: return "the peer closed the TLS session";
    case SSL_ERROR_SYSCALL: return "the connection ended inside a TLS record";
    default: return "TLS error " + std::to_string(ssl_error);
  }
}


}  // namespace

bool TlsLayer::begin(EpollTransport& socket, TransportHandler& handler, BlockPool& write_blocks,
                     bool offer_last_session) {
  end();
  socket_ = &socket;
  handler_ = &handler;
  write_blocks_ = &write_blocks;
  ssl_ = SSL_new(context_->native());
  BIO* inner = nullptr;
  if (ssl_ == nullptr || BIO_new_bio_pair(&inner, kPairOutBytes, &network_, kPairInBytes) != 1) {
    last_error_ = openssl_reason(0);
    end();
    return false;
  }
  SSL_set_bio(ssl_, inner, inner);
  if (context_->is_server()) {
    SSL_set_accept_state(ssl_);
    if (context_->kernel_tls() != nullptr) {
      kernel_ = KernelSending::kWaiting;
      SSL_set_app_data(ssl_, static_cast<SendSecretListener*>(this));
    }
  } else {
    SSL_set_connect_state(ssl_);
    const std::string& name = context_->server_name();
    if (!name.empty()) {
      SSL_set_tlsext_host_name(ssl_, name.c_str());
      SSL_set1_host(ssl_, name.c_str());
    }
    if (offer_last_session && context_->last_session() != nullptr) {
      // A copy: OpenSSL's client spends a TLS 1.3 session once it has resumed with it (the end
      // of the handshake takes it out of the client cache, marked not resumable), so offering
      // the kept one would leave nothing to offer until the next ticket arrives, and how many
      // connections resume would depend on timing. A server that takes a ticket only once
      // answers the copy with a full handshake, and that is what gets counted.
      SSL_SESSION* copy = SSL_SESSION_dup(context_->last_session());
      if (copy != nullptr) {
        SSL_set_session(ssl_, copy);
        SSL_SESSION_free(copy);  // the connection holds its own reference
      }
    }
  }
  return true;
}

void TlsLayer::end() {
  if (ssl_ != nullptr) {
    // A connection that ended without a TLS error keeps its session resumable (OpenSSL drops a
    // session whose SSL is freed unshut, and the loader's next connection wants to offer it).
    if (handshake_done_ && !failed_) SSL_set_shutdown(ssl_, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
    SSL_free(ssl_);  // frees its end of the pair
  }
  if (network_ != nullptr) BIO_free(network_);
  ssl_ = nullptr;
  network_ = nullptr;
  if (unsent_ != nullptr) write_blocks_->release(unsent_);
  unsent_ = nullptr;
  unsent_len_ = unsent_done_ = 0;
  handshake_done_ = socket_eof_ = eof_delivered_ = owe_drained_ = fin_after_flush_ = false;
  failed_ = false;
  in_pump_ = false;
  kernel_ = KernelSending::kNo;
  OPENSSL_cleanse(send_secret_.data(), send_secret_.size());
  send_secret_length_ = 0;
  sent_records_.reset();
  reading_ = true;
  tcp_connected_at_ = {};  // a reused layer must not report the last connection's
}

void TlsLayer::say_goodbye() {
  if (ssl_ == nullptr || !socket_->is_open()) return;
  // Not after a fatal error (OpenSSL refuses, and its alert is in the pair already), nor while
  // output waits: the close_notify would go out behind it, and the socket drops that on close.
  if (handshake_done_ && !write_pending() && !socket_eof_) {
    ERR_clear_error();
    if (kernel_ == KernelSending::kYes) {
      send_close_notify_by_kernel();
    } else {
      SSL_shutdown(ssl_);
    }
  }
  flush_output();
  ERR_clear_error();
}

bool TlsLayer::replaced(std::uint32_t generation) const {
  return ssl_ == nullptr || socket_->generation() != generation;
}

bool TlsLayer::output_queued() const { return network_ != nullptr && BIO_ctrl_pending(network_) > 0; }

bool TlsLayer::write_pending() const {
  return unsent_len_ > unsent_done_ || output_queued() || socket_->write_pending();
}

void TlsLayer::tcp_connected() {
  tcp_connected_at_ = Clock::now();
  pump();
}

void TlsLayer::on_connected(int error) {
  if (error != 0) {
    handler_->on_connected(error);
    return;
  }
  tcp_connected();
}

std::span<char> TlsLayer::read_space() {
  char* space = nullptr;
  const int room = BIO_nwrite0(network_, &space);
  if (room <= 0) return {};
  return {space, static_cast<std::size_t>(room)};
}

void TlsLayer::on_data(std::span<char> bytes) {
  char* space = nullptr;
  BIO_nwrite(network_, &space, static_cast<int>(bytes.size()));  // the bytes are in place
  if (!pump()) return;
  // The pair is full of records the handler has not asked for (it paused): the socket waits.
  if (BIO_ctrl_get_write_guarantee(network_) == 0) socket_->pause_reading();
}

void TlsLayer::on_peer_closed() {
  socket_eof_ = true;
  const std::uint32_t generation = socket_->generation();
  if (!pump() || replaced(generation)) return;
  if (!handshake_done_) {
    last_error_ = "the peer closed the connection during the TLS handshake";
    if (context_->is_server()) {
      handler_->on_peer_closed();
    } else {
      handler_->on_connected(ECONNRESET);
    }
    return;
  }
  // The EOF without a close_notify (a truncation): the handler hears of it once every record
  // that came before it was read.
  if (!eof_delivered_ && reading_ && SSL_pending(ssl_) == 0 && BIO_ctrl_wpending(network_) == 0) {
    eof_delivered_ = true;
    handler_->on_peer_closed();
  }
}

void TlsLayer::on_error(int error) {
  if (!handshake_done_ && !context_->is_server()) {
    handler_->on_connected(error);
    return;
  }
  handler_->on_error(error);
}

void TlsLayer::fail(int ssl_error) {
  failed_ = true;
  last_error_ = openssl_reason(ssl_error);
  if (!handshake_done_ && !context_->is_server()) {
    handler_->on_connected(EPROTO);
  } else {
    handler_->on_error(EPROTO);
  }
}

bool TlsLayer::pump() {
  if (in_pump_) return true;  // a callback below re-entered (resume_reading): the loop goes on
  const std::uint32_t generation = socket_->generation();
  in_pump_ = true;
  if (!handshake_done_) {
    ERR_clear_error();
    const int result = SSL_do_handshake(ssl_);
    if (!flush_output()) {
      in_pump_ = false;
      on_error(errno);
      return false;
    }
    if (result != 1) {
      const int error = SSL_get_error(ssl_, result);
      in_pump_ = false;
      if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) return true;
      fail(error);
      return false;
    }
    handshake_done_ = true;
    const bool written_early = unsent_len_ > unsent_done_;
    if (!start_kernel_sending()) {
      in_pump_ = false;
      on_error(errno);
      return false;
    }
    if (written_early) {  // written before the handshake was done: out it goes
      if (!encrypt_unsent()) {
        in_pump_ = false;
        on_error(errno);
        return false;
      }
      if (owe_drained_ && !write_pending()) {
        owe_drained_ = false;
        in_pump_ = false;
        handler_->on_drained();
        if (replaced(generation)) return false;
        in_pump_ = true;
      }
    }
    if (!context_->is_server()) {
      in_pump_ = false;
      handler_->on_connected(0);
      if (replaced(generation)) return false;
      in_pump_ = true;
    }
  }
  while (reading_ && !eof_delivered_) {
    std::span<char> space = handler_->read_space();
    std::size_t got = 0;
    ERR_clear_error();
    const int result = SSL_read_ex(ssl_, space.data(), space.size(), &got);
    const int error = result == 1 ? SSL_ERROR_NONE : SSL_get_error(ssl_, result);
    if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) break;
    in_pump_ = false;
    if (error != SSL_ERROR_NONE && error != SSL_ERROR_ZERO_RETURN) {
      fail(error);
      return false;
    }
    if (!flush_before_handler()) return false;
    if (error == SSL_ERROR_ZERO_RETURN) {  // the peer's close_notify
      eof_delivered_ = true;
      handler_->on_peer_closed();
      return !replaced(generation);
    }
    handler_->on_data(space.first(got));
    if (replaced(generation)) return false;
    in_pump_ = true;
  }
  in_pump_ = false;
  // Reading may have produced output of its own (an alert, a KeyUpdate's answer, tickets).
  if (!flush_before_handler()) return false;
  if (socket_eof_ && reading_ && !eof_delivered_ && handshake_done_ && SSL_pending(ssl_) == 0 &&
      BIO_ctrl_wpending(network_) == 0) {
    eof_delivered_ = true;
    handler_->on_peer_closed();
    return !replaced(generation);
  }
  return true;
}

bool TlsLayer::flush_before_handler() {
  if (!flush_output()) {
    on_error(errno);
    return false;
  }
  // The handler reads write_pending() as "my output waits" and then waits for on_drained(): when
  // OpenSSL's own output (a KeyUpdate's answer, written while reading) is what still waits, the
  // handler is owed that call all the same, or it waits for it until a timer ends the connection.
  if (write_pending()) owe_drained_ = true;
  return true;
}

bool TlsLayer::flush_output() {
  if (kernel_ == KernelSending::kYes) {
    if (!output_queued()) return true;
    // OpenSSL wrote a record under keys the kernel now has: it cannot be sent.
    char* bytes = nullptr;
    while (BIO_nread(network_, &bytes, INT32_MAX) > 0) {
    }
    failed_ = true;
    last_error_ = "OpenSSL had a record to send (a KeyUpdate's answer or an alert) after the "
                  "kernel took over sending; kernel TLS cannot carry it";
    errno = EPROTO;
    return false;
  }
  while (!socket_->write_pending()) {
    char* bytes = nullptr;
    const int available = BIO_nread0(network_, &bytes);
    if (available <= 0) return true;
    const std::size_t length = std::min<std::size_t>(static_cast<std::size_t>(available),
                                                     socket_->max_write());
    const WriteResult result = socket_->write(std::span<const char>(bytes, length));
    if (result == WriteResult::kFailed) return false;
    if (kernel_ == KernelSending::kWaiting) sent_records_.consume(bytes, length);
    BIO_nread(network_, &bytes, static_cast<int>(length));  // sent, or copied by the socket
  }
  return true;
}

bool TlsLayer::encrypt(const char* data, std::size_t length, std::size_t& taken) {
  taken = 0;
  while (taken < length) {
    std::size_t written = 0;
    ERR_clear_error();
    const int result = SSL_write_ex(ssl_, data + taken, length - taken, &written);
    if (result == 1) {
      taken += written;
      continue;
    }
    const int error = SSL_get_error(ssl_, result);
    if (error != SSL_ERROR_WANT_WRITE) {
      failed_ = true;
      last_error_ = openssl_reason(error);
      errno = EPROTO;
      return false;
    }
    // The pair is full: hand its records to the socket, and stop if the socket holds output.
    if (!flush_output()) return false;
    if (socket_->write_pending()) return true;
  }
  return true;
}

void TlsLayer::keep_unsent(std::span<const iovec> parts, std::size_t skip) {
  if (unsent_ == nullptr) {
    unsent_ = write_blocks_->acquire();
    unsent_len_ = unsent_done_ = 0;
  } else if (unsent_done_ > 0) {
    std::memmove(unsent_, unsent_ + unsent_done_, unsent_len_ - unsent_done_);
    unsent_len_ -= unsent_done_;
    unsent_done_ = 0;
  }
  unsent_len_ += static_cast<std::uint32_t>(copy_after(parts, skip, unsent_ + unsent_len_));
}

WriteResult TlsLayer::write(std::span<const iovec> parts) {
  if (ssl_ == nullptr) {
    errno = EBADF;
    return WriteResult::kFailed;
  }
  const std::size_t total = total_bytes(parts);
  const std::size_t kept = unsent_len_ - unsent_done_;
  if (total > socket_->max_write() - kept) {
    errno = EMSGSIZE;  // a caller bug, as for the socket: at most max_write() in flight
    return WriteResult::kFailed;
  }
  if (total == 0) return write_pending() ? WriteResult::kPending : WriteResult::kDone;
  if (kernel_ == KernelSending::kYes) {  // nothing kept then: the socket keeps what waits
    const WriteResult result = socket_->write(parts);
    if (result == WriteResult::kPending) owe_drained_ = true;
    return result;
  }
  if (kept > 0 || !handshake_done_ || socket_->write_pending()) {
    keep_unsent(parts, 0);  // behind what waits already, in order
    owe_drained_ = true;
    return WriteResult::kPending;
  }
  std::size_t done = 0;
  if (parts.size() > 1 && total <= write_blocks_->block_size()) {
    if (!encrypt_gathered(parts, total, done)) return WriteResult::kFailed;
  } else {
    for (const iovec& part : parts) {
      std::size_t taken = 0;
      if (!encrypt(static_cast<const char*>(part.iov_base), part.iov_len, taken)) {
        return WriteResult::kFailed;
      }
      done += taken;
      if (taken < part.iov_len) break;
    }
    if (done < total) keep_unsent(parts, done);
  }
  if (!flush_output()) return WriteResult::kFailed;
  if (write_pending()) {
    owe_drained_ = true;
    return WriteResult::kPending;
  }
  return WriteResult::kDone;
}

// Several parts (a load generator's pipelined requests) leave as one record rather than one
// each: a record per part costs its own framing, cipher call and, in OpenSSL 3.0, the record
// writer's allocations. The parts are copied into a block of write_blocks_ (at most max_write()
// bytes), encrypted, and what the pair could not take is kept as unsent plaintext.
bool TlsLayer::encrypt_gathered(std::span<const iovec> parts, std::size_t total,
                                std::size_t& done) {
  char* gathered = write_blocks_->acquire();
  std::size_t at = 0;
  for (const iovec& part : parts) {
    std::memcpy(gathered + at, part.iov_base, part.iov_len);
    at += part.iov_len;
  }
  const bool encrypted = encrypt(gathered, total, done);
  if (encrypted && done < total) {
    const iovec rest{gathered, total};
    keep_unsent(std::span<const iovec>(&rest, 1), done);
  }
  write_blocks_->release(gathered);
  return encrypted;
}

bool TlsLayer::encrypt_unsent() {
  while (unsent_done_ < unsent_len_ && !socket_->write_pending()) {
    std::size_t taken = 0;
    if (!encrypt(unsent_ + unsent_done_, unsent_len_ - unsent_done_, taken)) return false;
    unsent_done_ += static_cast<std::uint32_t>(taken);
  }
  if (unsent_done_ == unsent_len_ && unsent_ != nullptr) {
    write_blocks_->release(unsent_);
    unsent_ = nullptr;
    unsent_len_ = unsent_done_ = 0;
  }
  return flush_output();
}

void TlsLayer::on_drained() {
  if (!handshake_done_) {
    // The handshake's own flight went out: more of it may wait in the pair.
    if (!flush_output()) on_error(errno);
    return;
  }
  if (!flush_output() || !start_kernel_sending() || !encrypt_unsent()) {
    on_error(errno);
    return;
  }
  if (write_pending()) return;
  if (fin_after_flush_) {
    fin_after_flush_ = false;
    if (kernel_ == KernelSending::kYes) send_close_notify_by_kernel();
    socket_->shutdown_write();
  }
  if (owe_drained_) {
    owe_drained_ = false;
    handler_->on_drained();
  }
}

void TlsLayer::pause_reading() {
  reading_ = false;
  socket_->pause_reading();
}

void TlsLayer::resume_reading() {
  if (reading_ || ssl_ == nullptr) return;
  reading_ = true;
  const std::uint32_t generation = socket_->generation();
  // Records already received (in OpenSSL or in the pair) first, then the socket.
  if (!in_pump_ && !pump()) return;
  if (replaced(generation) || !reading_) return;
  socket_->resume_reading();
}

bool TlsLayer::shutdown_write() {
  if (ssl_ == nullptr) return false;
  if (kernel_ == KernelSending::kYes) {
    if (write_pending()) {
      fin_after_flush_ = true;  // the close_notify goes after what waits
      return true;
    }
    send_close_notify_by_kernel();
    return socket_->shutdown_write();
  }
  if (handshake_done_) {
    ERR_clear_error();
    SSL_shutdown(ssl_);  // queues our close_notify
    if (!flush_output()) return false;
  }
  if (write_pending()) {
    fin_after_flush_ = true;
    return true;
  }
  return socket_->shutdown_write();
}

TlsSessionInfo TlsLayer::session_info() const {
  TlsSessionInfo info;
  if (ssl_ == nullptr || !handshake_done_) return info;
  info.version = SSL_get_version(ssl_);
  if (const SSL_CIPHER* cipher = SSL_get_current_cipher(ssl_)) info.cipher = SSL_CIPHER_get_name(cipher);
  const int group = SSL_get_negotiated_group(ssl_);
  if (group != 0) {
    const char* name = SSL_group_to_name(ssl_, group);
    if (name != nullptr) info.group = name;
  }
  info.alpn = alpn();
  info.resumed = SSL_session_reused(ssl_) == 1;
  return info;
}

std::string_view TlsLayer::alpn() const {
  const unsigned char* protocol = nullptr;
  unsigned int length = 0;
  SSL_get0_alpn_selected(ssl_, &protocol, &length);
  if (protocol == nullptr) return {};
  return {reinterpret_cast<const char*>(protocol), length};
}

void TlsLayer::on_send_secret(std::span<const unsigned char> secret) {
  if (kernel_ != KernelSending::kWaiting || secret.size() > send_secret_.size()) return;
  std::copy(secret.begin(), secret.end(), send_secret_.begin());
  send_secret_length_ = static_cast<std::uint8_t>(secret.size());
  // The server's Finished is in the pair already: every record after what OpenSSL has written
  // so far goes under this secret.
  sent_records_.mark(sent_records_.offset() + BIO_ctrl_pending(network_));
}

bool TlsLayer::start_kernel_sending() {
  if (kernel_ != KernelSending::kWaiting || !handshake_done_) return true;
  if (socket_->write_pending() || output_queued()) return true;  // once OpenSSL's records left
  kernel_ = KernelSending::kNo;
  const SSL_CIPHER* cipher = SSL_get_current_cipher(ssl_);
  KtlsSendKeys keys;
  const bool ready =
      SSL_version(ssl_) == TLS1_3_VERSION && cipher != nullptr && send_secret_length_ > 0 &&
      sent_records_.marked() && !sent_records_.mark_misplaced() &&
      sent_records_.at_record_boundary() &&
      tls13_send_keys(SSL_CIPHER_get_protocol_id(cipher),
                      std::span<const unsigned char>(send_secret_.data(), send_secret_length_),
                      sent_records_.records_after_mark(), keys);
  OPENSSL_cleanse(send_secret_.data(), send_secret_.size());
  send_secret_length_ = 0;
  if (ready && context_->kernel_tls()->install_send_keys(socket_->fd(), keys)) {
    kernel_ = KernelSending::kYes;
  }
  OPENSSL_cleanse(keys.crypto_info.data(), keys.crypto_info.size());
  context_->count_kernel_tls(kernel_ == KernelSending::kYes);
  if (kernel_ != KernelSending::kYes || unsent_len_ == unsent_done_) return true;
  // Written while the handshake finished: plaintext now, and the socket keeps what it cannot send.
  const iovec rest{unsent_ + unsent_done_, unsent_len_ - unsent_done_};
  const WriteResult result = socket_->write(std::span<const iovec>(&rest, 1));
  write_blocks_->release(unsent_);
  unsent_ = nullptr;
  unsent_len_ = unsent_done_ = 0;
  return result != WriteResult::kFailed;
}

void TlsLayer::send_close_notify_by_kernel() {
  static constexpr unsigned char kCloseNotify[] = {1, 0};  // warning, close_notify
  static constexpr unsigned char kAlert = 21;
  context_->kernel_tls()->send_record(socket_->fd(), kAlert, kCloseNotify);
  SSL_set_shutdown(ssl_, SSL_get_shutdown(ssl_) | SSL_SENT_SHUTDOWN);
}

bool TlsLayer::resumed() const { return ssl_ != nullptr && SSL_session_reused(ssl_) == 1; }

}  // namespace ringside::core
