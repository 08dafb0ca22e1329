#include "http/request_parser.hpp"

#include "http/authority.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ringside::http {
namespace {

using enum RequestError;
using namespace std::string_literals;

std::span<const char> bytes_of(std::string_view s) { return {s.data(), s.size()}; }

// Holds bytes so that the last one sits right before a PROT_NONE page: a parser that reads past
// the end of its input faults at once instead of reading stale memory (picohttpparser's trick).
class GuardPageBuffer {
 public:
  explicit GuardPageBuffer(std::size_t capacity)
      : page_size_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))),
        data_pages_((capacity + page_size_ - 1) / page_size_ + 1),
        mapping_size_((data_pages_ + 1) * page_size_) {
    void* base = mmap(nullptr, mapping_size_, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) throw std::runtime_error("mmap failed");
    base_ = static_cast<char*>(base);
    if (mprotect(guard_page(), page_size_, PROT_NONE) != 0) {
      munmap(base_, mapping_size_);
      throw std::runtime_error("mprotect failed");
    }
  }
  ~GuardPageBuffer() { munmap(base_, mapping_size_); }
  GuardPageBuffer(const GuardPageBuffer&) = delete;
  GuardPageBuffer& operator=(const GuardPageBuffer&) = delete;

  // Copies `content` so that it ends at the guard page and returns the copy.
  std::span<const char> place(std::string_view content) {
    char* start = guard_page() - content.size();
    std::memcpy(start, content.data(), content.size());
    return {start, content.size()};
  }

 private:
  char* guard_page() const { return base_ + data_pages_ * page_size_; }

  std::size_t page_size_;
  std::size_t data_pages_;
  std::size_t mapping_size_;
  char* base_ = nullptr;
};

std::string hundred_headers_then(std::string_view extra) {
  std::string head = "GET / HTTP/1.1\r\nHost: a\r\n";
  for (int i = 1; i < 100; ++i) head += "X-Header-" + std::to_string(i) + ": value\r\n";
  return head.append(extra).append("\r\n");
}

// ---------------------------------------------------------------------------------------------
// Valid requests

struct Expected {
  Method method = Method::kGet;
  std::string_view method_name = "GET";
  std::string_view target = "/";
  std::string_view path = "/";
  std::string_view query = "";
  std::uint8_t version_minor = 1;
  bool keep_alive = true;
  BodyFraming framing = BodyFraming::kNone;
  std::uint64_t content_length = 0;
  bool expect_continue = false;
  std::size_t header_count = 1;
  std::vector<Header> headers = {};  // looked up with Request::header()
  std::optional<std::string_view> host = std::nullopt;  // Request::host, checked when given
};

struct ValidCase {
  std::string name;
  std::string head;
  std::string body = {};  // follows the head in the input; the parser must stop before it
  Expected expected = {};
};

std::vector<ValidCase> valid_cases() {
  return {
      {"get_with_host", "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n", "",
       {.headers = {{"Host", "example.com"}, {"hOST", "example.com"}}}},
      {"http10_without_keep_alive", "GET /index.html HTTP/1.0\r\n\r\n", "",
       {.target = "/index.html", .path = "/index.html", .version_minor = 0, .keep_alive = false,
        .header_count = 0}},
      {"http10_with_keep_alive", "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", "",
       {.version_minor = 0, .keep_alive = true}},
      {"http10_keep_alive_then_close", "GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n",
       "", {.version_minor = 0, .keep_alive = false}},
      {"http11_connection_close", "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", "",
       {.keep_alive = false, .header_count = 2}},
      {"http11_close_in_list", "GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, CLOSE\r\n\r\n",
       "", {.keep_alive = false, .header_count = 2}},
      {"head", "HEAD /plaintext HTTP/1.1\r\nHost: a\r\n\r\n", "",
       {.method = Method::kHead, .method_name = "HEAD", .target = "/plaintext",
        .path = "/plaintext"}},
      {"query_split", "GET /search?q=ring&page=2 HTTP/1.1\r\nHost: a\r\n\r\n", "",
       {.target = "/search?q=ring&page=2", .path = "/search", .query = "q=ring&page=2"}},
      {"empty_query", "GET /a? HTTP/1.1\r\nHost: a\r\n\r\n", "",
       {.target = "/a?", .path = "/a", .query = ""}},
      {"question_mark_in_query", "GET /a?b?c HTTP/1.1\r\nHost: a\r\n\r\n", "",
       {.target = "/a?b?c", .path = "/a", .query = "b?c"}},
      {"content_length_body", "POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n",
       "hello",
       {.method = Method::kPost, .method_name = "POST", .target = "/upload", .path = "/upload",
        .framing = BodyFraming::kContentLength, .content_length = 5, .header_count = 2}},
      {"content_length_zero", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n", "",
       {.method = Method::kPost, .method_name = "POST", .header_count = 2}},
      {"content_length_trimmed", "PUT / HTTP/1.1\r\nHost: a\r\nContent-Length:  \t3 \r\n\r\n",
       "abc",
       {.method = Method::kPut, .method_name = "PUT", .framing = BodyFraming::kContentLength,
        .content_length = 3, .header_count = 2}},
      {"largest_content_length",
       "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 999999999999999999\r\n\r\n", "",
       {.method = Method::kPost, .method_name = "POST", .framing = BodyFraming::kContentLength,
        .content_length = 999999999999999999, .header_count = 2}},
      {"identical_repeated_content_length",
       "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n", "abc",
       {.method = Method::kPost, .method_name = "POST", .framing = BodyFraming::kContentLength,
        .content_length = 3, .header_count = 3}},
      {"identical_content_length_list", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3, 3\r\n\r\n",
       "abc",
       {.method = Method::kPost, .method_name = "POST", .framing = BodyFraming::kContentLength,
        .content_length = 3, .header_count = 2}},
      {"chunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n",
       "5\r\nhello\r\n0\r\n\r\n",
       {.method = Method::kPost, .method_name = "POST", .framing = BodyFraming::kChunked,
        .header_count = 2}},
      {"chunked_any_case", "POST / HTTP/1.1\r\nHost: a\r\ntransfer-encoding:  Chunked \r\n\r\n",
       "0\r\n\r\n",
       {.method = Method::kPost, .method_name = "POST", .framing = BodyFraming::kChunked,
        .header_count = 2, .headers = {{"Transfer-Encoding", "Chunked"}}}},
      {"expect_continue",
       "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n", "hello",
       {.method = Method::kPost, .method_name = "POST", .framing = BodyFraming::kContentLength,
        .content_length = 5, .expect_continue = true, .header_count = 3}},
      {"expect_continue_chunked",
       "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nExpect: 100-Continue\r\n\r\n",
       "", {.method = Method::kPost, .method_name = "POST", .framing = BodyFraming::kChunked,
            .expect_continue = true, .header_count = 3}},
      {"expect_continue_without_body", "GET / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n\r\n",
       "", {.expect_continue = false, .header_count = 2}},
      // RFC 9110 section 10.1.1: a server MUST ignore 100-continue in an HTTP/1.0 request.
      {"expect_continue_ignored_in_http10",
       "POST / HTTP/1.0\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n", "hi",
       {.method = Method::kPost, .method_name = "POST", .version_minor = 0, .keep_alive = false,
        .framing = BodyFraming::kContentLength, .content_length = 2, .expect_continue = false,
        .header_count = 2}},
      {"header_value_trimming",
       "GET / HTTP/1.1\r\nHost:a\r\nX-Padded: \t  spaced  value \t\r\nX-Empty:\r\nX-Blank:  \r\n\r\n",
       "",
       {.header_count = 4,
        .headers = {{"host", "a"}, {"x-padded", "spaced  value"}, {"X-Empty", ""},
                    {"X-Blank", ""}}}},
      {"obs_text_in_value", "GET / HTTP/1.1\r\nHost: a\r\nX-Name: caf\xc3\xa9\r\n\r\n", "",
       {.header_count = 2, .headers = {{"X-Name", "caf\xc3\xa9"}}}},
      {"hundred_headers", hundred_headers_then(""), "",
       {.header_count = 100, .headers = {{"X-Header-99", "value"}}}},
      {"leading_empty_line", "\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"},
      {"two_leading_empty_lines", "\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"},
      {"unknown_method", "PURGE /cache HTTP/1.1\r\nHost: a\r\n\r\n", "",
       {.method = Method::kOther, .method_name = "PURGE", .target = "/cache", .path = "/cache"}},
      {"options_with_path", "OPTIONS /x HTTP/1.1\r\nHost: a\r\n\r\n", "",
       {.method = Method::kOptions, .method_name = "OPTIONS", .target = "/x", .path = "/x"}},
      {"delete", "DELETE /x HTTP/1.1\r\nHost: a\r\n\r\n", "",
       {.method = Method::kDelete, .method_name = "DELETE", .target = "/x", .path = "/x"}},
      {"higher_minor_version_is_1_1", "GET / HTTP/1.7\r\nHost: a\r\n\r\n"},
      // Absolute-form (RFC 9112 section 3.2.2): a server MUST accept it; the path routes, and the
      // target's authority is the request's host, whatever Host says.
      {"absolute_form",
       "GET http://127.0.0.1:8080/plaintext?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", "",
       {.target = "http://127.0.0.1:8080/plaintext?x=1", .path = "/plaintext", .query = "x=1",
        .host = "127.0.0.1:8080"}},
      {"absolute_form_empty_path_is_root",
       "GET http://example.com HTTP/1.1\r\nHost: example.com\r\n\r\n", "",
       {.target = "http://example.com", .path = "/", .host = "example.com"}},
      {"absolute_form_query_without_path", "GET http://a?q=1 HTTP/1.1\r\nHost: a\r\n\r\n", "",
       {.target = "http://a?q=1", .path = "/", .query = "q=1", .host = "a"}},
      {"absolute_form_scheme_is_case_insensitive", "GET HTTP://A/x HTTP/1.1\r\nHost: a\r\n\r\n", "",
       {.target = "HTTP://A/x", .path = "/x", .host = "A"}},
      {"absolute_form_overrides_host",
       "GET http://target.example/ HTTP/1.1\r\nHost: other.example\r\n\r\n", "",
       {.target = "http://target.example/", .host = "target.example"}},
      {"absolute_form_ipv6", "GET http://[::1]:8080/ HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", "",
       {.target = "http://[::1]:8080/", .host = "[::1]:8080"}},
      {"absolute_form_http10_without_host", "GET http://a/b HTTP/1.0\r\n\r\n", "",
       {.target = "http://a/b", .path = "/b", .version_minor = 0, .keep_alive = false,
        .header_count = 0, .host = "a"}},
      // Host values (RFC 9112 section 3.2, RFC 3986 section 3.2.2): host [":" port].
      {"host_with_port", "GET / HTTP/1.1\r\nHost: example.com:8080\r\n\r\n", "",
       {.host = "example.com:8080"}},
      {"host_ipv4", "GET / HTTP/1.1\r\nHost: 10.0.0.1:80\r\n\r\n", "", {.host = "10.0.0.1:80"}},
      {"host_ipv6", "GET / HTTP/1.1\r\nHost: [2001:db8::1]\r\n\r\n", "", {.host = "[2001:db8::1]"}},
      {"host_percent_encoded_and_sub_delims",
       "GET / HTTP/1.1\r\nHost: caf%C3%A9!$&'()*+,;=\r\n\r\n", "",
       {.host = "caf%C3%A9!$&'()*+,;="}},
      {"host_empty_port", "GET / HTTP/1.1\r\nHost: a:\r\n\r\n", "", {.host = "a:"}},
      // An empty Host is valid: RFC 9112 section 3.2 has a client send it when the target URI has
      // no authority, and an empty reg-name is valid host syntax (RFC 3986 section 3.2.2).
      {"host_empty", "GET / HTTP/1.1\r\nHost:\r\n\r\n", "", {.host = ""}},
      {"no_host_in_http10", "GET / HTTP/1.0\r\n\r\n", "",
       {.version_minor = 0, .keep_alive = false, .header_count = 0, .host = ""}},
  };
}

// gtest prints a failing case by its name rather than as raw bytes.
void PrintTo(const ValidCase& c, std::ostream* os) { *os << c.name; }

void expect_request_matches(const Request& request, const Expected& expected) {
  EXPECT_EQ(request.method, expected.method);
  EXPECT_EQ(request.method_name, expected.method_name);
  EXPECT_EQ(request.target, expected.target);
  EXPECT_EQ(request.path, expected.path);
  EXPECT_EQ(request.query, expected.query);
  EXPECT_EQ(request.version_minor, expected.version_minor);
  EXPECT_EQ(request.keep_alive, expected.keep_alive);
  EXPECT_EQ(request.framing, expected.framing);
  EXPECT_EQ(request.content_length, expected.content_length);
  EXPECT_EQ(request.expect_continue, expected.expect_continue);
  EXPECT_EQ(request.header_count, expected.header_count);
  for (const Header& header : expected.headers) {
    EXPECT_EQ(request.header(header.name), header.value) << "header " << header.name;
  }
  if (expected.host) {
    EXPECT_EQ(request.host, *expected.host);
  }
}

class RequestParserValid : public testing::TestWithParam<ValidCase> {};

TEST_P(RequestParserValid, WholeInput) {
  const ValidCase& c = GetParam();
  const std::string input = c.head + c.body;
  Request request;
  ParseResult r = parse_request(bytes_of(input), request);
  ASSERT_EQ(r.status, ParseStatus::kComplete) << "error " << static_cast<int>(r.error);
  EXPECT_EQ(r.consumed, c.head.size());
  EXPECT_EQ(r.error, kNone);
  expect_request_matches(request, c.expected);
}

// Every prefix is put against a guard page, so reading past the end of partial input faults too.
TEST_P(RequestParserValid, SplitAtEveryByte) {
  const ValidCase& c = GetParam();
  const std::string input = c.head + c.body;
  GuardPageBuffer buffer(input.size());
  for (std::size_t length = 0; length <= input.size(); ++length) {
    Request request;
    ParseResult r = parse_request(buffer.place(std::string_view(input).substr(0, length)), request);
    if (length < c.head.size()) {
      ASSERT_EQ(r.status, ParseStatus::kPartial) << "prefix of " << length << " bytes";
    } else {
      ASSERT_EQ(r.status, ParseStatus::kComplete) << "prefix of " << length << " bytes";
      ASSERT_EQ(r.consumed, c.head.size()) << "prefix of " << length << " bytes";
    }
  }
}

TEST_P(RequestParserValid, AgainstGuardPage) {
  const ValidCase& c = GetParam();
  GuardPageBuffer buffer(c.head.size());
  Request request;
  ParseResult r = parse_request(buffer.place(c.head), request);
  ASSERT_EQ(r.status, ParseStatus::kComplete);
  EXPECT_EQ(r.consumed, c.head.size());
  expect_request_matches(request, c.expected);
}

INSTANTIATE_TEST_SUITE_P(Cases, RequestParserValid, testing::ValuesIn(valid_cases()),
                         [](const auto& test) { return test.param.name; });

// ---------------------------------------------------------------------------------------------
// Invalid requests

struct InvalidCase {
  std::string name;
  std::string input;
  RequestError error;
  Status status;  // what describe(error) must map it to
};

std::string with_host(std::string_view headers) {
  return "POST / HTTP/1.1\r\nHost: a\r\n" + std::string(headers) + "\r\n";
}

std::vector<InvalidCase> invalid_cases() {
  const Status k400 = Status::kBadRequest;
  const Status k501 = Status::kNotImplemented;
  const Status k431 = Status::kRequestHeaderFieldsTooLarge;
  const std::string big(6000, 'b');
  const std::string huge(17 * 1024, 'h');
  return {
      {"missing_host_http11", "GET / HTTP/1.1\r\nX-A: b\r\n\r\n", kMissingHost, k400},
      {"repeated_host", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", kRepeatedHost, k400},
      {"repeated_host_same_value", "GET / HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n", kRepeatedHost,
       k400},
      {"content_length_and_chunked",
       with_host("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"),
       kLengthAndTransferEncoding, k400},
      {"chunked_and_content_length",
       with_host("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n"),
       kLengthAndTransferEncoding, k400},
      {"content_length_not_a_number", with_host("Content-Length: abc\r\n"),
       kInvalidContentLength, k400},
      {"content_length_negative", with_host("Content-Length: -1\r\n"), kInvalidContentLength, k400},
      {"content_length_plus_sign", with_host("Content-Length: +1\r\n"), kInvalidContentLength, k400},
      {"content_length_two_numbers", with_host("Content-Length: 1 2\r\n"), kInvalidContentLength,
       k400},
      {"content_length_empty", with_host("Content-Length:\r\n"), kInvalidContentLength, k400},
      {"content_length_only_commas", with_host("Content-Length: , ,\r\n"), kInvalidContentLength,
       k400},
      {"content_length_huge", with_host("Content-Length: 99999999999999999999\r\n"),
       kInvalidContentLength, k400},
      {"content_length_two_headers_differ",
       with_host("Content-Length: 5\r\nContent-Length: 6\r\n"), kConflictingContentLength, k400},
      {"content_length_list_differs", with_host("Content-Length: 5, 6\r\n"),
       kConflictingContentLength, k400},
      {"transfer_encoding_gzip", with_host("Transfer-Encoding: gzip\r\n"),
       kUnsupportedTransferEncoding, k501},
      {"transfer_encoding_chunked_then_gzip", with_host("Transfer-Encoding: chunked, gzip\r\n"),
       kChunkedNotLast, k400},
      {"transfer_encoding_gzip_then_chunked", with_host("Transfer-Encoding: gzip, chunked\r\n"),
       kUnsupportedTransferEncoding, k501},
      {"transfer_encoding_chunked_twice",
       with_host("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n"),
       kChunkedNotLast, k400},
      {"transfer_encoding_empty", with_host("Transfer-Encoding:\r\n"), kUnsupportedTransferEncoding,
       k501},
      {"transfer_encoding_in_http10", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
       kTransferEncodingInHttp10, k400},
      {"obsolete_line_folding", "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n c\r\n\r\n",
       kObsoleteLineFolding, k400},
      {"obsolete_line_folding_tab", "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n\tc\r\n\r\n",
       kObsoleteLineFolding, k400},
      {"whitespace_before_first_header", "GET / HTTP/1.1\r\n Host: a\r\n\r\n",
       kObsoleteLineFolding, k400},
      {"space_before_colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n", kSpaceBeforeColon, k400},
      {"tab_before_colon", "GET / HTTP/1.1\r\nHost\t: a\r\n\r\n", kSpaceBeforeColon, k400},
      {"spaces_before_colon", "GET / HTTP/1.1\r\nHost:a\r\nX-A  : b\r\n\r\n", kSpaceBeforeColon,
       k400},
      {"control_character_in_value", "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\x01" "c\r\n\r\n",
       kControlCharacter, k400},
      {"nul_in_value", "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\0c\r\n\r\n"s,
       kControlCharacter, k400},
      {"delete_character_in_value", "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\x7f\r\n\r\n",
       kControlCharacter, k400},
      {"header_without_colon", "GET / HTTP/1.1\r\nHost a\r\n\r\n", kMalformedHeader, k400},
      {"space_inside_name", "GET / HTTP/1.1\r\nHost: a\r\nX A: b\r\n\r\n", kMalformedHeader, k400},
      {"header_empty_name", "GET / HTTP/1.1\r\nHost: a\r\n: b\r\n\r\n", kMalformedHeader, k400},
      {"control_character_in_name", "GET / HTTP/1.1\r\nHost: a\r\nX\x01: b\r\n\r\n",
       kMalformedHeader, k400},
      {"bare_lf_after_request_line", "GET / HTTP/1.1\nHost: a\r\n\r\n", kBareLineFeed, k400},
      {"bare_lf_after_header", "GET / HTTP/1.1\r\nHost: a\nX-A: b\r\n\r\n", kBareLineFeed, k400},
      {"bare_lf_ending_head", "GET / HTTP/1.1\r\nHost: a\r\n\n", kBareLineFeed, k400},
      {"bare_cr_in_request_line", "GET / HTTP/1.1\rHost: a\r\n\r\n", kBareLineFeed, k400},
      {"bare_cr_in_header", "GET / HTTP/1.1\r\nHost: a\rX-A: b\r\n\r\n", kBareLineFeed, k400},
      {"bare_cr_ending_head", "GET / HTTP/1.1\r\nHost: a\r\n\r\r\n", kBareLineFeed, k400},
      {"invalid_method_character", "G(T / HTTP/1.1\r\nHost: a\r\n\r\n", kInvalidMethod, k400},
      {"control_character_in_method", "GE\x01T / HTTP/1.1\r\nHost: a\r\n\r\n", kInvalidMethod,
       k400},
      {"invalid_target_character", "GET /a\x7f" "b HTTP/1.1\r\nHost: a\r\n\r\n", kInvalidTarget,
       k400},
      {"tab_in_target", "GET /a\tb HTTP/1.1\r\nHost: a\r\n\r\n", kInvalidTarget, k400},
      // A wrong byte in the request line is reported before a bare LF after it, and with the
      // error its first wrong byte earns, however the line is split (scan_request_line).
      {"invalid_method_then_bare_lf", "G\x01T / HTTP/1.1\nHost: a\r\n\r\n", kInvalidMethod, k400},
      {"invalid_target_then_bare_lf", "GET /\x01 HTTP/1.1\nHost: a\r\n\r\n", kInvalidTarget,
       k400},
      {"bad_version_then_bare_lf", "GET / HTTP/1.x\nHost: a\r\n\r\n", kMalformedRequestLine,
       k400},
      {"invalid_method_without_space", "G\x01T\r\n\r\n", kInvalidMethod, k400},
      // A TLS ClientHello on the plain port: no line end will ever come; refused at its first byte.
      {"tls_client_hello", "\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03"s +
       std::string(32, '\x5a') + "\x00\x00\x02\x13\x01\x01\x00"s, kInvalidMethod, k400},
      {"http_2_0", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", kUnsupportedVersion,
       Status::kHttpVersionNotSupported},
      {"http_0_9", "GET / HTTP/0.9\r\n\r\n", kUnsupportedVersion,
       Status::kHttpVersionNotSupported},
      {"version_lowercase", "GET / http/1.1\r\nHost: a\r\n\r\n", kMalformedRequestLine, k400},
      {"version_missing_minor", "GET / HTTP/1\r\nHost: a\r\n\r\n", kMalformedRequestLine, k400},
      {"version_two_digit_major", "GET / HTTP/11.1\r\nHost: a\r\n\r\n", kMalformedRequestLine,
       k400},
      {"version_letter_minor", "GET / HTTP/1.x\r\nHost: a\r\n\r\n", kMalformedRequestLine, k400},
      {"version_trailing_space", "GET / HTTP/1.1 \r\nHost: a\r\n\r\n", kMalformedRequestLine, k400},
      {"version_missing", "GET /\r\nHost: a\r\n\r\n", kMalformedRequestLine, k400},
      {"double_space", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", kMalformedRequestLine, k400},
      {"empty_method", " / HTTP/1.1\r\nHost: a\r\n\r\n", kMalformedRequestLine, k400},
      {"three_leading_empty_lines", "\r\n\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
       kMalformedRequestLine, k400},
      {"hundred_and_one_headers", hundred_headers_then("X-One-Too-Many: v\r\n"), kTooManyHeaders,
       k431},
      {"head_over_16_kib", with_host("X-A: " + big + "\r\nX-B: " + big + "\r\nX-C: " + big + "\r\n"),
       kHeadTooLarge, k431},
      {"header_line_over_16_kib_unterminated", with_host("X-A: " + huge), kHeadTooLarge, k431},
      // Whether the bare LF after the limit arrived must not change the answer.
      {"bare_lf_beyond_head_limit", with_host("X-A: " + huge + "\n"), kHeadTooLarge, k431},
      {"request_line_over_16_kib", "GET /" + huge + " HTTP/1.1\r\nHost: a\r\n\r\n", kUriTooLong,
       Status::kUriTooLong},
      {"bare_lf_beyond_request_line_limit", "GET /" + huge + "\n", kUriTooLong,
       Status::kUriTooLong},
      {"unsupported_expectation", "GET / HTTP/1.1\r\nHost: a\r\nExpect: something-else\r\n\r\n",
       kUnsupportedExpectation, Status::kExpectationFailed},
      {"expectation_list", with_host("Content-Length: 1\r\nExpect: 100-continue, x\r\n"),
       kUnsupportedExpectation, Status::kExpectationFailed},
      // Target forms other than origin-form and absolute-form http:// (RFC 9112 section 3.2).
      {"asterisk_form", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", kAsteriskForm, k400},
      {"asterisk_form_with_get", "GET * HTTP/1.1\r\nHost: a\r\n\r\n", kAsteriskForm, k400},
      {"target_without_slash", "GET foo HTTP/1.1\r\nHost: a\r\n\r\n", kInvalidTargetForm, k400},
      {"target_query_only", "GET ?x HTTP/1.1\r\nHost: a\r\n\r\n", kInvalidTargetForm, k400},
      {"authority_form", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
       kInvalidTargetForm, k400},
      {"other_scheme", "GET ftp://a/ HTTP/1.1\r\nHost: a\r\n\r\n", kInvalidTargetForm, k400},
      {"scheme_without_authority", "GET http:/a HTTP/1.1\r\nHost: a\r\n\r\n", kInvalidTargetForm,
       k400},
      {"https_target_on_plain_http", "GET https://a/ HTTP/1.1\r\nHost: a\r\n\r\n",
       kMisdirectedScheme, Status::kMisdirectedRequest},
      {"absolute_form_empty_host", "GET http:/// HTTP/1.1\r\nHost: a\r\n\r\n", kInvalidTargetHost,
       k400},
      {"absolute_form_empty_host_with_port", "GET http://:80/ HTTP/1.1\r\nHost: a\r\n\r\n",
       kInvalidTargetHost, k400},
      {"absolute_form_userinfo", "GET http://user:pw@a/ HTTP/1.1\r\nHost: a\r\n\r\n",
       kInvalidTargetHost, k400},
      {"absolute_form_bad_port", "GET http://a:8x/ HTTP/1.1\r\nHost: a\r\n\r\n", kInvalidTargetHost,
       k400},
      {"absolute_form_unclosed_ipv6", "GET http://[::1/ HTTP/1.1\r\nHost: a\r\n\r\n",
       kInvalidTargetHost, k400},
      {"absolute_form_fragment", "GET http://a#f HTTP/1.1\r\nHost: a\r\n\r\n", kInvalidTargetHost,
       k400},
      // Host values that are not host [":" port] (RFC 9112 section 3.2: 400).
      {"host_with_space", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", kInvalidHost, k400},
      {"host_with_slash", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", kInvalidHost, k400},
      {"host_unclosed_ipv6", "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n", kInvalidHost, k400},
      {"host_ipv6_without_brackets", "GET / HTTP/1.1\r\nHost: ::1\r\n\r\n", kInvalidHost, k400},
      {"host_ipv6_nine_groups", "GET / HTTP/1.1\r\nHost: [1:2:3:4:5:6:7:8:9]\r\n\r\n",
       kInvalidHost, k400},
      {"host_after_ip_literal", "GET / HTTP/1.1\r\nHost: [::1]x\r\n\r\n", kInvalidHost, k400},
      {"host_userinfo", "GET / HTTP/1.1\r\nHost: user@a\r\n\r\n", kInvalidHost, k400},
      {"host_port_not_digits", "GET / HTTP/1.1\r\nHost: a:b\r\n\r\n", kInvalidHost, k400},
      {"host_two_ports", "GET / HTTP/1.1\r\nHost: a:1:2\r\n\r\n", kInvalidHost, k400},
      {"host_bad_percent_encoding", "GET / HTTP/1.1\r\nHost: a%zz\r\n\r\n", kInvalidHost, k400},
      {"host_raw_utf8", "GET / HTTP/1.1\r\nHost: caf\xc3\xa9\r\n\r\n", kInvalidHost, k400},
      {"host_control_character", "GET / HTTP/1.1\r\nHost: a\x01\r\n\r\n", kControlCharacter,
       k400},
      {"host_invalid_in_http10", "GET / HTTP/1.0\r\nHost: a b\r\n\r\n", kInvalidHost, k400},
      // Absolute-form makes the server ignore Host's value, not its validity (RFC 9112 3.2).
      {"host_invalid_with_absolute_form", "GET http://a/ HTTP/1.1\r\nHost: a b\r\n\r\n",
       kInvalidHost, k400},
      {"host_required_with_absolute_form", "GET http://a/ HTTP/1.1\r\n\r\n", kMissingHost, k400},
  };
}

void PrintTo(const InvalidCase& c, std::ostream* os) { *os << c.name; }

class RequestParserInvalid : public testing::TestWithParam<InvalidCase> {};

TEST_P(RequestParserInvalid, WholeInput) {
  const InvalidCase& c = GetParam();
  Request request;
  ParseResult r = parse_request(bytes_of(c.input), request);
  EXPECT_EQ(r.status, ParseStatus::kError);
  EXPECT_EQ(static_cast<int>(r.error), static_cast<int>(c.error));
  EXPECT_EQ(code(describe(r.error).status), code(c.status));
}

TEST_P(RequestParserInvalid, SplitAtEveryByte) {
  const InvalidCase& c = GetParam();
  GuardPageBuffer buffer(c.input.size());
  for (std::size_t length = 0; length <= c.input.size(); ++length) {
    Request request;
    ParseResult r =
        parse_request(buffer.place(std::string_view(c.input).substr(0, length)), request);
    if (length == c.input.size()) {
      ASSERT_EQ(r.status, ParseStatus::kError);
    } else {
      ASSERT_NE(r.status, ParseStatus::kComplete) << "prefix of " << length << " bytes";
    }
    if (r.status == ParseStatus::kError) {
      ASSERT_EQ(static_cast<int>(r.error), static_cast<int>(c.error))
          << "prefix of " << length << " bytes";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, RequestParserInvalid, testing::ValuesIn(invalid_cases()),
                         [](const auto& test) { return test.param.name; });

// ---------------------------------------------------------------------------------------------
// The resumable form answers exactly as the one-shot form

void expect_same_result(const ParseResult& got, const Request& got_request,
                        const ParseResult& want, const Request& want_request) {
  ASSERT_EQ(got.status, want.status);
  EXPECT_EQ(got.consumed, want.consumed);
  EXPECT_EQ(static_cast<int>(got.error), static_cast<int>(want.error));
  if (want.status != ParseStatus::kComplete) return;
  EXPECT_EQ(got_request.method, want_request.method);
  EXPECT_EQ(got_request.method_name, want_request.method_name);
  EXPECT_EQ(got_request.target, want_request.target);
  EXPECT_EQ(got_request.path, want_request.path);
  EXPECT_EQ(got_request.query, want_request.query);
  EXPECT_EQ(got_request.host, want_request.host);
  EXPECT_EQ(got_request.version_minor, want_request.version_minor);
  EXPECT_EQ(got_request.framing, want_request.framing);
  EXPECT_EQ(got_request.content_length, want_request.content_length);
  EXPECT_EQ(got_request.keep_alive, want_request.keep_alive);
  EXPECT_EQ(got_request.expect_continue, want_request.expect_continue);
  ASSERT_EQ(got_request.header_count, want_request.header_count);
  for (std::size_t i = 0; i < want_request.header_count; ++i) {
    EXPECT_EQ(got_request.headers[i].name, want_request.headers[i].name);
    EXPECT_EQ(got_request.headers[i].value, want_request.headers[i].value);
  }
}

bool is_fresh(const HeadScan& scan) {
  return scan.scanned == 0 && scan.line_start == 0 && scan.header_lines == 0 &&
         !scan.request_line_done;
}

// A connection's Request is worker-wide scratch: other connections parse into it between two
// reads of this one. Nothing in it may be relied on across calls.
void clobber(Request& request) {
  static const std::string other = "PUT /other?x HTTP/1.0\r\nHost: z\r\nContent-Length: 9\r\n\r\n";
  ASSERT_EQ(parse_request(bytes_of(other), request).status, ParseStatus::kComplete);
}

// Two reads split at every point, with one HeadScan; the second read's bytes live elsewhere in
// memory (a connection may move a partial head), and the first read's against a guard page.
void check_resumed_at_every_split(std::string_view input) {
  Request whole_request;
  const ParseResult whole = parse_request(bytes_of(input), whole_request);
  GuardPageBuffer buffer(input.size());
  for (std::size_t split = 0; split <= input.size(); ++split) {
    SCOPED_TRACE("split at " + std::to_string(split));
    HeadScan scan;
    Request request;
    const auto prefix = buffer.place(input.substr(0, split));
    const ParseResult first = parse_request(prefix, request, scan);
    if (first.status != ParseStatus::kPartial) {
      Request one_shot_request;
      expect_same_result(first, request, parse_request(prefix, one_shot_request), one_shot_request);
      EXPECT_TRUE(is_fresh(scan)) << "the parser resets its scan after complete or error";
      continue;
    }
    clobber(request);
    const ParseResult second = parse_request(bytes_of(input), request, scan);
    expect_same_result(second, request, whole, whole_request);
    if (second.status != ParseStatus::kPartial) {
      EXPECT_TRUE(is_fresh(scan));
    }
    if (testing::Test::HasFatalFailure()) return;
  }
}

// One byte per read, as a trickling client sends it: `scanned` never goes back, and the first
// answer that is not kPartial is the one-shot answer for those bytes.
ParseResult resume_one_byte_at_a_time(std::string_view input, std::size_t& answered_at) {
  GuardPageBuffer buffer(input.size());
  HeadScan scan;
  Request request;
  std::size_t last_scanned = 0;
  for (std::size_t length = 1; length <= input.size(); ++length) {
    const auto prefix = buffer.place(input.substr(0, length));
    const ParseResult r = parse_request(prefix, request, scan);
    if (r.status == ParseStatus::kPartial) {
      EXPECT_GE(scan.scanned, last_scanned) << "at " << length;
      EXPECT_LE(scan.scanned, length);
      last_scanned = scan.scanned;
      clobber(request);
      continue;
    }
    Request one_shot_request;
    expect_same_result(r, request, parse_request(prefix, one_shot_request), one_shot_request);
    answered_at = length;
    return r;
  }
  answered_at = input.size();
  return {ParseStatus::kPartial};
}

TEST_P(RequestParserValid, ResumedAtEverySplit) {
  const ValidCase& c = GetParam();
  check_resumed_at_every_split(c.head + c.body);
}

TEST_P(RequestParserValid, ResumedOneByteAtATime) {
  const ValidCase& c = GetParam();
  std::size_t answered_at = 0;
  const ParseResult r = resume_one_byte_at_a_time(c.head + c.body, answered_at);
  ASSERT_EQ(r.status, ParseStatus::kComplete);
  EXPECT_EQ(answered_at, c.head.size());
  EXPECT_EQ(r.consumed, c.head.size());
}

TEST_P(RequestParserInvalid, ResumedAtEverySplit) {
  check_resumed_at_every_split(GetParam().input);
}

TEST_P(RequestParserInvalid, ResumedOneByteAtATime) {
  const InvalidCase& c = GetParam();
  std::size_t answered_at = 0;
  const ParseResult r = resume_one_byte_at_a_time(c.input, answered_at);
  ASSERT_EQ(r.status, ParseStatus::kError);
  EXPECT_EQ(static_cast<int>(r.error), static_cast<int>(c.error));
}

// The point of resuming: a 16 KiB head trickled one byte per read is searched once, not once per
// read. Before each read, every byte the parser has already dealt with is overwritten with a bare
// LF (breaking the contract on purpose): a parser that looked at any of them again would answer
// kBareLineFeed. Bytes of the line in progress are restored only for the read that completes that
// line (it must check the whole line then), and all bytes for the read that completes the head
// (it parses the head once more, into the Request). So every byte is looked at a bounded number
// of times: the scan is O(n), with no timing involved.
TEST(RequestParserResume, TrickledHeadIsScannedOnce) {
  std::string head = "GET /trickle?q=1 HTTP/1.1\r\nHost: example.com\r\n";
  for (int i = 0; i < 40; ++i) head += "X-Header-" + std::to_string(i) + ": some value\r\n";
  head += "X-Long: ";
  head += std::string(kMaxHeadBytes - head.size() - 4, 'v');
  head += "\r\n\r\n";
  ASSERT_EQ(head.size(), kMaxHeadBytes);

  std::vector<char> bytes(head.size());
  HeadScan scan;
  Request request;
  std::size_t last_scanned = 0;
  for (std::size_t length = 1; length <= head.size(); ++length) {
    std::memcpy(bytes.data(), head.data(), length);
    const bool completes_head = length == head.size();
    const bool completes_line = head[length - 1] == '\n';
    if (!completes_head) {
      const std::size_t keep_from = completes_line ? scan.line_start : scan.scanned;
      std::memset(bytes.data(), '\n', keep_from);
    }
    const ParseResult r = parse_request({bytes.data(), length}, request, scan);
    if (!completes_head) {
      ASSERT_EQ(r.status, ParseStatus::kPartial)
          << "at " << length << ": error " << static_cast<int>(r.error);
      ASSERT_GE(scan.scanned, last_scanned);
      // Everything has been searched but a last CR whose LF has not come yet.
      ASSERT_EQ(scan.scanned, head[length - 1] == '\r' ? length - 1 : length);
      last_scanned = scan.scanned;
      clobber(request);
      continue;
    }
    ASSERT_EQ(r.status, ParseStatus::kComplete) << "error " << static_cast<int>(r.error);
    EXPECT_EQ(r.consumed, head.size());
    EXPECT_EQ(request.path, "/trickle");
    EXPECT_EQ(request.host, "example.com");
    EXPECT_EQ(request.header_count, 42u);
    EXPECT_EQ(request.header("X-Long").size(), head.size() - head.find("X-Long: ") - 8 - 4);
  }
}

TEST(RequestParserResume, PipelinedHeadsNeedNoReset) {
  const std::string first = "GET /one HTTP/1.1\r\nHost: a\r\n\r\n";
  const std::string second = "GET /two HTTP/1.1\r\nHost: b\r\n\r\n";
  const std::string input = first + second;
  HeadScan scan;
  Request request;
  ASSERT_EQ(parse_request(bytes_of(input).first(10), request, scan).status, ParseStatus::kPartial);
  ParseResult r = parse_request(bytes_of(input), request, scan);
  ASSERT_EQ(r.status, ParseStatus::kComplete);
  EXPECT_EQ(request.path, "/one");
  EXPECT_TRUE(is_fresh(scan));
  r = parse_request(bytes_of(input).subspan(r.consumed), request, scan);
  ASSERT_EQ(r.status, ParseStatus::kComplete);
  EXPECT_EQ(request.path, "/two");
}

TEST(RequestParserResume, ErrorResetsTheScan) {
  HeadScan scan;
  Request request;
  const std::string input = "GET / HTTP/1.1\r\nHost: a\nX";
  ASSERT_EQ(parse_request(bytes_of(input).first(20), request, scan).status, ParseStatus::kPartial);
  EXPECT_FALSE(is_fresh(scan));
  EXPECT_EQ(parse_request(bytes_of(input), request, scan).error, kBareLineFeed);
  EXPECT_TRUE(is_fresh(scan));
}

TEST(RequestParserResume, ShorterInputThanScannedStartsAfresh) {
  // A caller that broke the contract (passed fewer bytes than before) gets a fresh parse, not a
  // read past its input.
  HeadScan scan;
  Request request;
  const std::string long_partial = "GET /a-long-path HTTP/1.1\r\nHost: a\r\nX-A: 1";
  ASSERT_EQ(parse_request(bytes_of(long_partial), request, scan).status, ParseStatus::kPartial);
  const std::string short_head = "GET /b HTTP/1.1\r\nHost: b\r\n\r\n";
  ASSERT_LT(short_head.size(), scan.scanned);
  GuardPageBuffer buffer(short_head.size());
  const ParseResult r = parse_request(buffer.place(short_head), request, scan);
  ASSERT_EQ(r.status, ParseStatus::kComplete);
  EXPECT_EQ(request.path, "/b");
}

// ---------------------------------------------------------------------------------------------
// Host syntax (http/authority.hpp)

TEST(HostSyntax, ValidValues) {
  for (std::string_view value :
       {"", "a", "example.com", "example.com:8080", "a:", "10.0.0.1", "10.0.0.1:1",
        "999.1.1.1" /* a reg-name, if not an IPv4address */, "xn--caf-dma.example", "caf%c3%a9",
        "a-b_c~d.e!$&'()*+,;=", "[::1]", "[::]", "[::1]:443", "[2001:db8::8:800:200c:417a]",
        "[1:2:3:4:5:6:7:8]", "[1::8]", "[1:2:3:4:5:6:7::]", "[::ffff:192.0.2.1]",
        "[1:2:3:4:5:6:1.2.3.4]", "[v1.fe80::a+en1]", "[V7.x:y]"}) {
    HostPort host_port;
    EXPECT_TRUE(parse_host_port(value, host_port)) << "'" << value << "'";
  }
  HostPort host_port;
  ASSERT_TRUE(parse_host_port("[::1]:8080", host_port));
  EXPECT_EQ(host_port.host, "[::1]");
  EXPECT_EQ(host_port.port, "8080");
  ASSERT_TRUE(parse_host_port("example.com", host_port));
  EXPECT_EQ(host_port.host, "example.com");
  EXPECT_EQ(host_port.port, "");
}

TEST(HostSyntax, InvalidValues) {
  for (std::string_view value :
       {"a b", "a/b", "a?b", "a#b", "u@a", "a:b", "a:1:2", ":1:", "[::1", "::1", "[::1]x",
        "[::1]:x", "[]", "[1:2:3:4:5:6:7:8:9]", "[1::2::3]", "[1:2:3:4:5:6:7]", "[12345::]",
        "[1:]", "[:1]", "[::g]", "[1.2.3.4]", "[::1.2.3]", "[::1.2.3.256]", "[::01.2.3.4]",
        "[v.x]", "[v1.]", "[v1x]", "a%", "a%4", "a%zz", "caf\xc3\xa9", "a\tb", "[::1]]"}) {
    HostPort host_port;
    EXPECT_FALSE(parse_host_port(value, host_port)) << "'" << value << "'";
  }
}

// ---------------------------------------------------------------------------------------------
// Error descriptions

struct ErrorStatus {
  RequestError error;
  Status status;
};

constexpr ErrorStatus kEveryErrorStatus[] = {
    {kNone, Status::kOk},
    {kMalformedRequestLine, Status::kBadRequest},
    {kInvalidMethod, Status::kBadRequest},
    {kInvalidTarget, Status::kBadRequest},
    {kInvalidTargetForm, Status::kBadRequest},
    {kAsteriskForm, Status::kBadRequest},
    {kInvalidTargetHost, Status::kBadRequest},
    {kMisdirectedScheme, Status::kMisdirectedRequest},
    {kUnsupportedVersion, Status::kHttpVersionNotSupported},
    {kBareLineFeed, Status::kBadRequest},
    {kMalformedHeader, Status::kBadRequest},
    {kSpaceBeforeColon, Status::kBadRequest},
    {kObsoleteLineFolding, Status::kBadRequest},
    {kControlCharacter, Status::kBadRequest},
    {kTooManyHeaders, Status::kRequestHeaderFieldsTooLarge},
    {kHeadTooLarge, Status::kRequestHeaderFieldsTooLarge},
    {kUriTooLong, Status::kUriTooLong},
    {kMissingHost, Status::kBadRequest},
    {kRepeatedHost, Status::kBadRequest},
    {kInvalidHost, Status::kBadRequest},
    {kLengthAndTransferEncoding, Status::kBadRequest},
    {kInvalidContentLength, Status::kBadRequest},
    {kConflictingContentLength, Status::kBadRequest},
    {kUnsupportedTransferEncoding, Status::kNotImplemented},
    {kChunkedNotLast, Status::kBadRequest},
    {kTransferEncodingInHttp10, Status::kBadRequest},
    {kBodyTooLarge, Status::kPayloadTooLarge},
    {kUnsupportedExpectation, Status::kExpectationFailed},
    {kMalformedChunk, Status::kBadRequest},
    {kChunkLineTooLong, Status::kBadRequest},
    {kChunkFramingTooLarge, Status::kBadRequest},
    {kHeaderTimeout, Status::kRequestTimeout},
};
static_assert(std::size(kEveryErrorStatus) == static_cast<std::size_t>(kHeaderTimeout) + 1,
              "a RequestError was added: give it a row here");

TEST(RequestErrorDescribe, EveryErrorMapsToItsStatusAndAnExplanation) {
  std::vector<std::string_view> messages;
  for (std::size_t i = 0; i < std::size(kEveryErrorStatus); ++i) {
    const auto& row = kEveryErrorStatus[i];
    ASSERT_EQ(static_cast<std::size_t>(row.error), i) << "rows are in enum order";
    ErrorDescription description = describe(row.error);
    EXPECT_EQ(code(description.status), code(row.status)) << "error " << i;
    ASSERT_GT(description.message.size(), 1u);
    EXPECT_EQ(description.message.back(), '\n');
    for (std::string_view earlier : messages) EXPECT_NE(description.message, earlier);
    messages.push_back(description.message);
  }
}

// ---------------------------------------------------------------------------------------------
// Pipelining, limits, reuse

TEST(RequestParser, PipelinedHeadsAreParsedOneAtATime) {
  const std::string first = "GET /one HTTP/1.1\r\nHost: a\r\n\r\n";
  const std::string second = "HEAD /two HTTP/1.1\r\nHost: b\r\n\r\n";
  const std::string input = first + second;
  Request request;
  ParseResult r = parse_request(bytes_of(input), request);
  ASSERT_EQ(r.status, ParseStatus::kComplete);
  EXPECT_EQ(r.consumed, first.size());
  EXPECT_EQ(request.path, "/one");

  r = parse_request(bytes_of(input).subspan(first.size()), request);
  ASSERT_EQ(r.status, ParseStatus::kComplete);
  EXPECT_EQ(r.consumed, second.size());
  EXPECT_EQ(request.path, "/two");
  EXPECT_EQ(request.method, Method::kHead);
}

TEST(RequestParser, PipelinedHeadIsCompleteWhileNextIsPartial) {
  const std::string first = "GET /one HTTP/1.1\r\nHost: a\r\n\r\n";
  const std::string input = first + "GET /two HT";
  Request request;
  ParseResult r = parse_request(bytes_of(input), request);
  ASSERT_EQ(r.status, ParseStatus::kComplete);
  EXPECT_EQ(r.consumed, first.size());
  EXPECT_EQ(parse_request(bytes_of(input).subspan(r.consumed), request).status,
            ParseStatus::kPartial);
}

// A request line is refused at its first byte that cannot belong to a request, before its line end
// arrives (it may never: a TLS client on the plain port waits for our answer, not we for its CRLF).
TEST(RequestParser, RequestLineRefusedBeforeItsLineEnd) {
  struct Row {
    std::string input;
    RequestError error;
  };
  const std::vector<Row> rows = {
      {"\x16", kInvalidMethod},
      {"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"s, kInvalidMethod},
      {"GET\x00"s, kInvalidMethod},
      {" ", kMalformedRequestLine},
      {"GET  ", kMalformedRequestLine},
      {"GET /a\x01", kInvalidTarget},
      {"GET /a b", kMalformedRequestLine},
      {"GET / X", kMalformedRequestLine},
      {"GET / HTTP/1.11", kMalformedRequestLine},
      {"GET / HTTP/1.1 ", kMalformedRequestLine},
      {"\r\nGET /\x7f", kInvalidTarget},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.input);
    Request request;
    const ParseResult r = parse_request(bytes_of(row.input), request);
    ASSERT_EQ(r.status, ParseStatus::kError);
    EXPECT_EQ(static_cast<int>(r.error), static_cast<int>(row.error));
  }
  // Prefixes of a good request line (any of them may be all that has arrived) are still partial.
  const std::string good = "\r\nPOST /a?b=c HTTP/1.1\r";
  for (std::size_t length = 0; length <= good.size(); ++length) {
    Request request;
    EXPECT_EQ(parse_request(bytes_of(good).first(length), request).status, ParseStatus::kPartial)
        << length;
  }
}

TEST(RequestParser, RequestIsResetBetweenParses) {
  const std::string chunked =
      "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n";
  const std::string plain = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
  Request request;
  ASSERT_EQ(parse_request(bytes_of(chunked), request).status, ParseStatus::kComplete);
  ASSERT_EQ(request.framing, BodyFraming::kChunked);
  ASSERT_EQ(parse_request(bytes_of(plain), request).status, ParseStatus::kComplete);
  EXPECT_EQ(request.framing, BodyFraming::kNone);
  EXPECT_FALSE(request.expect_continue);
  EXPECT_EQ(request.header_count, 1u);
}

TEST(RequestParser, HeadersPointIntoTheInput) {
  const std::string input = "GET /p?q HTTP/1.1\r\nHost: example\r\nAccept: */*\r\n\r\n";
  Request request;
  ASSERT_EQ(parse_request(bytes_of(input), request).status, ParseStatus::kComplete);
  auto inside = [&](std::string_view view) {
    return view.data() >= input.data() && view.data() + view.size() <= input.data() + input.size();
  };
  EXPECT_TRUE(inside(request.method_name));
  EXPECT_TRUE(inside(request.target));
  EXPECT_TRUE(inside(request.path));
  EXPECT_TRUE(inside(request.query));
  for (const Header& header : request.header_list()) {
    EXPECT_TRUE(inside(header.name));
    EXPECT_TRUE(inside(header.value));
  }
  EXPECT_EQ(request.header_list()[1].name, "Accept");
  EXPECT_EQ(request.header_list()[1].value, "*/*");
  EXPECT_TRUE(request.header("Missing").empty());
}

std::string head_of_size(std::size_t size) {
  const std::string start = "GET / HTTP/1.1\r\nHost: a\r\nX-Pad: ";
  const std::string end = "\r\n\r\n";
  return start + std::string(size - start.size() - end.size(), 'p') + end;
}

TEST(RequestParser, HeadOfExactlyTheLimitIsAccepted) {
  const std::string at_limit = head_of_size(kMaxHeadBytes);
  Request request;
  ParseResult r = parse_request(bytes_of(at_limit), request);
  ASSERT_EQ(r.status, ParseStatus::kComplete);
  EXPECT_EQ(r.consumed, kMaxHeadBytes);

  const std::string over = head_of_size(kMaxHeadBytes + 1);
  r = parse_request(bytes_of(over), request);
  ASSERT_EQ(r.status, ParseStatus::kError);
  EXPECT_EQ(r.error, kHeadTooLarge);
}

TEST(RequestParser, CustomLimitsApply) {
  const std::string three_headers = "GET / HTTP/1.1\r\nHost: a\r\nB: b\r\nC: c\r\n\r\n";
  Request request;
  EXPECT_EQ(parse_request(bytes_of(three_headers), request, {.max_headers = 3}).status,
            ParseStatus::kComplete);
  ParseResult r = parse_request(bytes_of(three_headers), request, {.max_headers = 2});
  EXPECT_EQ(r.error, kTooManyHeaders);

  const std::size_t size = three_headers.size();
  EXPECT_EQ(parse_request(bytes_of(three_headers), request, {.max_head_bytes = size}).status,
            ParseStatus::kComplete);
  r = parse_request(bytes_of(three_headers), request, {.max_head_bytes = size - 1});
  EXPECT_EQ(r.error, kHeadTooLarge);
  r = parse_request(bytes_of(three_headers), request, {.max_head_bytes = 10});
  EXPECT_EQ(r.error, kUriTooLong);
}

TEST(RequestParser, HeaderLimitAboveArraySizeIsCapped) {
  // A configured limit above kMaxHeaders must not write past Request::headers.
  const std::string input = hundred_headers_then("X-One-Too-Many: v\r\n");
  Request request;
  ParseResult r = parse_request(bytes_of(input), request, {.max_headers = 1000});
  EXPECT_EQ(r.status, ParseStatus::kError);
  EXPECT_EQ(r.error, kTooManyHeaders);
}

TEST(RequestParser, EqualsIgnoreCase) {
  EXPECT_TRUE(equals_ignore_case("Content-Length", "content-LENGTH"));
  EXPECT_FALSE(equals_ignore_case("Content-Length", "Content-Lengt"));
  EXPECT_FALSE(equals_ignore_case("a", "b"));
  EXPECT_FALSE(equals_ignore_case("[", "{"));  // only letters fold
  EXPECT_TRUE(equals_ignore_case("", ""));
}

}  // namespace
}  // namespace ringside::http
