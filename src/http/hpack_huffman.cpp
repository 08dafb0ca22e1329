#include "http/hpack_huffman.hpp"

#include <array>

namespace ringside::http {
namespace {

constexpr unsigned kSymbols = 257;  // 256 octets and EOS
constexpr unsigned kEos = 256;
constexpr unsigned kMaxLength = 30;
constexpr unsigned kFastBits = 8;

// Each symbol's code length in bits, RFC 7541 Appendix B, symbol 0 first.
constexpr std::array<std::uint8_t, kSymbols> kCodeLength = {
    13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28,
    28, 28, 28, 28, 28, 28, 28, 28, 6,  10, 10, 12, 13, 6,  8,  11, 10, 10, 8,  11, 8,  6,  6,  6,
    5,  5,  5,  6,  6,  6,  6,  6,  6,  6,  7,  8,  15, 6,  12, 10, 13, 6,  7,  7,  7,  7,  7,  7,
    7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  8,  7,  8,  13, 19, 13, 14, 6,
    15, 5,  6,  5,  6,  5,  6,  6,  6,  5,  7,  7,  6,  6,  6,  5,  6,  7,  6,  5,  5,  6,  7,  7,
    7,  7,  7,  15, 11, 14, 13, 28, 20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23,
    24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, 22, 21, 20, 22, 22, 23, 23, 21,
    23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
    26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19, 21, 26, 27, 27, 26, 27, 24,
    21, 21, 26, 26, 28, 27, 27, 27, 20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23,
    26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, 30,
};

struct Canonical {
  std::array<std::uint32_t, kMaxLength + 1> first_code{};  // the first code of each length
  std::array<std::uint16_t, kMaxLength + 1> first_rank{};  // its place in by_rank
  std::array<std::uint16_t, kMaxLength + 1> count{};       // codes of each length
  std::array<std::uint16_t, kSymbols> by_rank{};           // symbols by (length, symbol)
  std::array<std::uint32_t, kSymbols> code{};              // each symbol's code
};

constexpr Canonical make_canonical() {
  Canonical c;
  for (unsigned symbol = 0; symbol < kSymbols; ++symbol) ++c.count[kCodeLength[symbol]];
  std::uint32_t next = 0;
  std::uint16_t rank = 0;
  for (unsigned length = 1; length <= kMaxLength; ++length) {
    next <<= 1;
    c.first_code[length] = next;
    c.first_rank[length] = rank;
    std::uint32_t code = next;
    for (unsigned symbol = 0; symbol < kSymbols; ++symbol) {
      if (kCodeLength[symbol] != length) continue;
      c.by_rank[rank++] = static_cast<std::uint16_t>(symbol);
      c.code[symbol] = code++;
    }
    next = code;
  }
  return c;
}

constexpr Canonical kCanonical = make_canonical();

// The RFC's codes, checked at compile time against a few of Appendix B's.
static_assert(kCanonical.code['0'] == 0x0 && kCodeLength['0'] == 5);
static_assert(kCanonical.code['a'] == 0x3 && kCodeLength['a'] == 5);
static_assert(kCanonical.code[' '] == 0x14 && kCodeLength[' '] == 6);
static_assert(kCanonical.code[0] == 0x1ff8 && kCodeLength[0] == 13);
static_assert(kCanonical.code[255] == 0x3ffffee && kCodeLength[255] == 26);
static_assert(kCanonical.code[kEos] == 0x3fffffff && kCodeLength[kEos] == 30);

// For the next 8 bits of input: the symbol they start with and its length, when that is at most
// 8 bits; length 0 when the code is longer.
struct FastEntry {
  std::uint16_t symbol = 0;
  std::uint8_t length = 0;
};

constexpr std::array<FastEntry, 1u << kFastBits> make_fast() {
  std::array<FastEntry, 1u << kFastBits> table{};
  for (unsigned peek = 0; peek < table.size(); ++peek) {
    for (unsigned length = 1; length <= kFastBits; ++length) {
      const std::uint32_t code = peek >> (kFastBits - length);
      const std::uint32_t offset = code - kCanonical.first_code[length];
      if (code >= kCanonical.first_code[length] && offset < kCanonical.count[length]) {
        table[peek] = {kCanonical.by_rank[kCanonical.first_rank[length] + offset],
                       static_cast<std::uint8_t>(length)};
        break;
      }
    }
  }
  return table;
}

constexpr std::array<FastEntry, 1u << kFastBits> kFast = make_fast();

// The rest of the input, fewer bits than the next code needs: padding, at most 7 bits of ones.
bool is_padding(std::uint64_t window, unsigned bits) {
  if (bits >= 8) return false;
  if (bits == 0) return true;
  return (window >> (64 - bits)) == (std::uint64_t{1} << bits) - 1;
}

}  // namespace

HuffmanCode huffman_code(unsigned symbol) {
  if (symbol >= kSymbols) return {};
  return {kCanonical.code[symbol], kCodeLength[symbol]};
}

HuffmanResult huffman_decode(std::span<const std::uint8_t> encoded, std::span<char> out) {
  HuffmanResult result;
  std::uint64_t window = 0;  // the next bits, left-aligned; zeros past the first bits
  unsigned bits = 0;
  std::size_t next = 0;
  while (true) {
    while (bits <= 56 && next < encoded.size()) {
      window |= std::uint64_t{encoded[next++]} << (56 - bits);
      bits += 8;
    }
    if (bits == 0) return result;
    unsigned symbol = 0;
    unsigned length = 0;
    const FastEntry fast = kFast[window >> (64 - kFastBits)];
    if (fast.length != 0) {
      symbol = fast.symbol;
      length = fast.length;
    } else {
      for (length = kFastBits + 1; length <= kMaxLength; ++length) {
        const auto code = static_cast<std::uint32_t>(window >> (64 - length));
        const std::uint32_t offset = code - kCanonical.first_code[length];
        if (code >= kCanonical.first_code[length] && offset < kCanonical.count[length]) {
          symbol = kCanonical.by_rank[kCanonical.first_rank[length] + offset];
          break;
        }
      }
    }
    if (length > bits) {  // the bits left cannot hold the code: they must be the padding
      if (!is_padding(window, bits)) result.error = HuffmanError::kBadPadding;
      return result;
    }
    if (symbol == kEos) {
      result.error = HuffmanError::kEos;
      return result;
    }
    if (result.size == out.size()) {
      result.error = HuffmanError::kTooLong;
      return result;
    }
    out[result.size++] = static_cast<char>(symbol);
    window <<= length;
    bits -= length;
  }
}

}  // namespace ringside::http
