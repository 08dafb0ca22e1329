// HPACK's Huffman code (RFC 7541 section 5.2 and Appendix B), decoding side: a string literal
// whose H bit is set is turned back into its octets. The code is canonical (codes of one length
// are consecutive, in symbol order, and each length's first code follows the previous length's
// last), so the table here is only each symbol's code length; the codes follow from it.
//
// Decoding reads the input through a 64-bit window: an 8-bit lookup answers every symbol of up to
// 8 bits (the characters of typical field values) at once, longer codes are found length by
// length. The end must be padding: at most 7 bits, all ones (a prefix of EOS); EOS itself in the
// string is an error.
//
//   char out[64];
//   HuffmanResult r = huffman_decode(encoded, out);   // r.error, r.size
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace ringside::http {

enum class HuffmanError : std::uint8_t {
  kNone,
  kBadPadding,  // more than 7 bits left at the end, or not all ones
  kEos,         // the EOS symbol inside the string
  kTooLong,     // the decoded string does not fit `out`
};

struct HuffmanResult {
  HuffmanError error = HuffmanError::kNone;
  std::size_t size = 0;  // bytes written to `out`
};

// A Huffman string decodes to at most this many octets (the shortest code is 5 bits).
[[nodiscard]] constexpr std::size_t huffman_decoded_size_max(std::size_t encoded) {
  return encoded * 8 / 5;
}

[[nodiscard]] HuffmanResult huffman_decode(std::span<const std::uint8_t> encoded,
                                           std::span<char> out);

// The code of `symbol` (0-255, or 256 for EOS), right-aligned, and its length in bits: for tests
// and for an encoder.
struct HuffmanCode {
  std::uint32_t bits = 0;
  std::uint8_t length = 0;
};
[[nodiscard]] HuffmanCode huffman_code(unsigned symbol);

}  // namespace ringside::http
