// H2Codec (server/h2_codec.hpp) over libnghttp2 1.52's server session. Its memory comes from the
// worker's RecyclingAllocator, so a steady state of streams reaches the heap no more; its defences
// are nghttp2's, set from H2Limits: the stream-reset rate (rapid reset), CONTINUATION count,
// SETTINGS entries, and queued PING/SETTINGS acknowledgements (ping and settings floods), with HTTP
// messaging checks on.
//
//   Nghttp2Setup setup(limits);              // once per worker: callbacks and options
//   Nghttp2Codec codec;                      // pooled with its connection
//   codec.open(setup, events, allocator);    // the session, and the server's SETTINGS queued
//   codec.receive(bytes); ... codec.output(); ... codec.close();
#pragma once

#include <span>

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

 private:
  friend struct Nghttp2Callbacks;

  nghttp2_session* session_ = nullptr;
  H2CodecEvents* events_ = nullptr;
  H2Stream* fields_stream_ = nullptr;  // whose header block is being read
  bool broken_ = false;  // a fatal error: nothing more is read
};

}  // namespace ringside::server
