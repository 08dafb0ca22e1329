// A request's header block, decoded by libnghttp2's HPACK inflater as the reference: the fields
// come out as meant (pseudo-headers first, names lower-cased, Host and connection-specific fields
// left out), long values cross the 7-bit prefix, and the same block decodes the same on every
// stream (nothing in it touches the dynamic table).
#include "http/hpack_request.hpp"

#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>

#include <string>
#include <utility>
#include <vector>

#include "nghttp2_inflate.hpp"

namespace ringside::http {
namespace {

using testing::Fields;

Fields decode(std::string_view block, int times = 1) {
  nghttp2_hd_inflater* inflater = nullptr;
  nghttp2_hd_inflate_new(&inflater);
  Fields fields;
  for (int i = 0; i < times; ++i) fields = testing::inflate_block(inflater, block);
  nghttp2_hd_inflate_del(inflater);
  return fields;
}

TEST(HpackRequest, TheSmallestRequestIsFourStaticTableBytesAndTheAuthority) {
  char block[64];
  const std::size_t n = encode_request_headers({"GET", "http", "127.0.0.1:8080", "/"}, {}, block);
  // :method GET (2), :scheme http (6), :authority (name 1, literal), :path / (4).
  EXPECT_EQ(std::string(block, n), std::string("\x82\x86\x01\x0e" "127.0.0.1:8080" "\x84"));
  EXPECT_EQ(decode({block, n}), (Fields{{":method", "GET"}, {":scheme", "http"},
                                        {":authority", "127.0.0.1:8080"}, {":path", "/"}}));
}

TEST(HpackRequest, FieldsComeOutAsMeant) {
  const std::string long_value(300, 'v');  // a length past the 7-bit prefix
  const H2HeaderField fields[] = {{"Host", "ignored"},        {"Content-Type", "application/json"},
                                  {"X-Long", long_value},     {"connection", "close"},
                                  {"Transfer-Encoding", "chunked"}, {"Upgrade", "h2c"},
                                  {"Keep-Alive", "5"},        {"Proxy-Connection", "x"}};
  char block[1024];
  const std::size_t n = encode_request_headers(
      {"DELETE", "https", "example.test", "/users/1?x=y&z"}, fields, block);
  ASSERT_GT(n, 0U);
  EXPECT_EQ(decode({block, n}), (Fields{{":method", "DELETE"}, {":scheme", "https"},
                                        {":authority", "example.test"}, {":path", "/users/1?x=y&z"},
                                        {"content-type", "application/json"},
                                        {"x-long", long_value}}));
}

TEST(HpackRequest, TheSameBlockDecodesTheSameOnEveryStream) {
  const H2HeaderField fields[] = {{"accept", "*/*"}};
  char block[128];
  const std::size_t n = encode_request_headers({"POST", "http", "h:1", "/json"}, fields, block);
  const Fields once = decode({block, n});
  EXPECT_EQ(once.size(), 5U);
  EXPECT_EQ(decode({block, n}, 1000), once);
}

TEST(HpackRequest, ABlockThatDoesNotFitIsZero) {
  char block[64];
  const std::size_t whole = encode_request_headers({"GET", "http", "127.0.0.1:8080", "/json"}, {}, block);
  ASSERT_GT(whole, 0U);
  for (std::size_t room = 0; room < whole; ++room) {
    EXPECT_EQ(encode_request_headers({"GET", "http", "127.0.0.1:8080", "/json"}, {}, {block, room}),
              0U) << room;
  }
}

}  // namespace
}  // namespace ringside::http
