// A response's header blocks, decoded by libnghttp2's HPACK inflater as the reference, one
// inflater per connection as a client keeps it: :status first, every field as given, repeated
// fields from the dynamic table (a byte each), a size update opening the first block and every
// block after the client's SETTINGS_HEADER_TABLE_SIZE changed, and nothing written nor
// remembered by a block that may not fit.
#include "http/hpack_response.hpp"

#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "nghttp2_inflate.hpp"

namespace ringside::http {
namespace {

using testing::Fields;

class Client {
 public:
  Client() { nghttp2_hd_inflate_new(&inflater_); }
  ~Client() { nghttp2_hd_inflate_del(inflater_); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // What the client's SETTINGS_HEADER_TABLE_SIZE allows the encoder.
  void limit(std::uint32_t size) { nghttp2_hd_inflate_change_table_size(inflater_, size); }

  Fields inflate(std::string_view block) { return testing::inflate_block(inflater_, block); }

 private:
  nghttp2_hd_inflater* inflater_ = nullptr;
};

Fields expected(std::uint16_t status, const std::vector<H2HeaderField>& fields) {
  Fields out{{":status", std::to_string(status)}};
  for (const H2HeaderField& one : fields) out.emplace_back(one.name, one.value);
  return out;
}

TEST(HpackResponse, TheFirstBlockSizesTheTableThenTwoHundredIsOneByte) {
  HpackResponseEncoder encoder;
  char block[64];
  std::size_t n = encoder.encode(200, {}, block);
  // Size update to 512: 001 11111, 512 - 31 = 481 = 0xe1 0x03; then :status 200 (index 8).
  EXPECT_EQ(std::string(block, n), "\x3f\xe1\x03\x88");
  Client client;
  EXPECT_EQ(client.inflate({block, n}), (Fields{{":status", "200"}}));
  n = encoder.encode(200, {}, block);
  EXPECT_EQ(std::string(block, n), "\x88");
  EXPECT_EQ(client.inflate({block, n}), (Fields{{":status", "200"}}));
}

TEST(HpackResponse, RepeatedFieldsComeFromTheTable) {
  HpackResponseEncoder encoder;
  Client client;
  const std::vector<H2HeaderField> fields{{"content-type", "text/plain"},
                                          {"content-length", "12"},
                                          {"date", "Sun, 06 Dec 2026 05:02:02 GMT"},
                                          {"x-own-field", "1"}};
  char block[256];
  std::size_t n = encoder.encode(405, fields, block);
  ASSERT_GT(n, 0u);
  EXPECT_EQ(std::string(block, n).find("content-type"), std::string::npos);  // by static index
  EXPECT_EQ(client.inflate({block, n}), expected(405, fields));
  n = encoder.encode(405, fields, block);
  EXPECT_EQ(n, 5u);  // five indexed fields
  EXPECT_EQ(client.inflate({block, n}), expected(405, fields));
  EXPECT_LE(encoder.table_size(), HpackResponseEncoder::kTableSize);
}

TEST(HpackResponse, ManyBlocksAgreeWithTheInflaterAsTheClientsLimitChanges) {
  HpackResponseEncoder encoder;
  Client client;
  std::mt19937 random(7);
  const std::vector<std::uint16_t> statuses{200, 201, 204, 304, 404, 405, 413, 431, 500, 503};
  const std::vector<std::string> types{"text/plain", "application/json",
                                       "text/html; charset=utf-8"};
  const std::vector<std::uint32_t> limits{0, 40, 100, 512, 4096, 65536};
  const std::string long_value(200, 'L');  // never indexed: too large a share of the table
  for (int i = 0; i < 5000; ++i) {
    if (random() % 50 == 0) {
      const std::uint32_t limit = limits[random() % limits.size()];
      client.limit(limit);
      encoder.set_peer_limit(limit);
      if (random() % 2 == 0) {  // changed twice before the next block
        const std::uint32_t again = limits[random() % limits.size()];
        client.limit(again);
        encoder.set_peer_limit(again);
      }
    }
    const std::string length = std::to_string(random() % 3000);
    const std::string date = "Sun, 06 Dec 2026 05:02:" + std::to_string(10 + i / 100) + " GMT";
    std::vector<H2HeaderField> fields{{"content-type", types[random() % types.size()]},
                                      {"content-length", length},
                                      {"date", date}};
    if (random() % 5 == 0) fields.push_back({"allow", "GET, HEAD"});
    if (random() % 7 == 0) fields.push_back({"x-long", long_value});
    const std::uint16_t status = statuses[random() % statuses.size()];
    char block[1024];
    const std::size_t n = encoder.encode(status, fields, block);
    ASSERT_GT(n, 0u);
    ASSERT_EQ(client.inflate({block, n}), expected(status, fields)) << "block " << i;
    ASSERT_LE(encoder.table_size(), HpackResponseEncoder::kTableSize);
  }
}

TEST(HpackResponse, ABlockThatMayNotFitIsNotWrittenNorRemembered) {
  HpackResponseEncoder encoder;
  Client client;
  const std::vector<H2HeaderField> fields{{"content-type", "text/plain"}, {"x-a", "b"}};
  char block[256];
  EXPECT_EQ(encoder.encode(200, fields, std::span<char>(block, 10)), 0u);
  EXPECT_EQ(encoder.table_entries(), 0u);
  const std::size_t n = encoder.encode(200, fields, block);
  ASSERT_GT(n, 0u);
  EXPECT_EQ(client.inflate({block, n}), expected(200, fields));
  const std::string big(300, 'x');
  EXPECT_EQ(encoder.encode(200, std::vector<H2HeaderField>{{"x-big", big}}, block), 0u);
}

}  // namespace
}  // namespace ringside::http
