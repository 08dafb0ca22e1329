#include "http/chunked_decoder.hpp"

#include <algorithm>

#include "http/token.hpp"

namespace ringside::http {
ChunkedDecoder::Result ChunkedDecoder::feed(std::span<const char> input) {
  Result result;
  std::size_t i = 0;
  auto fail = [&](RequestError error) {
    result.consumed = i;
    result.error = error;
    return result;
  };
  while (i < input.size() && state_ != State::kDone) {
    if (state_ == State::kData) {
      auto take = static_cast<std::size_t>(
          std::min<std::uint64_t>(chunk_remaining_, input.size() - i));
      chunk_remaining_ -= take;
      result.data_bytes += take;
      i += take;
      if (chunk_remaining_ == 0) state_ = State::kDataCr;
      continue;
    }
    const char c = input[i++];
    // Every byte that is not chunk data is framing; the data a chunk declares earns its allowance.
    if (++framing_bytes_ > std::max(framing_allowance_, body_bytes_)) {
      return fail(RequestError::kChunkFramingTooLarge);
    }
    const bool in_size_line =
        state_ == State::kSize || state_ == State::kSizeWhitespace || state_ == State::kExtension;
    if (in_size_line && c != '\r' && ++line_bytes_ > kMaxLineBytes) {
      return fail(RequestError::kChunkLineTooLong);
    }
    switch (state_) {
      case State::kSize: {
        int digit = hex_value(c);
        if (digit >= 0) {
          if (++size_digits_ > kMaxSizeDigits) return fail(RequestError::kMalformedChunk);
          chunk_remaining_ = chunk_remaining_ * 16 + static_cast<std::uint64_t>(digit);
          break;
        }
        if (size_digits_ == 0) return fail(RequestError::kMalformedChunk);
        if (c == ' ' || c == '\t') {
          state_ = State::kSizeWhitespace;
        } else if (c == ';') {
          state_ = State::kExtension;
        } else if (c == '\r') {
          state_ = State::kSizeLf;
        } else {
          return fail(RequestError::kMalformedChunk);
        }
        break;
      }
      case State::kSizeWhitespace:
        if (c == ';') {
          state_ = State::kExtension;
        } else if (c == '\r') {
          state_ = State::kSizeLf;
        } else if (c != ' ' && c != '\t') {
          return fail(RequestError::kMalformedChunk);
        }
        break;
      case State::kExtension:
        if (c == '\r') {
          state_ = State::kSizeLf;
        } else if (c == '\n' || (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) {
          return fail(RequestError::kMalformedChunk);
        }
        break;
      case State::kSizeLf:
        if (c != '\n') return fail(RequestError::kMalformedChunk);
        if (body_bytes_ + chunk_remaining_ > max_body_) return fail(RequestError::kBodyTooLarge);
        body_bytes_ += chunk_remaining_;
        size_digits_ = 0;
        line_bytes_ = 0;
        state_ = chunk_remaining_ == 0 ? State::kTrailerStart : State::kData;
        break;
      case State::kDataCr:
        if (c != '\r') return fail(RequestError::kMalformedChunk);
        state_ = State::kDataLf;
        break;
      case State::kDataLf:
        if (c != '\n') return fail(RequestError::kMalformedChunk);
        state_ = State::kSize;
        break;
      // Trailer fields are field lines (RFC 9112 section 7.1.2): a token name, a colon, a field
      // value. Anything else (no colon, obsolete folding, whitespace before the colon, control
      // bytes) is refused rather than skipped: a recipient that skipped lines up to an empty one
      // could swallow the next request, where a stricter one would have refused it.
      case State::kTrailerStart:
        if (c == '\r') {
          state_ = State::kFinalLf;
          break;
        }
        if (++trailer_bytes_ > kMaxTrailerBytes) return fail(RequestError::kHeadTooLarge);
        if (!is_token(c)) return fail(RequestError::kMalformedChunk);
        state_ = State::kTrailerName;
        break;
      case State::kTrailerName:
        if (++trailer_bytes_ > kMaxTrailerBytes) return fail(RequestError::kHeadTooLarge);
        if (c == ':') {
          state_ = State::kTrailerValue;
        } else if (!is_token(c)) {
          return fail(RequestError::kMalformedChunk);
        }
        break;
      case State::kTrailerValue:
        if (++trailer_bytes_ > kMaxTrailerBytes) return fail(RequestError::kHeadTooLarge);
        if (c == '\r') {
          state_ = State::kTrailerLf;
        } else if (!is_value_char(c)) {
          return fail(RequestError::kMalformedChunk);
        }
        break;
      case State::kTrailerLf:
        if (c != '\n') return fail(RequestError::kMalformedChunk);
        state_ = State::kTrailerStart;
        break;
      case State::kFinalLf:
        if (c != '\n') return fail(RequestError::kMalformedChunk);
        state_ = State::kDone;
        break;
      case State::kData:
      case State::kDone:
        break;
    }
  }
  result.consumed = i;
  result.done = state_ == State::kDone;
  return result;
}

}  // namespace ringside::http
