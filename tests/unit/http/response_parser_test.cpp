#include "http/response_parser.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ringside::http {
namespace {

using namespace std::string_view_literals;

// The bytes in an exact-size heap buffer, so AddressSanitizer catches a read past the end.
class ExactBuffer {
 public:
  explicit ExactBuffer(std::string_view bytes)
      : size_(bytes.size()), data_(new char[bytes.size()]) {
    std::copy(bytes.begin(), bytes.end(), data_.get());
  }
  std::span<const char> span() const { return {data_.get(), size_}; }

 private:
  std::size_t size_;
  std::unique_ptr<char[]> data_;
};

ResponseParseResult parse(std::string_view bytes, Response& response, bool request_was_head = false,
                          std::size_t max_head_bytes = kMaxResponseHeadBytes) {
  ExactBuffer buffer(bytes);
  return parse_response_head(buffer.span(), response, {request_was_head, max_head_bytes});
}

constexpr std::string_view kNextResponse = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

// ---- heads that parse --------------------------------------------------------------------------

struct Expect {
  std::uint16_t status;
  std::uint8_t version_minor;
  BodyFraming framing;
  bool until_close;
  std::uint64_t content_length;
  bool keep_alive;
  std::uint64_t payload;  // body bytes once the framing is removed
};

struct HeadCase {
  const char* name;
  Expect expect;
  std::string_view head;
  std::string_view body;  // this response's body; for until-close, all that follows the head
  bool request_was_head = false;
};

constexpr auto kCl = BodyFraming::kContentLength;
constexpr auto kChunked = BodyFraming::kChunked;
constexpr auto kNoBody = BodyFraming::kNone;

// A table reads best with one case per line or two.
// clang-format off
// {status, minor, framing, until close, content length, keep-alive, payload}, head, body[, HEAD]
const HeadCase kHeadCases[] = {
    {"ContentLength", {200, 1, kCl, false, 5, true, 5},
     "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", "hello"},
    {"ContentLengthZero", {200, 1, kNoBody, false, 0, true, 0},
     "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", ""},
    {"IdenticalLengthList", {200, 1, kCl, false, 3, true, 3},
     "HTTP/1.1 200 OK\r\nContent-Length: 3, 3\r\nContent-Length: 3\r\n\r\n", "abc"},
    {"NotFoundReason", {404, 1, kCl, false, 2, true, 2},
     "HTTP/1.1 404 Not Found\r\ncontent-length:  2 \r\n\r\n", "no"},
    {"Chunked", {200, 1, kChunked, false, 0, true, 5},
     "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "5\r\nhello\r\n0\r\n\r\n"},
    {"ChunkedTrailersAndExtension", {200, 1, kChunked, false, 0, true, 13},
     "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n",
     "3;ext=1\r\nabc\r\nA\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n"},
    {"GzipThenChunked", {200, 1, kChunked, false, 0, true, 2},
     "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", "2\r\n\x1f\x8b\r\n0\r\n\r\n"},
    {"GzipOnlyReadsUntilClose", {200, 1, kNoBody, true, 0, false, 3},
     "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "zzz"},
    {"NoContent", {204, 1, kNoBody, false, 0, true, 0},
     "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n", ""},
    {"NoContentIgnoresChunked", {204, 1, kNoBody, false, 0, true, 0},
     "HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n", ""},
    {"NotModified", {304, 1, kNoBody, false, 0, true, 0},
     "HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\nETag: \"x\"\r\n\r\n", ""},
    {"NotModifiedIgnoresBadLength", {304, 1, kNoBody, false, 0, true, 0},
     "HTTP/1.1 304 Not Modified\r\nContent-Length: 1, 2\r\n\r\n", ""},
    {"HeadWithLength", {200, 1, kNoBody, false, 0, true, 0},
     "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", "", true},
    {"HeadWithChunked", {200, 1, kNoBody, false, 0, true, 0},
     "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "", true},
    {"HeadWithoutFraming", {200, 0, kNoBody, false, 0, true, 0},
     "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\n", "", true},
    {"Continue", {100, 1, kNoBody, false, 0, true, 0},
     "HTTP/1.1 100 Continue\r\n\r\n", ""},
    {"EarlyHints", {103, 1, kNoBody, false, 0, true, 0},
     "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n", ""},
    {"SwitchingProtocols", {101, 1, kNoBody, false, 0, true, 0},
     "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", ""},
    {"Http10UntilClose", {200, 0, kNoBody, true, 0, false, 9},
     "HTTP/1.0 200 OK\r\nServer: old\r\n\r\n", "all of it"},
    {"Http11WithoutFramingUntilClose", {200, 1, kNoBody, true, 0, false, 19},
     "HTTP/1.1 200 OK\r\n\r\n", "HTTP/1.1 200 OK\r\n\r\n"},
    {"Http10KeepAlive", {200, 0, kCl, false, 2, true, 2},
     "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\n", "ok"},
    {"Http10WithoutKeepAlive", {200, 0, kCl, false, 2, false, 2},
     "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n", "ok"},
    {"Http10KeepAliveAndClose", {200, 0, kCl, false, 2, false, 2},
     "HTTP/1.0 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 2\r\n\r\n", "ok"},
    {"Http11Close", {200, 1, kCl, false, 2, false, 2},
     "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n", "ok"},
    {"Http11CloseInList", {500, 1, kCl, false, 2, false, 2},
     "HTTP/1.1 500 Oops\r\nConnection: foo, CLOSE\r\nContent-Length: 2\r\n\r\n", "ok"},
    {"Http12ReadAs11", {200, 1, kCl, false, 1, true, 1},
     "HTTP/1.2 200 OK\r\nContent-Length: 1\r\n\r\n", "x"},
    {"BareLineFeeds", {200, 1, kCl, false, 2, true, 2},
     "HTTP/1.1 200 OK\nContent-Length: 2\n\n", "ok"},
    {"MixedLineEnds", {200, 1, kCl, false, 2, true, 2},
     "HTTP/1.1 200 OK\r\nContent-Length: 2\n\r\n", "ok"},
    {"EmptyReason", {200, 1, kNoBody, false, 0, true, 0},
     "HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n", ""},
    {"NoSpaceBeforeEmptyReason", {599, 1, kNoBody, false, 0, true, 0},
     "HTTP/1.1 599\r\nContent-Length: 0\r\n\r\n", ""},
};
// clang-format on

void PrintTo(const HeadCase& c, std::ostream* os) {
  *os << c.name;
}

class HeadCaseTest : public testing::TestWithParam<HeadCase> {};

void expect_fields(const Response& r, const Expect& e) {
  EXPECT_EQ(r.status, e.status);
  EXPECT_EQ(r.version_minor, e.version_minor);
  EXPECT_EQ(r.framing, e.framing);
  EXPECT_EQ(r.body_until_close, e.until_close);
  EXPECT_EQ(r.content_length, e.content_length);
  EXPECT_EQ(r.keep_alive, e.keep_alive);
}

TEST_P(HeadCaseTest, ParsesWholeAndFollowedByTheNextResponse) {
  const HeadCase& c = GetParam();
  Response r;
  std::string stream = std::string(c.head) + std::string(c.body) + std::string(kNextResponse);
  for (std::string_view input : {c.head, std::string_view(stream)}) {
    auto result = parse(input, r, c.request_was_head);
    ASSERT_EQ(result.status, ParseStatus::kComplete) << describe(result.error);
    EXPECT_EQ(result.consumed, c.head.size());
    expect_fields(r, c.expect);
  }
}

TEST_P(HeadCaseTest, EveryStrictPrefixIsPartial) {
  const HeadCase& c = GetParam();
  Response r;
  for (std::size_t k = 0; k < c.head.size(); ++k) {
    auto result = parse(c.head.substr(0, k), r, c.request_was_head);
    EXPECT_EQ(result.status, ParseStatus::kPartial)
        << "prefix of " << k << " bytes: " << describe(result.error);
  }
}

TEST_P(HeadCaseTest, BodyEndsExactlyWhateverTheSplit) {
  const HeadCase& c = GetParam();
  Response r;
  ASSERT_EQ(parse(c.head, r, c.request_was_head).status, ParseStatus::kComplete);
  const std::string after_head = std::string(c.body) + std::string(kNextResponse);
  for (std::size_t split = 0; split <= c.body.size(); ++split) {
    SCOPED_TRACE("split at " + std::to_string(split));
    ResponseBodyReader reader(r);
    ExactBuffer first(std::string_view(after_head).substr(0, split));
    ExactBuffer second(std::string_view(after_head).substr(split));
    auto a = reader.feed(first.span());
    ASSERT_EQ(a.error, ResponseError::kNone);
    auto b = reader.feed(second.span());
    ASSERT_EQ(b.error, ResponseError::kNone);
    if (c.expect.until_close) {
      EXPECT_FALSE(b.done);
      EXPECT_EQ(a.consumed + b.consumed, after_head.size());
      EXPECT_TRUE(reader.finish_at_close().done);
      EXPECT_EQ(reader.body_bytes(), after_head.size());
      continue;
    }
    EXPECT_EQ(a.done, split == c.body.size());
    EXPECT_TRUE(reader.done());
    EXPECT_EQ(a.consumed + b.consumed, c.body.size());
    EXPECT_EQ(a.data_bytes + b.data_bytes, c.expect.payload);
    EXPECT_EQ(reader.body_bytes(), c.expect.payload);
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, HeadCaseTest, testing::ValuesIn(kHeadCases),
                         [](const auto& test) { return std::string(test.param.name); });

// ---- heads that are refused --------------------------------------------------------------------

struct ErrorCase {
  const char* name;
  std::string_view input;
  ResponseError error;
  std::size_t max_head_bytes = kMaxResponseHeadBytes;
};

using enum ResponseError;

const ErrorCase kErrorCases[] = {
    {"LettersInStatus", "HTTP/1.1 2OO OK\r\n\r\n", kInvalidStatusCode},
    {"MissingStatus", "HTTP/1.1 \r\n\r\n", kInvalidStatusCode},
    {"ShortStatus", "HTTP/1.1 20 OK\r\n\r\n", kInvalidStatusCode},
    {"LongStatus", "HTTP/1.1 2000 OK\r\n\r\n", kInvalidStatusCode},
    {"TwoSpacesBeforeStatus", "HTTP/1.1  200 OK\r\n\r\n", kInvalidStatusCode},
    {"StatusBelow100", "HTTP/1.1 099 Odd\r\n\r\n", kInvalidStatusCode},
    {"StatusAbove599", "HTTP/1.1 600 Odd\r\n\r\n", kInvalidStatusCode},
    {"VersionOnly", "HTTP/1.1\r\n\r\n", kMalformedStatusLine},
    {"Garbage", "garbage\r\n\r\n", kMalformedStatusLine},
    {"LowercaseVersion", "http/1.1 200 OK\r\n\r\n", kMalformedStatusLine},
    {"EmptyLineBeforeStatus", "\r\nHTTP/1.1 200 OK\r\n\r\n", kMalformedStatusLine},
    {"HtmlInsteadOfHttp", "<html>", kMalformedStatusLine},
    {"TwoDigitVersion", "HTTP/1.10 200 OK\r\n\r\n", kMalformedStatusLine},
    {"Http2", "HTTP/2.0 200 OK\r\n\r\n", kUnsupportedVersion},
    {"Http09", "HTTP/0.9 200 OK\r\n\r\n", kUnsupportedVersion},
    {"ControlInReason", "HTTP/1.1 200 O\x01K\r\n\r\n", kControlCharacter},
    {"BareCrInStatusLine", "HTTP/1.1 200 OK\rX\r\n\r\n", kBareCarriageReturn},
    {"BareCrInHeader", "HTTP/1.1 200 OK\r\nA: b\rc\r\n\r\n", kBareCarriageReturn},
    {"NulInHeader", "HTTP/1.1 200 OK\r\nA: b\0c\r\n\r\n"sv, kControlCharacter},
    {"ConflictingLengths", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
     kConflictingContentLength},
    {"ConflictingLengthList", "HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n",
     kConflictingContentLength},
    {"LetterLength", "HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n", kInvalidContentLength},
    {"NegativeLength", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", kInvalidContentLength},
    {"EmptyLength", "HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n", kInvalidContentLength},
    {"HugeLength", "HTTP/1.1 200 OK\r\nContent-Length: 1234567890123456789\r\n\r\n",
     kInvalidContentLength},
    {"LengthAndChunked",
     "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
     kLengthAndTransferEncoding},
    {"ChunkedInHttp10", "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
     kTransferEncodingInHttp10},
    {"ObsoleteFolding", "HTTP/1.1 200 OK\r\nA: b\r\n  folded\r\n\r\n", kObsoleteLineFolding},
    {"SpaceBeforeColon", "HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\n", kSpaceBeforeColon},
    {"EmptyHeaderName", "HTTP/1.1 200 OK\r\n: v\r\n\r\n", kMalformedHeader},
    {"NoColon", "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", kMalformedHeader},
    {"HeadTooLarge", "HTTP/1.1 200 OK\r\nX-Long: 0123456789\r\n\r\n", kHeadTooLarge, 32},
    {"StatusLineTooLarge", "HTTP/1.1 200 A very long reason phrase\r\n\r\n", kHeadTooLarge, 16},
    {"HeadOneByteTooLarge", "HTTP/1.1 200 OK\r\n\r\n", kHeadTooLarge, 18},
};

void PrintTo(const ErrorCase& c, std::ostream* os) {
  *os << c.name;
}

class ErrorCaseTest : public testing::TestWithParam<ErrorCase> {};

TEST_P(ErrorCaseTest, RefusedWholeAndEveryPrefixIsPartialOrTheSameError) {
  const ErrorCase& c = GetParam();
  Response r;
  auto whole = parse(c.input, r, false, c.max_head_bytes);
  ASSERT_EQ(whole.status, ParseStatus::kError);
  EXPECT_EQ(whole.error, c.error) << describe(whole.error);
  for (std::size_t k = 0; k < c.input.size(); ++k) {
    auto result = parse(c.input.substr(0, k), r, false, c.max_head_bytes);
    if (result.status == ParseStatus::kPartial) continue;
    EXPECT_EQ(result.status, ParseStatus::kError) << "prefix of " << k << " bytes";
    EXPECT_EQ(result.error, c.error) << "prefix of " << k << " bytes";
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ErrorCaseTest, testing::ValuesIn(kErrorCases),
                         [](const auto& test) { return std::string(test.param.name); });

TEST(ResponseParser, RefusesGarbageBeforeAnyLineEnds) {
  Response r;
  EXPECT_EQ(parse("X", r).error, kMalformedStatusLine);
  EXPECT_EQ(parse("HTTP", r).status, ParseStatus::kPartial);
  EXPECT_EQ(parse("HTTPS", r).error, kMalformedStatusLine);
}

TEST(ResponseParser, HeadExactlyAtTheLimitIsAccepted) {
  Response r;
  constexpr std::string_view head = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
  auto result = parse(head, r, false, head.size());
  EXPECT_EQ(result.status, ParseStatus::kComplete);
  EXPECT_EQ(parse(head, r, false, head.size() - 1).error, kHeadTooLarge);
}

std::string head_with_headers(int count) {
  std::string head = "HTTP/1.1 200 OK\r\n";
  for (int i = 0; i < count; ++i) head += "X-" + std::to_string(i) + ": v\r\n";
  return head + "Content-Length: 0\r\n\r\n";
}

TEST(ResponseParser, HeaderCountIsCapped) {
  Response r;
  auto at_cap = parse(head_with_headers(static_cast<int>(kMaxHeaders) - 1), r);
  ASSERT_EQ(at_cap.status, ParseStatus::kComplete);
  EXPECT_EQ(r.header_count, kMaxHeaders);
  EXPECT_EQ(parse(head_with_headers(static_cast<int>(kMaxHeaders)), r).error, kTooManyHeaders);
}

TEST(ResponseParser, HeadersAreTrimmedViewsFoundIgnoringCase) {
  Response r;
  constexpr std::string_view head =
      "HTTP/1.1 201 Created Here\r\nServer:\tringside \r\nX-Empty:\r\nContent-Length: 0\r\n\r\n";
  ASSERT_EQ(parse_response_head(head, r).status, ParseStatus::kComplete);
  EXPECT_EQ(r.reason, "Created Here");
  EXPECT_EQ(r.header("SERVER"), "ringside");
  EXPECT_EQ(r.header("x-empty"), "");
  EXPECT_EQ(r.header("missing").data(), nullptr);
  ASSERT_EQ(r.header_count, 3u);
  EXPECT_GE(r.headers[0].name.data(), head.data());
  EXPECT_LT(r.headers[0].name.data(), head.data() + head.size());
}

TEST(ResponseParser, InterimIsEvery1xxBut101) {
  Response r;
  r.status = 100;
  EXPECT_TRUE(r.is_interim());
  r.status = 199;
  EXPECT_TRUE(r.is_interim());
  r.status = 101;
  EXPECT_FALSE(r.is_interim());
  r.status = 200;
  EXPECT_FALSE(r.is_interim());
}

TEST(ResponseParser, EveryErrorHasADescription) {
  for (int e = 0; e <= static_cast<int>(kTruncatedBody); ++e) {
    auto text = describe(static_cast<ResponseError>(e));
    EXPECT_FALSE(text.empty());
    EXPECT_EQ(text.find('\n'), std::string_view::npos);
    EXPECT_NE(text, "unknown response error");
  }
}

// ---- body reader -------------------------------------------------------------------------------

Response parsed(std::string_view head) {
  Response r;
  EXPECT_EQ(parse_response_head(head, r).status, ParseStatus::kComplete);
  return r;
}

TEST(ResponseBodyReader, MalformedChunkIsAnErrorThatSticks) {
  ResponseBodyReader reader(parsed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"));
  EXPECT_EQ(reader.feed("zz\r\n"sv).error, kMalformedChunk);
  EXPECT_EQ(reader.feed("0\r\n\r\n"sv).error, kMalformedChunk);
  EXPECT_EQ(reader.finish_at_close().error, kMalformedChunk);
  EXPECT_FALSE(reader.done());
}

TEST(ResponseBodyReader, ChunkedBodyWithBareLineFeedsIsRefused) {
  ResponseBodyReader reader(parsed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"));
  EXPECT_EQ(reader.feed("2\nok\n0\n\n"sv).error, kMalformedChunk);
}

TEST(ResponseBodyReader, OversizedTrailersAreReported) {
  ResponseBodyReader reader(parsed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"));
  std::string body = "0\r\nX-Big: " + std::string(20 * 1024, 'a') + "\r\n\r\n";
  EXPECT_EQ(reader.feed(body).error, kTrailersTooLarge);
}

TEST(ResponseBodyReader, CloseBeforeTheEndIsATruncation) {
  ResponseBodyReader length(parsed("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"));
  EXPECT_EQ(length.feed("12345"sv).consumed, 5u);
  EXPECT_EQ(length.finish_at_close().error, kTruncatedBody);

  ResponseBodyReader chunked(parsed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"));
  EXPECT_FALSE(chunked.feed("5\r\nhello\r\n"sv).done);
  EXPECT_EQ(chunked.finish_at_close().error, kTruncatedBody);
}

TEST(ResponseBodyReader, UntilCloseEndsOnlyAtClose) {
  ResponseBodyReader reader(parsed("HTTP/1.0 200 OK\r\n\r\n"));
  EXPECT_FALSE(reader.feed("abc"sv).done);
  EXPECT_FALSE(reader.feed(""sv).done);
  EXPECT_FALSE(reader.done());
  EXPECT_TRUE(reader.finish_at_close().done);
  EXPECT_EQ(reader.body_bytes(), 3u);
}

TEST(ResponseBodyReader, BodilessResponseConsumesNothing) {
  ResponseBodyReader reader(parsed("HTTP/1.1 204 No Content\r\nContent-Length: 3\r\n\r\n"));
  auto r = reader.feed("abc"sv);
  EXPECT_TRUE(r.done);
  EXPECT_EQ(r.consumed, 0u);
  EXPECT_TRUE(reader.finish_at_close().done);
}

TEST(ResponseBodyReader, StartResetsForTheNextResponse) {
  ResponseBodyReader reader(parsed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"));
  EXPECT_EQ(reader.feed("x"sv).error, kMalformedChunk);
  reader.start(parsed("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n"));
  auto r = reader.feed("okHTTP"sv);
  EXPECT_TRUE(r.done);
  EXPECT_EQ(r.consumed, 2u);
  EXPECT_EQ(reader.body_bytes(), 2u);
}

// ---- pipelining --------------------------------------------------------------------------------

// What the load generator does with a connection's bytes: heads and bodies back to back, the
// unconsumed rest kept for the next read.
class PipelinedClient {
 public:
  struct Seen {
    std::uint16_t status;
    std::uint64_t body_bytes;
    std::size_t end;  // stream offset one past the response
    bool operator==(const Seen&) const = default;
    friend void PrintTo(const Seen& s, std::ostream* os) {
      *os << "{status " << s.status << ", body " << s.body_bytes << ", ends at " << s.end << "}";
    }
  };

  explicit PipelinedClient(std::vector<bool> head_requests)
      : head_requests_(std::move(head_requests)) {}

  void receive(std::string_view bytes) {
    pending_ += bytes;
    while (!failed_) {
      if (!in_body_) {
        ExactBuffer buffer(pending_);
        bool head = finals_ < head_requests_.size() && head_requests_[finals_];
        auto result = parse_response_head(buffer.span(), response_, {head, kMaxResponseHeadBytes});
        if (result.status == ParseStatus::kPartial) return;
        if (result.status == ParseStatus::kError) return fail(describe(result.error));
        take(result.consumed);
        if (response_.is_interim()) {
          seen_.push_back({response_.status, 0, offset_});
          continue;
        }
        body_.start(response_);
        in_body_ = true;
      }
      ExactBuffer buffer(pending_);
      auto r = body_.feed(buffer.span());
      if (r.error != ResponseError::kNone) return fail(describe(r.error));
      take(r.consumed);
      if (!r.done) {
        if (!pending_.empty()) fail("body reader left bytes without finishing");
        return;
      }
      finish();
    }
  }

  void close() {
    if (in_body_ && body_.finish_at_close().done) finish();
    if (in_body_ || !pending_.empty()) fail("connection closed mid-response");
  }

  const std::vector<Seen>& seen() const { return seen_; }
  const std::string& failure() const { return failure_; }

 private:
  void take(std::size_t n) {
    pending_.erase(0, n);
    offset_ += n;
  }
  void finish() {
    seen_.push_back({response_.status, body_.body_bytes(), offset_});
    in_body_ = false;
    ++finals_;
  }
  void fail(std::string_view why) {
    failed_ = true;
    failure_ = why;
  }

  std::vector<bool> head_requests_;
  std::string pending_;
  std::size_t offset_ = 0;
  std::size_t finals_ = 0;
  bool in_body_ = false;
  bool failed_ = false;
  std::string failure_;
  std::vector<Seen> seen_;
  Response response_;
  ResponseBodyReader body_;
};

struct Piece {
  std::string_view bytes;
  std::uint16_t status;
  std::uint64_t body_bytes;
};

// The last response is read until close and contains what looks like another response.
const Piece kPipeline[] = {
    {"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 200, 5},
    {"HTTP/1.1 100 Continue\r\n\r\n", 100, 0},
    {"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nwiki\r\n0\r\nT: x\r\n\r\n",
     201, 4},
    {"HTTP/1.1 204 No Content\r\nContent-Length: 7\r\n\r\n", 204, 0},
    {"HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n", 200, 0},  // answer to HEAD
    {"HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n", 304, 0},
    {"HTTP/1.1 200 OK\nContent-Length: 3\n\nabc", 200, 3},
    {"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 200, 0},
    {"HTTP/1.0 200 OK\r\n\r\nuntil close HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 200, 50},
};
// Final responses, in order: the fifth answers a HEAD request.
const std::vector<bool> kHeadRequests = {false, false, false, true, false, false, false, false};

struct Pipeline {
  std::string stream;
  std::vector<PipelinedClient::Seen> expected;
};

Pipeline pipeline() {
  Pipeline p;
  for (const Piece& piece : kPipeline) {
    p.stream += piece.bytes;
    p.expected.push_back({piece.status, piece.body_bytes, p.stream.size()});
  }
  return p;
}

TEST(ResponsePipelining, WholeStreamInOneBuffer) {
  auto p = pipeline();
  ASSERT_EQ(p.expected.back().body_bytes, 50u) << "fix the until-close piece's byte count";
  PipelinedClient client(kHeadRequests);
  client.receive(p.stream);
  client.close();
  EXPECT_EQ(client.failure(), "");
  EXPECT_EQ(client.seen(), p.expected);
}

TEST(ResponsePipelining, SplitAtEveryByte) {
  auto p = pipeline();
  for (std::size_t split = 0; split <= p.stream.size(); ++split) {
    PipelinedClient client(kHeadRequests);
    client.receive(std::string_view(p.stream).substr(0, split));
    client.receive(std::string_view(p.stream).substr(split));
    client.close();
    ASSERT_EQ(client.failure(), "") << "split at " << split;
    ASSERT_EQ(client.seen(), p.expected) << "split at " << split;
  }
}

TEST(ResponsePipelining, OneByteAtATime) {
  auto p = pipeline();
  PipelinedClient client(kHeadRequests);
  for (char c : p.stream) client.receive(std::string_view(&c, 1));
  client.close();
  EXPECT_EQ(client.failure(), "");
  EXPECT_EQ(client.seen(), p.expected);
}

TEST(ResponsePipelining, ErrorInTheMiddleStopsThere) {
  PipelinedClient client({});
  client.receive("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 2OO OK\r\n\r\n");
  EXPECT_EQ(client.failure(), describe(kInvalidStatusCode));
  ASSERT_EQ(client.seen().size(), 1u);
  EXPECT_EQ(client.seen()[0].end, 40u);
}

}  // namespace
}  // namespace ringside::http
