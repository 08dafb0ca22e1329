// The HTTP/2 framing a server connection (server/h2_connection.hpp) talks to: bytes in, request
// fields and stream events out; responses in, frames out. libnghttp2 implements it today
// (server/nghttp2_codec.hpp); the connection sees only this interface, so a codec of our own can
// replace it without touching how requests are routed and answered.
//
// The codec does the protocol's checks (preface, frame sizes and stream ids, HPACK, flow control,
// pseudo-headers, connection-specific fields, content-length against DATA) and the defences the
// settings below name; what reaches the connection is a well-formed request.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "core/clock.hpp"
#include "http/hpack_request.hpp"
#include "server/h2_stream.hpp"

namespace ringside::server {

// What a server's HTTP/2 connections advertise and enforce (ServerConfig holds the flags' values).
struct H2Limits {
  std::uint32_t max_concurrent_streams = 100;  // SETTINGS_MAX_CONCURRENT_STREAMS
  std::uint32_t max_header_list = 16 * 1024;   // SETTINGS_MAX_HEADER_LIST_SIZE, in bytes
  std::uint32_t initial_window = 65535;        // SETTINGS_INITIAL_WINDOW_SIZE, per stream
  // Streams that may be reset at once, and how many more per second after that: by the client
  // (RST_STREAM: rapid reset, CVE-2023-44487) or by the server because the client broke a
  // stream's rules (MadeYouReset, CVE-2025-8671); the client's SETTINGS and PINGs and its empty
  // DATA frames that end nothing spend the same budget (the 2019 floods). Beyond, GOAWAY
  // ENHANCE_YOUR_CALM.
  std::uint32_t reset_burst = 1000;
  std::uint32_t reset_rate = 33;
};

// The budget H2Limits::reset_burst and reset_rate describe, as a token bucket: full at the
// connection's start, refilled by the clock, one token per spend. Both codecs keep one.
class H2ResetBudget {
 public:
  void start(const H2Limits& limits) {
    burst_ = limits.reset_burst;
    rate_ = limits.reset_rate;
    tokens_ = burst_;
    refilled_ = core::Clock::now();
  }
  // False when no token is left: the connection ends with GOAWAY ENHANCE_YOUR_CALM.
  [[nodiscard]] bool spend() {
    const core::TimePoint now = core::Clock::now();
    tokens_ =
        std::min(burst_, tokens_ + std::chrono::duration<double>(now - refilled_).count() * rate_);
    refilled_ = now;
    if (tokens_ < 1) return false;
    tokens_ -= 1;
    return true;
  }

 private:
  double burst_ = 0;
  double rate_ = 0;
  double tokens_ = 0;
  core::TimePoint refilled_{};
};

// What the codec tells its connection. Calls come from inside H2Codec::receive().
class H2CodecEvents {
 public:
  // A client opened a request stream: the connection's state for it, or nullptr to refuse it
  // (the codec resets it with REFUSED_STREAM).
  virtual H2Stream* on_stream_open(std::int32_t id) = 0;
  // One field of the request's head, pseudo-fields first; names are lowercase.
  virtual void on_field(H2Stream& stream, std::string_view name, std::string_view value) = 0;
  // `bytes` of request body arrived (the codec has already given the window back).
  virtual void on_body(H2Stream& stream, std::size_t bytes) = 0;
  // The request is complete (END_STREAM): it may be answered.
  virtual void on_request_end(H2Stream& stream) = 0;
  // The stream is gone (answered, or reset by either side): its state may go back. A stream still
  // open when the connection ends hears nothing; the connection gives those back itself.
  virtual void on_stream_close(H2Stream& stream) = 0;

 protected:
  ~H2CodecEvents() = default;
};

// A response field; its name lowercase.
using H2Field = http::H2HeaderField;

// A response's head; the body is the stream's `body` (none when `with_body` is false: HEAD).
struct H2ResponseHead {
  std::uint16_t status = 200;
  std::span<const H2Field> fields;  // content-type, content-length, date, ...
  bool with_body = true;
};

class H2Codec {
 public:
  // Takes bytes read from the connection (its preface first). False when the connection is
  // broken: a GOAWAY may wait in the output, so flush it, then close.
  [[nodiscard]] virtual bool receive(std::span<const char> bytes) = 0;
  // Answers a stream; the body is read from stream.body as the peer's window opens.
  [[nodiscard]] virtual bool respond(H2Stream& stream, const H2ResponseHead& head) = 0;
  // Ends one stream with RST_STREAM and this HTTP/2 error code, dropping what was queued on it.
  virtual void reset(H2Stream& stream, std::uint32_t error_code) = 0;
  // Once the stream's answer is sent, RST_STREAM NO_ERROR: the client stops sending a request
  // body that was not needed (RFC 9113 section 8.1).
  virtual void reset_after_answer(H2Stream& stream) = 0;
  // The next frames to send, up to the codec's choice of size; empty when nothing is due now.
  // Valid until the next call on the codec.
  [[nodiscard]] virtual std::span<const char> output() = 0;
  // Whether the connection still has a use: false once both sides are done (a GOAWAY sent and
  // every stream closed, or a fatal error): close after the output.
  [[nodiscard]] virtual bool alive() const = 0;
  // Graceful end: GOAWAY naming the last stream taken; those already open are still answered.
  virtual void shut_down() = 0;
  // Immediate end with this HTTP/2 error code (a timeout: NO_ERROR; misbehaviour: its code).
  virtual void terminate(std::uint32_t error_code) = 0;
  // Response body bytes put in DATA frames so far, on every stream: how a connection tells that
  // the peer's windows let something through.
  [[nodiscard]] virtual std::uint64_t body_bytes_sent() const = 0;

 protected:
  ~H2Codec() = default;
};

}  // namespace ringside::server
