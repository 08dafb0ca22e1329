// HPACK's Huffman decoding (RFC 7541 section 5.2): every symbol, the RFC's own examples, and the
// padding and EOS rules.
#include "http/hpack_huffman.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ringside::http {
namespace {

// Our encoding of `text` with the code table, padded with ones: the test's own encoder.
std::vector<std::uint8_t> encode(const std::string& text, unsigned padding_bits = 0) {
  std::vector<std::uint8_t> out;
  std::uint64_t window = 0;
  unsigned bits = 0;
  auto put = [&](std::uint32_t code, unsigned length) {
    window = (window << length) | code;
    bits += length;
    while (bits >= 8) {
      out.push_back(static_cast<std::uint8_t>(window >> (bits - 8)));
      bits -= 8;
    }
  };
  for (unsigned char c : text) {
    const HuffmanCode code = huffman_code(c);
    put(code.bits, code.length);
  }
  if (padding_bits == 0 && bits > 0) padding_bits = 8 - bits;
  put((1u << padding_bits) - 1, padding_bits);
  EXPECT_EQ(bits, 0u) << "the padding must end on a byte";
  return out;
}

std::string decode(const std::vector<std::uint8_t>& encoded,
                   HuffmanError expected = HuffmanError::kNone) {
  char out[1024];
  const HuffmanResult result = huffman_decode(encoded, out);
  EXPECT_EQ(result.error, expected);
  return {out, result.size};
}

std::vector<std::uint8_t> hex(const std::string& text) {
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i + 1 < text.size(); i += 2) {
    out.push_back(static_cast<std::uint8_t>(std::stoul(text.substr(i, 2), nullptr, 16)));
  }
  return out;
}

TEST(HuffmanDecode, EverySymbolAloneAndAllTogether) {
  std::string all;
  for (unsigned symbol = 0; symbol < 256; ++symbol) {
    const std::string one(1, static_cast<char>(symbol));
    EXPECT_EQ(decode(encode(one)), one) << symbol;
    all += one;
  }
  EXPECT_EQ(decode(encode(all)), all);
}

TEST(HuffmanDecode, TheRfcsExamples) {
  // RFC 7541 C.4.1 and C.6.1.
  EXPECT_EQ(decode(hex("f1e3c2e5f23a6ba0ab90f4ff")), "www.example.com");
  EXPECT_EQ(decode(hex("6402")), "302");
  EXPECT_EQ(decode(hex("aec3771a4b")), "private");
  EXPECT_EQ(decode(hex("d07abe941054d444a8200595040b8166e082a62d1bff")),
            "Mon, 21 Oct 2013 20:13:21 GMT");
  EXPECT_EQ(decode(hex("9d29ad171863c78f0b97c8e9ae82ae43d3")), "https://www.example.com");
}

TEST(HuffmanDecode, EmptyIsEmpty) {
  EXPECT_EQ(decode({}), "");
}

TEST(HuffmanDecode, PaddingMustBeOnesAndShorterThanAByte) {
  // 'a' is 00011 (5 bits): three bits of padding.
  EXPECT_EQ(decode({0x1f}), "a");                   // 00011 111
  decode({0x18}, HuffmanError::kBadPadding);        // 00011 000: zeros
  decode({0x1f, 0xff}, HuffmanError::kBadPadding);  // 11 bits of ones
  decode({0xff}, HuffmanError::kBadPadding);        // 8 bits of ones alone
  decode({0xfe}, HuffmanError::kBadPadding);        // 8 bits of a 10-bit code's start
}

TEST(HuffmanDecode, EosInTheStringIsAnError) {
  decode({0xff, 0xff, 0xff, 0xff}, HuffmanError::kEos);  // 30 ones, then two more
}

TEST(HuffmanDecode, StopsAtTheEndOfTheOutput) {
  const std::vector<std::uint8_t> encoded = encode("abcdef");
  char out[3];
  const HuffmanResult result = huffman_decode(encoded, out);
  EXPECT_EQ(result.error, HuffmanError::kTooLong);
  EXPECT_EQ(std::string(out, result.size), "abc");
  EXPECT_LE(std::string("abcdef").size(), huffman_decoded_size_max(encoded.size()));
}

}  // namespace
}  // namespace ringside::http
