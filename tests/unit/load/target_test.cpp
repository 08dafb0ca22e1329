#include "load/target.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "http/h2_frame.hpp"
#include "http/hpack_request.hpp"

namespace ringside::load {
namespace {

Url parse_ok(std::string_view text) {
  Url url;
  std::string error;
  EXPECT_TRUE(parse_url(text, url, error)) << text << ": " << error;
  EXPECT_EQ(error, "");
  return url;
}

std::string parse_error(std::string_view text) {
  Url url;
  std::string error;
  EXPECT_FALSE(parse_url(text, url, error)) << text;
  EXPECT_NE(error, "") << text;
  EXPECT_EQ(error.find_first_of("\r\n"), std::string::npos) << "one line: " << error;
  return error;
}

TEST(ParseUrl, HostPortAndPath) {
  struct Case {
    std::string_view text, host;
    std::uint16_t port;
    std::string_view path;
  };
  const Case cases[] = {
      {"http://127.0.0.1/", "127.0.0.1", 80, "/"},
      {"http://127.0.0.1", "127.0.0.1", 80, "/"},
      {"http://127.0.0.1:8080/a/b?c=d", "127.0.0.1", 8080, "/a/b?c=d"},
      {"HTTP://127.0.0.1:1?q", "127.0.0.1", 1, "/?q"},
      {"http://[::1]:9000/x", "::1", 9000, "/x"},
      {"http://[::1]/", "::1", 80, "/"},
  };
  for (const Case& c : cases) {
    Url url = parse_ok(c.text);
    EXPECT_EQ(url.host, c.host) << c.text;
    EXPECT_EQ(url.port, c.port) << c.text;
    EXPECT_EQ(url.path, c.path) << c.text;
    EXPECT_GT(url.address_length, 0u) << c.text;
  }
}

// A name is only checked here; resolve_targets (load/resolve_url.hpp) looks it up once, later.
TEST(ParseUrl, AHostNameIsKeptForTheLookup) {
  for (std::string_view text : {"http://localhost:65535/", "http://api.internal:8080/a?b",
                                "http://API.ringside-test./", "http://host_1"}) {
    Url url = parse_ok(text);
    EXPECT_TRUE(url.is_name()) << text;
    EXPECT_EQ(url.address_length, 0u) << text;
    EXPECT_TRUE(url.resolved.empty()) << text;
  }
  Url url = parse_ok("http://api.internal:8080/a?b");
  EXPECT_EQ(url.host, "api.internal");
  EXPECT_EQ(url.port, 8080);
  EXPECT_EQ(url.path, "/a?b");
  EXPECT_FALSE(parse_ok("http://127.0.0.1/").is_name());
  EXPECT_FALSE(parse_ok("http://[::1]/").is_name());
}

TEST(ParseUrl, RefusesWhatIsNeitherAnAddressNorAName) {
  for (std::string_view text : {"http://user@127.0.0.1/", "http://256.0.0.1/", "http://1.2.3/",
                                "http://[api.internal]/", "http://a..b/", "http://a,b/",
                                "http://-%41/"}) {
    const std::string error = parse_error(text);
    EXPECT_NE(error.find("IP address or a host name"), std::string::npos) << text << ": " << error;
  }
}

TEST(ParseUrl, AddressIsFilledIn) {
  Url url = parse_ok("http://127.0.0.1:8080/");
  ASSERT_EQ(url.address.ss_family, AF_INET);
  const auto* in = reinterpret_cast<const sockaddr_in*>(&url.address);
  EXPECT_EQ(ntohs(in->sin_port), 8080);
  EXPECT_EQ(ntohl(in->sin_addr.s_addr), 0x7f000001u);
  url = parse_ok("http://[::1]:81/");
  EXPECT_EQ(url.address.ss_family, AF_INET6);
}

TEST(ParseUrl, FragmentIsDroppedAsCurlDoes) {
  EXPECT_EQ(parse_ok("http://127.0.0.1:8080/a?b#frag").path, "/a?b");
  EXPECT_EQ(parse_ok("http://127.0.0.1:8080/#x y\r\n").path, "/");  // never sent, so not checked
  Url url = parse_ok("http://127.0.0.1:8080#top");
  EXPECT_EQ(url.path, "/");
  EXPECT_EQ(url.port, 8080);
}

TEST(ParseUrl, RefusesBytesThatWouldBreakTheRequestLine) {
  EXPECT_NE(parse_error("http://127.0.0.1/a b").find("space"), std::string::npos);
  EXPECT_NE(parse_error("http://127.0.0.1/a\r\nX-Injected: 1").find("control"), std::string::npos);
  EXPECT_NE(parse_error("http://127.0.0.1/a\n").find("control"), std::string::npos);
  EXPECT_NE(parse_error(std::string_view("http://127.0.0.1/a\0b", 20)).find("control"),
            std::string::npos);
  EXPECT_NE(parse_error("http://127.0.0.1/\x7f").find("control"), std::string::npos);
  EXPECT_NE(parse_error("http://127.0.0.1/\t").find("control"), std::string::npos);
  EXPECT_NE(parse_error("http://127.0.0.1/caf\xc3\xa9").find("non-ASCII"), std::string::npos);
  EXPECT_NE(parse_error("http://127.0.0.1 /").find("space"), std::string::npos);
}

TEST(ParseUrl, ErrorsQuoteTheUrlOnOneLine) {
  const std::string error = parse_error("http://127.0.0.1/a\r\nb");
  EXPECT_NE(error.find("\\r\\n"), std::string::npos) << error;
}

TEST(ParseUrl, HttpsTakesPort443AndKeepsItsScheme) {
  struct Case {
    std::string_view text, host;
    std::uint16_t port;
    std::string_view path;
  };
  const Case cases[] = {
      {"https://127.0.0.1/", "127.0.0.1", 443, "/"},
      {"https://127.0.0.1", "127.0.0.1", 443, "/"},
      {"HTTPS://127.0.0.1:8443/a?b#c", "127.0.0.1", 8443, "/a?b"},
      {"https://[::1]/x", "::1", 443, "/x"},
      {"https://[::1]:80?q", "::1", 80, "/?q"},
      {"https://api.internal/", "api.internal", 443, "/"},
  };
  for (const Case& c : cases) {
    Url url = parse_ok(c.text);
    EXPECT_TRUE(url.tls) << c.text;
    EXPECT_EQ(url.host, c.host) << c.text;
    EXPECT_EQ(url.port, c.port) << c.text;
    EXPECT_EQ(url.path, c.path) << c.text;
  }
  EXPECT_FALSE(parse_ok("http://127.0.0.1/").tls);
  EXPECT_EQ(parse_ok("http://127.0.0.1/").port, 80);
  // A URL parsed into a Url that held an https one is http again.
  Url url = parse_ok("https://127.0.0.1/");
  std::string error;
  ASSERT_TRUE(parse_url("http://127.0.0.1/", url, error)) << error;
  EXPECT_FALSE(url.tls);
  EXPECT_EQ(url.port, 80);
}

TEST(ParseUrl, HttpsRefusesWhatHttpRefuses) {
  EXPECT_NE(parse_error("https:///").find("no host"), std::string::npos);
  EXPECT_NE(parse_error("https://127.0.0.1:0/").find("port"), std::string::npos);
  EXPECT_NE(parse_error("https://127.0.0.1/a b").find("space"), std::string::npos);
  EXPECT_NE(parse_error("https://user@127.0.0.1/").find("IP address"), std::string::npos);
  EXPECT_NE(parse_error("https:/127.0.0.1/").find("https://"), std::string::npos);
}

// RFC 6066 section 3: SNI carries a host name, never an address literal.
TEST(TlsServerName, IsTheHostWhenItIsANameOnly) {
  EXPECT_EQ(tls_server_name(parse_ok("https://localhost:8443/")), "localhost");
  EXPECT_EQ(tls_server_name(parse_ok("https://api.internal/")), "api.internal");
  EXPECT_EQ(tls_server_name(parse_ok("https://127.0.0.1/")), "");
  EXPECT_EQ(tls_server_name(parse_ok("https://[::1]:8443/")), "");
}

TEST(ParseUrl, RefusesWhatIsNotAnHttpOrHttpsUrl) {
  EXPECT_NE(parse_error("ftp://127.0.0.1/").find("http://"), std::string::npos);
  EXPECT_NE(parse_error("ftp://127.0.0.1/").find("https://"), std::string::npos);
  EXPECT_NE(parse_error("httpss://127.0.0.1/").find("http://"), std::string::npos);
  EXPECT_NE(parse_error("127.0.0.1:80/").find("http://"), std::string::npos);
  EXPECT_NE(parse_error("http:///path").find("no host"), std::string::npos);
  EXPECT_NE(parse_error("http://:80/").find("no host"), std::string::npos);
  EXPECT_NE(parse_error("http://[::1/").find("unclosed"), std::string::npos);
  EXPECT_NE(parse_error("http://[::1]x/").find("':'"), std::string::npos);
  for (std::string_view port : {"0", "65536", "-1", "80x", "99999999999999999999"}) {
    EXPECT_NE(parse_error("http://127.0.0.1:" + std::string(port) + "/").find("port"),
              std::string::npos)
        << port;
  }
  EXPECT_NE(parse_error("http://user@127.0.0.1/").find("IP address"), std::string::npos);
}

TEST(UrlText, NamesTheUrlAsReportsShowIt) {
  EXPECT_EQ(url_text(parse_ok("http://127.0.0.1:8080/a?b#c")), "http://127.0.0.1:8080/a?b");
  EXPECT_EQ(url_text(parse_ok("http://[::1]:9000")), "http://[::1]:9000/");
  EXPECT_EQ(url_text(parse_ok("http://127.0.0.1/")), "http://127.0.0.1:80/");
  EXPECT_EQ(url_text(parse_ok("https://127.0.0.1/a")), "https://127.0.0.1:443/a");
  EXPECT_EQ(url_text(parse_ok("https://[::1]:8443")), "https://[::1]:8443/");
}

TEST(CheckMethod, TokensOnly) {
  for (std::string_view ok : {"GET", "HEAD", "POST", "M-SEARCH", "X_Y.z~!"}) {
    EXPECT_EQ(check_method(ok), "") << ok;
  }
  for (std::string_view bad : {"", "G T", "GET\r\n", "GE:T", "G\tT", "\"GET\"", "GET/"}) {
    EXPECT_NE(check_method(bad), "") << bad;
  }
  EXPECT_NE(check_method(std::string_view("G\0T", 3)), "");
}

TEST(CheckHeader, NameIsATokenAndValueHasNoControlBytes) {
  for (std::string_view ok : {"Accept: */*", "X-A:b", "X-Empty:", "X-Tab: a\tb",
                              "X-Obs: caf\xc3\xa9", "Authorization: Bearer a:b:c"}) {
    EXPECT_EQ(check_header(ok), "") << ok;
  }
  EXPECT_NE(check_header("nocolon").find("Name: value"), std::string::npos);
  EXPECT_NE(check_header(": v").find("empty"), std::string::npos);
  EXPECT_NE(check_header("Bad Name: v").find("token"), std::string::npos);
  EXPECT_NE(check_header("Name : v").find("token"), std::string::npos);
  EXPECT_NE(check_header("Na\rme: v").find("token"), std::string::npos);
  EXPECT_NE(check_header("X: a\r\nInjected: 1").find("control"), std::string::npos);
  EXPECT_NE(check_header("X: a\n").find("control"), std::string::npos);
  EXPECT_NE(check_header(std::string_view("X: a\0b", 6)).find("control"), std::string::npos);
  EXPECT_EQ(check_header("X: a\r\nb").find_first_of("\r\n"), std::string::npos) << "one line";
}

TEST(CheckRequestSpec, NamesTheFlag) {
  RequestSpec spec;
  EXPECT_EQ(check_request_spec(spec), "");
  spec.method = "G T";
  EXPECT_EQ(check_request_spec(spec).rfind("-m/--method:", 0), 0u);
  spec.method = "GET";
  spec.headers = {"Good: 1", "Bad Name: v"};
  EXPECT_EQ(check_request_spec(spec).rfind("-H/--header:", 0), 0u);
}

TEST(MakeTarget, SerialisesTheRequestOnce) {
  RequestSpec spec;
  Target target = make_target(parse_ok("http://127.0.0.1:8080/p?q#f"), spec);
  EXPECT_EQ(target.request,
            "GET /p?q HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: ringside-load\r\n\r\n");
  EXPECT_FALSE(target.is_head);

  spec.method = "POST";
  spec.headers = {"host: h", "X-A: 1"};
  spec.body = "hello";
  spec.keep_alive = false;
  target = make_target(parse_ok("http://[::1]/"), spec);
  EXPECT_EQ(target.request,
            "POST / HTTP/1.1\r\nUser-Agent: ringside-load\r\nhost: h\r\nX-A: 1\r\n"
            "Connection: close\r\nContent-Length: 5\r\n\r\nhello");

  spec = RequestSpec{};
  spec.method = "HEAD";
  target = make_target(parse_ok("http://[::1]:81/"), spec);
  EXPECT_TRUE(target.is_head);
  EXPECT_EQ(target.request.rfind("HEAD / HTTP/1.1\r\nHost: [::1]:81\r\n", 0), 0u);
}

// The Host header names the port only when it is not the scheme's default (RFC 9110 section 7.2).
TEST(MakeTarget, HostOmitsTheSchemesDefaultPort) {
  auto has_host = [](std::string_view url, const std::string& host) {
    return make_target(parse_ok(url), RequestSpec{}).request.find("\r\nHost: " + host + "\r\n") !=
           std::string::npos;
  };
  EXPECT_TRUE(has_host("https://127.0.0.1/", "127.0.0.1"));
  EXPECT_TRUE(has_host("https://127.0.0.1:80/", "127.0.0.1:80"));
  EXPECT_TRUE(has_host("https://[::1]:8443/", "[::1]:8443"));
  EXPECT_TRUE(has_host("http://127.0.0.1:443/", "127.0.0.1:443"));
}

TEST(MakeTarget, RefusesASpecThatWouldPutBadBytesOnTheWire) {
  RequestSpec spec;
  spec.headers = {"X: a\r\n\r\nGET /smuggled HTTP/1.1"};
  EXPECT_THROW(make_target(parse_ok("http://127.0.0.1/"), spec), std::invalid_argument);
  spec = RequestSpec{};
  spec.method = "G T";
  EXPECT_THROW(make_target(parse_ok("http://127.0.0.1/"), spec), std::invalid_argument);
}

// The HEADERS frame of --http2: one frame, END_STREAM and END_HEADERS, stream id 0 for the
// connection to patch, and the block the HPACK encoder (checked against nghttp2 in
// hpack_request_test) makes of the request: :authority with the port unless it is the scheme's,
// or -H Host's value; the default User-Agent; -H values without the spaces around them.
std::string expected_block(const http::H2RequestLine& line,
                           std::vector<http::H2HeaderField> fields) {
  std::string block(16384, '\0');
  block.resize(http::encode_request_headers(line, fields, block));
  return block;
}

TEST(MakeTarget, TheHttp2HeadersFrameIsEncodedOnce) {
  RequestSpec spec;
  spec.headers = {"X-Trace:  abc  "};
  const Target target = make_target(parse_ok("http://127.0.0.1:8080/users/7?x=1"), spec);
  const std::string& frame = target.h2_headers;
  ASSERT_GT(frame.size(), http::kH2FrameHeaderSize);
  const http::H2FrameHeader header = http::read_h2_frame_header(frame);
  EXPECT_EQ(header.type, static_cast<std::uint8_t>(http::H2FrameType::kHeaders));
  EXPECT_EQ(header.flags, http::h2_flags::kEndStream | http::h2_flags::kEndHeaders);
  EXPECT_EQ(header.stream_id, 0u);
  EXPECT_EQ(header.length, frame.size() - http::kH2FrameHeaderSize);
  EXPECT_EQ(frame.substr(http::kH2FrameHeaderSize),
            expected_block({"GET", "http", "127.0.0.1:8080", "/users/7?x=1"},
                           {{"user-agent", "ringside-load"}, {"X-Trace", "abc"}}));

  spec.headers = {"Host: example.test", "User-Agent: mine"};
  const Target named = make_target(parse_ok("https://[::1]/"), spec);
  EXPECT_EQ(named.h2_headers.substr(http::kH2FrameHeaderSize),
            expected_block({"GET", "https", "example.test", "/"},
                           {{"Host", "example.test"}, {"User-Agent", "mine"}}));
  spec.headers = {};
  EXPECT_EQ(make_target(parse_ok("https://[::1]:443/"), spec).h2_headers.substr(9),
            expected_block({"GET", "https", "[::1]", "/"}, {{"user-agent", "ringside-load"}}));
}

TEST(MakeTarget, AnHttp2RequestWithABodyLeavesItsStreamOpenForDataFrames) {
  RequestSpec spec;
  spec.method = "POST";
  spec.body = "0123456789";
  const Target target = make_target(parse_ok("http://127.0.0.1:8080/in"), spec);
  const http::H2FrameHeader header = http::read_h2_frame_header(target.h2_headers);
  EXPECT_EQ(header.flags, http::h2_flags::kEndHeaders);  // no END_STREAM: DATA follows
  EXPECT_EQ(target.h2_headers.substr(http::kH2FrameHeaderSize),
            expected_block({"POST", "http", "127.0.0.1:8080", "/in"},
                           {{"user-agent", "ringside-load"}, {"content-length", "10"}}));
  EXPECT_EQ(target.body(), "0123456789");
  spec.headers = {"Content-Length: 10"};  // the user's own is not doubled
  EXPECT_EQ(make_target(parse_ok("http://127.0.0.1:8080/in"), spec).h2_headers.substr(9),
            expected_block({"POST", "http", "127.0.0.1:8080", "/in"},
                           {{"user-agent", "ringside-load"}, {"Content-Length", "10"}}));
}

TEST(MakeTarget, HeadersBeyondOneFrameLeaveNoHttp2Frame) {
  RequestSpec spec;
  spec.headers = {"X-Big: " + std::string(17000, 'a')};
  const Target target = make_target(parse_ok("http://127.0.0.1/"), spec);
  EXPECT_EQ(target.h2_headers, "");
  EXPECT_FALSE(target.request.empty());  // HTTP/1.1 sends it all the same
}

}  // namespace
}  // namespace ringside::load
