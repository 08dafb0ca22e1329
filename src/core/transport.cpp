#include "core/transport.hpp"

#include <unistd.h>

#include <cerrno>

#include "core/tls_context.hpp"

namespace ringside::core {

bool Transport::begin_tls(TransportHandler& handler, BlockPool& write_blocks, TlsContext& tls,
                          bool resume) {
  if (!tls_ || tls_->context() != &tls) tls_ = std::make_unique<TlsLayer>(tls);
  if (!tls_->begin(socket_, handler, write_blocks, resume)) {
    errno = ENOMEM;
    return false;
  }
  tls_active_ = true;
  return true;
}

bool Transport::open(EventLoop& loop, int fd, TransportHandler& handler, BlockPool& write_blocks) {
  close();
  return socket_.open(loop, fd, handler, write_blocks);
}

bool Transport::open_tls(EventLoop& loop, int fd, TransportHandler& handler,
                         BlockPool& write_blocks, TlsContext& tls) {
  close();
  if (!begin_tls(handler, write_blocks, tls, false)) {
    ::close(fd);
    return false;
  }
  if (socket_.open(loop, fd, tls_->socket_handler(), write_blocks)) return true;
  const int error = errno;
  close();
  errno = error;
  return false;
}

int Transport::connect(EventLoop& loop, const sockaddr* address, socklen_t length,
                       TransportHandler& handler, BlockPool& write_blocks, TlsContext* tls,
                       bool resume) {
  close();
  if (tls == nullptr) return socket_.connect(loop, address, length, handler, write_blocks);
  if (!begin_tls(handler, write_blocks, *tls, resume)) return ENOMEM;
  const int result = socket_.connect(loop, address, length, tls_->socket_handler(), write_blocks);
  if (result == 0) {
    // Sends the ClientHello now; the handshake's end (or a failure) reaches the handler later.
    tls_->tcp_connected();
    return EINPROGRESS;
  }
  if (result != EINPROGRESS) close();
  return result;
}

void Transport::close() {
  if (tls_active_) tls_->say_goodbye();
  socket_.close();
  if (tls_active_) tls_->end();
  tls_active_ = false;
}

}  // namespace ringside::core
