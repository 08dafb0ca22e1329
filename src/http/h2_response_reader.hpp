// The reading side of an HTTP/2 client connection (RFC 9113), for the load generator: whole
// frames from the server in, per stream "its :status", "it ended", "it was reset" out, and the
// control answers a client owes (SETTINGS ACK, PING ACK, WINDOW_UPDATE) written for the caller to
// send. Header blocks are decoded by our HpackDecoder (http/hpack_decoder.hpp): a block in one
// HEADERS frame straight from the input, one split over CONTINUATION frames once it is whole
// (its fragments kept meanwhile, up to kMaxSplitBlock).
//
// Flow control the way h2load does it: the client's start (write_client_start) announces the
// largest stream window and raises the connection's as far, so a server never waits for us; the
// DATA bytes read are given back to the connection in one WINDOW_UPDATE per `window_refill`. The
// other direction (request bodies) is the caller's: the server's WINDOW_UPDATEs are passed on, and
// its initial stream window and frame size kept.
//
//   char start[H2ResponseReader::kClientStartSize];
//   send(start, H2ResponseReader::write_client_start(start));   // then the requests' HEADERS
//   H2ResponseReader reader;
//   H2ReadResult r = reader.feed(input, answers, listener);     // r.consumed, r.error
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "http/h2_frame.hpp"
#include "http/hpack_decoder.hpp"
#include "http/out_buffer.hpp"

namespace ringside::http {

class H2ResponseListener {
 public:
  virtual void on_status(std::uint32_t stream_id, int status) = 0;  // a final (>= 200) :status
  virtual void on_stream_end(std::uint32_t stream_id) = 0;          // END_STREAM arrived
  virtual void on_stream_reset(std::uint32_t stream_id, H2Error error) = 0;
  virtual void on_goaway(std::uint32_t last_stream_id, H2Error error) = 0;
  // The server opened a send window: the connection's (stream 0) or a stream's. Only a client
  // that sends request bodies needs it.
  virtual void on_window_update(std::uint32_t /*stream_id*/, std::uint32_t /*increment*/) {}

 protected:
  ~H2ResponseListener() = default;
};

struct H2ReadResult {
  std::size_t consumed = 0;
  // kNoError, or why the connection must end (a GOAWAY with it is the caller's to send).
  H2Error error = H2Error::kNoError;
};

class H2ResponseReader {
 public:
  // The preface, SETTINGS (push off, stream window 2^31-1) and the connection's WINDOW_UPDATE.
  static constexpr std::size_t kClientStartSize = 24 + 9 + 12 + 9 + 4;
  static std::size_t write_client_start(char* out);
  // Room an answer may need: the largest is PING's ACK.
  static constexpr std::size_t kAnswerRoom = kH2FrameHeaderSize + 8;
  // The most of a header block split over CONTINUATION frames that is kept until it is whole.
  static constexpr std::size_t kMaxSplitBlock = 256 * 1024;

  explicit H2ResponseReader(std::uint32_t window_refill = 1U << 30);
  ~H2ResponseReader();
  H2ResponseReader(const H2ResponseReader&) = delete;
  H2ResponseReader& operator=(const H2ResponseReader&) = delete;

  // Reads the whole frames at the start of `input`, stopping early when `answers` has less than
  // kAnswerRoom left (call again after sending them). A partial frame stays for the next call.
  H2ReadResult feed(std::span<const char> input, OutBuffer& answers, H2ResponseListener& listener);

  // The server's SETTINGS_MAX_CONCURRENT_STREAMS (unlimited until it says).
  [[nodiscard]] std::uint32_t max_concurrent_streams() const { return max_concurrent_streams_; }
  // Whether the server's first SETTINGS frame has arrived (until then its stream limit is unknown).
  [[nodiscard]] bool settings_received() const { return settings_received_; }
  // What the server's SETTINGS say of the frames a client sends: each new stream's send window
  // (SETTINGS_INITIAL_WINDOW_SIZE) and the largest frame payload (SETTINGS_MAX_FRAME_SIZE).
  [[nodiscard]] std::uint32_t initial_window() const { return initial_window_; }
  [[nodiscard]] std::uint32_t max_frame_size() const { return max_frame_size_; }

 private:
  H2Error on_frame(const ScannedFrame& frame, OutBuffer& answers, H2ResponseListener& listener);
  H2Error on_header_fragment(std::uint32_t stream_id, std::span<const char> fragment,
                             bool end_headers, H2ResponseListener& listener);
  H2Error on_settings(const ScannedFrame& frame, OutBuffer& answers);

  H2Error decode_block(std::span<const char> block);

  HpackDecoder decoder_;
  std::string split_block_;  // a block's fragments so far, when it spans CONTINUATION frames
  FrameScanner scanner_;
  std::uint32_t window_refill_;
  std::uint64_t unreturned_ = 0;           // DATA bytes not yet given back to the connection
  std::uint32_t max_concurrent_streams_ = 0xffffffff;
  std::uint32_t initial_window_ = 65535;
  std::uint32_t max_frame_size_ = kH2DefaultMaxFrameSize;
  bool settings_received_ = false;
  std::uint32_t block_stream_ = 0;         // a header block continues on this stream (0: none)
  bool block_ends_stream_ = false;         // its HEADERS frame carried END_STREAM
  int block_status_ = 0;                   // the :status its fields gave so far
};

}  // namespace ringside::http
