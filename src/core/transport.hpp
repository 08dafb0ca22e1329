// The transport a protocol's connection talks to (core/transport_handler.hpp is the contract): a
// socket (EpollTransport, the epoll backend) and, for a TLS connection, a TlsLayer between the
// socket and the handler (core/tls_layer.hpp). Plain connections never touch OpenSSL: the layer is
// made on a connection's first TLS use and kept for the next (pooled connections reuse it).
//
//   transport.open(loop, fd, handler, blocks);               // plain
//   transport.open_tls(loop, fd, handler, blocks, server);   // TLS, server side
//   transport.connect(loop, addr, len, handler, blocks, &client, resume);  // TLS, client side
#pragma once

#include <sys/socket.h>
#include <sys/uio.h>

#include <cstdint>
#include <memory>
#include <span>

#include "core/block_pool.hpp"
#include "core/epoll_transport.hpp"
#include "core/event_loop.hpp"
#include "core/tls_layer.hpp"
#include "core/transport_handler.hpp"

namespace ringside::core {

class TlsContext;

class Transport {
 public:
  Transport() = default;
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;
  ~Transport() { close(); }

  // Takes ownership of a connected, non-blocking socket (see EpollTransport::open).
  [[nodiscard]] bool open(EventLoop& loop, int fd, TransportHandler& handler,
                          BlockPool& write_blocks);
  // The same, as the server side of a TLS connection: the handler hears plaintext once the
  // handshake is done. False (errno set, the socket closed) when the loop or OpenSSL refuses.
  [[nodiscard]] bool open_tls(EventLoop& loop, int fd, TransportHandler& handler,
                              BlockPool& write_blocks, TlsContext& tls);
  // Starts connecting (see EpollTransport::connect). With `tls` (a client context), the handler's
  // on_connected() comes after the TLS handshake, and the result is never 0: EINPROGRESS, or the
  // errno it failed with. `resume`: offer the context's last session.
  [[nodiscard]] int connect(EventLoop& loop, const sockaddr* address, socklen_t length,
                            TransportHandler& handler, BlockPool& write_blocks,
                            TlsContext* tls = nullptr, bool resume = false);

  void pause_reading() { tls_active_ ? tls_->pause_reading() : socket_.pause_reading(); }
  void resume_reading() { tls_active_ ? tls_->resume_reading() : socket_.resume_reading(); }
  [[nodiscard]] WriteResult write(std::span<const char> bytes) {
    iovec part{const_cast<char*>(bytes.data()), bytes.size()};
    return write(std::span<const iovec>(&part, 1));
  }
  [[nodiscard]] WriteResult write(std::span<const iovec> parts) {
    return tls_active_ ? tls_->write(parts) : socket_.write(parts);
  }
  bool shutdown_write() { return tls_active_ ? tls_->shutdown_write() : socket_.shutdown_write(); }
  void close();

  [[nodiscard]] bool is_open() const { return socket_.is_open(); }
  [[nodiscard]] int fd() const { return socket_.fd(); }
  [[nodiscard]] bool write_pending() const {
    return tls_active_ ? tls_->write_pending() : socket_.write_pending();
  }
  [[nodiscard]] std::size_t max_write() const { return socket_.max_write(); }
  [[nodiscard]] std::uint32_t generation() const { return socket_.generation(); }
  // The TLS layer of a TLS connection (session details, handshake start), else nullptr.
  [[nodiscard]] const TlsLayer* tls() const { return tls_active_ ? tls_.get() : nullptr; }

 private:
  bool begin_tls(TransportHandler& handler, BlockPool& write_blocks, TlsContext& tls, bool resume);

  EpollTransport socket_;
  std::unique_ptr<TlsLayer> tls_;
  bool tls_active_ = false;
};

}  // namespace ringside::core
