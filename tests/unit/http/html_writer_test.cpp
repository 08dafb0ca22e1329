#include "http/html_writer.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>

namespace ringside::http {
namespace {

std::string escaped(std::string_view text) {
  std::array<char, 512> storage{};
  OutBuffer out(storage.data(), storage.size());
  EXPECT_TRUE(append_html_escaped(out, text));
  EXPECT_EQ(out.size(), html_escaped_size(text)) << "the size estimate is exact";
  return std::string(out.view());
}

TEST(HtmlWriter, EscapesTheFiveSpecialCharacters) {
  EXPECT_EQ(escaped("plain text"), "plain text");
  EXPECT_EQ(escaped(""), "");
  EXPECT_EQ(escaped("<script>alert(\"This should not be displayed in a browser alert box.\");</script>"),
            "&lt;script&gt;alert(&quot;This should not be displayed in a browser alert box.&quot;);"
            "&lt;/script&gt;");
  EXPECT_EQ(escaped("A & B's"), "A &amp; B&#x27;s");
  EXPECT_EQ(escaped("&amp;"), "&amp;amp;") << "escaping is not idempotent, and must not be";
}

TEST(HtmlWriter, Utf8PassesThrough) {
  EXPECT_EQ(escaped("フレームワークのベンチマーク"), "フレームワークのベンチマーク");
}

TEST(HtmlWriter, WritesNothingWithoutRoom) {
  std::array<char, 4> storage{};
  OutBuffer out(storage.data(), storage.size());
  EXPECT_FALSE(append_html_escaped(out, "<b>"));  // needs 11 bytes
  EXPECT_EQ(out.size(), 0u);
  EXPECT_TRUE(append_html_escaped(out, "abcd"));
  EXPECT_EQ(out.view(), "abcd");
}

}  // namespace
}  // namespace ringside::http
