#include "core/epoll_transport.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/iovec_bytes.hpp"
#include "core/socket.hpp"

namespace ringside::core {
namespace {

constexpr IoEvents kEverything = kReadable | kWritable | kEdgeTriggered;

bool would_block(int error) { return error == EAGAIN || error == EWOULDBLOCK; }

}  // namespace

void EpollTransport::adopt(EventLoop& loop, int fd, TransportHandler& handler,
                           BlockPool& write_blocks) {
  close();
  loop_ = &loop;
  handler_ = &handler;
  write_blocks_ = &write_blocks;
  fd_ = fd;
  ++generation_;
  reading_ = true;
}

bool EpollTransport::open(EventLoop& loop, int fd, TransportHandler& handler,
                          BlockPool& write_blocks) {
  adopt(loop, fd, handler, write_blocks);
  if (loop.watch(fd, kEverything, this)) return true;
  const int error = errno;
  close();
  errno = error;
  return false;
}

int EpollTransport::connect(EventLoop& loop, const sockaddr* address, socklen_t length,
                            TransportHandler& handler, BlockPool& write_blocks) {
  close();
  int fd = ::socket(address->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  set_tcp_nodelay(fd);
  const int rc = ::connect(fd, address, length);
  const int error = rc == 0 ? 0 : errno;
  const bool in_progress = error == EINPROGRESS || error == EINTR;
  if (rc != 0 && !in_progress) {
    ::close(fd);
    return error;
  }
  // Registered after connect(): epoll reports an unconnected socket as hung up.
  adopt(loop, fd, handler, write_blocks);
  connecting_ = rc != 0;
  if (!loop.watch(fd, kEverything, this)) {
    const int watch_error = errno;
    close();
    return watch_error;
  }
  return rc == 0 ? 0 : EINPROGRESS;
}

void EpollTransport::on_io(IoEvents events) {
  if (fd_ < 0) return;
  const std::uint32_t generation = generation_;
  if (connecting_) {
    finish_connect((events & kError) != 0);
    if (replaced(generation) || connecting_) return;
  }
  if (events & (kReadable | kPeerClosed)) may_read_ = true;
  if (events & kPeerClosed) hang_up_seen_ = true;
  dispatching_ = true;
  if (pending_len_ > 0 && (events & (kWritable | kError))) {
    flush_pending();
    if (replaced(generation)) return;
  }
  if (reading_ && may_read_) {
    read_available();
    if (replaced(generation)) return;
  }
  dispatching_ = false;
  if (events & kError) {
    // An error nothing above ran into (reading paused, nothing to send): report it now.
    int error = 0;
    socklen_t size = sizeof error;
    if (getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &size) == 0 && error != 0) {
      handler_->on_error(error);
    }
  }
}

void EpollTransport::finish_connect(bool has_error_event) {
  int error = 0;
  socklen_t size = sizeof error;
  if (getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &size) != 0) error = errno;
  if (error == 0) {
    sockaddr_storage peer{};
    socklen_t peer_length = sizeof peer;
    if (getpeername(fd_, reinterpret_cast<sockaddr*>(&peer), &peer_length) != 0) {
      if (!has_error_event) return;  // not connected yet: a later edge says when
      error = ENOTCONN;
    }
  }
  connecting_ = false;
  if (error != 0) close();
  handler_->on_connected(error);
}

void EpollTransport::resume_reading() {
  if (reading_ || fd_ < 0) return;
  reading_ = true;
  if (dispatching_ || !may_read_) return;  // on_io reads next, or an edge will come
  const std::uint32_t generation = generation_;
  dispatching_ = true;
  read_available();
  if (!replaced(generation)) dispatching_ = false;
}

void EpollTransport::read_available() {
  const std::uint32_t generation = generation_;
  std::size_t taken = 0;
  while (reading_ && may_read_) {
    // Over the budget: the edge is asked for again and the rest waits for the next turn. Should
    // the loop refuse, reading goes on: an edge that never comes would lose the bytes.
    if (taken >= kReadBudget && loop_->modify(fd_, kEverything, this)) return;
    std::span<char> space = handler_->read_space();
    ssize_t n = ::recv(fd_, space.data(), space.size(), 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (would_block(errno)) {
        may_read_ = false;
        return;
      }
      handler_->on_error(errno);
      return;
    }
    if (n == 0) {
      may_read_ = false;
      if (!eof_delivered_) {
        eof_delivered_ = true;
        handler_->on_peer_closed();
      }
      return;
    }
    // A short read drained the socket and the next edge brings more; but a FIN that came with
    // these bytes raises no further edge, so once a hang-up was announced read on to the EOF.
    if (static_cast<std::size_t>(n) < space.size() && !hang_up_seen_) may_read_ = false;
    taken += static_cast<std::size_t>(n);
    handler_->on_data(space.first(static_cast<std::size_t>(n)));
    if (replaced(generation)) return;
  }
}

WriteResult EpollTransport::write(std::span<const char> bytes) {
  iovec part{const_cast<char*>(bytes.data()), bytes.size()};
  return write(std::span<const iovec>(&part, 1));
}

WriteResult EpollTransport::write(std::span<const iovec> parts) {
  if (fd_ < 0 || connecting_) {
    errno = fd_ < 0 ? EBADF : ENOTCONN;
    return WriteResult::kFailed;
  }
  const std::size_t total = total_bytes(parts);
  if (total == 0) return pending_len_ > 0 ? WriteResult::kPending : WriteResult::kDone;
  if (total > max_write() - (pending_len_ - pending_sent_)) {
    errno = EMSGSIZE;  // a caller bug: the contract says at most max_write() in flight
    return WriteResult::kFailed;
  }
  if (pending_len_ > 0) {  // behind what waits already: keep all of it, in order
    keep_unsent(parts, 0);
    return WriteResult::kPending;
  }
  ssize_t n;
  if (parts.size() == 1) {
    do {
      n = ::send(fd_, parts[0].iov_base, parts[0].iov_len, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
  } else {
    msghdr message{};
    message.msg_iov = const_cast<iovec*>(parts.data());
    message.msg_iovlen = parts.size();
    do {
      n = ::sendmsg(fd_, &message, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
  }
  if (n < 0) {
    if (!would_block(errno)) return WriteResult::kFailed;
    n = 0;
  }
  if (static_cast<std::size_t>(n) == total) return WriteResult::kDone;
  keep_unsent(parts, static_cast<std::size_t>(n));
  return WriteResult::kPending;
}

void EpollTransport::keep_unsent(std::span<const iovec> parts, std::size_t sent) {
  if (pending_ == nullptr) {
    pending_ = write_blocks_->acquire();
    pending_len_ = pending_sent_ = 0;
  } else if (pending_sent_ > 0) {
    // Move what is still unsent to the front, so the block's room is all at the end.
    std::memmove(pending_, pending_ + pending_sent_, pending_len_ - pending_sent_);
    pending_len_ -= pending_sent_;
    pending_sent_ = 0;
  }
  pending_len_ += static_cast<std::uint32_t>(copy_after(parts, sent, pending_ + pending_len_));
}

void EpollTransport::flush_pending() {
  while (pending_sent_ < pending_len_) {
    ssize_t n = ::send(fd_, pending_ + pending_sent_, pending_len_ - pending_sent_, MSG_NOSIGNAL);
    if (n > 0) {
      pending_sent_ += static_cast<std::uint32_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && would_block(errno)) {
      return;  // the next writable edge resumes it
    } else {
      handler_->on_error(n < 0 ? errno : EPIPE);
      return;
    }
  }
  write_blocks_->release(pending_);
  pending_ = nullptr;
  pending_len_ = pending_sent_ = 0;
  handler_->on_drained();
}

bool EpollTransport::shutdown_write() { return fd_ >= 0 && ::shutdown(fd_, SHUT_WR) == 0; }

void EpollTransport::close() {
  if (fd_ >= 0) {
    ::close(fd_);  // also takes it out of the epoll set
    fd_ = -1;
    ++generation_;
  }
  if (pending_ != nullptr) write_blocks_->release(pending_);
  pending_ = nullptr;
  pending_len_ = pending_sent_ = 0;
  reading_ = connecting_ = may_read_ = hang_up_seen_ = eof_delivered_ = dispatching_ = false;
}

}  // namespace ringside::core
