// The syntax of a host and optional port, as the Host header (RFC 9112 section 3.2) and the
// authority of an absolute-form request target carry them (RFC 3986 section 3.2.2-3.2.3):
//
//   uri-host [ ":" port ]    uri-host = IP-literal / IPv4address / reg-name    port = *DIGIT
//
//   HostPort hp;
//   if (!parse_host_port("[::1]:8080", hp)) ...   // hp.host "[::1]", hp.port "8080"
//
// Syntax only: no name lookup and no port range, so every host a client could have written in a URL
// passes, while "a b", "a/b", "[::1", "user@host" and raw UTF-8 (which must be percent-encoded)
// do not. An empty host is valid syntax (reg-name may be empty); callers that need a host check.
// Pure and constexpr, no allocation.
#pragma once

#include <string_view>

#include "http/token.hpp"

namespace ringside::http {

struct HostPort {
  std::string_view host;  // as written, brackets of an IP-literal included
  std::string_view port;  // digits after ':', possibly empty; empty also when there is no ':'
};

namespace authority_detail {

constexpr bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
constexpr bool is_unreserved(char c) {
  return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}
constexpr bool is_sub_delim(char c) {
  return std::string_view("!$&'()*+,;=").find(c) != std::string_view::npos;
}

// unreserved / sub-delims, as a table: every request's Host goes through is_reg_name, and a
// search of the sub-delims string per byte cost more than the rest of the Host check.
struct RegNameTable {
  bool allowed[256] = {};
  constexpr RegNameTable() {
    for (int c = 0; c < 256; ++c) {
      allowed[c] = is_unreserved(static_cast<char>(c)) || is_sub_delim(static_cast<char>(c));
    }
  }
};
inline constexpr RegNameTable kRegName{};

// reg-name = *( unreserved / pct-encoded / sub-delims ). IPv4address is a subset of it.
constexpr bool is_reg_name(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (kRegName.allowed[static_cast<unsigned char>(s[i])]) continue;
    if (s[i] != '%' || s.size() - i < 3 || !is_hex(s[i + 1]) || !is_hex(s[i + 2])) return false;
    i += 2;
  }
  return true;
}

// dec-octet "." dec-octet "." dec-octet "." dec-octet, with no leading zeros.
constexpr bool is_ipv4(std::string_view s) {
  for (int octet = 0; octet < 4; ++octet) {
    std::size_t n = 0;
    unsigned value = 0;
    while (n < s.size() && n < 3 && is_digit(s[n])) value = value * 10 + unsigned(s[n++] - '0');
    if (n == 0 || value > 255 || (n > 1 && s[0] == '0')) return false;
    s.remove_prefix(n);
    if (octet < 3) {
      if (s.empty() || s[0] != '.') return false;
      s.remove_prefix(1);
    }
  }
  return s.empty();
}

// Eight h16 groups, or fewer with one "::" standing for the rest; the last 32 bits may be written
// as an IPv4address (RFC 3986 section 3.2.2, RFC 4291 section 2.2).
constexpr bool is_ipv6(std::string_view s) {
  int groups = 0;
  bool compressed = false;
  std::size_t i = 0;
  if (s.starts_with("::")) {
    compressed = true;
    i = 2;
    if (i == s.size()) return true;
  }
  while (true) {
    const std::size_t colon = s.find(':', i);
    const std::string_view piece = s.substr(i, colon == std::string_view::npos ? colon : colon - i);
    if (colon == std::string_view::npos && piece.find('.') != std::string_view::npos) {
      if (!is_ipv4(piece)) return false;
      groups += 2;
      break;
    }
    if (piece.empty() || piece.size() > 4) return false;
    for (char c : piece) {
      if (!is_hex(c)) return false;
    }
    ++groups;
    if (colon == std::string_view::npos) break;
    i = colon + 1;
    if (i == s.size()) return false;  // a single trailing ':'
    if (s[i] == ':') {
      if (compressed) return false;
      compressed = true;
      if (++i == s.size()) break;
    }
  }
  return compressed ? groups <= 7 : groups == 8;
}

// IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
constexpr bool is_ip_future(std::string_view s) {
  if (s.size() < 4 || (s[0] != 'v' && s[0] != 'V')) return false;
  std::size_t i = 1;
  while (i < s.size() && is_hex(s[i])) ++i;
  if (i == 1 || i + 1 >= s.size() || s[i] != '.') return false;
  for (++i; i < s.size(); ++i) {
    if (!is_unreserved(s[i]) && !is_sub_delim(s[i]) && s[i] != ':') return false;
  }
  return true;
}

}  // namespace authority_detail

// True when `value` is uri-host [ ":" port ]; then `out` holds its two parts.
[[nodiscard]] constexpr bool parse_host_port(std::string_view value, HostPort& out) {
  using namespace authority_detail;
  std::string_view host;
  std::string_view rest;
  if (!value.empty() && value.front() == '[') {
    const std::size_t close = value.find(']');
    if (close == std::string_view::npos) return false;
    const std::string_view literal = value.substr(1, close - 1);
    if (!is_ipv6(literal) && !is_ip_future(literal)) return false;
    host = value.substr(0, close + 1);
    rest = value.substr(close + 1);
  } else {
    // One pass over the reg-name, ending at the port's ':' (which reg-name cannot hold).
    const char* p = value.data();
    const char* const end = p + value.size();
    while (true) {
      while (p != end && kRegName.allowed[static_cast<unsigned char>(*p)]) ++p;
      if (p == end || *p == ':') break;
      if (*p != '%' || end - p < 3 || !is_hex(p[1]) || !is_hex(p[2])) return false;
      p += 3;
    }
    const auto i = static_cast<std::size_t>(p - value.data());
    host = value.substr(0, i);
    rest = value.substr(i);
  }
  if (!rest.empty()) {
    if (rest.front() != ':') return false;
    rest.remove_prefix(1);
    for (char c : rest) {
      if (!is_digit(c)) return false;
    }
  }
  out = {host, rest};
  return true;
}

}  // namespace ringside::http
