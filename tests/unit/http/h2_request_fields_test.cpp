// The request rules of RFC 9113 sections 8.2 and 8.3 as H2RequestFields applies them: each case a
// field list, whole, and whether the request is well-formed.
#include "http/h2_request_fields.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace ringside::http {
namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

const Fields kGet{{":method", "GET"}, {":scheme", "http"}, {":authority", "a"}, {":path", "/"}};

Fields with(Fields fields, const Fields& extra) {
  fields.insert(fields.end(), extra.begin(), extra.end());
  return fields;
}

bool well_formed(const Fields& fields, H2FieldBlock block = H2FieldBlock::kRequest) {
  H2RequestFields check(block);
  for (const auto& [name, value] : fields) {
    if (!check.accept(name, value)) return false;
  }
  return check.complete();
}

TEST(H2RequestFields, AnOrdinaryRequestIsWellFormed) {
  EXPECT_TRUE(well_formed(kGet));
  EXPECT_TRUE(well_formed(with(kGet, {{"accept", "*/*"}, {"te", "trailers"}, {"x-a", ""}})));
  EXPECT_TRUE(well_formed({{":method", "GET"}, {":scheme", "http"}, {":path", "/"}}));
  EXPECT_TRUE(well_formed({{":method", "OPTIONS"}, {":scheme", "http"}, {":path", "*"}}));
  EXPECT_TRUE(well_formed({{":method", "CONNECT"}, {":authority", "a:443"}}));
  EXPECT_TRUE(well_formed({{"x-checksum", "5"}}, H2FieldBlock::kTrailers));
}

TEST(H2RequestFields, PseudoHeaderFieldsAreRequiredOnceEachAndFirst) {
  EXPECT_FALSE(well_formed({{":scheme", "http"}, {":path", "/"}}));      // no :method
  EXPECT_FALSE(well_formed({{":method", "GET"}, {":scheme", "http"}}));  // no :path
  EXPECT_FALSE(well_formed({{":method", "GET"}, {":path", "/"}}));       // no :scheme
  EXPECT_FALSE(well_formed(with(kGet, {{":path", "/json"}})));           // twice
  EXPECT_FALSE(well_formed({{":method", "GET"},
                            {"accept", "*/*"},
                            {":scheme", "http"},
                            {":path", "/"}}));  // after a regular one
  EXPECT_FALSE(well_formed(with(kGet, {{":foo", "bar"}})));
  EXPECT_FALSE(well_formed(with(kGet, {{":status", "200"}})));
  EXPECT_FALSE(well_formed(with(kGet, {{":protocol", "websocket"}})));
  EXPECT_FALSE(well_formed({{":method", "GET"}, {":scheme", "http"}, {":path", ""}}));
  EXPECT_FALSE(well_formed({{":method", "GET"}, {":scheme", "http"}, {":path", "*"}}));
  EXPECT_FALSE(well_formed({{":method", "GET"}, {":scheme", "http"}, {":path", "x"}}));
  EXPECT_FALSE(well_formed({{":method", "CONNECT"}, {":authority", "a"}, {":path", "/"}}));
  EXPECT_FALSE(well_formed({{":method", "CONNECT"}}));
  EXPECT_FALSE(well_formed({{":method", "G T"}, {":scheme", "http"}, {":path", "/"}}));
  EXPECT_FALSE(well_formed({{":path", "/"}}, H2FieldBlock::kTrailers));
}

TEST(H2RequestFields, NamesAreLowercaseTokensAndValuesHaveNoLineBreaks) {
  EXPECT_FALSE(well_formed(with(kGet, {{"X-Upper", "1"}})));
  EXPECT_FALSE(well_formed(with(kGet, {{"", "1"}})));
  EXPECT_FALSE(well_formed(with(kGet, {{"a b", "1"}})));
  EXPECT_FALSE(well_formed(with(kGet, {{"x-split", "a\r\nx-injected: 1"}})));
  EXPECT_FALSE(well_formed(with(kGet, {{"x-nul", std::string("a\0b", 3)}})));
  EXPECT_FALSE(well_formed(with(kGet, {{"x-lead", " a"}})));
  EXPECT_FALSE(well_formed(with(kGet, {{"x-trail", "a\t"}})));
  EXPECT_FALSE(well_formed({{":method", "GET"}, {":scheme", "http"}, {":path", "/a b"}}));
}

TEST(H2RequestFields, ConnectionSpecificFieldsAndTeOtherThanTrailersAreRefused) {
  for (const char* name :
       {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"}) {
    EXPECT_FALSE(well_formed(with(kGet, {{name, "x"}}))) << name;
  }
  EXPECT_FALSE(well_formed(with(kGet, {{"te", "gzip"}})));
  EXPECT_TRUE(well_formed(with(kGet, {{"te", "Trailers"}})));
}

TEST(H2RequestFields, ContentLengthIsANumberGivenOnce) {
  H2RequestFields check(H2FieldBlock::kRequest);
  for (const auto& [name, value] : with(kGet, {{"content-length", "12345"}})) {
    ASSERT_TRUE(check.accept(name, value));
  }
  EXPECT_TRUE(check.complete());
  EXPECT_EQ(check.content_length(), 12345);
  EXPECT_EQ(H2RequestFields(H2FieldBlock::kRequest).content_length(), -1);
  EXPECT_FALSE(well_formed(with(kGet, {{"content-length", "1x"}})));
  EXPECT_FALSE(well_formed(with(kGet, {{"content-length", ""}})));
  EXPECT_FALSE(well_formed(with(kGet, {{"content-length", "-1"}})));
  EXPECT_FALSE(well_formed(with(kGet, {{"content-length", "99999999999999999999"}})));
  EXPECT_FALSE(well_formed(with(kGet, {{"content-length", "5"}, {"content-length", "5"}})));
}

}  // namespace
}  // namespace ringside::http
