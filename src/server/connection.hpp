// One client connection: reads requests, answers them in order, and closes cleanly. A connection
// that opens with HTTP/2's preface (h2c), or agreed on "h2" by ALPN, becomes an H2Connection's
// (server/h2_connection.hpp) and forwards it every event.
//
// Socket I/O goes through the worker's transport (core/transport.hpp): the connection hears
// "data arrived", "the peer closed", "your output drained" and "error", and hands whole batches of
// responses to write(). Memory per idle connection is this object alone (about 200 bytes): bytes
// are read into the worker's shared read buffer and responses gathered in its shared batch
// buffer. Only a partial request borrows an input block, and output the kernel would not take at
// once an output block (kept by the transport), until done. The responses produced by one read
// go out in one write.
#pragma once

#include <cstdint>
#include <span>

#include "core/timer_list.hpp"
#include "core/transport.hpp"
#include "http/chunked_decoder.hpp"
#include "http/out_buffer.hpp"
#include "http/request_error.hpp"
#include "http/request_parser.hpp"
#include "server/h2_connection.hpp"
#include "server/reply.hpp"
#include "server/worker_context.hpp"

namespace ringside::server {

// The connection is its own timer node: the worker turns an expired node back into the
// connection with static_cast, so arming needs no pointer and no allocation.
class Connection final : public core::TransportHandler,
                         public core::TimerNode,
                         private ReplyQueue,
                         private H2Host {
 public:
  // Takes ownership of the accepted socket `fd` and registers it with the worker's loop. When the
  // loop refuses, the connection closes at once (and goes back to its owner).
  // `tls`: the server's TLS context for a --tls-port connection, else nullptr.
  void open(int fd, WorkerContext& context, core::TlsContext* tls = nullptr);
  void on_timeout();
  void close() override;

  [[nodiscard]] bool is_open() const { return transport_.is_open(); }
  // Between requests, with nothing buffered in either direction.
  [[nodiscard]] bool is_idle() const {
    return phase_ == Phase::kHead && input_len_ == 0 && !transport_.write_pending() && queue_.empty();
  }

  Connection* next_free = nullptr;

 private:
  enum class Phase : std::uint8_t { kHead, kBody, kLingering };
  // Requests of one pipelining connection that may wait for their answers at once.
  static constexpr std::uint8_t kMaxQueued = 16;

  // core::TransportHandler
  std::span<char> read_space() override;
  void on_data(std::span<char> bytes) override;
  void on_peer_closed() override;
  void on_drained() override;
  void on_error(int error) override;

  // ReplyQueue: parked requests, answered in request order.
  PendingReply& park() override;
  void on_reply_ready(PendingReply& reply) override;
  bool drain_ready(http::OutBuffer& batch);
  void send_answered_and_continue();
  void drop_queue();

  // H2Host
  void arm_idle(bool restart) override { arm(TimerKind::kIdle, restart); }
  void end_gracefully() override;
  void close_h2();

  bool start_h2_if_preface(std::span<const char> input);
  void process_input(std::span<const char> input);
  std::size_t process(std::span<const char> input, http::OutBuffer& batch);
  bool start_request(const http::Request& request, bool body_waiting, http::OutBuffer& batch);
  bool consume_body(std::span<const char> input, std::size_t& pos, http::OutBuffer& batch);
  void write_reply(http::OutBuffer& batch);
  void write_error(http::RequestError error, http::OutBuffer& batch);
  bool send(http::OutBuffer& batch);
  void keep_input(std::span<const char> rest);
  void after_io();
  void start_lingering_close();
  void arm(TimerKind kind, bool restart);
  [[nodiscard]] bool keep_alive() const;

  WorkerContext* ctx_ = nullptr;
  core::Transport transport_;
  char* input_ = nullptr;  // block holding the unprocessed tail of the input
  std::uint32_t input_len_ = 0;
  // How far the search for the end of a partial head got, so a trickled head is scanned once.
  http::HeadScan head_scan_;
  std::uint16_t linger_reads_ = 0;
  Phase phase_ = Phase::kHead;
  bool first_bytes_ = true;     // nothing processed yet: an HTTP/2 preface may come
  H2Connection* h2_ = nullptr;  // speaking HTTP/2: every event goes there
  TimerKind timer_kind_ = TimerKind::kNone;
  bool close_after_output_ = false;  // answered with "Connection: close"
  bool close_after_queue_ = false;   // a parked request ends the connection: read no further
  bool processing_ = false;          // inside process(): a reply answered now is drained there
  PendingReply::Queue queue_;        // parked requests, and answers waiting behind them
  bool peer_closed_ = false;
  // The request being answered once its body has been read.
  bool reply_keep_alive_ = true;
  bool reply_head_only_ = false;
  bool reply_http10_ = false;
  Reply reply_;
  std::uint64_t body_remaining_ = 0;
  bool body_chunked_ = false;
  http::ChunkedDecoder chunked_;
};

}  // namespace ringside::server
