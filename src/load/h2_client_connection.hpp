// One HTTP/2 client connection of the load generator (--http2): h2c with prior knowledge on
// http:// URLs, h2 by ALPN on https:// ones, as h2load does. Up to --streams requests in flight
// as concurrent streams (fewer when the server's SETTINGS_MAX_CONCURRENT_STREAMS says so; one
// until its first SETTINGS arrives), each timed on its own, so -R's coordinated-omission
// correction holds per stream.
//
// Each request's HEADERS frame was encoded once for the run (Target::h2_headers); a new stream
// copies it into the connection's output block and patches the stream id. Everything a loop turn
// produces (the client's start, new streams' HEADERS, the reader's SETTINGS/PING ACKs and
// WINDOW_UPDATEs) goes out in one write. Responses are read by http::H2ResponseReader; a frame cut
// by a read waits in a block of the worker's frame pool. Streams live in a table indexed by
// (stream id / 2) mod its size, at least twice --streams; a new stream skips the ids whose slot is
// taken (ids must only grow, RFC 9113 section 5.1.1), so finding a stream is one lookup. Nothing
// is allocated per request.
//
// A request body (-b) follows its HEADERS in DATA frames as the server's flow-control windows
// (the connection's and the stream's) and its largest frame size allow; the rest waits for its
// WINDOW_UPDATEs.
//
// Failures: a protocol error, a timeout (no stream finished within --timeout) or a lost socket
// fail every stream in flight and reconnect, as HTTP/1.1's pipeline does; a RST_STREAM fails
// its stream alone; after a GOAWAY the streams it did not take fail as closed, the ones it did
// finish, and the connection is opened again. A connection that nears the last stream id is
// retired the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/clock.hpp"
#include "core/transport.hpp"
#include "http/h2_response_reader.hpp"
#include "http/out_buffer.hpp"
#include "load/load_connection.hpp"
#include "load/stats.hpp"
#include "load/worker_context.hpp"

namespace ringside::load {

class H2ClientConnection final : public LoadConnection, private http::H2ResponseListener {
 public:
  // As ClientConnection::init: -R's first send is due at start + schedule_offset.
  void init(WorkerContext& context, core::TimePoint start, core::Duration schedule_offset);
  void start() override;
  void on_timer() override;
  void on_due() override;
  void abandon() override;

 private:
  enum class State : std::uint8_t { kClosed, kConnecting, kOpen, kBackoff };
  enum class TimerUse : std::uint8_t { kNone, kTimeout, kBackoff };

  struct Stream {
    std::uint32_t id = 0;  // 0: a free slot
    std::uint32_t target = 0;
    core::TimePoint intended{};  // when it should have been sent (-R), else when claimed
    core::TimePoint written{};   // when its HEADERS went to the kernel
    std::uint16_t status = 0;
    bool measured = false;  // claimed after the warm-up
    std::uint32_t body_sent = 0;  // of the request's body (-b), in DATA frames so far
    std::int64_t window = 0;      // what the server lets this stream send now
  };

  // core::TransportHandler
  std::span<char> read_space() override;
  void on_data(std::span<char> bytes) override;
  void on_peer_closed() override;
  void on_drained() override;
  void on_error(int error) override;
  void on_connected(int error) override;

  // http::H2ResponseListener, called while a read is processed (now_ is its time)
  void on_status(std::uint32_t stream_id, int status) override;
  void on_stream_end(std::uint32_t stream_id) override;
  void on_stream_reset(std::uint32_t stream_id, http::H2Error error) override;
  void on_goaway(std::uint32_t last_stream_id, http::H2Error error) override;
  void on_window_update(std::uint32_t stream_id, std::uint32_t increment) override;

  void connect_now(core::TimePoint now);
  void opened(core::TimePoint now);
  // With TLS, whether the TCP connect was done and the handshake under way (a failure then is
  // the handshake's, whatever the errno).
  [[nodiscard]] bool tls_handshaking() const;
  [[nodiscard]] unsigned stream_limit() const;
  void open_streams(core::TimePoint now);
  bool send_bodies();
  bool send_body(Stream& stream);
  void follow_initial_window();
  bool flush(core::TimePoint now);
  std::size_t process(std::span<const char> input, core::TimePoint now);
  Stream* find(std::uint32_t stream_id);
  void end_stream(Stream& stream);
  void finish_stream(Stream& stream, core::TimePoint now);
  void fail(ErrorClass error, core::TimePoint now);
  void clear_streams();
  void close_socket();
  void reconnect(core::TimePoint now, bool back_off);
  void arm_timeout(core::TimePoint now);

  WorkerContext* context_ = nullptr;
  core::Transport transport_;
  std::optional<http::H2ResponseReader> reader_;  // made anew per connection (HPACK state)
  State state_ = State::kClosed;
  TimerUse timer_use_ = TimerUse::kNone;
  core::TimePoint connect_started_{};
  core::TimePoint now_{};
  std::vector<Stream> streams_;  // a power of two in size
  unsigned open_ = 0;            // streams in flight
  std::uint32_t next_stream_id_ = 1;
  bool winding_down_ = false;  // GOAWAY received, or the stream ids are nearly spent
  // Request bodies (-b): the connection's send window, the server's initial stream window as last
  // applied to the open streams, and how many streams still have body to send.
  std::int64_t connection_window_ = 65535;
  std::uint32_t initial_window_ = 65535;
  unsigned bodies_pending_ = 0;
  char* out_block_ = nullptr;  // a block of the worker's write pool while connected
  http::OutBuffer out_{nullptr, 0};
  char* partial_ = nullptr;  // a frame cut by a read
  std::uint32_t partial_len_ = 0;
};

}  // namespace ringside::load
