#include "http/json_writer.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>

namespace ringside::http {
namespace {

std::string as_json(std::string_view text) {
  std::array<char, 256> storage{};
  OutBuffer out(storage.data(), storage.size());
  EXPECT_TRUE(append_json_string(out, text));
  EXPECT_EQ(out.size(), json_string_size(text)) << "the size estimate is exact";
  return std::string(out.view());
}

TEST(JsonWriter, EscapesWhatRfc8259Requires) {
  EXPECT_EQ(as_json("Hello, World!"), R"("Hello, World!")");
  EXPECT_EQ(as_json(""), R"("")");
  EXPECT_EQ(as_json("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(as_json("\n\r\t\b\f"), R"("\n\r\t\b\f")");
  EXPECT_EQ(as_json(std::string_view("\x01\x1f", 2)), R"("\u0001\u001f")");
  EXPECT_EQ(as_json(std::string_view("nul\0end", 7)), R"("nul\u0000end")");
  EXPECT_EQ(as_json("フレームワーク"), "\"フレームワーク\"") << "UTF-8 passes through";
  EXPECT_EQ(as_json("</script>"), R"("</script>")");
}

TEST(JsonWriter, WritesNothingWithoutRoom) {
  std::array<char, 8> storage{};
  OutBuffer out(storage.data(), storage.size());
  EXPECT_FALSE(append_json_string(out, "0123456789"));
  EXPECT_EQ(out.size(), 0u);
  EXPECT_FALSE(append_json_number(out, 0)) << "a number needs up to 20 bytes of room";
}

TEST(JsonWriter, ExactRoomIsEnoughThoughTheWorstCaseIsNot) {
  std::array<char, 12> storage{};
  OutBuffer out(storage.data(), storage.size());
  ASSERT_TRUE(append_json_string(out, "0123456789"));  // 12 bytes; the worst case would be 62
  EXPECT_EQ(out.view(), R"("0123456789")");
}

TEST(JsonWriter, Numbers) {
  std::array<char, 64> storage{};
  OutBuffer out(storage.data(), storage.size());
  ASSERT_TRUE(append_json_number(out, 18446744073709551615ull));
  EXPECT_EQ(out.view(), "18446744073709551615");
}

}  // namespace
}  // namespace ringside::http
