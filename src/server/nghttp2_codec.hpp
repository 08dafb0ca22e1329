// H2Codec (server/h2_codec.hpp) over libnghttp2 1.52's server session. Its memory comes from the
// worker's RecyclingAllocator, so a steady state of streams reaches the heap no more. The reset
// budget is ours: streams the client resets (rapid reset, CVE-2023-44487) and streams the server
// resets because the client broke a stream's rules (MadeYouReset, CVE-2025-8671) spend it alike,
// and so do the client's SETTINGS and PINGs (each owes an ACK: floods CVE-2019-9515, -9512) and
// empty DATA frames that end nothing (CVE-2019-9518, which nghttp2 1.52 lets through); an empty
// budget ends the connection with GOAWAY ENHANCE_YOUR_CALM (nghttp2's own reset limit, which says
// INTERNAL_ERROR, stays behind it at twice the rate). The other defences are nghttp2's:
// CONTINUATION count, SETTINGS entries, queued PING/SETTINGS acknowledgements (ping and settings
// floods), empty DATA frames, with HTTP messaging checks on.
//
//   Nghttp2Setup setup(limits);              // once per worker: callbacks and options
//   Nghttp2Codec codec;                      // pooled with its connection
//   codec.open(setup, events, allocator);    // the session, and the server's SETTINGS queued
//   codec.receive(bytes); ... codec.output(); ... codec.close();
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "core/clock.hpp"
#include "core/recycling_allocator.hpp"
#include "server/h2_codec.hpp"

struct nghttp2_session;
struct nghttp2_session_callbacks;
struct nghttp2_option;

namespace ringside::server {

class Nghttp2Setup {
 public:
  explicit Nghttp2Setup(const H2Limits& limits);
  ~Nghttp2Setup();
  Nghttp2Setup(const Nghttp2Setup&) = delete;
  Nghttp2Setup& operator=(const Nghttp2Setup&) = delete;

 private:
  friend class Nghttp2Codec;
  H2Limits limits_;
  nghttp2_session_callbacks* callbacks_ = nullptr;
  nghttp2_option* option_ = nullptr;
};

class Nghttp2Codec final : public H2Codec {
 public:
  Nghttp2Codec() = default;
  ~Nghttp2Codec() { close(); }
  Nghttp2Codec(const Nghttp2Codec&) = delete;
  Nghttp2Codec& operator=(const Nghttp2Codec&) = delete;

  // False when the session cannot be made (out of memory).
  [[nodiscard]] bool open(const Nghttp2Setup& setup, H2CodecEvents& events,
                          core::RecyclingAllocator& memory);
  // Ends the session at once. Streams still open hear nothing: the connection gives back its own.
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
  friend struct Nghttp2Callbacks;

  // The budget (H2Limits::reset_burst, reset_rate): one token per stream reset by either side for
  // cause, per SETTINGS or PING the client sends, per empty DATA frame that ends nothing; none
  // left ends the connection with GOAWAY ENHANCE_YOUR_CALM.
  [[nodiscard]] bool spend_budget();

  nghttp2_session* session_ = nullptr;
  H2CodecEvents* events_ = nullptr;
  H2ResetBudget budget_;
  H2Stream* fields_stream_ = nullptr;  // whose header block is being read
  std::uint64_t body_bytes_sent_ = 0;
  std::int32_t highest_stream_id_ = 0;  // of the client's HEADERS so far
  // The last streams the server sent RST_STREAM on: a HEADERS the client sent on one before it
  // heard (trailers) is ignored, not taken for a stream id going down.
  std::array<std::int32_t, 16> recently_reset_{};
  std::uint32_t next_reset_slot_ = 0;
  bool broken_ = false;  // a fatal error: nothing more is read
};

}  // namespace ringside::server
