// Where requests go: a parsed http:// or https:// URL with its socket address and the bytes of the
// request serialised once, so a connection only ever copies or writev()s them.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/resolve.hpp"
#include "core/socket.hpp"

namespace ringside::load {

struct Url {
  bool tls = false;  // https://
  std::string host;  // as written, without brackets
  std::uint16_t port = 80;  // the scheme's (80, 443) when the URL names none
  std::string path;  // path and query, at least "/"
  // Where every connection goes: the IP literal, or for a host name the address resolve_url
  // (load/resolve_url.hpp) chose. address_length is 0 for a name not resolved yet.
  sockaddr_storage address{};
  socklen_t address_length = 0;
  // For a host name: every address it resolved to, in the resolver's order (empty for a literal).
  std::vector<core::SocketAddress> resolved;

  [[nodiscard]] bool is_name() const { return !core::is_ip_literal(host); }
  [[nodiscard]] std::uint16_t default_port() const { return tls ? 443 : 80; }
};

// The name a TLS client sends as SNI and verifies the certificate against: the host when it is a
// name, "" for an IP literal (RFC 6066 section 3: "Literal IPv4 and IPv6 addresses are not
// permitted in HostName"; the certificate is then checked for the address itself).
std::string tls_server_name(const Url& url);

// Parses "http://HOST[:PORT][/path?query][#fragment]", or the same with https:// (port 443 when
// none is given). HOST is an IP literal, which fills in
// `address`, or a host name (core::is_host_name), which resolve_url looks up later, once. The
// fragment is dropped, as curl does (it never goes on the wire); a space, a control byte or a
// non-ASCII byte is refused rather than sent (percent-encode it). On failure returns false and
// sets `error` to one line saying what is wrong.
bool parse_url(std::string_view text, Url& url, std::string& error);

struct RequestSpec {
  std::string method = "GET";
  std::vector<std::string> headers;  // "Name: value"
  std::string body;
  bool keep_alive = true;
};

// A method and a header name must be RFC 9110 tokens; a header value may hold no control byte
// but HTAB (a CR or LF would end the header, or the head, early and smuggle what follows).
// check_method and check_header return "" or what is wrong (for the caller to prefix with the
// flag); check_request_spec returns one line that names the flag (-m/--method, -H/--header).
std::string check_method(std::string_view method);
std::string check_header(std::string_view header);
std::string check_request_spec(const RequestSpec& spec);

// "http://host:port/path" (or https://), IPv6 hosts in brackets: how reports name a URL.
std::string url_text(const Url& url);

// The request for one URL, serialised once.
struct Target {
  Url url;
  std::string method;
  std::string request;  // the whole request: head and body
  std::size_t body_size = 0;
  // --http2: the request's HEADERS frame (stream id 0, patched per stream; Host as :authority,
  // the connection-specific fields left out), "" when its header block exceeds one 16 KiB frame.
  // With a body its END_STREAM is off (DATA frames carry the body) and content-length is set.
  std::string h2_headers;
  bool is_head = false;

  // The request's body: the tail of `request`.
  [[nodiscard]] std::string_view body() const {
    return std::string_view(request).substr(request.size() - body_size);
  }
};

// Throws std::invalid_argument with check_request_spec's message when the spec is not valid.
Target make_target(const Url& url, const RequestSpec& spec);

}  // namespace ringside::load
