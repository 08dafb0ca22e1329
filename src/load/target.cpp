#include "load/target.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <stdexcept>

#include "core/socket.hpp"
#include "http/h2_frame.hpp"
#include "http/hpack_request.hpp"
#include "http/token.hpp"

namespace ringside::load {
namespace {

bool starts_with_ignore_case(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

bool has_header(const std::vector<std::string>& headers, std::string_view name) {
  return std::any_of(headers.begin(), headers.end(), [&](const std::string& header) {
    return header.size() > name.size() && header[name.size()] == ':' &&
           starts_with_ignore_case(header, name);
  });
}

// Text for a one-line message: control and non-ASCII bytes escaped, so a CR in a flag cannot
// split the line that reports it.
std::string printable(std::string_view text) {
  std::string out;
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else if (u < 0x20 || u >= 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", u);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out;
}

// The request-target goes on the wire as is: RFC 9112 allows visible ASCII only.
std::string check_url_bytes(std::string_view text) {
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (c == ' ') return "URL contains a space (percent-encode it as %20): " + printable(text);
    if (u < 0x20 || u == 0x7f) return "URL contains a control character: " + printable(text);
    if (u > 0x7f) return "URL contains a non-ASCII byte (percent-encode it): " + printable(text);
  }
  return "";
}

}  // namespace

bool parse_url(std::string_view text, Url& url, std::string& error) {
  text = text.substr(0, text.find('#'));  // the fragment stays with the client, as in curl
  error = check_url_bytes(text);
  if (!error.empty()) return false;
  url.tls = starts_with_ignore_case(text, "https://");
  if (!url.tls && !starts_with_ignore_case(text, "http://")) {
    error = "URL must start with http:// or https:// : " + printable(text);
    return false;
  }
  std::string_view rest = text.substr(url.tls ? 8 : 7);
  std::size_t slash = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, slash);
  url.path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  if (url.path.front() == '?') url.path.insert(0, "/");
  std::string_view host = authority;
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    std::size_t close = authority.find(']');
    if (close == std::string_view::npos) {
      error = "unclosed '[' in URL host: " + printable(text);
      return false;
    }
    host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') {
        error = "expected ':' after ']' in URL: " + printable(text);
        return false;
      }
      port = authority.substr(close + 2);
    }
  } else if (std::size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) {
    error = "URL has no host: " + printable(text);
    return false;
  }
  url.host = std::string(host);
  url.port = url.default_port();
  if (!port.empty()) {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535) {
      error = "invalid port in URL: " + printable(text);
      return false;
    }
    url.port = static_cast<std::uint16_t>(value);
  }
  url.address = {};
  url.address_length = 0;
  url.resolved.clear();
  if (core::parse_address(url.host, url.port, url.address, url.address_length)) return true;
  if (authority.front() == '[' || !core::is_host_name(url.host)) {
    error = "URL host must be an IP address or a host name (letters, digits, '-', '.'): " +
            printable(host);
    return false;
  }
  return true;
}

std::string url_text(const Url& url) {
  return (url.tls ? "https://" : "http://") + core::host_port(url.host, url.port) + url.path;
}

std::string tls_server_name(const Url& url) { return url.is_name() ? url.host : ""; }

std::string check_method(std::string_view method) {
  if (method.empty()) return "the method is empty";
  if (!std::all_of(method.begin(), method.end(), http::is_token)) {
    return "a method is a token (letters, digits, !#$%&'*+-.^_`|~), got: " + printable(method);
  }
  return "";
}

std::string check_header(std::string_view header) {
  const std::size_t colon = header.find(':');
  if (colon == std::string_view::npos) return "expected 'Name: value', got: " + printable(header);
  const std::string_view name = header.substr(0, colon);
  if (name.empty()) return "the header name before ':' is empty: " + printable(header);
  if (!std::all_of(name.begin(), name.end(), http::is_token)) {
    return "a header name is a token (letters, digits, !#$%&'*+-.^_`|~; no spaces), got: " +
           printable(name);
  }
  const std::string_view value = header.substr(colon + 1);
  if (!std::all_of(value.begin(), value.end(), http::is_value_char)) {
    return "the value of " + std::string(name) +
           " contains a control character (CR, LF, NUL, ...): " + printable(header);
  }
  return "";
}

std::string check_request_spec(const RequestSpec& spec) {
  if (std::string error = check_method(spec.method); !error.empty()) return "-m/--method: " + error;
  for (const std::string& header : spec.headers) {
    if (std::string error = check_header(header); !error.empty()) return "-H/--header: " + error;
  }
  return "";
}

namespace {

// "Name: value" split, the value without the spaces around it (RFC 9110 section 5.5).
http::H2HeaderField split_header(std::string_view header) {
  const std::size_t colon = header.find(':');
  return {header.substr(0, colon), http::trim_whitespace(header.substr(colon + 1))};
}

// Host and :authority: the host, bracketed if IPv6, and the port unless it is the scheme's.
std::string authority_of(const Url& url) {
  if (url.port != url.default_port()) return core::host_port(url.host, url.port);
  return url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
}

// The request's HEADERS frame (END_HEADERS, and END_STREAM unless a body follows in DATA frames;
// stream id 0, patched per stream), or "" when its header block does not fit one frame of the
// default maximum size.
std::string h2_headers_frame(const Url& url, const RequestSpec& spec, std::string_view host) {
  std::vector<http::H2HeaderField> fields;
  if (!has_header(spec.headers, "user-agent")) fields.push_back({"user-agent", "ringside-load"});
  for (const std::string& header : spec.headers) fields.push_back(split_header(header));
  const std::string length = std::to_string(spec.body.size());
  if (!spec.body.empty() && !has_header(spec.headers, "content-length")) {
    fields.push_back({"content-length", length});
  }
  std::string authority(host);
  for (const http::H2HeaderField& field : fields) {
    if (http::equals_ignore_case(field.name, "host")) authority = field.value;
  }
  std::string frame(http::kH2FrameHeaderSize + http::kH2DefaultMaxFrameSize, '\0');
  const std::size_t block = http::encode_request_headers(
      {spec.method, url.tls ? "https" : "http", authority, url.path}, fields,
      std::span<char>(frame).subspan(http::kH2FrameHeaderSize));
  if (block == 0) return "";
  http::H2FrameHeader header;
  header.length = static_cast<std::uint32_t>(block);
  header.type = static_cast<std::uint8_t>(http::H2FrameType::kHeaders);
  header.flags = spec.body.empty() ? http::h2_flags::kEndStream | http::h2_flags::kEndHeaders
                                   : http::h2_flags::kEndHeaders;
  http::write_h2_frame_header(header, frame.data());
  frame.resize(http::kH2FrameHeaderSize + block);
  return frame;
}

}  // namespace

Target make_target(const Url& url, const RequestSpec& spec) {
  if (std::string error = check_request_spec(spec); !error.empty()) {
    throw std::invalid_argument(error);
  }
  Target target;
  target.url = url;
  target.method = spec.method;
  target.is_head = spec.method == "HEAD";
  std::string& r = target.request;
  r = spec.method + " " + url.path + " HTTP/1.1\r\n";
  const std::string authority = authority_of(url);
  if (!has_header(spec.headers, "host")) r += "Host: " + authority + "\r\n";
  if (!has_header(spec.headers, "user-agent")) r += "User-Agent: ringside-load\r\n";
  for (const std::string& header : spec.headers) r += header + "\r\n";
  if (!spec.keep_alive && !has_header(spec.headers, "connection")) r += "Connection: close\r\n";
  if (!spec.body.empty() && !has_header(spec.headers, "content-length")) {
    r += "Content-Length: " + std::to_string(spec.body.size()) + "\r\n";
  }
  r += "\r\n";
  r += spec.body;
  target.body_size = spec.body.size();
  target.h2_headers = h2_headers_frame(url, spec, authority);
  return target;
}

}  // namespace ringside::load
