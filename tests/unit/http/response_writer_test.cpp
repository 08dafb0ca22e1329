#include "http/response_writer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace ringside::http {
namespace {

constexpr std::string_view kDate = "Sun, 06 Nov 1994 08:49:37 GMT";
constexpr std::string_view kBody = "Hello, World!";

// Writes one response into a buffer of `capacity` bytes and returns what landed there.
struct Written {
  bool ok;
  std::string bytes;
};

Written write_into(std::size_t capacity, Status status, std::string_view content_type,
                   std::string_view body, const ResponseOptions& options) {
  std::vector<char> storage(capacity);
  OutBuffer out(storage.data(), storage.size());
  bool ok = write_response(out, kDate, status, content_type, body, options);
  return {ok, std::string(out.view())};
}

Written write_roomy(Status status, std::string_view content_type, std::string_view body,
                    const ResponseOptions& options = {}) {
  return write_into(response_size_bound(content_type, body, options), status, content_type, body,
                    options);
}

TEST(ResponseWriter, ExactBytesOf200) {
  auto written = write_roomy(Status::kOk, "text/plain", kBody);
  ASSERT_TRUE(written.ok);
  EXPECT_EQ(written.bytes,
            "HTTP/1.1 200 OK\r\n"
            "Server: ringside\r\n"
            "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
            "Content-Type: text/plain\r\n"
            "Content-Length: 13\r\n"
            "\r\n"
            "Hello, World!");
}

TEST(ResponseWriter, HeadHasGetContentLengthButNoBody) {
  auto written = write_roomy(Status::kOk, "text/plain", kBody, {.head_only = true});
  ASSERT_TRUE(written.ok);
  EXPECT_EQ(written.bytes,
            "HTTP/1.1 200 OK\r\n"
            "Server: ringside\r\n"
            "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
            "Content-Type: text/plain\r\n"
            "Content-Length: 13\r\n"
            "\r\n");
}

TEST(ResponseWriter, ConnectionCloseWhenNotKeepingAlive) {
  auto written = write_roomy(Status::kBadRequest, "text/plain", "bad\n", {.keep_alive = false});
  ASSERT_TRUE(written.ok);
  EXPECT_EQ(written.bytes,
            "HTTP/1.1 400 Bad Request\r\n"
            "Server: ringside\r\n"
            "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
            "Content-Type: text/plain\r\n"
            "Content-Length: 4\r\n"
            "Connection: close\r\n"
            "\r\n"
            "bad\n");
}

TEST(ResponseWriter, Http10KeepAliveIsAnnounced) {
  auto written = write_roomy(Status::kOk, "text/plain", kBody, {.http10 = true});
  ASSERT_TRUE(written.ok);
  EXPECT_EQ(written.bytes,
            "HTTP/1.1 200 OK\r\n"
            "Server: ringside\r\n"
            "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
            "Content-Type: text/plain\r\n"
            "Content-Length: 13\r\n"
            "Connection: keep-alive\r\n"
            "\r\n"
            "Hello, World!");
}

TEST(ResponseWriter, Http10WithoutKeepAliveSaysClose) {
  auto written = write_roomy(Status::kOk, "text/plain", "", {.keep_alive = false, .http10 = true});
  ASSERT_TRUE(written.ok);
  EXPECT_EQ(written.bytes,
            "HTTP/1.1 200 OK\r\n"
            "Server: ringside\r\n"
            "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
            "Content-Type: text/plain\r\n"
            "Content-Length: 0\r\n"
            "Connection: close\r\n"
            "\r\n");
}

TEST(ResponseWriter, ExtraHeadersFollowContentLength) {
  auto written = write_roomy(Status::kMethodNotAllowed, "text/plain", "no\n",
                             {.extra_headers = "Allow: GET, HEAD\r\nX-Trace: 7\r\n"});
  ASSERT_TRUE(written.ok);
  EXPECT_EQ(written.bytes,
            "HTTP/1.1 405 Method Not Allowed\r\n"
            "Server: ringside\r\n"
            "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
            "Content-Type: text/plain\r\n"
            "Content-Length: 3\r\n"
            "Allow: GET, HEAD\r\n"
            "X-Trace: 7\r\n"
            "\r\n"
            "no\n");
}

TEST(ResponseWriter, ContentLengthOfLargeBody) {
  const std::string body(123456, 'x');
  auto written = write_roomy(Status::kOk, "application/octet-stream", body);
  ASSERT_TRUE(written.ok);
  EXPECT_NE(written.bytes.find("\r\nContent-Length: 123456\r\n\r\n"), std::string::npos);
  EXPECT_EQ(written.bytes.size() - written.bytes.find("\r\n\r\n") - 4, body.size());
}

TEST(ResponseWriter, AppendsAfterEarlierResponses) {
  std::vector<char> storage(1024);
  OutBuffer out(storage.data(), storage.size());
  ASSERT_TRUE(write_response(out, kDate, Status::kOk, "text/plain", "a", {}));
  const std::size_t first_size = out.size();
  ASSERT_TRUE(write_response(out, kDate, Status::kNotFound, "text/plain", "b", {}));
  EXPECT_EQ(out.view().substr(0, first_size).back(), 'a');
  EXPECT_EQ(out.view().substr(first_size, 24), "HTTP/1.1 404 Not Found\r\n");
  EXPECT_EQ(out.view().back(), 'b');
}

TEST(ResponseWriter, WritesNothingWhenOutOfRoom) {
  const ResponseOptions options{.extra_headers = "X-A: b\r\n"};
  const std::size_t first = response_size(kDate, Status::kOk, "text/plain", "", {});
  const std::size_t second = response_size(kDate, Status::kOk, "text/plain", kBody, options);
  std::vector<char> storage(first + second + 10, '#');
  OutBuffer out(storage.data(), first + second - 1);
  ASSERT_TRUE(write_response(out, kDate, Status::kOk, "text/plain", "", {}));  // part-fills it
  const std::string before(out.view());

  EXPECT_FALSE(write_response(out, kDate, Status::kOk, "text/plain", kBody, options));
  EXPECT_EQ(out.view(), before);
  EXPECT_EQ(std::string_view(storage.data() + out.size(), 10), "##########");
}

// response_size is exact, so a caller can check for room (or size a buffer) before writing.
TEST(ResponseWriter, RoomIsExactlyTheResponseSize) {
  const ResponseOptions options{};
  const std::size_t size = response_size(kDate, Status::kOk, "text/plain", kBody, options);
  EXPECT_FALSE(write_into(size - 1, Status::kOk, "text/plain", kBody, options).ok);
  EXPECT_TRUE(write_into(size - 1, Status::kOk, "text/plain", kBody, options).bytes.empty());
  auto written = write_into(size, Status::kOk, "text/plain", kBody, options);
  ASSERT_TRUE(written.ok);
  EXPECT_EQ(written.bytes.size(), size);
}

TEST(ResponseWriter, ResponseSizeIsWhatIsWrittenForEveryShape) {
  const Status statuses[] = {Status::kOk, Status::kNoContent, Status::kNotFound,
                             Status::kRequestHeaderFieldsTooLarge,
                             Status::kHttpVersionNotSupported};
  const std::string bodies[] = {"", "x", "123456789", "1234567890", std::string(8192, 'b')};
  for (Status status : statuses) {
    for (const std::string& body : bodies) {
      for (int shape = 0; shape < 16; ++shape) {
        const ResponseOptions options{.head_only = (shape & 1) != 0,
                                      .keep_alive = (shape & 2) != 0,
                                      .http10 = (shape & 4) != 0,
                                      .extra_headers = (shape & 8) ? "Allow: GET\r\n" : ""};
        const std::size_t size = response_size(kDate, status, "text/plain", body, options);
        auto written = write_into(size + 64, status, "text/plain", body, options);
        ASSERT_TRUE(written.ok);
        EXPECT_EQ(written.bytes.size(), size) << code(status) << " shape " << shape;
        EXPECT_LE(size, response_size_bound("text/plain", body, options));
      }
    }
  }
}

// Usable at compile time: the 133 bytes of ExactBytesOf200.
static_assert(response_size("Sun, 06 Nov 1994 08:49:37 GMT", Status::kOk, "text/plain",
                            "Hello, World!", {}) == 133);

TEST(ResponseWriter, BoundCoversTheLongestHead) {
  // The longest status line and both connection headers must fit in the fixed overhead.
  const ResponseOptions options{.keep_alive = true, .http10 = true};
  const std::string body(99999, 'y');
  auto written = write_roomy(Status::kRequestHeaderFieldsTooLarge, "t", body, options);
  ASSERT_TRUE(written.ok);
  EXPECT_LE(written.bytes.size(), response_size_bound("t", body, options));
}

TEST(ResponseWriter, ContinueExactBytes) {
  char storage[64];
  OutBuffer out(storage, sizeof storage);
  ASSERT_TRUE(write_continue(out));
  EXPECT_EQ(out.view(), "HTTP/1.1 100 Continue\r\n\r\n");
}

TEST(ResponseWriter, ContinueOutOfRoom) {
  char storage[24];  // one short of the 25 bytes
  OutBuffer out(storage, sizeof storage);
  EXPECT_FALSE(write_continue(out));
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace ringside::http
