// The epoll backend of the transport seam (see core/transport_handler.hpp for the contract).
//
// One object per connection, embedded in it (no allocation to open one). The socket is
// registered once, edge-triggered, for input, output and peer hang-up, and never modified:
// - a read shorter than the space offered means the socket is drained, so a request costs one
//   recv; but when the peer's hang-up was reported with the data, reading goes on to the EOF,
//   since no further edge would announce it;
// - one connection is read for at most kReadBudget bytes a turn: a peer that keeps the socket
//   full would otherwise be read for as long as it sends, and no other socket of the loop would
//   be served (found with a flood of valid HTTP/2 frames, torture attack 14). Past the budget the
//   registration is re-armed (EPOLL_CTL_MOD on a still readable socket queues a new edge), so the
//   rest is read in a later turn, after the sockets that were ready meanwhile;
// - while reading is paused (the handler is waiting for its output to drain) readiness is
//   remembered and served on resume_reading();
// - write() sends at once; what the kernel does not take is copied into one block borrowed from
//   `write_blocks` and sent on writable edges, so the caller's buffer is free when write() returns.
#pragma once

#include <sys/socket.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "core/block_pool.hpp"
#include "core/event_loop.hpp"
#include "core/transport_handler.hpp"

namespace ringside::core {

class EpollTransport final : private IoHandler {
 public:
  // What one connection may be read for in one turn before the loop's other sockets are served.
  static constexpr std::size_t kReadBudget = 64 * 1024;

  EpollTransport() = default;
  EpollTransport(const EpollTransport&) = delete;
  EpollTransport& operator=(const EpollTransport&) = delete;
  ~EpollTransport() { close(); }

  // Takes ownership of a connected, non-blocking socket and starts watching it, reading on.
  // False (errno set, the socket closed) when the loop refuses it.
  [[nodiscard]] bool open(EventLoop& loop, int fd, TransportHandler& handler,
                          BlockPool& write_blocks);

  // Opens a non-blocking TCP socket (TCP_NODELAY) to `address` and starts connecting. Returns 0
  // when connected already, EINPROGRESS when on_connected() will tell, or the errno it failed
  // with (nothing is left open then).
  [[nodiscard]] int connect(EventLoop& loop, const sockaddr* address, socklen_t length,
                            TransportHandler& handler, BlockPool& write_blocks);

  // No on_data / on_peer_closed until resume_reading(), which delivers what arrived meanwhile.
  void pause_reading() { reading_ = false; }
  void resume_reading();

  [[nodiscard]] WriteResult write(std::span<const char> bytes);
  // At most max_write() bytes in all; parts are sent with one system call.
  [[nodiscard]] WriteResult write(std::span<const iovec> parts);

  // Sends our FIN (after anything pending; the caller waits for on_drained first). False on error.
  bool shutdown_write();
  // Closes the socket, drops pending output, gives back its block; safe to call twice.
  void close();

  [[nodiscard]] bool is_open() const { return fd_ >= 0; }
  [[nodiscard]] int fd() const { return fd_; }
  [[nodiscard]] bool write_pending() const { return pending_len_ > 0; }
  [[nodiscard]] bool reading() const { return reading_; }
  // The most one write() may carry: what one block can keep.
  [[nodiscard]] std::size_t max_write() const { return write_blocks_->block_size(); }
  // Changes whenever a socket is closed or opened: how callers tell "still the same socket".
  [[nodiscard]] std::uint32_t generation() const { return generation_; }

 private:
  void on_io(IoEvents events) override;
  void adopt(EventLoop& loop, int fd, TransportHandler& handler, BlockPool& write_blocks);
  void finish_connect(bool has_error_event);
  void read_available();
  void flush_pending();
  void keep_unsent(std::span<const iovec> parts, std::size_t sent);
  // True when the callback closed or replaced the socket: the caller must return at once.
  [[nodiscard]] bool replaced(std::uint32_t generation) const { return generation != generation_; }

  EventLoop* loop_ = nullptr;
  TransportHandler* handler_ = nullptr;
  BlockPool* write_blocks_ = nullptr;
  char* pending_ = nullptr;  // output the kernel has not taken yet
  std::uint32_t pending_len_ = 0;
  std::uint32_t pending_sent_ = 0;
  std::uint32_t generation_ = 0;
  int fd_ = -1;
  bool reading_ = false;
  bool connecting_ = false;
  bool may_read_ = false;     // readiness reported and not yet read to EAGAIN
  bool hang_up_seen_ = false;  // the peer's FIN was announced: read on to the EOF
  bool eof_delivered_ = false;
  bool dispatching_ = false;  // inside on_io: a resume_reading() is served by on_io itself
};

}  // namespace ringside::core
