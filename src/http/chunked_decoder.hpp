// Incremental decoder for chunked request bodies (RFC 9112 section 7.1). Pure: feed it bytes as
// they arrive, it says how many it consumed, whether the body (with its trailers) is complete, and
// where the chunk data lies. It keeps a few words of state between calls and allocates nothing.
//
//   ChunkedDecoder decoder(max_body);
//   auto r = decoder.feed(bytes);   // r.consumed bytes used; r.done at the end; r.error on garbage
//
// Bounds, so that a peer cannot make it work without end on bytes that are not body:
//   - a chunk-size line (hex size, whitespace, extensions; everything before its CRLF) is at most
//     kMaxLineBytes (4096) bytes, else kChunkLineTooLong;
//   - trailers are at most 16 KiB, else kHeadTooLarge; each must be a field line
//     ("name: value", RFC 9112 section 7.1.2), else kMalformedChunk;
//   - framing (every byte that is not chunk data: size lines with their CRLFs, the CRLF after each
//     chunk's data, the last chunk, trailers and the final CRLF) may not exceed
//     max(framing_allowance, declared body bytes so far), else kChunkFramingTooLarge. With the
//     default 64 KiB allowance, a body of tiny chunks is refused once its framing is both over
//     64 KiB and larger than its data: 13,106 one-byte chunks pass, 13,107 do not. Decoding a
//     response whose size the reader does not bound anyway, pass kUnboundedFraming.
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

  static constexpr std::uint64_t kUnlimited = ~std::uint64_t{0};
  static constexpr std::uint64_t kFramingAllowance = 64 * 1024;
  static constexpr std::uint64_t kUnboundedFraming = kUnlimited;
  static constexpr std::uint32_t kMaxLineBytes = 4096;  // a chunk-size line, before its CRLF

  explicit ChunkedDecoder(std::uint64_t max_body = kUnlimited,
                          std::uint64_t framing_allowance = kFramingAllowance)
      : max_body_(max_body), framing_allowance_(framing_allowance) {}

  void reset(std::uint64_t max_body, std::uint64_t framing_allowance = kFramingAllowance) {
    *this = ChunkedDecoder(max_body, framing_allowance);
  }
  [[nodiscard]] Result feed(std::span<const char> input);
  [[nodiscard]] std::uint64_t body_bytes() const { return body_bytes_; }

 private:
  enum class State : std::uint8_t {
    kSize, kSizeWhitespace, kExtension, kSizeLf, kData, kDataCr, kDataLf,
    kTrailerStart, kTrailerName, kTrailerValue, kTrailerLf, kFinalLf, kDone,
  };
  static constexpr int kMaxSizeDigits = 15;
  static constexpr std::uint32_t kMaxTrailerBytes = 16 * 1024;

  std::uint64_t max_body_;
  std::uint64_t framing_allowance_;
  std::uint64_t body_bytes_ = 0;
  std::uint64_t framing_bytes_ = 0;
  std::uint64_t chunk_remaining_ = 0;
  std::uint32_t line_bytes_ = 0;
  std::uint32_t trailer_bytes_ = 0;
  int size_digits_ = 0;
  State state_ = State::kSize;
};

}  // namespace ringside::http
