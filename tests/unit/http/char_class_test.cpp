// The character-class table (token.hpp), the scans over it (byte_scan.hpp) and the field-name
// matcher (field_name.hpp), each against a reference written straight from the RFC grammar, over
// every byte value.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "http/byte_scan.hpp"
#include "http/field_name.hpp"
#include "http/token.hpp"

namespace ringside::http {
namespace {

// RFC 9110 section 5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
// "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
bool reference_tchar(int c) {
  if (c >= '0' && c <= '9') return true;
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}
// VCHAR = %x21-7E (RFC 5234); obs-text = %x80-FF (RFC 9110 section 5.5).
bool reference_vchar_or_obs_text(int c) { return (c >= 0x21 && c <= 0x7e) || c >= 0x80; }
// field-value content: field-vchar, SP, HTAB (RFC 9110 section 5.5).
bool reference_field_value(int c) {
  return reference_vchar_or_obs_text(c) || c == ' ' || c == '\t';
}
// The target's bytes (RFC 9112 section 3.2: no whitespace inside a request-target).
bool reference_target(int c) { return reference_vchar_or_obs_text(c); }

TEST(CharClass, EveryByteIsClassifiedAsTheRfcSays) {
  for (int c = 0; c < 256; ++c) {
    const char ch = static_cast<char>(c);
    EXPECT_EQ(is_token(ch), reference_tchar(c)) << "byte " << c;
    EXPECT_EQ(is_value_char(ch), reference_field_value(c)) << "byte " << c;
    EXPECT_EQ(is_target_char(ch), reference_target(c)) << "byte " << c;
  }
}

using Scan = const char* (*)(const char*, const char*);
const char* token_scan(const char* p, const char* end) { return skip_class(p, end, kTokenClass); }

std::size_t reference_run(std::string_view s, bool (*in_class)(int)) {
  std::size_t i = 0;
  while (i < s.size() && in_class(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

// Every byte value at every position of runs of every length up to 24 (three words and a tail),
// in a buffer exactly as long as the run so that AddressSanitizer catches a read past its end.
void check_scan(Scan scan, bool (*in_class)(int), char filler) {
  for (std::size_t length = 0; length <= 24; ++length) {
    for (std::size_t at = 0; at <= length; ++at) {
      for (int c = 0; c < 256; ++c) {
        std::vector<char> bytes(length, filler);
        if (at < length) bytes[at] = static_cast<char>(c);
        const char* begin = bytes.data();
        const std::size_t got = static_cast<std::size_t>(scan(begin, begin + length) - begin);
        ASSERT_EQ(got, reference_run({begin, length}, in_class))
            << "length " << length << ", byte " << c << " at " << at;
      }
    }
  }
}

TEST(ByteScan, FieldValueStopsAtTheFirstByteOutsideTheClass) {
  check_scan(skip_field_value, reference_field_value, 'v');
  check_scan(skip_field_value, reference_field_value, '\t');  // HTAB is stepped over, word by word
}

TEST(ByteScan, TargetStopsAtTheFirstByteOutsideTheClass) {
  check_scan(skip_target, reference_target, '/');
  check_scan(skip_target, reference_target, '\xff');
}

TEST(ByteScan, TokenStopsAtTheFirstByteOutsideTheClass) {
  check_scan(token_scan, reference_tchar, 'a');
}

// Two stopping bytes in one word: the first one counts, however the second would flag.
TEST(ByteScan, FirstOfTwoStopsInAWordWins) {
  for (int first = 0; first < 256; ++first) {
    std::string s = "abcdefghijklmnop";
    s[3] = static_cast<char>(first);
    s[5] = '\0';
    EXPECT_EQ(static_cast<std::size_t>(skip_field_value(s.data(), s.data() + s.size()) - s.data()),
              reference_run(s, reference_field_value))
        << "byte " << first;
    EXPECT_EQ(static_cast<std::size_t>(skip_target(s.data(), s.data() + s.size()) - s.data()),
              reference_run(s, reference_target))
        << "byte " << first;
  }
}

TEST(FieldName, ClassifiesTheFieldsTheParserActsOnInAnyCase) {
  EXPECT_EQ(field_name("Host"), FieldName::kHost);
  EXPECT_EQ(field_name("hOST"), FieldName::kHost);
  EXPECT_EQ(field_name("Content-Length"), FieldName::kContentLength);
  EXPECT_EQ(field_name("TRANSFER-ENCODING"), FieldName::kTransferEncoding);
  EXPECT_EQ(field_name("connection"), FieldName::kConnection);
  EXPECT_EQ(field_name("Expect"), FieldName::kExpect);
  for (std::string_view other : {"Hosts", "Hos", "X-Host", "Content-Type", "User-Agent", ""}) {
    EXPECT_EQ(field_name(other), FieldName::kOther) << other;
  }
}

// A reference for match_known_field: the name up to ':' is a token equal, ignoring case, to one
// of the names it knows.
KnownField reference_known(std::string_view line) {
  static constexpr std::string_view kKnown[] = {
      "host", "user-agent", "accept", "accept-language", "accept-encoding", "connection",
      "content-length", "content-type", "cache-control", "cookie", "transfer-encoding", "expect"};
  for (std::string_view name : kKnown) {
    if (line.size() > name.size() && line[name.size()] == ':' &&
        equals_ignore_case(line.substr(0, name.size()), name)) {
      return {name.size(), field_name(line.substr(0, name.size()))};
    }
  }
  return {};
}

TEST(FieldName, KnownNamesMatchAgainstTheReferenceWithEveryByteAnywhere) {
  const std::vector<std::string> lines = {
      "Host: a",          "HOST:",           "host:x",         "User-Agent: x",
      "Accept: */*",      "accept-language:", "Accept-Encoding: gzip", "Connection: close",
      "Content-Length: 1", "content-type:",  "Cache-Control:",  "Cookie: a=b",
      "Transfer-Encoding: chunked", "Expect: 100-continue", "X-Other: y"};
  for (const std::string& line : lines) {
    // Each prefix (a short input must not be read past), and each byte replaced by every value.
    for (std::size_t length = 0; length <= line.size(); ++length) {
      for (std::size_t at = 0; at < length; ++at) {
        for (int c = 0; c < 256; ++c) {
          std::vector<char> bytes(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(length));
          bytes[at] = static_cast<char>(c);
          const std::string_view view(bytes.data(), length);
          const KnownField got = match_known_field(bytes.data(), bytes.data() + length);
          const KnownField want = reference_known(view);
          ASSERT_EQ(got.name_size, want.name_size) << "'" << view << "' byte " << c << " at " << at;
          ASSERT_EQ(got.field, want.field) << "'" << view << "'";
        }
      }
    }
  }
}

TEST(FieldName, CarriageReturnIsNotAFoldedHyphen) {
  // OR 0x20 turns CR (0x0d) into '-' (0x2d): the matcher must not fold there.
  const std::string_view line = "Content\rLength: 1";
  EXPECT_EQ(match_known_field(line.data(), line.data() + line.size()).name_size, 0u);
}

}  // namespace
}  // namespace ringside::http
