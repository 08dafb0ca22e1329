// A response's header block, decoded by libnghttp2's HPACK inflater as the reference: :status
// first (the static table's codes in one byte, others as a literal), names the static table has
// by index, others literal, long values past the 7-bit prefix, and 0 when the block does not fit.
#include "http/hpack_response.hpp"

#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>

#include <string>
#include <utility>
#include <vector>

namespace ringside::http {
namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

Fields inflate(std::string_view block) {
  nghttp2_hd_inflater* inflater = nullptr;
  nghttp2_hd_inflate_new(&inflater);
  Fields fields;
  const auto* in = reinterpret_cast<const uint8_t*>(block.data());
  std::size_t left = block.size();
  while (true) {
    nghttp2_nv nv;
    int flags = 0;
    const ssize_t used = nghttp2_hd_inflate_hd2(inflater, &nv, &flags, in, left, 1);
    EXPECT_GE(used, 0) << "nghttp2 refused the block";
    if (used < 0) break;
    in += used;
    left -= static_cast<std::size_t>(used);
    if (flags & NGHTTP2_HD_INFLATE_EMIT) {
      fields.emplace_back(std::string(reinterpret_cast<const char*>(nv.name), nv.namelen),
                          std::string(reinterpret_cast<const char*>(nv.value), nv.valuelen));
    }
    if ((flags & NGHTTP2_HD_INFLATE_FINAL) || (used == 0 && left == 0)) break;
  }
  nghttp2_hd_inflate_del(inflater);
  return fields;
}

TEST(HpackResponse, StatusTwoHundredIsOneByte) {
  char block[16];
  const std::size_t n = encode_response_headers(200, {}, block);
  EXPECT_EQ(std::string(block, n), "\x88");
  EXPECT_EQ(inflate({block, n}), (Fields{{":status", "200"}}));
}

TEST(HpackResponse, EveryStatusDecodesToItsDigits) {
  for (std::uint16_t status :
       {100, 200, 201, 204, 206, 301, 304, 400, 404, 405, 413, 431, 500, 503, 599}) {
    char block[16];
    const std::size_t n = encode_response_headers(status, {}, block);
    ASSERT_GT(n, 0u);
    EXPECT_EQ(inflate({block, n}), (Fields{{":status", std::to_string(status)}})) << status;
  }
}

TEST(HpackResponse, KnownNamesByIndexOthersLiteral) {
  const std::vector<H2HeaderField> fields{{"content-type", "text/plain"},
                                          {"content-length", "12"},
                                          {"date", "Sun, 06 Dec 2026 05:02:02 GMT"},
                                          {"allow", "GET, HEAD"},
                                          {"x-own-field", "1"}};
  char block[256];
  const std::size_t n = encode_response_headers(200, fields, block);
  ASSERT_GT(n, 0u);
  // content-type by its index (31: 0x0f then 16), not spelled out.
  EXPECT_EQ(std::string(block, n).find("content-type"), std::string::npos);
  EXPECT_NE(std::string(block, n).find("x-own-field"), std::string::npos);
  EXPECT_EQ(inflate({block, n}), (Fields{{":status", "200"},
                                         {"content-type", "text/plain"},
                                         {"content-length", "12"},
                                         {"date", "Sun, 06 Dec 2026 05:02:02 GMT"},
                                         {"allow", "GET, HEAD"},
                                         {"x-own-field", "1"}}));
}

TEST(HpackResponse, LongValuesCrossThePrefix) {
  const std::string value(300, 'v');
  const std::string name(200, 'n');
  const std::vector<H2HeaderField> fields{{"location", value}, {name, value}};
  char block[1024];
  const std::size_t n = encode_response_headers(302, fields, block);
  ASSERT_GT(n, 0u);
  EXPECT_EQ(inflate({block, n}), (Fields{{":status", "302"}, {"location", value}, {name, value}}));
}

TEST(HpackResponse, ABlockThatDoesNotFitIsZero) {
  const std::vector<H2HeaderField> fields{{"content-type", std::string_view("text/plain")}};
  char block[64];
  const std::size_t whole = encode_response_headers(200, fields, block);
  ASSERT_GT(whole, 0u);
  for (std::size_t room = 0; room < whole; ++room) {
    EXPECT_EQ(encode_response_headers(200, fields, std::span<char>(block, room)), 0u) << room;
  }
  const std::string big(100, 'x');
  const std::vector<H2HeaderField> large{{"x-big", big}};
  EXPECT_EQ(encode_response_headers(200, large, block), 0u);
}

}  // namespace
}  // namespace ringside::http
