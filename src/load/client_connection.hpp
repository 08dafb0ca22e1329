// One client connection of the load generator: connect (for https://, through the worker's TLS
// context, offering its last session when --tls-resume says so), write requests (up to
// --pipeline in flight), parse responses, record each one, reconnect after a close or an error.
//
// It is a state machine driven by the worker's loop through its transport (core/transport.hpp:
// connected, data arrived, peer closed, output drained, error), on_timer (its request or connect
// timeout, or its reconnect back-off) and on_due (a scheduled -R send time arrived). What it
// shares with the worker's other connections (loop, timers, buffers, Stats, the claim on the next
// request) is the worker's context (load/worker_context.hpp). Requests are handed to the
// transport straight from the worker's serialised targets, several in one write when pipelining;
// responses are parsed in the worker's read buffer, and only a partial response head is copied
// aside.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "core/clock.hpp"
#include "core/timer_list.hpp"
#include "core/transport.hpp"
#include "http/response_parser.hpp"
#include "load/load_config.hpp"
#include "load/load_connection.hpp"
#include "load/stats.hpp"
#include "load/worker_context.hpp"

namespace ringside::load {

class ClientConnection final : public LoadConnection {
 public:
  // -R: the first send is due at start + offset, and every connection_count / rate after.
  // (ScheduledSender::restart_schedule, for --start-at, begins again at start + that offset.)
  void init(WorkerContext& context, core::TimePoint start, core::Duration schedule_offset);
  void start() override;
  void on_timer() override;
  void on_due() override;
  void abandon() override;

  [[nodiscard]] unsigned in_flight() const { return count_; }

 private:
  enum class State : std::uint8_t { kClosed, kConnecting, kOpen, kBackoff };
  enum class TimerUse : std::uint8_t { kNone, kTimeout, kBackoff };

  struct Pending {
    core::TimePoint intended;  // when the request should have gone out (-R), else when claimed
    core::TimePoint written;   // when its first byte went to the kernel
    std::uint32_t target;
    bool measured;  // claimed after the warm-up
    bool answered_first_byte;
  };

  // core::TransportHandler
  std::span<char> read_space() override;
  void on_data(std::span<char> bytes) override;
  void on_peer_closed() override;
  void on_drained() override;
  void on_error(int error) override;
  void on_connected(int error) override;

  void connect_now(core::TimePoint now);
  void opened(core::TimePoint now);
  // With TLS, when this connection's TCP connect completed (its handshake's start); else, or
  // before it, a time before connect_started_.
  [[nodiscard]] core::TimePoint tcp_connected_at() const;
  void fill_pipeline(core::TimePoint now);
  bool write_unsent(core::TimePoint now);
  std::size_t process(std::span<const char> input, core::TimePoint now);
  void finish_response(core::TimePoint now);
  void fail(ErrorClass error, core::TimePoint now);
  void close_socket();
  void reconnect(core::TimePoint now, bool back_off);
  void arm_timeout(core::TimePoint now);
  Pending& front() { return pending_[head_]; }

  WorkerContext* context_ = nullptr;
  core::Transport transport_;
  State state_ = State::kClosed;
  TimerUse timer_use_ = TimerUse::kNone;
  bool reading_ = false;  // inside on_data: new requests wait for the read's last answer
  core::TimePoint connect_started_{};
  std::array<Pending, kMaxPipeline> pending_{};
  unsigned head_ = 0;        // oldest request in flight
  unsigned count_ = 0;       // requests in flight (claimed, written or not)
  unsigned unwritten_ = 0;   // the newest `unwritten_` of them are not fully written
  std::size_t write_offset_ = 0;  // bytes of the first unwritten request already handed over
  bool in_body_ = false;
  bool close_after_response_ = false;
  std::uint16_t status_ = 0;
  http::ResponseBodyReader body_;
  char* partial_ = nullptr;  // a response head cut by a read
  std::uint32_t partial_len_ = 0;
};

}  // namespace ringside::load
