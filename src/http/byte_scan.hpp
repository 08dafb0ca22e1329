// Scans over a run of one character class (token.hpp) and returns where it ends: the inner loops
// of the request parser. A run ends at its delimiter (the ' ' after a target, the CR after a
// value) or at a byte that is not allowed there, and the caller looks at that one byte to know
// which; so a well-formed line is validated by the same pass that finds its end.
//
//   const char* stop = skip_field_value(p, end);   // *stop is '\r' on a good header line
//
// Field values and targets are the long runs of a head (User-Agent, Accept, Cookie, a query), so
// those are scanned eight bytes at a time while eight bytes remain: their classes are ranges
// ("not below 0x20 and not DEL") that a few word operations test for all eight bytes at once.
// Header names and methods are short and irregular (tchar), so they go byte by byte through the
// table. Nothing is read at or past `end`.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#include "http/token.hpp"

namespace ringside::http {

namespace scan_detail {
inline constexpr std::uint64_t kOnes = 0x0101010101010101ull;
inline constexpr std::uint64_t kHighBits = 0x8080808080808080ull;

// The high bit of each byte of `word` below `n` (n <= 0x80). Bytes above the first such byte may
// be flagged wrongly (the subtraction borrows into them), so only the lowest flag is exact, which
// is all the scans use: the first byte (little-endian) that stops the run.
constexpr std::uint64_t bytes_below(std::uint64_t word, std::uint8_t n) {
  return (word - kOnes * n) & ~word & kHighBits;
}
constexpr std::uint64_t bytes_equal(std::uint64_t word, std::uint8_t b) {
  return bytes_below(word ^ (kOnes * b), 1);
}
inline std::uint64_t load_word(const char* p) {
  std::uint64_t word;
  std::memcpy(&word, p, sizeof word);
  if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap64(word);
  return word;
}
// The index in its word of the byte whose high bit is the lowest set in `flags`.
constexpr int first_flagged(std::uint64_t flags) { return std::countr_zero(flags) / 8; }
}  // namespace scan_detail

// The first byte in [p, end) not in `cls`, or `end`.
constexpr const char* skip_class(const char* p, const char* end, CharClass cls) {
  while (p != end && in_class(*p, cls)) ++p;
  return p;
}

// The first byte in [p, end) that is not a field-value character (kFieldValueClass), or `end`.
inline const char* skip_field_value(const char* p, const char* end) {
  using namespace scan_detail;
  while (end - p >= 8) {
    const std::uint64_t word = load_word(p);
    // Below 0x20 or DEL: CR, LF, other controls, and HTAB, which is allowed and stepped over.
    const std::uint64_t flags = bytes_below(word, 0x20) | bytes_equal(word, 0x7f);
    if (flags == 0) {
      p += 8;
      continue;
    }
    p += first_flagged(flags);
    if (*p != '\t') return p;
    ++p;
  }
  return skip_class(p, end, kFieldValueClass);
}

// The first byte in [p, end) that is not a request-target character (kTargetClass), or `end`.
inline const char* skip_target(const char* p, const char* end) {
  using namespace scan_detail;
  while (end - p >= 8) {
    const std::uint64_t word = load_word(p);
    const std::uint64_t flags = bytes_below(word, 0x21) | bytes_equal(word, 0x7f);
    if (flags != 0) return p + first_flagged(flags);
    p += 8;
  }
  return skip_class(p, end, kTargetClass);
}

}  // namespace ringside::http
