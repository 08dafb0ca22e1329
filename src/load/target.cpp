#include "load/target.hpp"

#include "core/socket.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

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

}  // namespace

bool parse_url(std::string_view text, Url& url, std::string& error) {
  if (starts_with_ignore_case(text, "https://")) {
    error = "https is not supported (ringside load speaks plain HTTP/1.1): " + std::string(text);
    return false;
  }
  if (!starts_with_ignore_case(text, "http://")) {
    error = "URL must start with http:// : " + std::string(text);
    return false;
  }
  std::string_view rest = text.substr(7);
  std::size_t slash = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, slash);
  url.path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  if (url.path.front() == '?') url.path.insert(0, "/");
  std::string_view host = authority;
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    std::size_t close = authority.find(']');
    if (close == std::string_view::npos) {
      error = "unclosed '[' in URL host: " + std::string(text);
      return false;
    }
    host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') {
        error = "expected ':' after ']' in URL: " + std::string(text);
        return false;
      }
      port = authority.substr(close + 2);
    }
  } else if (std::size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) {
    error = "URL has no host: " + std::string(text);
    return false;
  }
  url.host = std::string(host);
  url.port = 80;
  if (!port.empty()) {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535) {
      error = "invalid port in URL: " + std::string(text);
      return false;
    }
    url.port = static_cast<std::uint16_t>(value);
  }
  url.address = {};
  if (!core::parse_address(url.host, url.port, url.address, url.address_length)) {
    error = "URL host must be an IP address or localhost (no name lookup): " + url.host;
    return false;
  }
  return true;
}

std::string url_text(const Url& url) {
  return "http://" + core::host_port(url.host, url.port) + url.path;
}

Target make_target(const Url& url, const RequestSpec& spec) {
  Target target;
  target.url = url;
  target.method = spec.method;
  target.is_head = spec.method == "HEAD";
  std::string& r = target.request;
  r = spec.method + " " + url.path + " HTTP/1.1\r\n";
  if (!has_header(spec.headers, "host")) {
    bool v6 = url.host.find(':') != std::string::npos;
    r += "Host: " + (v6 ? "[" + url.host + "]" : url.host);
    if (url.port != 80) r += ":" + std::to_string(url.port);
    r += "\r\n";
  }
  if (!has_header(spec.headers, "user-agent")) r += "User-Agent: ringside-load\r\n";
  for (const std::string& header : spec.headers) r += header + "\r\n";
  if (!spec.keep_alive && !has_header(spec.headers, "connection")) r += "Connection: close\r\n";
  if (!spec.body.empty() && !has_header(spec.headers, "content-length")) {
    r += "Content-Length: " + std::to_string(spec.body.size()) + "\r\n";
  }
  r += "\r\n";
  r += spec.body;
  return target;
}

}  // namespace ringside::load
