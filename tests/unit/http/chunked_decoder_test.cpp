#include "http/chunked_decoder.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ringside::http {
namespace {

constexpr std::uint64_t kUnlimited = ChunkedDecoder::kUnlimited;
constexpr std::uint64_t kAllowance = ChunkedDecoder::kFramingAllowance;

std::span<const char> bytes_of(std::string_view s) { return {s.data(), s.size()}; }

struct ValidBody {
  std::string name;
  std::string encoded;
  std::string payload;  // the chunk data, concatenated
  std::uint64_t framing_allowance = kAllowance;
};

// One chunk-size line of exactly `length` bytes before its CRLF: a size, whitespace and extensions.
std::string size_line_of(std::size_t length, std::string_view size) {
  const std::size_t spaces = (length - size.size()) / 2;
  std::string line = std::string(size) + std::string(spaces, ' ') + ";";
  return line + std::string(length - line.size(), 'e');
}

std::string one_byte_chunks(std::size_t count) {
  std::string encoded;
  for (std::size_t i = 0; i < count; ++i) encoded += "1\r\nx\r\n";
  return encoded + "0\r\n\r\n";
}

std::vector<ValidBody> valid_bodies() {
  return {
      {"single_chunk", "5\r\nhello\r\n0\r\n\r\n", "hello"},
      {"empty_body", "0\r\n\r\n", ""},
      {"multiple_chunks", "5\r\nhello\r\n1\r\n,\r\n6\r\n world\r\n0\r\n\r\n", "hello, world"},
      {"extensions", "5;name=value\r\nhello\r\n3;a;b=\"q\"\r\nabc\r\n0;last\r\n\r\n", "helloabc"},
      {"whitespace_before_extension", "5 \t;ext\r\nhello\r\n0\r\n\r\n", "hello"},
      {"trailers", "5\r\nhello\r\n0\r\nX-Checksum: abc\r\nX-More: d e\r\n\r\n", "hello"},
      {"trailer_empty_value_and_tab", "0\r\nX-Empty:\r\nX-Tab:\ta\tb\r\n\r\n", ""},
      {"uppercase_hex", "A\r\n0123456789\r\n1F\r\n" + std::string(31, 'z') + "\r\n0\r\n\r\n",
       "0123456789" + std::string(31, 'z')},
      {"lowercase_hex", "a\r\n0123456789\r\n0\r\n\r\n", "0123456789"},
      {"leading_zeros", "0005\r\nhello\r\n000\r\n\r\n", "hello"},
      {"data_containing_crlf", "4\r\n\r\n\r\n\r\n0\r\n\r\n", "\r\n\r\n"},
      {"fifteen_hex_digits", "00000000000000A\r\n0123456789\r\n0\r\n\r\n", "0123456789"},
      {"size_line_of_exactly_the_limit", size_line_of(4096, "5") + "\r\nhello\r\n0\r\n\r\n",
       "hello"},
      // Framing past the allowance is fine while the data outweighs it.
      {"framing_over_allowance_but_under_data",
       "40\r\n" + std::string(64, 'd') + "\r\n40\r\n" + std::string(64, 'd') + "\r\n0\r\n\r\n",
       std::string(128, 'd'), 16},
      {"framing_exactly_the_allowance", "1\r\nx\r\n0\r\n\r\n", "x", 10},
  };
}

// gtest prints a failing case by its name rather than as raw bytes.
void PrintTo(const ValidBody& body, std::ostream* os) { *os << body.name; }

class ChunkedValid : public testing::TestWithParam<ValidBody> {};

TEST_P(ChunkedValid, FedWhole) {
  const auto& body = GetParam();
  ChunkedDecoder decoder(kUnlimited, body.framing_allowance);
  auto r = decoder.feed(bytes_of(body.encoded));
  EXPECT_EQ(r.error, RequestError::kNone);
  EXPECT_TRUE(r.done);
  EXPECT_EQ(r.consumed, body.encoded.size());
  EXPECT_EQ(r.data_bytes, body.payload.size());
  EXPECT_EQ(decoder.body_bytes(), body.payload.size());
}

TEST_P(ChunkedValid, StopsAtTheEndOfTheBody) {
  const auto& body = GetParam();
  const std::string pipelined = body.encoded + "GET /next HTTP/1.1\r\n";
  ChunkedDecoder decoder(kUnlimited, body.framing_allowance);
  auto r = decoder.feed(bytes_of(pipelined));
  EXPECT_TRUE(r.done);
  EXPECT_EQ(r.consumed, body.encoded.size());
  // Once done, it takes nothing more.
  auto after = decoder.feed(bytes_of("more"));
  EXPECT_TRUE(after.done);
  EXPECT_EQ(after.consumed, 0u);
}

TEST_P(ChunkedValid, FedSplitAtEveryPoint) {
  const auto& body = GetParam();
  const std::string_view encoded = body.encoded;
  for (std::size_t split = 0; split <= encoded.size(); ++split) {
    SCOPED_TRACE("split at " + std::to_string(split));
    ChunkedDecoder decoder(kUnlimited, body.framing_allowance);
    auto first = decoder.feed(bytes_of(encoded.substr(0, split)));
    EXPECT_EQ(first.error, RequestError::kNone);
    EXPECT_EQ(first.consumed, split);
    EXPECT_EQ(first.done, split == encoded.size());
    auto second = decoder.feed(bytes_of(encoded.substr(split)));
    EXPECT_EQ(second.error, RequestError::kNone);
    EXPECT_TRUE(second.done);
    EXPECT_EQ(first.consumed + second.consumed, encoded.size());
    EXPECT_EQ(first.data_bytes + second.data_bytes, body.payload.size());
  }
}

TEST_P(ChunkedValid, FedOneByteAtATime) {
  const auto& body = GetParam();
  ChunkedDecoder decoder(kUnlimited, body.framing_allowance);
  std::string payload;
  std::size_t consumed = 0;
  for (std::size_t i = 0; i < body.encoded.size(); ++i) {
    auto r = decoder.feed(bytes_of(std::string_view(body.encoded).substr(i, 1)));
    ASSERT_EQ(r.error, RequestError::kNone) << "at byte " << i;
    ASSERT_EQ(r.consumed, 1u) << "at byte " << i;
    ASSERT_EQ(r.done, i + 1 == body.encoded.size()) << "at byte " << i;
    // With one byte per call, data_bytes says exactly which bytes are chunk data.
    if (r.data_bytes == 1) payload += body.encoded[i];
    consumed += r.consumed;
  }
  EXPECT_EQ(consumed, body.encoded.size());
  EXPECT_EQ(payload, body.payload);
}

TEST_P(ChunkedValid, BodyExactlyAtTheLimitIsAccepted) {
  const auto& body = GetParam();
  ChunkedDecoder decoder(body.payload.size(), body.framing_allowance);
  auto r = decoder.feed(bytes_of(body.encoded));
  EXPECT_EQ(r.error, RequestError::kNone);
  EXPECT_TRUE(r.done);
}

INSTANTIATE_TEST_SUITE_P(Bodies, ChunkedValid, testing::ValuesIn(valid_bodies()),
                         [](const auto& test) { return test.param.name; });

struct InvalidBody {
  std::string name;
  std::string encoded;
  RequestError error;
  std::uint64_t max_body = kUnlimited;
  std::uint64_t framing_allowance = kAllowance;
};

std::vector<InvalidBody> invalid_bodies() {
  using enum RequestError;
  return {
      {"no_digits_before_crlf", "\r\nhello\r\n0\r\n\r\n", kMalformedChunk},
      {"no_digits_before_extension", ";ext\r\nhello\r\n0\r\n\r\n", kMalformedChunk},
      {"no_digits_before_space", " 5\r\nhello\r\n0\r\n\r\n", kMalformedChunk},
      {"bad_hex_digit", "5g\r\nhello\r\n0\r\n\r\n", kMalformedChunk},
      {"hex_prefix", "0x5\r\nhello\r\n0\r\n\r\n", kMalformedChunk},
      {"negative_size", "-5\r\nhello\r\n0\r\n\r\n", kMalformedChunk},
      {"digit_after_whitespace", "5 5\r\nhello\r\n0\r\n\r\n", kMalformedChunk},
      {"data_longer_than_size", "5\r\nhelloX\r\n0\r\n\r\n", kMalformedChunk},
      {"data_cr_without_lf", "5\r\nhello\rX0\r\n\r\n", kMalformedChunk},
      {"sixteen_hex_digits", "0000000000000005\r\nhello\r\n0\r\n\r\n", kMalformedChunk},
      {"size_overflowing_64_bits", "10000000000000000\r\n", kMalformedChunk},
      {"bare_lf_after_size", "5\nhello\r\n0\r\n\r\n", kMalformedChunk},
      {"bare_lf_after_data", "5\r\nhello\n0\r\n\r\n", kMalformedChunk},
      {"bare_lf_in_extension", "5;a\nhello\r\n0\r\n\r\n", kMalformedChunk},
      {"size_cr_without_lf", "5\rhello\r\n0\r\n\r\n", kMalformedChunk},
      {"bare_lf_ending_body", "0\r\n\n", kMalformedChunk},
      {"bare_lf_ending_trailer", "0\r\nX-T: v\n\r\n", kMalformedChunk},
      {"final_cr_without_lf", "0\r\n\rX", kMalformedChunk},
      // Trailers are field lines: a line that is not one is refused, not skipped (a request
      // written where trailers go would otherwise vanish into the body).
      {"trailer_without_colon", "0\r\nX-Trailer v\r\n\r\n", kMalformedChunk},
      {"trailer_request_line", "0\r\nGET /next HTTP/1.1\r\nHost: x\r\n\r\n", kMalformedChunk},
      {"trailer_obsolete_folding", "0\r\nX-T: v\r\n folded\r\n\r\n", kMalformedChunk},
      {"trailer_space_before_colon", "0\r\nX-T : v\r\n\r\n", kMalformedChunk},
      {"trailer_empty_name", "0\r\n: v\r\n\r\n", kMalformedChunk},
      {"trailer_nul_in_name", std::string("0\r\nX\0: v\r\n\r\n", 12), kMalformedChunk},
      {"trailer_control_in_value", "0\r\nX-T: a\x01\r\n\r\n", kMalformedChunk},
      {"trailer_bare_cr_in_value", "0\r\nX-T: a\rb\r\n\r\n", kMalformedChunk},
      {"control_character_in_extension", "5;a\x01\r\nhello\r\n0\r\n\r\n", kMalformedChunk},
      {"extension_line_too_long", "5;" + std::string(5000, 'e') + "\r\nhello\r\n0\r\n\r\n",
       kChunkLineTooLong},
      // Whitespace counts toward the line limit too, alone or with extensions.
      {"whitespace_line_too_long", "5" + std::string(5000, ' ') + "\r\nhello\r\n0\r\n\r\n",
       kChunkLineTooLong},
      {"tab_line_too_long", "5" + std::string(5000, '\t') + ";a\r\nhello\r\n0\r\n\r\n",
       kChunkLineTooLong},
      {"size_line_one_over_the_limit", size_line_of(4097, "5") + "\r\nhello\r\n0\r\n\r\n",
       kChunkLineTooLong},
      {"last_chunk_line_too_long", "0" + std::string(4096, ' ') + "\r\n\r\n", kChunkLineTooLong},
      // Framing may not exceed max(allowance, body bytes): small chunks, long extensions (each
      // within the line limit) and trailers all count.
      {"tiny_chunks_over_the_allowance", one_byte_chunks(20), kChunkFramingTooLarge, kUnlimited,
       64},
      {"extensions_over_the_allowance",
       "1;" + std::string(300, 'e') + "\r\nx\r\n1;" + std::string(300, 'e') + "\r\nx\r\n0\r\n\r\n",
       kChunkFramingTooLarge, kUnlimited, 512},
      {"trailers_over_the_allowance", "1\r\nx\r\n0\r\nX-T: " + std::string(100, 't') + "\r\n\r\n",
       kChunkFramingTooLarge, kUnlimited, 64},
      {"framing_one_over_the_allowance", "1\r\nx\r\n0\r\n\r\n", kChunkFramingTooLarge,
       kUnlimited, 9},
      {"trailers_too_long", "0\r\nX-Big: " + std::string(17 * 1024, 't') + "\r\n\r\n",
       kHeadTooLarge},
      {"single_chunk_over_limit", "b\r\nhello world\r\n0\r\n\r\n", kBodyTooLarge, 10},
      {"chunks_add_up_over_limit", "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", kBodyTooLarge, 10},
      {"any_byte_over_zero_limit", "1\r\nx\r\n0\r\n\r\n", kBodyTooLarge, 0},
  };
}

void PrintTo(const InvalidBody& body, std::ostream* os) { *os << body.name; }

class ChunkedInvalid : public testing::TestWithParam<InvalidBody> {};

TEST_P(ChunkedInvalid, FedWhole) {
  const auto& body = GetParam();
  ChunkedDecoder decoder(body.max_body, body.framing_allowance);
  auto r = decoder.feed(bytes_of(body.encoded));
  EXPECT_EQ(r.error, body.error);
  EXPECT_FALSE(r.done);
  EXPECT_LE(r.consumed, body.encoded.size());
}

TEST_P(ChunkedInvalid, SameErrorAtEverySplitPoint) {
  const auto& body = GetParam();
  const std::string_view encoded = body.encoded;
  for (std::size_t split = 0; split <= encoded.size(); ++split) {
    ChunkedDecoder decoder(body.max_body, body.framing_allowance);
    auto first = decoder.feed(bytes_of(encoded.substr(0, split)));
    RequestError error = first.error;
    if (error == RequestError::kNone) {
      EXPECT_EQ(first.consumed, split);
      error = decoder.feed(bytes_of(encoded.substr(split))).error;
    }
    ASSERT_EQ(error, body.error) << "split at " << split;
  }
}

TEST_P(ChunkedInvalid, SameErrorOneByteAtATime) {
  const auto& body = GetParam();
  ChunkedDecoder decoder(body.max_body, body.framing_allowance);
  RequestError error = RequestError::kNone;
  for (std::size_t i = 0; i < body.encoded.size() && error == RequestError::kNone; ++i) {
    auto r = decoder.feed(bytes_of(std::string_view(body.encoded).substr(i, 1)));
    EXPECT_FALSE(r.done);
    error = r.error;
  }
  EXPECT_EQ(error, body.error);
}

INSTANTIATE_TEST_SUITE_P(Bodies, ChunkedInvalid, testing::ValuesIn(invalid_bodies()),
                         [](const auto& test) { return test.param.name; });

TEST(ChunkedDecoder, BodyLimitErrorComesBeforeTheData) {
  // A client must not be able to make the server read a huge chunk before refusing it.
  ChunkedDecoder decoder(1000);
  auto r = decoder.feed(bytes_of("FFFFFFFF\r\n"));
  EXPECT_EQ(r.error, RequestError::kBodyTooLarge);
  EXPECT_EQ(r.consumed, 10u);
  EXPECT_EQ(r.data_bytes, 0u);
}

TEST(ChunkedDecoder, PartialInputIsNotAnError) {
  ChunkedDecoder decoder;
  auto r = decoder.feed(bytes_of("5\r\nhel"));
  EXPECT_EQ(r.error, RequestError::kNone);
  EXPECT_FALSE(r.done);
  EXPECT_EQ(r.consumed, 6u);
  EXPECT_EQ(r.data_bytes, 3u);
  EXPECT_EQ(decoder.body_bytes(), 5u);  // counted when the size line is read
}

TEST(ChunkedDecoder, EmptyFeedConsumesNothing) {
  ChunkedDecoder decoder;
  auto r = decoder.feed({});
  EXPECT_EQ(r.consumed, 0u);
  EXPECT_FALSE(r.done);
  EXPECT_EQ(r.error, RequestError::kNone);
}

// The documented default: one-byte chunks carry 5 bytes of framing each ("1\r\n" and the CRLF
// after the data) and the body ends with 5 more ("0\r\n\r\n"), so 13,106 of them make 65,535
// framing bytes (within 64 KiB) and 13,107 make 65,540 (over it, and over their 13,107 data bytes).
TEST(ChunkedDecoder, DefaultFramingAllowanceIs64KiB) {
  const std::string within = one_byte_chunks(13106);
  ChunkedDecoder decoder;
  auto r = decoder.feed(bytes_of(within));
  EXPECT_EQ(r.error, RequestError::kNone);
  EXPECT_TRUE(r.done);
  EXPECT_EQ(r.data_bytes, 13106u);

  const std::string over = one_byte_chunks(13107);
  decoder.reset(kUnlimited);
  r = decoder.feed(bytes_of(over));
  EXPECT_EQ(r.error, RequestError::kChunkFramingTooLarge);
  // Refused at the 65,537th framing byte: the CR after the last chunk's "0".
  EXPECT_EQ(r.consumed, over.size() - 3);
}

TEST(ChunkedDecoder, UnboundedFramingTakesAnyNumberOfSmallChunks) {
  // What the response parser uses: response bodies are unbounded anyway.
  const std::string encoded = one_byte_chunks(20000);
  ChunkedDecoder decoder(kUnlimited, ChunkedDecoder::kUnboundedFraming);
  auto r = decoder.feed(bytes_of(encoded));
  EXPECT_EQ(r.error, RequestError::kNone);
  EXPECT_TRUE(r.done);
  EXPECT_EQ(r.data_bytes, 20000u);
}

TEST(ChunkedDecoder, ResetStartsAFreshBody) {
  ChunkedDecoder decoder(4);
  ASSERT_EQ(decoder.feed(bytes_of("5\r\n")).error, RequestError::kBodyTooLarge);
  decoder.reset(5);
  auto r = decoder.feed(bytes_of("5\r\nhello\r\n0\r\n\r\n"));
  EXPECT_EQ(r.error, RequestError::kNone);
  EXPECT_TRUE(r.done);
  EXPECT_EQ(decoder.body_bytes(), 5u);
}

}  // namespace
}  // namespace ringside::http
