// One client connection: reads requests, answers them in order, and closes cleanly.
//
// Memory per idle connection is this object alone (about 200 bytes): bytes are read into the
// worker's shared read buffer and responses gathered in its shared batch buffer. Only a partial
// request, or a response the kernel would not take at once, borrows a block from the worker's
// pools until it is done. All responses produced by one read go out in one send().
#pragma once

#include <cstdint>
#include <span>

#include "core/event_loop.hpp"
#include "core/timer_list.hpp"
#include "http/chunked_decoder.hpp"
#include "http/out_buffer.hpp"
#include "http/request_error.hpp"
#include "server/reply.hpp"
#include "server/worker_context.hpp"

namespace ringside::server {

// The connection is its own timer node: the worker turns an expired node back into the
// connection with static_cast, so arming needs no pointer and no allocation.
class Connection final : public core::IoHandler, public core::TimerNode {
 public:
  // Takes ownership of `fd`; the caller registers it with the loop afterwards.
  void open(int fd, WorkerContext& context);
  void on_io(core::IoEvents events) override;
  void on_timeout();
  void begin_drain();
  void close();

  [[nodiscard]] bool is_open() const { return fd_ >= 0; }
  [[nodiscard]] int fd() const { return fd_; }
  // Between requests, with nothing buffered in either direction.
  [[nodiscard]] bool is_idle() const {
    return phase_ == Phase::kHead && input_len_ == 0 && output_len_ == 0;
  }

  Connection* next_free = nullptr;

 private:
  enum class Phase : std::uint8_t { kHead, kBody, kLingering };

  void read_and_process();
  std::size_t process(std::span<const char> input, http::OutBuffer& batch);
  bool start_request(const http::Request& request, bool body_waiting, http::OutBuffer& batch);
  bool consume_body(std::span<const char> input, std::size_t& pos, http::OutBuffer& batch);
  void write_reply(http::OutBuffer& batch);
  void write_error(http::RequestError error, http::OutBuffer& batch);
  bool flush(http::OutBuffer& batch);
  bool flush_pending_output();
  void keep_input(std::span<const char> rest);
  void after_io();
  void start_lingering_close();
  void discard_lingering_input();
  void arm(TimerKind kind, bool restart);
  [[nodiscard]] bool keep_alive() const;

  WorkerContext* ctx_ = nullptr;
  int fd_ = -1;
  char* input_ = nullptr;  // block holding the unprocessed tail of the input
  std::uint32_t input_len_ = 0;
  char* output_ = nullptr;  // block holding output the kernel has not taken yet
  std::uint32_t output_len_ = 0;
  std::uint32_t output_sent_ = 0;
  Phase phase_ = Phase::kHead;
  TimerKind timer_kind_ = TimerKind::kNone;
  bool close_after_output_ = false;  // answered with "Connection: close"
  bool peer_closed_ = false;
  bool socket_may_have_input_ = false;  // the last read filled the buffer, or was not done
  bool input_unprocessed_ = false;      // input_ may hold complete requests (after a stall)
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
