// HPACK block decoding (RFC 7541): the RFC's own request examples, then blocks made by libnghttp2's
// deflater (the reference encoder: static and dynamic table, Huffman when shorter, evictions,
// size updates) over many random header lists, decoded to the same fields and the same table
// size; and every malformed representation refused with its error.
#include "http/hpack_decoder.hpp"

#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

namespace ringside::http {
namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

std::string hex(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i + 1 < text.size(); i += 2) {
    if (text[i] == ' ') {
      --i;
      continue;
    }
    out.push_back(static_cast<char>(std::stoul(text.substr(i, 2), nullptr, 16)));
  }
  return out;
}

struct Decoded {
  HpackError error;
  Fields fields;
};

Decoded decode(HpackDecoder& decoder, const std::string& block) {
  std::vector<char> scratch(HpackDecoder::kScratchBytes);
  Decoded out;
  out.error = decoder.decode(block, scratch, [&](std::string_view name, std::string_view value) {
    out.fields.emplace_back(std::string(name), std::string(value));
  });
  return out;
}

TEST(HpackDecoder, TheRfcsRequestsWithHuffman) {
  // RFC 7541 C.4: three requests on one connection, the dynamic table carried between them.
  HpackDecoder decoder;
  Decoded first = decode(decoder, hex("8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff"));
  EXPECT_EQ(first.error, HpackError::kNone);
  EXPECT_EQ(first.fields, (Fields{{":method", "GET"},
                                  {":scheme", "http"},
                                  {":path", "/"},
                                  {":authority", "www.example.com"}}));
  EXPECT_EQ(decoder.table_size(), 57u);
  Decoded second = decode(decoder, hex("8286 84be 5886 a8eb 1064 9cbf"));
  EXPECT_EQ(second.fields, (Fields{{":method", "GET"},
                                   {":scheme", "http"},
                                   {":path", "/"},
                                   {":authority", "www.example.com"},
                                   {"cache-control", "no-cache"}}));
  EXPECT_EQ(decoder.table_size(), 110u);
  Decoded third =
      decode(decoder, hex("8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf"));
  EXPECT_EQ(third.fields, (Fields{{":method", "GET"},
                                  {":scheme", "https"},
                                  {":path", "/index.html"},
                                  {":authority", "www.example.com"},
                                  {"custom-key", "custom-value"}}));
  EXPECT_EQ(decoder.table_size(), 164u);
  EXPECT_EQ(decoder.table_entries(), 3u);
}

// Blocks from nghttp2's deflater, with a table of `deflate_table` octets.
class Deflater {
 public:
  explicit Deflater(std::size_t table) { EXPECT_EQ(nghttp2_hd_deflate_new(&deflater_, table), 0); }
  ~Deflater() { nghttp2_hd_deflate_del(deflater_); }
  std::string block(const Fields& fields) {
    std::vector<nghttp2_nv> nv;
    for (const auto& [name, value] : fields) {
      nv.push_back({reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
                    reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(),
                    value.size(), NGHTTP2_NV_FLAG_NONE});
    }
    std::string out(nghttp2_hd_deflate_bound(deflater_, nv.data(), nv.size()), '\0');
    const ssize_t n = nghttp2_hd_deflate_hd(deflater_, reinterpret_cast<std::uint8_t*>(out.data()),
                                            out.size(), nv.data(), nv.size());
    EXPECT_GE(n, 0);
    out.resize(static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
    return out;
  }
  void change_table_size(std::size_t size) {
    EXPECT_EQ(nghttp2_hd_deflate_change_table_size(deflater_, size), 0);
  }
  std::size_t table_size() const { return nghttp2_hd_deflate_get_dynamic_table_size(deflater_); }

 private:
  nghttp2_hd_deflater* deflater_ = nullptr;
};

Fields random_fields(std::mt19937& random) {
  static const char* const kNames[] = {":method",    ":path",        ":authority",   ":status",
                                       "date",       "content-type", "x-request-id", "cookie",
                                       "user-agent", "accept",       "x-custom-one", "server",
                                       "set-cookie"};
  std::uniform_int_distribution<int> count(1, 12), name(0, std::size(kNames)), length(0, 60),
      octet(0, 255), small(0, 3);
  Fields fields;
  for (int i = count(random); i > 0; --i) {
    const int which = name(random);
    std::string field_name = which == static_cast<int>(std::size(kNames))
                                 ? "x-" + std::to_string(small(random) * 1000 + length(random))
                                 : kNames[which];
    std::string value;
    const bool long_value = small(random) == 0 && length(random) < 5;
    for (int n = long_value ? 3000 : length(random); n > 0; --n) {
      // Mostly text (short Huffman codes), now and then any octet (long ones).
      value.push_back(small(random) == 0 ? static_cast<char>(octet(random))
                                         : static_cast<char>('a' + octet(random) % 26));
    }
    if (small(random) == 0 && !fields.empty()) value = fields.back().second;  // a repeat
    fields.emplace_back(std::move(field_name), std::move(value));
  }
  return fields;
}

TEST(HpackDecoder, DecodesWhatNghttp2EncodesBlockAfterBlock) {
  for (const std::size_t table : {4096u, 256u, 0u}) {
    std::mt19937 random(static_cast<unsigned>(table) + 7);
    Deflater deflater(table);
    HpackDecoder decoder;  // the limit we advertise: 4096; the deflater uses at most `table`
    for (int block = 0; block < 2000; ++block) {
      const Fields fields = random_fields(random);
      const Decoded got = decode(decoder, deflater.block(fields));
      ASSERT_EQ(got.error, HpackError::kNone) << "table " << table << ", block " << block;
      ASSERT_EQ(got.fields, fields) << "table " << table << ", block " << block;
      ASSERT_EQ(decoder.table_size(), deflater.table_size()) << "table " << table;
    }
  }
}

TEST(HpackDecoder, FollowsTheEncodersTableSizeUpdates) {
  std::mt19937 random(11);
  Deflater deflater(4096);
  HpackDecoder decoder(4096);
  for (const std::size_t size : {1024u, 100u, 0u, 4096u, 2000u}) {
    deflater.change_table_size(size);
    for (int block = 0; block < 50; ++block) {
      const Fields fields = random_fields(random);
      const Decoded got = decode(decoder, deflater.block(fields));
      ASSERT_EQ(got.error, HpackError::kNone) << size;
      ASSERT_EQ(got.fields, fields) << size;
      ASSERT_EQ(decoder.table_size(), deflater.table_size()) << size;
      ASSERT_LE(decoder.table_size(), size);
    }
    EXPECT_EQ(decoder.table_max_size(), size);
  }
}

TEST(HpackDecoder, LiteralsWithoutIndexingLeaveTheTableAlone) {
  HpackDecoder decoder;
  // Without indexing (0000) and never indexed (0001), both with a literal name.
  Decoded got = decode(decoder, hex("0003 6162 6301 78") + hex("1003 6465 6601 79"));
  EXPECT_EQ(got.error, HpackError::kNone);
  EXPECT_EQ(got.fields, (Fields{{"abc", "x"}, {"def", "y"}}));
  EXPECT_EQ(decoder.table_entries(), 0u);
}

TEST(HpackDecoder, AnEntryLargerThanTheTableEmptiesIt) {
  HpackDecoder decoder(64);
  // A size update to 64 first (the limit is under 4096), then abc: x, 36 octets.
  EXPECT_EQ(decode(decoder, hex("3f21 4003 6162 6301 78")).error, HpackError::kNone);
  EXPECT_EQ(decoder.table_entries(), 1u);
  // "abc" and 40 x's: 75 octets, over 64.
  const Decoded got = decode(decoder, hex("4003 6162 6328") + std::string(40, 'x'));
  EXPECT_EQ(got.error, HpackError::kNone);
  EXPECT_EQ(got.fields.size(), 1u);
  EXPECT_EQ(decoder.table_entries(), 0u);
  EXPECT_EQ(decoder.table_size(), 0u);
}

TEST(HpackDecoder, ANameFromTheEntryItsOwnInsertionEvicts) {
  // Section 4.4: the new entry names the entry it pushes out.
  HpackDecoder decoder(70);
  // A size update to 70, then abc: x (36 octets).
  EXPECT_EQ(decode(decoder, hex("3f27 4003 6162 6301 78")).error, HpackError::kNone);
  const Decoded got = decode(decoder, hex("7e02 797a"));  // name index 62 (abc), value "yz"
  EXPECT_EQ(got.error, HpackError::kNone);
  EXPECT_EQ(got.fields, (Fields{{"abc", "yz"}}));
  EXPECT_EQ(decoder.table_entries(), 1u);
  EXPECT_EQ(decode(decoder, hex("be")).fields, (Fields{{"abc", "yz"}}));
}

TEST(HpackDecoder, RefusesWhatIsMalformed) {
  struct Case {
    const char* what;
    std::string block;
    HpackError error;
  };
  const Case cases[] = {
      {"index 0", hex("80"), HpackError::kBadIndex},
      {"index past the static table, nothing dynamic", hex("be"), HpackError::kBadIndex},
      {"a literal's name index past both tables", hex("7f00 0178"), HpackError::kBadIndex},
      {"a string longer than the block", hex("4003 6162"), HpackError::kTruncated},
      {"an integer cut short", hex("7fff"), HpackError::kTruncated},
      {"an integer past 32 bits", hex("3fff ffff ffff 7f"), HpackError::kIntegerOverflow},
      {"an integer with too many continuation bytes", hex("0fff 8080 8080 8000"),
       HpackError::kIntegerOverflow},
      {"a size update over the limit", hex("3fe2 1f"), HpackError::kTableSizeOverLimit},
      {"a size update after a field", hex("8220"), HpackError::kTableSizeUpdateLate},
      {"Huffman padding of zeros", hex("0081 18"), HpackError::kBadHuffman},
      {"EOS in a Huffman string", hex("0084 ffff ffff"), HpackError::kBadHuffman},
      {"a representation with no value", hex("4003 616263"), HpackError::kTruncated},
  };
  for (const Case& c : cases) {
    HpackDecoder decoder;
    EXPECT_EQ(decode(decoder, c.block).error, c.error) << c.what;
  }
  HpackDecoder decoder;
  EXPECT_EQ(decode(decoder, hex("3fe1 1f")).error, HpackError::kNone) << "4096, the limit itself";
}

TEST(HpackDecoder, ALimitUnder4096MustBeAppliedByTheFirstBlock) {
  HpackDecoder strict(256);
  EXPECT_EQ(decode(strict, hex("82")).error, HpackError::kTableSizeUpdateMissing);
  HpackDecoder empty(256);
  EXPECT_EQ(decode(empty, "").error, HpackError::kTableSizeUpdateMissing) << "an empty first block";
  HpackDecoder applied(256);
  EXPECT_EQ(decode(applied, hex("3fe1 0182")).error, HpackError::kNone);  // 256, then a field
  EXPECT_EQ(applied.table_max_size(), 256u);
  EXPECT_EQ(decode(applied, hex("82")).error, HpackError::kNone) << "due once only";
}

TEST(HpackDecoder, AHuffmanStringLongerThanTheScratchIsRefused) {
  HpackDecoder decoder;
  std::vector<char> scratch(4);
  const std::string block = hex("0086 f1e3 c2e5 f23a 6b");  // no name: "www.example" partly
  EXPECT_EQ(decoder.decode(block, scratch, [](std::string_view, std::string_view) {}),
            HpackError::kStringTooLong);
}

}  // namespace
}  // namespace ringside::http
