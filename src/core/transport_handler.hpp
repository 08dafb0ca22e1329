// The transport seam: what protocol code (the server's Connection, the load generator's
// ClientConnection) hears from a byte stream, and the result of asking it to write. Protocol code
// never calls recv/send itself; a transport (core/transport.hpp picks the backend) does, and
// reports back through these callbacks on the loop's thread.
//
// Contract, for every backend:
// - Reads: while reading is on, the transport asks read_space() where the next bytes may go and
//   hands them over with on_data(). After the peer's FIN, and after every byte sent before it has
//   been delivered, on_peer_closed() is called once. A FIN that arrives together with the last
//   bytes is reported too (edge-triggered readiness cannot hide it).
// - Writes: write() takes the bytes at once. kDone: the kernel has them all. kPending: the
//   transport keeps what the kernel did not take (in a block of its own, so the caller's memory
//   may be reused at once) and sends it as the socket drains; on_drained() says when it is all
//   gone. kFailed: the socket is broken (errno says why); nothing more will be sent.
// - Errors on a socket the handler is not writing to come as on_error(errno).
// - Any callback may close the transport, or close and reopen it (a reconnect): the transport
//   checks its generation after each callback and stops touching the old socket.
#pragma once

#include <cstdint>
#include <span>

namespace ringside::core {

enum class WriteResult : std::uint8_t { kDone, kPending, kFailed };

class TransportHandler {
 public:
  // Where the next read may put its bytes; never empty while reading is on.
  virtual std::span<char> read_space() = 0;
  // `bytes` arrived: a prefix of the span the last read_space() returned.
  virtual void on_data(std::span<char> bytes) = 0;
  // The peer sent its FIN: no byte will follow. Called once, after the last on_data.
  virtual void on_peer_closed() = 0;
  // Every byte a write() kept has reached the kernel.
  virtual void on_drained() = 0;
  // The socket failed (a reset, ...). The handler closes the transport.
  virtual void on_error(int error) = 0;
  // A connect() that returned EINPROGRESS finished: 0, or the errno it failed with.
  virtual void on_connected(int error) { (void)error; }

 protected:
  ~TransportHandler() = default;
};

}  // namespace ringside::core
