// Incremental decoder for chunked request bodies (RFC 9112 section 7.1). Pure: feed it bytes as
// they arrive, it says how many it consumed, whether the body (with its trailers) is complete, and
// where the chunk data lies. It keeps a few words of state between calls and allocates nothing.
//
//   ChunkedDecoder decoder(max_body);
//   auto r = decoder.feed(bytes);   // r.consumed bytes used; r.done at the end; r.error on garbage
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "http/request_error.hpp"

namespace ringside::http {

class ChunkedDecoder {
 public:
  struct Result {
    std::size_t consumed = 0;
    std::size_t data_bytes = 0;  // chunk data among the consumed bytes
    bool done = false;
    RequestError error = RequestError::kNone;
  };

  explicit ChunkedDecoder(std::uint64_t max_body = ~std::uint64_t{0}) : max_body_(max_body) {}

  void reset(std::uint64_t max_body) { *this = ChunkedDecoder(max_body); }
  [[nodiscard]] Result feed(std::span<const char> input);
  [[nodiscard]] std::uint64_t body_bytes() const { return body_bytes_; }

 private:
  enum class State : std::uint8_t {
    kSize, kSizeWhitespace, kExtension, kSizeLf, kData, kDataCr, kDataLf,
    kTrailerStart, kTrailer, kTrailerLf, kFinalLf, kDone,
  };
  static constexpr int kMaxSizeDigits = 15;
  static constexpr std::uint32_t kMaxLineBytes = 4096;     // a chunk-size line with extensions
  static constexpr std::uint32_t kMaxTrailerBytes = 16 * 1024;

  std::uint64_t max_body_;
  std::uint64_t body_bytes_ = 0;
  std::uint64_t chunk_remaining_ = 0;
  std::uint32_t line_bytes_ = 0;
  std::uint32_t trailer_bytes_ = 0;
  int size_digits_ = 0;
  State state_ = State::kSize;
};

}  // namespace ringside::http
