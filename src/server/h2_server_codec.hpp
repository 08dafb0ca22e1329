// H2Codec (server/h2_codec.hpp) of our own: RFC 9113 framing over http/h2_frame, request header
// blocks through http/hpack_decoder and http/h2_request_fields, answers through
// http/hpack_response (a HEADERS frame each, repeated fields from a small dynamic table), flow
// control both ways, a stream table by id (server/h2_stream_table), and the same budget as
// Nghttp2Codec: streams the
// client resets (rapid reset, CVE-2023-44487) or makes us reset (MadeYouReset, CVE-2025-8671),
// its SETTINGS and PINGs and its empty DATA frames that end nothing spend one token each; none
// left ends the connection with GOAWAY ENHANCE_YOUR_CALM. A header block split over CONTINUATION
// frames is kept up to a bound of frames and bytes (CVE-2024-27316, -28182): past it, the same.
//
// What it sends: its SETTINGS first; a SETTINGS ACK per SETTINGS, a PING ACK per PING, as they
// come; WINDOW_UPDATEs once half a window is taken; each answer's HEADERS when answered, then its
// DATA as the client's windows allow, the streams with something to send served in turn. Frames
// wait in one buffer from the worker's RecyclingAllocator, handed out whole by output() and given
// back once empty, so an idle connection holds none and a steady state takes nothing from the
// heap. A stream ends (H2CodecEvents::on_stream_close) when both sides have ended it or either has
// reset it; one the codec resets for the connection (reset()), at the next output().
//
//   H2ServerCodec codec;                                   // pooled with its connection
//   codec.open(limits, events, allocator, scratch);        // SETTINGS queued
//   codec.receive(bytes); ... codec.output(); ... codec.close();
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "core/clock.hpp"
#include "core/recycling_allocator.hpp"
#include "http/h2_frame.hpp"
#include "http/hpack_decoder.hpp"
#include "http/hpack_response.hpp"
#include "server/h2_codec.hpp"
#include "server/h2_stream_table.hpp"

namespace ringside::server {

class H2ServerCodec final : public H2Codec {
 public:
  // A header block may take this many CONTINUATION frames...
  static constexpr std::uint32_t kMaxContinuations = 32;
  // ...and this many bytes over the header list size we advertise (a block may be larger than
  // the fields it decodes to: literals carry lengths).
  static constexpr std::uint32_t kHeaderBlockSlack = 16384;

  H2ServerCodec() = default;
  ~H2ServerCodec() { close(); }
  H2ServerCodec(const H2ServerCodec&) = delete;
  H2ServerCodec& operator=(const H2ServerCodec&) = delete;

  // `scratch`: HpackDecoder::kScratchBytes the worker's codecs share (used inside receive()).
  // False when the first frames cannot be queued (out of memory).
  [[nodiscard]] bool open(const H2Limits& limits, H2CodecEvents& events,
                          core::RecyclingAllocator& memory, std::span<char> scratch);
  // Ends the connection's state at once. Streams still open hear nothing.
  void close();

  bool receive(std::span<const char> bytes) override;
  bool respond(H2Stream& stream, const H2ResponseHead& head) override;
  void reset(H2Stream& stream, std::uint32_t error_code) override;
  void reset_after_answer(H2Stream& stream) override;
  std::span<const char> output() override;
  [[nodiscard]] bool alive() const override;
  void shut_down() override;
  void terminate(std::uint32_t error_code) override;
  [[nodiscard]] std::uint64_t body_bytes_sent() const override { return body_bytes_sent_; }

 private:
  struct FieldFeed;

  // Frames in.
  bool take_partial(std::span<const char>& bytes);
  bool frame(const http::H2FrameHeader& header, std::span<const char> payload);
  bool data(const http::H2FrameHeader& header, std::span<const char> payload);
  bool headers(const http::H2FrameHeader& header, std::span<const char> payload);
  bool continuation(const http::H2FrameHeader& header, std::span<const char> payload);
  bool append_fragment(std::span<const char> fragment);
  bool header_block(std::int32_t id, bool end_stream, bool depends_on_itself,
                    std::span<const char> block);
  bool open_stream(std::int32_t id, bool end_stream, bool depends_on_itself,
                   std::span<const char> block);
  bool trailers(H2Stream& stream, bool end_stream, std::span<const char> block);
  bool priority(const http::H2FrameHeader& header, std::span<const char> payload);
  bool rst_stream(const http::H2FrameHeader& header, std::span<const char> payload);
  bool settings(const http::H2FrameHeader& header, std::span<const char> payload);
  bool apply_initial_window(std::uint32_t value);
  bool ping(const http::H2FrameHeader& header, std::span<const char> payload);
  bool window_update(const http::H2FrameHeader& header, std::span<const char> payload);
  bool decode(std::span<const char> block, FieldFeed* feed);
  bool end_request(H2Stream& stream);
  void take_body(H2Stream& stream, std::uint32_t frame_length);

  // Errors: both return false (the read stops where the connection ends).
  bool connection_error(http::H2Error error);
  bool stream_error(H2Stream& stream, http::H2Error error);
  bool stream_error(std::int32_t id, http::H2Error error);
  [[nodiscard]] bool spend_budget();
  [[nodiscard]] bool recently_reset(std::int32_t id) const;
  void remember_reset(std::int32_t id);

  // Frames out.
  [[nodiscard]] char* reserve(std::size_t bytes);
  void append_rst_stream(std::int32_t id, http::H2Error error);
  void send_data();
  bool send_one_data_frame(H2Stream& stream);
  void finish_answer(H2Stream& stream);
  void queue(H2Stream& stream);
  void unqueue(H2Stream& stream);
  void close_stream(H2Stream& stream);

  const H2Limits* limits_ = nullptr;
  H2CodecEvents* events_ = nullptr;
  core::RecyclingAllocator* memory_ = nullptr;
  std::span<char> scratch_;
  std::optional<http::HpackDecoder> decoder_;
  http::HpackResponseEncoder encoder_;
  H2StreamTable streams_;
  bool open_ = false;
  bool broken_ = false;       // a connection error: GOAWAY queued, nothing more read or sent
  bool goaway_sent_ = false;  // graceful: no new stream is taken
  bool peer_goaway_ = false;
  bool settings_seen_ = false;   // the client's preface SETTINGS came
  bool settings_acked_ = false;  // the client acknowledged ours
  std::uint32_t preface_matched_ = 0;

  // A frame cut by the end of a read, kept until whole: its header, and its payload (16 KiB at
  // most) when that was cut too.
  std::array<char, http::kH2FrameHeaderSize> head_{};
  std::uint32_t head_used_ = 0;
  char* partial_ = nullptr;
  std::uint32_t partial_used_ = 0;
  // A header block being joined from HEADERS and CONTINUATION frames.
  char* block_ = nullptr;
  std::uint32_t block_used_ = 0;
  std::uint32_t block_capacity_ = 0;
  std::int32_t block_stream_ = 0;  // 0: none under way
  bool block_end_stream_ = false;
  bool block_depends_on_itself_ = false;
  std::uint32_t block_continuations_ = 0;

  // Frames to send.
  char* out_ = nullptr;
  std::size_t out_used_ = 0;
  std::size_t out_capacity_ = 0;
  bool out_handed_ = false;         // output() gave out_[0, out_used_): the next call starts over
  H2Stream* ready_head_ = nullptr;  // streams with an answer to send or to end, in turn
  H2Stream* ready_tail_ = nullptr;

  std::int32_t highest_id_ = 0;   // the client's highest stream id so far
  std::int32_t last_opened_ = 0;  // the highest stream taken: a GOAWAY's last stream id
  std::int32_t goaway_last_ = 0;
  std::int64_t send_window_ = 0;  // the connection's, as the client's WINDOW_UPDATEs open it
  std::int64_t receive_window_ = 0;
  std::uint32_t receive_unacked_ = 0;
  std::int64_t peer_initial_window_ = 0;
  std::int64_t local_initial_window_ = 0;  // 65535 until the client acknowledges our SETTINGS
  std::uint32_t peer_max_frame_ = 0;
  std::uint64_t body_bytes_sent_ = 0;

  H2ResetBudget budget_;
  std::array<std::int32_t, 16> recently_reset_{};
  std::uint32_t next_reset_slot_ = 0;
};

}  // namespace ringside::server
